// A carried top-level op that defines a symbol takes that name, whatever its syntax:
// wrapping @step would need @_step. (A nested module's symbols are its own: no
// collision.)
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics

module {
  util.global private @_step : tensor<4xf32>
  // expected-error @+1 {{symbol @_step already exists}}
  func.func @step(%p: tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32> {
    %a = abi.tuple.get %p[0] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
}

// -----

// Custom form with a string keyword.
memref.global "private" @_step : memref<2xf32> = dense<[1.0, 2.0]>
// expected-error @+1 {{symbol @_step already exists}}
func.func @step(%p: tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>> {
  return %p : tuple<tensor<4xf32>>
}

// -----

// Generic form: the name is the `sym_name` property (or attribute).
"memref.global"() <{sym_name = "_step", type = memref<2xf32>, initial_value, sym_visibility = "private"}> : () -> ()
// expected-error @+1 {{symbol @_step already exists}}
func.func @step(%p: tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>> {
  return %p : tuple<tensor<4xf32>>
}

// -----

"foo.symbol"() {sym_name = "_step", foo.x = {sym_name = "other"}} : () -> ()
// expected-error @+1 {{symbol @_step already exists}}
func.func @step(%p: tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>> {
  return %p : tuple<tensor<4xf32>>
}

// -----

// A quoted name, with an escape.
util.global private @"_st\65p" : tensor<4xf32>
// expected-error @+1 {{symbol @_step already exists}}
func.func @step(%p: tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>> {
  return %p : tuple<tensor<4xf32>>
}

// -----

// A nested module's @_step is in its own symbol table: no collision. (Its functions get
// no ABI, as in IREE; it is carried as written.)
// expected-warning @+1 {{functions in a nested module get no ABI: only the top-level module's functions are processed}}
module @inner {
  func.func private @_step(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
func.func @step(%p: tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>> {
  return %p : tuple<tensor<4xf32>>
}
