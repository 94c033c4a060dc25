// A TensorFlow saved model, before and after lowering. Before, only functions with
// `tf_saved_model.exported_names` are exported, each listed under its exported name (the
// name the lowering passes give it), from the structure its index paths describe (no
// reflection yet: marked so); after, from the reflection the pipeline wrote.
// RUN: abi-sig show %s | filecheck %s --check-prefix=INPUT --match-full-lines --strict-whitespace
// RUN: abi-opt -p iree-abi-v1 %s | abi-sig show - | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace
// RUN: abi-opt -p iree-abi-legacy %s | abi-sig show - | filecheck %s --check-prefix=LEGACY --match-full-lines --strict-whitespace

//      INPUT:serving_default(dict{x: tensor<?xi32>, y: tensor<4xf32>}) -> (tensor<4xf32>)  (from index paths, no reflection)
// INPUT-EMPTY:

//      V1:serving_default(dict{x: tensor<?xi32>, y: tensor<4xf32>}) -> (tensor<4xf32>)
// V1-EMPTY:

//      LEGACY:serving_default(dict{x: tensor<?xi32>, y: tensor<4xf32>}) -> (tensor<4xf32>)
// LEGACY-EMPTY:

module attributes {tf_saved_model.semantics} {
  "tf_saved_model.global_tensor"() {sym_name = "w", type = tensor<4xf32>, value = dense<1.0> : tensor<4xf32>} : () -> ()
  func.func @__inference_predict_1234(%a: tensor<4xf32> {tf_saved_model.index_path = [0, "y"]},
                                      %b: tensor<?xi32> {tf_saved_model.index_path = [0, "x"]})
      -> (tensor<4xf32> {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["serving_default"]} {
    %0 = "tf.Identity"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    func.return %0 : tensor<4xf32>
  }
  func.func @__inference_helper_99(%a: tensor<4xf32>) -> tensor<4xf32> {
    func.return %a : tensor<4xf32>
  }
}
