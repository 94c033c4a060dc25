// RUN: abi-opt %s -p iree-abi-legacy | filecheck %s
// A tuple of !torch.vtensor values is flattened like any tuple; every leaf is described
// as the builtin tensor it stands for.

// CHECK: func.func @pair(%[[A:[a-z0-9]+]]: !torch.vtensor<[2,?],f32> {abi.index_path = [0 : i64, 0 : i64]}, %{{[a-z0-9]+}}: !torch.vtensor<[],si64> {abi.index_path = [0 : i64, 1 : i64]}) -> (!torch.vtensor<[2,?],f32> {abi.index_path = []}) attributes {iree.reflection = {abi = "sip", f = "I14!B6!d2d-1B3!t7R9!B6!d2d-1", fv = "1", sip = "I18!S14!k0S9!k0_0k1_1R3!_0", sipv = "1"}} {
// CHECK-NEXT: func.return %[[A]] : !torch.vtensor<[2,?],f32>
func.func @pair(%p: tuple<!torch.vtensor<[2,?],f32>, !torch.vtensor<[],si64>>) -> !torch.vtensor<[2,?],f32> {
  %a = abi.tuple.get %p[0] : tuple<!torch.vtensor<[2,?],f32>, !torch.vtensor<[],si64>> -> !torch.vtensor<[2,?],f32>
  func.return %a : !torch.vtensor<[2,?],f32>
}
