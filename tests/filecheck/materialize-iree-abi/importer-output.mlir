// RUN: abi-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect -p iree-abi-v1 | filecheck %s
// An importer's output that has lost the structure a frontend keeps (docs/structure.md,
// "Importers' output"): one warning per module, at the first such function, naming what
// keeps it. Hand-written modules of the importers' forms (names and attributes as they
// write them); the functions are still lowered, positional and flat.

// The ONNX importer: `torch.onnx_meta.*` attributes, `!torch.vtensor` values.
// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,2,1,3]],\22v\22:1}"
// expected-warning @+1 {{function main_graph looks like the output of IREE's ONNX importer (its 'torch.onnx_meta' attributes), which drops the graph's input and output names: it is lowered positional and flat. `abi-compile model.onnx` (or abi_compiler.frontends.onnx) keeps them}}
func.func @main_graph(%arg0: !torch.vtensor<[1,4],f32>) -> !torch.vtensor<[1,3],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "pytorch", torch.onnx_meta.producer_version = "2.13.0"} {
  %0 = torch.operator "onnx.Softmax"(%arg0) {torch.onnx.axis = -1 : si64} : (!torch.vtensor<[1,4],f32>) -> !torch.vtensor<[1,3],f32>
  return %0 : !torch.vtensor<[1,3],f32>
}
// The second function of the module: no second warning.
func.func @other(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.ir_version = 8 : si64} {
  return %arg0 : !torch.vtensor<[2],f32>
}

// -----

// A torch importer's text (iree-turbine): `!torch.vtensor` arguments and results.
// expected-warning @+1 {{function main looks like the output of a torch importer (iree-turbine, torch-mlir: '!torch.vtensor' values), which drops the program's argument structure and keyword arguments: it is lowered positional and flat. `abi-compile program.pt2` (or abi_compiler.frontends.torch) keeps them}}
func.func @main(%arg0: !torch.vtensor<[2,4],f32>, %arg1: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.assume_strict_symbolic_shapes} {
  %0 = torch.aten.mul.Tensor %arg0, %arg1 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// The TensorFlow importer: a signature's function next to `@session_initializer`, the
// variables as `ml_program` globals.
// expected-warning @+5 {{function serving_default looks like the output of IREE's TensorFlow importer (its '@session_initializer'), which drops the signature's input and output names: it is lowered positional and flat. `abi-compile saved_model_dir` (or abi_compiler.frontends.tf) keeps them}}
ml_program.global public @vars.Variable(dense<1.0> : tensor<4x3xf32>) : tensor<4x3xf32>
func.func @session_initializer() {
  return
}
func.func @serving_default(%arg0: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = ml_program.global_load @vars.Variable : tensor<4x3xf32>
  %0 = stablehlo.dot %arg0, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The same functions with their structure (a frontend's output): no warning.
// CHECK-LABEL: func.func @score(
// CHECK-SAME: %x: tensor<2x4xf32>
func.func @session_initializer() {
  return
}
func.func @score(%arg0: tensor<2x4xf32> {abi.index_path = ["x"]}) -> (tensor<2x3xf32> {abi.index_path = ["logits"]}) {
  %0 = "test.op"(%arg0) : (tensor<2x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @main_graph(%arg0: !torch.vtensor<[1,4],f32> {abi.index_path = ["input"]}) -> (!torch.vtensor<[1,4],f32> {abi.index_path = ["output"]}) attributes {torch.onnx_meta.ir_version = 8 : si64} {
  return %arg0 : !torch.vtensor<[1,4],f32>
}

// -----

// A plain function with no importer's marks: no warning.
// CHECK-LABEL: func.func @f(
func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
