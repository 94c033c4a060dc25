// A module with state: a 4x8 cache each call writes a row of, and a call counter.
util.global private mutable @cache = dense<0.0> : tensor<4x8xf32>
util.global private mutable @count = dense<0> : tensor<i32>
util.global private @scale = dense<2.0> : tensor<8xf32>

func.func @step(%row: tensor<8xf32>, %position: tensor<i32>) -> tensor<f32> {
  %cache = util.global.load @cache : tensor<4x8xf32>
  %scale = util.global.load @scale : tensor<8xf32>
  %scaled = arith.mulf %row, %scale : tensor<8xf32>
  %p = tensor.extract %position[] : tensor<i32>
  %i = arith.index_cast %p : i32 to index
  %updated = tensor.insert_slice %scaled into %cache[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
  util.global.store %updated, @cache : tensor<4x8xf32>
  %count = util.global.load @count : tensor<i32>
  %one = arith.constant dense<1> : tensor<i32>
  %next = arith.addi %count, %one : tensor<i32>
  util.global.store %next, @count : tensor<i32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %sum = linalg.reduce ins(%updated : tensor<4x8xf32>) outs(%zero : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %s = arith.addf %a, %b : f32
      linalg.yield %s : f32 }
  return %sum : tensor<f32>
}

func.func @calls() -> tensor<i32> {
  %count = util.global.load @count : tensor<i32>
  return %count : tensor<i32>
}

func.func @double(%x: tensor<8xf32>) -> tensor<8xf32> {
  %scale = util.global.load @scale : tensor<8xf32>
  %y = arith.mulf %x, %scale : tensor<8xf32>
  return %y : tensor<8xf32>
}

// A private helper that writes the counter: @reset_count writes it through the call.
func.func private @zero_count() {
  %zero = arith.constant dense<0> : tensor<i32>
  util.global.store %zero, @count : tensor<i32>
  return
}

func.func @reset_count() {
  func.call @zero_count() : () -> ()
  return
}
