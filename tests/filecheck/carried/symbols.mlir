// A carried top-level op that defines a symbol takes that name: wrapping @step would need
// @_step.
// RUN: abi-opt %s -p iree-abi-v1 --verify-diagnostics

module {
  util.global private @_step : tensor<4xf32>
  // expected-error @+1 {{symbol @_step already exists}}
  func.func @step(%p: tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32> {
    %a = abi.tuple.get %p[0] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
}
