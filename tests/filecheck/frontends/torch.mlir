// RUN: abi-opt %S/../../frontends/inputs/torch_mlp.mlir -p iree-abi-v1 | filecheck %s
// The torch frontend's MLIR for the MLP of tests/frontends/generate/models.py (written by
// `python -m tests.frontends.generate torch`): @main's flat arguments and results carry
// `abi.index_path`, and the function the `iree.abi` the frontend computed from the
// program's tree specs. wrap-entry-points builds the wrapper from the paths (the dict and
// the tuple argument each a !util.list<?>, the keyword arguments `mask` and `ids` named
// tensors, the result tuple inlined as its two structures) and moves the frontend's
// iree.abi onto it unchanged: the tuple argument stays `stuple` and the list inside the
// result `slist`, where paths alone would give `slist` and `stuple`.

// CHECK-LABEL: func.func @main(%{{[0-9]+}}: !util.list<?>, %{{[0-9]+}}: !util.list<?>, %mask: tensor<3xi1>, %ids: tensor<3xi8>) -> (!util.list<?>, !util.list<?>)
// CHECK-SAME: attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22features\22,[\22ndarray\22,\22f32\22,2,2,4]]],[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22ndarray\22,\22i32\22,1,3]],[\22named\22,\22mask\22,[\22ndarray\22,\22i1\22,1,3]],[\22named\22,\22ids\22,[\22ndarray\22,\22i8\22,1,3]]],\22r\22:[[\22stuple\22,[\22sdict\22,[\22rest\22,[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22slist\22,[\22ndarray\22,\22i64\22,1,3],[\22ndarray\22,\22i8\22,1,3]]]],[\22y\22,[\22ndarray\22,\22f32\22,2,2,3]]],[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22ndarray\22,\22i32\22,1,3]]]],\22v\22:1}"}} {
// CHECK: func.call @_main(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %mask, %ids) : (tensor<2x4xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi8>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xi8>, tensor<3xf32>, tensor<3xi32>)
// CHECK-LABEL: func.func private @_main(%arg0: tensor<2x4xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xi32>, %arg3: tensor<3xi1>, %arg4: tensor<3xi8>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xi8>, tensor<3xf32>, tensor<3xi32>) {
