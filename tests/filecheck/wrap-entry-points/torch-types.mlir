// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-v1 | filecheck %s
// An ONNX import needs no wrapper (no structure): it keeps its !torch.vtensor signature
// and body and gets the iree.abi of the builtin tensors they stand for.

// CHECK-NOT: iree.abi.stub
// CHECK: func.func @main_graph(%arg0: !torch.vtensor<[1,3,224,224],f32>, %arg1: !torch.vtensor<[?,10],si64>) -> (!torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,4,1,3,224,224],[\22ndarray\22,\22i64\22,2,null,10]],\22r\22:[[\22ndarray\22,\22f32\22,2,1,1000],[\22ndarray\22,\22i64\22,0]],\22v\22:1}"}} {
// CHECK-NEXT: %0 = "torch.operator"(%arg0) <{name = "onnx.GlobalAveragePool"}> : (!torch.vtensor<[1,3,224,224],f32>) -> !torch.vtensor<[1,1000],f32>
// CHECK-NEXT: %1 = "torch.operator"(%arg1) <{name = "onnx.ReduceMax"}> {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[?,10],si64>) -> !torch.vtensor<[],si64>
// CHECK-NEXT: return %0, %1 : !torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>
func.func @main_graph(%arg0: !torch.vtensor<[1,3,224,224],f32>, %arg1: !torch.vtensor<[?,10],si64>) -> (!torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"(%arg0) <{name = "onnx.GlobalAveragePool"}> : (!torch.vtensor<[1,3,224,224],f32>) -> !torch.vtensor<[1,1000],f32>
  %1 = "torch.operator"(%arg1) <{name = "onnx.ReduceMax"}> {torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[?,10],si64>) -> !torch.vtensor<[],si64>
  return %0, %1 : !torch.vtensor<[1,1000],f32>, !torch.vtensor<[],si64>
}
