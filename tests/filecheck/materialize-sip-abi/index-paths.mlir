// RUN: abi-opt %s -p materialize-sip-abi --verify-diagnostics | filecheck %s
// SIP from index paths (docs/spec.md §3.2, §6): leaves are the flat argument positions.

module attributes {tf_saved_model.semantics} {
  // CHECK-LABEL: func.func @predict
  // CHECK-SAME: iree.reflection = {abi = "sip", sip = "I27!S23!k0_0k1D13!K2!a_2K2!x_1R3!_0", sipv = "1"}
  func.func @predict(%a: tensor<4xf32> {tf_saved_model.index_path = [0]},
                     %b: tensor<?xf32> {tf_saved_model.index_path = [1, "x"]},
                     %c: i32 {tf_saved_model.index_path = [1, "a"]})
      -> (tensor<4xf32> {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["predict"]} {
    func.return %a : tensor<4xf32>
  }

  // Named arguments keep their keys 1 and 2 in a sequence root, with a warning.
  // CHECK-LABEL: func.func @mixed
  // CHECK-SAME: iree.reflection = {abi = "sip", sip = "I22!S18!k0_2k1_0k2S5!k0_1R18!S14!k0_0k1S5!k0_1", sipv = "1"}
  // expected-warning @+1 {{argument names dropped: a SIP root cannot mix positional and named arguments}}
  func.func @mixed(%x: i16 {tf_saved_model.index_path = ["x"]},
                   %y: i32 {tf_saved_model.index_path = ["y", 0]},
                   %p: i8 {tf_saved_model.index_path = [0]})
      -> (f32 {tf_saved_model.index_path = [0]}, f64 {tf_saved_model.index_path = [1, 0]})
      attributes {tf_saved_model.exported_names = ["mixed"]} {
    %0 = arith.constant 1.0 : f32
    %1 = arith.constant 2.0 : f64
    func.return %0, %1 : f32, f64
  }

  // All named: a dict root.
  // CHECK-LABEL: func.func @named
  // CHECK-SAME: iree.reflection = {abi = "sip", sip = "I22!D18!K2!a_1K2!bS5!k0_0R1!", sipv = "1"}
  func.func @named(%b: i16 {tf_saved_model.index_path = ["b", 0]},
                   %a: i32 {tf_saved_model.index_path = ["a"]})
      attributes {tf_saved_model.exported_names = ["named"]} {
    func.return
  }
}
