// RUN: abi-opt %s --allow-unregistered-dialect -p materialize-iree-abi | filecheck %s
// torch-mlir and ONNX imports type entry points with !torch.vtensor: each is described
// exactly like the builtin tensor it stands for (`[2,?]` is 2x?, `[]` rank 0, `*`
// unranked, si64 is i64 as for `tensor<…xsi64>`). Only what is really unknown is
// "unknown": a vtensor without dtype, a non-value !torch.tensor, other torch types.

// An ONNX import (torch-mlir's ONNX importer, bodies of torch.operator ops).
// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,4,1,3,224,224],[\22ndarray\22,\22i64\22,2,null,10]],\22r\22:[[\22ndarray\22,\22f32\22,2,1,1000],[\22ndarray\22,\22i64\22,0]],\22v\22:1}"}} {
module {
  func.func @main_graph(%arg0: !torch.vtensor<[1,3,224,224],f32>, %arg1: !torch.vtensor<[?,10],si64>) -> (!torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "pytorch", torch.onnx_meta.producer_version = "2.1.0"} {
    %0 = "torch.operator"(%arg0) <{name = "onnx.GlobalAveragePool"}> : (!torch.vtensor<[1,3,224,224],f32>) -> !torch.vtensor<[1,1000],f32>
    %1 = "torch.operator"(%arg1) <{name = "onnx.ReduceMax"}> {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[?,10],si64>) -> !torch.vtensor<[],si64>
    return %0, %1 : !torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>
  }

  // An FX import with a scalar !torch.int argument (not declared: read as an opaque
  // type with --allow-unregistered-dialect).
  // CHECK-LABEL: func.func @fx(
  // CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,3,4],\22unknown\22,[\22ndarray\22,\22f32\22,null],[\22ndarray\22,\22bf16\22,1,null],[\22ndarray\22,\22i8\22,1,2],[\22ndarray\22,\22i1\22,0],\22unknown\22,\22unknown\22,\22unknown\22],\22r\22:[[\22ndarray\22,\22f32\22,2,3,4]],\22v\22:1}"}} {
  func.func @fx(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.int, %arg2: !torch.vtensor<*,f32>,
                %arg3: !torch.vtensor<[-1],bf16>, %arg4: !torch.vtensor<[2],ui8>, %arg5: !torch.vtensor<[],i1>,
                %arg6: !torch.vtensor<[2],unk>, %arg7: !torch.vtensor, %arg8: !torch.tensor<[3],f32>) -> !torch.vtensor<[3,4],f32> {
    return %arg0 : !torch.vtensor<[3,4],f32>
  }
}
