// A small model's entry points with structured signatures: what a typed frontend hands
// to abi-compiler. Try:
//   abi-opt examples/structured.mlir -p iree-abi-v1       (V1: iree.abi + list wrappers)
//   abi-opt examples/structured.mlir -p iree-abi-legacy   (legacy: flat + fv/f + sip)

// Plain tensors in and out, one dynamic dim.
func.func @predict(%image: tensor<?x224x224x3xf32>, %scale: f32) -> tensor<?x1000xf32> {
  %logits = func.call @classifier(%image) : (tensor<?x224x224x3xf32>) -> tensor<?x1000xf32>
  func.return %logits : tensor<?x1000xf32>
}

// A tuple argument and a tuple result, taken apart and rebuilt with abi ops.
func.func @swap(%pair: tuple<tensor<4xf32>, tensor<?xi32>>) -> tuple<tensor<?xi32>, tensor<4xf32>> {
  %a = abi.tuple.get %pair[0] : tuple<tensor<4xf32>, tensor<?xi32>> -> tensor<4xf32>
  %b = abi.tuple.get %pair[1] : tuple<tensor<4xf32>, tensor<?xi32>> -> tensor<?xi32>
  %swapped = abi.tuple.pack %b, %a : (tensor<?xi32>, tensor<4xf32>) -> tuple<tensor<?xi32>, tensor<4xf32>>
  func.return %swapped : tuple<tensor<?xi32>, tensor<4xf32>>
}

// A dict of named state, a step count, and a homogeneous list of extra inputs.
func.func @update(%state: !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>,
                  %steps: i64, %extras: !util.list<?>) -> (!abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>, i64) {
  %w = abi.dict.get %state["weights"] : !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>> -> tensor<16x16xf32>
  %b = abi.dict.get %state["bias"] : !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>> -> tensor<16xf32>
  %one = arith.constant 1 : i64
  %next = arith.addi %steps, %one : i64
  %new = abi.dict.pack %b, %w : (tensor<16xf32>, tensor<16x16xf32>) -> !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>
  func.return %new, %next : !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>, i64
}

// Named (keyword) arguments after a positional one.
func.func @generate(%prompt: tensor<?xi32>, %temperature: f32 {abi.name = "temperature"},
                    %top_k: i32 {abi.name = "top_k"}) -> tensor<?xi32> {
  func.return %prompt : tensor<?xi32>
}

// Not exported: a private helper, called by @predict.
func.func private @classifier(%image: tensor<?x224x224x3xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %image, %c0 : tensor<?x224x224x3xf32>
  %logits = tensor.empty(%n) : tensor<?x1000xf32>
  func.return %logits : tensor<?x1000xf32>
}
