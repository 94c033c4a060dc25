// RUN: abi-opt %s -p materialize-sip-abi | filecheck %s
// A !torch.vtensor is a leaf like any tensor: the trivial structure.

// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I12!S9!k0_0k1_1R12!S9!k0_0k1_1", sipv = "1"}} {
func.func @main_graph(%arg0: !torch.vtensor<[1,3,224,224],f32>, %arg1: !torch.vtensor<[?,10],si64>) -> (!torch.vtensor<[1,3,224,224],f32>, !torch.vtensor<[?,10],si64>) {
  return %arg0, %arg1 : !torch.vtensor<[1,3,224,224],f32>, !torch.vtensor<[?,10],si64>
}
