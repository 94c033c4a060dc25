// REQUIRES: iree-compiler
// MLIR bytecode input (what `iree-import-tf` writes), made here with `iree-opt
// --emit-bytecode`: `abi-sig` and `abi-opt` read it through IREE's MLIR bindings, as the
// text IREE prints for it (ops of dialects the bindings do not know in generic form,
// locations kept). Its functions are those of the text.
// RUN: iree-opt --allow-unregistered-dialect --emit-bytecode %s -o %t.mlirbc
// RUN: abi-sig show %t.mlirbc | filecheck %s --check-prefix=SHOW --match-full-lines --strict-whitespace
// RUN: abi-opt -p iree-abi-v1 %t.mlirbc | abi-sig show - | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace
// RUN: abi-opt -p materialize-iree-abi %t.mlirbc | filecheck %s --check-prefix=OPT
// The text and the bytecode of one module do not differ:
// RUN: abi-sig diff %s %t.mlirbc | filecheck %s --check-prefix=SAME --allow-empty

//      SHOW:serving_default(dict{x: tensor<?xi32>, y: tensor<4xf32>}) -> (tensor<4xf32>)  (from index paths, no reflection)
// SHOW-EMPTY:

//      V1:serving_default(dict{x: tensor<?xi32>, y: tensor<4xf32>}) -> (tensor<4xf32>)
// V1-EMPTY:

// OPT: func.func @__inference_predict_1234(%arg0: tensor<4xf32> {tf_saved_model.index_path = [0, "y"]} loc("{{.*}}bytecode.mlir":{{[0-9]+}}:39), %arg1: tensor<?xi32> {tf_saved_model.index_path = [0, "x"]} loc("{{.*}}bytecode.mlir":{{[0-9]+}}:39)) -> (tensor<4xf32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["serving_default"], iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22x\22,[\22ndarray\22,\22i32\22,1,null]],[\22y\22,[\22ndarray\22,\22f32\22,1,4]]]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
// OPT-NEXT: %0 = "tf.Identity"(%arg0) : (tensor<4xf32>) -> tensor<4xf32> loc({{.*}})

// SAME-NOT: {{.}}

module attributes {tf_saved_model.semantics} {
  "tf_saved_model.global_tensor"() {sym_name = "w", type = tensor<4xf32>, value = dense<1.0> : tensor<4xf32>} : () -> ()
  func.func @__inference_predict_1234(%a: tensor<4xf32> {tf_saved_model.index_path = [0, "y"]},
                                      %b: tensor<?xi32> {tf_saved_model.index_path = [0, "x"]})
      -> (tensor<4xf32> {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["serving_default"]} {
    %0 = "tf.Identity"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    func.return %0 : tensor<4xf32>
  }
  func.func @__inference_helper_99(%a: tensor<4xf32>) -> tensor<4xf32> attributes {tf_saved_model.exported_names = []} {
    func.return %a : tensor<4xf32>
  }
}
