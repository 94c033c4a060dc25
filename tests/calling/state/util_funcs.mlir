// A module with state whose functions are IREE's `util.func` (what IREE's torch input
// pipeline makes of a torch program's functions): a 4x8 cache that @step writes through a
// private helper it calls, and a counter @calls reads (a `util.func` without visibility
// is public).
util.global private mutable @cache = dense<0.0> : tensor<4x8xf32>
util.global private mutable @count = dense<0> : tensor<i32>
util.global private @scale = dense<2.0> : tensor<4x8xf32>

util.func private @add_row(%row: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %cache = util.global.load @cache : tensor<4x8xf32>
  %scale = util.global.load @scale : tensor<4x8xf32>
  %scaled = arith.mulf %row, %scale : tensor<4x8xf32>
  %sum = arith.addf %cache, %scaled : tensor<4x8xf32>
  util.global.store %sum, @cache : tensor<4x8xf32>
  util.return %sum : tensor<4x8xf32>
}

util.func public @step(%row: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sum = util.call @add_row(%row) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  util.return %sum : tensor<4x8xf32>
}

util.func @calls() -> tensor<i32> {
  %count = util.global.load @count : tensor<i32>
  util.return %count : tensor<i32>
}

util.func public @double(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %scale = util.global.load @scale : tensor<4x8xf32>
  %y = arith.mulf %x, %scale : tensor<4x8xf32>
  util.return %y : tensor<4x8xf32>
}
