// An op that cannot be parsed in a body that must be: located at the op, saying why the
// body is parsed and what to write instead.
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics
// RUN: abi-opt %s -p iree-abi-legacy --split-input-file --verify-diagnostics

func.func @pair(%p: tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32> {
  %a = abi.tuple.get %p[0] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
  %b = abi.tuple.get %p[1] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
  // expected-error @+1 {{Operation stablehlo.add is not registered and its custom syntax cannot be parsed: the body is parsed because the signature of @pair holds structured values; write it in generic form ("stablehlo.add"(…) : (…) -> (…))}}
  %s = stablehlo.add %a, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

!pair = tuple<tensor<4xf32>, tensor<4xf32>>
func.func private @make(%x: tensor<4xf32>) -> !pair
func.func private @consume(%p: !pair) -> tensor<4xf32>
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = func.call @make(%x) : (tensor<4xf32>) -> !pair
  %r = func.call @consume(%t) : (!pair) -> tensor<4xf32>
  // expected-error @+1 {{Operation stablehlo.multiply is not registered and its custom syntax cannot be parsed: the body is parsed because @caller calls @consume, whose signature is flattened; write it in generic form ("stablehlo.multiply"(…) : (…) -> (…))}}
  %m = stablehlo.multiply %r, %r : tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @works_with_tuples(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = abi.tuple.pack %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %a = abi.tuple.get %t[0] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
  // expected-error @+1 {{Operation stablehlo.negate is not registered and its custom syntax cannot be parsed: the body is parsed because the body of @works_with_tuples works with structured values; write it in generic form ("stablehlo.negate"(…) : (…) -> (…))}}
  %n = stablehlo.negate %a : tensor<4xf32>
  return %n : tensor<4xf32>
}
