// RUN: abi-opt %s -p materialize-iree-abi | filecheck %s
// Named arguments from types: `abi.name` names the argument in place (docs/spec.md §4.3);
// a structured named argument keeps its name (deliberate difference from IREE).

// CHECK-LABEL: func.func @named
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4],[\22named\22,\22x\22,\22i32\22],[\22named\22,\22opts\22,[\22sdict\22,[\22lr\22,\22f32\22]]]],\22r\22:[],\22v\22:1}"}
func.func @named(%a: tensor<4xf32>, %x: i32 {abi.name = "x"}, %o: !abi.dict<"lr": f32> {abi.name = "opts"}) {
  func.return
}

// CHECK-LABEL: func.func @all_named
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22named\22,\22b\22,\22i8\22],[\22named\22,\22a\22,\22i16\22]],\22r\22:[],\22v\22:1}"}
func.func @all_named(%b: i8 {abi.name = "b"}, %a: i16 {abi.name = "a"}) {
  func.return
}
