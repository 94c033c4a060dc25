// RUN: abi-opt %s -p materialize-iree-abi | filecheck %s
// Structure rebuilt from index paths (docs/spec.md §3.2): in a saved-model module only functions
// with exported names are exported; sequences among the arguments are lists, results
// form ONE root node; a string at the argument root names the argument with key
// 1 + the largest root key so far.

module attributes {tf_saved_model.semantics} {
  // CHECK-LABEL: func.func @predict
  // CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4],[\22sdict\22,[\22a\22,\22i32\22],[\22x\22,[\22ndarray\22,\22f32\22,1,null]]]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}
  func.func @predict(%a: tensor<4xf32> {tf_saved_model.index_path = [0]},
                     %b: tensor<?xf32> {tf_saved_model.index_path = [1, "x"]},
                     %c: i32 {tf_saved_model.index_path = [1, "a"]})
      -> (tensor<4xf32> {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["predict"]} {
    func.return %a : tensor<4xf32>
  }

  // Names get keys 1, 2 in order even with no positional argument before them; the
  // positional argument at [0] comes first in `a`. Results at [0], [1] are one stuple.
  // CHECK-LABEL: func.func @named_from_paths
  // CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22i8\22,[\22named\22,\22x\22,\22i16\22],[\22named\22,\22y\22,[\22slist\22,\22i32\22]]],\22r\22:[[\22stuple\22,\22f32\22,\22f64\22]],\22v\22:1}"}
  func.func @named_from_paths(%x: i16 {tf_saved_model.index_path = ["x"]},
                              %y: i32 {tf_saved_model.index_path = ["y", 0]},
                              %p: i8 {tf_saved_model.index_path = [0]})
      -> (f32 {tf_saved_model.index_path = [0]}, f64 {tf_saved_model.index_path = [1]})
      attributes {tf_saved_model.exported_names = ["named_from_paths"]} {
    %0:2 = func.call @helper() : () -> (f32, f64)
    func.return %0#0, %0#1 : f32, f64
  }

  // Gaps below the root are kept as null; at the argument root they are compressed.
  // A string at the result root makes the result root a dict.
  // CHECK-LABEL: func.func @gaps
  // CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22slist\22,\22i32\22,null,\22i64\22],\22f32\22],\22r\22:[[\22sdict\22,[\22k\22,[\22stuple\22,null,\22i8\22]]]],\22v\22:1}"}
  func.func @gaps(%a: i32 {tf_saved_model.index_path = [0, 0]},
                  %b: i64 {tf_saved_model.index_path = [0, 2]},
                  %c: f32 {tf_saved_model.index_path = [2]})
      -> (i8 {tf_saved_model.index_path = ["k", 1]})
      attributes {tf_saved_model.exported_names = ["gaps"]} {
    %0 = arith.constant 1 : i8
    func.return %0 : i8
  }

  // Public, but without exported names: not exported in a saved-model module.
  // CHECK: func.func @helper() -> (f32, f64) {
  func.func @helper() -> (f32, f64) {
    %0 = arith.constant 1.0 : f32
    %1 = arith.constant 2.0 : f64
    func.return %0, %1 : f32, f64
  }
}
