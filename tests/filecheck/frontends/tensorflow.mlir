// RUN: abi-opt %S/../../frontends/inputs/tf_signature.mlir -p iree-abi-v1 | filecheck %s
// RUN: abi-opt %S/../../frontends/inputs/tf_signature.mlir -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s
// The original call (`abi.call`, docs/formats.md) stays beside `iree.abi` in the
// reflection the wrapper gets, and a second run leaves both as they are.
// The TensorFlow frontend's MLIR for the `serving_default` signature of
// tests/frontends/generate/models.py (`python -m tests.frontends.generate tf`): the
// lowering iree-import-tf runs drops the saved-model attributes; the frontend carries the
// signature's input and output names over as index paths. The variable is an
// ml_program global; the importer's empty @session_initializer stays an export.

// CHECK-LABEL: func.func @session_initializer() attributes {iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}} {
// CHECK-LABEL: func.func @serving_default(%attention_mask: tensor<2x4xi32>, %input_ids: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<f32>)
// CHECK-SAME: attributes {iree.abi.stub, iree.reflection = {abi.call = "{\22args\22:[],\22kwargs\22:[[\22attention_mask\22,{\22dims\22:[2,4],\22dtype\22:\22int32\22,\22i\22:0,\22t\22:\22array\22}],[\22input_ids\22,{\22dims\22:[2,4],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}]],\22result\22:{\22c\22:[{\22dims\22:[2,3],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}],\22k\22:[\22logits\22,\22total\22],\22t\22:\22dict\22},\22tensor\22:\22tf\22,\22v\22:1}", iree.abi = "{\22a\22:[[\22named\22,\22attention_mask\22,[\22ndarray\22,\22i32\22,2,2,4]],[\22named\22,\22input_ids\22,[\22ndarray\22,\22f32\22,2,2,4]]],\22r\22:[[\22sdict\22,[\22logits\22,[\22ndarray\22,\22f32\22,2,2,3]],[\22total\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}} {
// CHECK-LABEL: func.func private @_serving_default(%arg0: tensor<2x4xi32>, %arg1: tensor<2x4xf32>) -> (tensor<f32>, tensor<2x3xf32>) {
