// RUN: abi-opt %s --allow-unregistered-dialect -p materialize-raw-abi --verify-diagnostics | filecheck %s
// !torch.vtensor is the buffer of the builtin tensor it stands for (`?` and `-1` dims are
// d-1, si64 is t7, ui8 t8, bf16 t3); only types that are really unknown are U1! with the
// warning: a vtensor without dtype or rank (as an unranked builtin tensor), a non-value
// !torch.tensor, other torch types.

// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: iree.reflection = {f = "I28!B13!d1d3d224d224B9!t7d-1d10R16!B8!d1d1000B3!t7", fv = "1"}} {
func.func @main_graph(%arg0: !torch.vtensor<[1,3,224,224],f32>, %arg1: !torch.vtensor<[?,10],si64>) -> (!torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) <{name = "onnx.GlobalAveragePool"}> : (!torch.vtensor<[1,3,224,224],f32>) -> !torch.vtensor<[1,1000],f32>
  %1 = "torch.operator"(%arg1) <{name = "onnx.ReduceMax"}> {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[?,10],si64>) -> !torch.vtensor<[],si64>
  return %0, %1 : !torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>
}

// CHECK-LABEL: func.func @fx(
// CHECK-SAME: iree.reflection = {f = "I38!B5!d3d4B6!t3d-1B5!t8d2U1!U1!U1!U1!U1!R8!B5!d3d4", fv = "1"}} {
func.func @fx(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[-1],bf16>, %arg2: !torch.vtensor<[2],ui8>,
              // expected-warning @+1 {{Argument #3 of function fx is not a recognized public ABI type and the function may not be invokable by standard tools}}
              %arg3: !torch.int,
              // expected-warning @+1 {{Argument #4 of function fx is not a recognized public ABI type}}
              %arg4: !torch.vtensor<*,f32>,
              // expected-warning @+1 {{Argument #5 of function fx is not a recognized public ABI type}}
              %arg5: !torch.vtensor<[2],unk>,
              // expected-warning @+1 {{Argument #6 of function fx is not a recognized public ABI type}}
              %arg6: !torch.vtensor,
              // expected-warning @+1 {{Argument #7 of function fx is not a recognized public ABI type}}
              %arg7: !torch.tensor<[3],f32>) -> !torch.vtensor<[3,4],f32> {
  return %arg0 : !torch.vtensor<[3,4],f32>
}
