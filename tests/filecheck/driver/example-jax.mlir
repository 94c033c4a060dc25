// The bundled JAX export (docs/cli.md, "Where the structure comes from") through both
// named pipelines: the output parses again and a second run changes nothing.
// RUN: abi-opt %examples/jax_train_step.mlir --parse-all --allow-unregistered-dialect -p iree-abi-v1 > %t.v1
// RUN: abi-opt %t.v1 --parse-all --allow-unregistered-dialect | abi-opt --parse-all --allow-unregistered-dialect -p iree-abi-v1 | diff %t.v1 -
// RUN: filecheck %s --check-prefix=V1 < %t.v1
// RUN: abi-opt %examples/jax_train_step.mlir --parse-all --allow-unregistered-dialect -p iree-abi-legacy > %t.legacy
// RUN: abi-opt %t.legacy --parse-all --allow-unregistered-dialect | abi-opt --parse-all --allow-unregistered-dialect -p iree-abi-legacy | diff %t.legacy -
// RUN: filecheck %s --check-prefix=LEGACY < %t.legacy

// V1: func.func @main(%params: !util.list<?>, %x: tensor<8x4xf32>) -> (!util.list<?>, tensor<f32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22dense\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]]],[\22scale\22,[\22ndarray\22,\22f32\22,0]]],[\22ndarray\22,\22f32\22,2,8,4]],\22r\22:[[\22sdict\22,[\22grads\22,[\22stuple\22,[\22ndarray\22,\22f32\22,2,4,2],[\22ndarray\22,\22f32\22,1,2]]],[\22loss\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}} {
// V1: func.func private @_main(%arg0: tensor<2xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"},
// V1-NOT: jax.

// LEGACY: func.func public @main(%arg0: tensor<2xf32> {abi.index_path = [0 : i64, "dense", "b"], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"},
// LEGACY-SAME: iree.reflection = {abi = "sip", f = "I23!B3!d2B5!d4d2B1!B5!d8d4R16!B5!d4d2B3!d2B1!", fv = "1", sip = "I49!S45!k0D35!K6!denseD13!K2!b_0K2!w_1K6!scale_2k1_3R33!D29!K6!gradsS9!k0_0k1_1K5!loss_2", sipv = "1"}} {
// LEGACY-NOT: jax.
