// A header printed from the IR (its argument attributes changed: saved-model adoption)
// keeps the attributes and types that hold a location, the argument's location, and a
// dialect attribute's body as written (line break and `//` included).
// RUN: abi-opt %s -p iree-abi-legacy | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @f(%a: tensor<2xf32> {abi.index_path = [0 : i64], foo.l = [loc("m.py":10:4)], foo.t = !foo.t<loc(1)>, foo.u = #foo.b<a //
// CHECK-NEXT: b>} loc("m.py":3:3)) -> (tensor<2xf32> {abi.index_path = []}) attributes {iree.reflection = {abi = "sip", f = "I6!B3!d2R6!B3!d2", fv = "1", sip = "I8!S5!k0_0R3!_0", sipv = "1"}} {
// CHECK-NEXT:    %0 = stablehlo.add %a, %a : tensor<2xf32>
// CHECK-NEXT:    return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:}

module attributes {tf_saved_model.semantics} {
  func.func @f(%a: tensor<2xf32> {foo.l = [loc("m.py":10:4)], foo.t = !foo.t<loc(1)>, foo.u = #foo.b<a //
 b>, tf_saved_model.index_path = [0]} loc("m.py":3:3)) -> (tensor<2xf32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["f"]} {
    %0 = stablehlo.add %a, %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
