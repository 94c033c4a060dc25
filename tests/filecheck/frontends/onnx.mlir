// RUN: abi-opt %S/../../frontends/inputs/onnx_classifier.mlir -p iree-abi-v1 | filecheck %s
// RUN: abi-opt %S/../../frontends/inputs/onnx_classifier.mlir -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s
// The original call (`abi.call`, docs/formats.md) stays beside `iree.abi` in the
// reflection the wrapper gets, and a second run leaves both as they are.
// The ONNX frontend's MLIR for the classifier of tests/frontends/generate/models.py
// (`python -m tests.frontends.generate onnx`): IREE's importer names the function after
// the graph and drops the names; the frontend writes them back as index paths. Each graph
// input is a `named` root, in graph order; the outputs one `sdict`, returned inlined.

// CHECK-LABEL: func.func @classifier(%input_ids: tensor<?x4xf32>, %attention_mask: tensor<?x4xi64>) -> (tensor<?x3xf32>, tensor<f32>)
// CHECK-SAME: attributes {iree.abi.stub, iree.reflection = {abi.call = "{\22args\22:[],\22kwargs\22:[[\22input_ids\22,{\22dims\22:[\22batch\22,4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22}],[\22attention_mask\22,{\22dims\22:[\22batch\22,4],\22dtype\22:\22int64\22,\22i\22:1,\22t\22:\22array\22}]],\22result\22:{\22c\22:[{\22dims\22:[\22batch\22,3],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}],\22k\22:[\22logits\22,\22total\22],\22t\22:\22dict\22},\22v\22:1}", iree.abi = "{\22a\22:[[\22named\22,\22input_ids\22,[\22ndarray\22,\22f32\22,2,null,4]],[\22named\22,\22attention_mask\22,[\22ndarray\22,\22i64\22,2,null,4]]],\22r\22:[[\22sdict\22,[\22logits\22,[\22ndarray\22,\22f32\22,2,null,3]],[\22total\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}} {
// CHECK-LABEL: func.func private @_classifier(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xi64>) -> (tensor<?x3xf32>, tensor<f32>) {
