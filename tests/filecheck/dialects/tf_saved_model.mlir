// The tf_saved_model attributes TensorFlow's importer writes round-trip, in the custom and
// in the generic form.
// RUN: abi-opt --parse-all %s | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt --print-op-generic | filecheck %s --match-full-lines --check-prefix=GENERIC

// CHECK:      builtin.module attributes {tf_saved_model.semantics} {
// CHECK-NEXT:   func.func @predict(%x: tensor<4xf32> {tf_saved_model.index_path = [0 : i64, "x"]}, %v: tensor<4xf32> {tf_saved_model.bound_input = @variable}) -> (tensor<4xf32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["predict", "serve"]} {
// CHECK-NEXT:     func.return %x : tensor<4xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GENERIC:      "builtin.module"() ({
// GENERIC-NEXT:   "func.func"() <{sym_name = "predict", function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, arg_attrs = [{tf_saved_model.index_path = [0 : i64, "x"]}, {tf_saved_model.bound_input = @variable}], res_attrs = [{tf_saved_model.index_path = []}]}> ({
// GENERIC-NEXT:   ^bb0(%x: tensor<4xf32>, %v: tensor<4xf32>):
// GENERIC-NEXT:     "func.return"(%x) : (tensor<4xf32>) -> ()
// GENERIC-NEXT:   }) {tf_saved_model.exported_names = ["predict", "serve"]} : () -> ()
// GENERIC-NEXT: }) {tf_saved_model.semantics} : () -> ()
module attributes {tf_saved_model.semantics} {
  func.func @predict(%x: tensor<4xf32> {tf_saved_model.index_path = [0, "x"]},
                     %v: tensor<4xf32> {tf_saved_model.bound_input = @variable})
      -> (tensor<4xf32> {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["predict", "serve"]} {
    func.return %x : tensor<4xf32>
  }
}
