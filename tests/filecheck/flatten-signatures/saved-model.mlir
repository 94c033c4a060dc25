// RUN: abi-opt %s -p flatten-signatures | filecheck %s
// Saved-model input (docs/spec.md §6): the export takes its exported name, index paths become
// abi.index_path in the original flat order, tf_saved_model attributes go, public
// functions without exported names become private, callers follow the rename.

// CHECK: builtin.module {
// CHECK-NEXT: func.func @serving_default(%a: tensor<4xf32> {abi.index_path = [0 : i64, "y"]}, %b: tensor<4xf32> {abi.index_path = [0 : i64, "x"]}) -> (tensor<4xf32> {abi.index_path = []}) {
// CHECK-NEXT: func.return %a : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @helper() {
// CHECK-NEXT: %[[E:[0-9]+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %{{[0-9]+}} = func.call @serving_default(%[[E]], %[[E]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
module attributes {tf_saved_model.semantics} {
  func.func @__inference_predict(%a: tensor<4xf32> {tf_saved_model.index_path = [0, "y"]},
                                 %b: tensor<4xf32> {tf_saved_model.index_path = [0, "x"]})
      -> (tensor<4xf32> {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["serving_default"]} {
    func.return %a : tensor<4xf32>
  }
  func.func @helper() {
    %0 = tensor.empty() : tensor<4xf32>
    %1 = func.call @__inference_predict(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return
  }
}
