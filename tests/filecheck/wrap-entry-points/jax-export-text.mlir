// RUN: abi-opt %s -p materialize-iree-abi,materialize-raw-abi,materialize-sip-abi | filecheck %s --check-prefix=REFLECT
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1
// RUN: abi-opt %s -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY
// A JAX export exactly as JAX prints it: custom-syntax stablehlo body, location aliases
// before and after the module, `loc(...)` on arguments. The body is carried as text (no
// pass rewrites it), so no dialect flag is needed; the signature gets its reflection, the
// V1 wrapper calls the renamed implementation, whose body is unchanged.

// REFLECT: func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "params['dense']['b']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['b']"), %arg1: tensor<4x2xf32> {jax.arg_info = "params['dense']['w']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['w']"), %arg2: tensor<8x4xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x")) -> (tensor<4x2xf32> {jax.result_info = "['grads'][0]", mhlo.layout_mode = "default"}, tensor<f32> {jax.result_info = "['loss']", mhlo.layout_mode = "default"}) attributes {iree.reflection = {abi = "sip", f = "I20!B3!d2B5!d4d2B5!d8d4R11!B5!d4d2B1!", fv = "1", iree.abi = "{\22a\22:[[\22sdict\22,[\22dense\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]]]],[\22ndarray\22,\22f32\22,2,8,4]],\22r\22:[[\22sdict\22,[\22grads\22,[\22stuple\22,[\22ndarray\22,\22f32\22,2,4,2]]],[\22loss\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}", sip = "I39!S35!k0D25!K6!denseD13!K2!b_0K2!w_1k1_2R29!D25!K6!gradsS5!k0_0K5!loss_1", sipv = "1"}} {
// REFLECT-NEXT: %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc(#loc4)

// V1: func.func @main(%params: !util.list<?>, %x: tensor<8x4xf32>) -> (!util.list<?>, tensor<f32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22dense\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]]]],[\22ndarray\22,\22f32\22,2,8,4]],\22r\22:[[\22sdict\22,[\22grads\22,[\22stuple\22,[\22ndarray\22,\22f32\22,2,4,2]]],[\22loss\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}} {
// V1: func.call @_main(
// V1: func.func private @_main(%arg0: tensor<2xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['b']"), %arg1: tensor<4x2xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['w']"), %arg2: tensor<8x4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x")) -> (tensor<4x2xf32> {mhlo.layout_mode = "default"}, tensor<f32> {mhlo.layout_mode = "default"}) {
// V1-NEXT: %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc(#loc4)
// V1: #loc7 = loc("jit(train_step)/jit(main)/mul"(#loc3))

// LEGACY: func.func public @main(%arg0: tensor<2xf32> {abi.index_path = [0 : i64, "dense", "b"], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['b']"), %arg1: tensor<4x2xf32> {abi.index_path = [0 : i64, "dense", "w"], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['w']"), %arg2: tensor<8x4xf32> {abi.index_path = [1 : i64], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x")) -> (tensor<4x2xf32> {abi.index_path = ["grads", 0 : i64], mhlo.layout_mode = "default"}, tensor<f32> {abi.index_path = ["loss"], mhlo.layout_mode = "default"}) attributes {iree.reflection = {abi = "sip", f = "I20!B3!d2B5!d4d2B5!d8d4R11!B5!d4d2B1!", fv = "1", sip = "I39!S35!k0D25!K6!denseD13!K2!b_0K2!w_1k1_2R29!D25!K6!gradsS5!k0_0K5!loss_1", sipv = "1"}} {
// LEGACY-NEXT: %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc(#loc4)
#loc1 = loc("params['dense']['b']")
#loc2 = loc("params['dense']['w']")
#loc3 = loc("x")
module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "params['dense']['b']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['b']"), %arg1: tensor<4x2xf32> {jax.arg_info = "params['dense']['w']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['w']"), %arg2: tensor<8x4xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x")) -> (tensor<4x2xf32> {jax.result_info = "['grads'][0]", mhlo.layout_mode = "default"}, tensor<f32> {jax.result_info = "['loss']", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32> loc(#loc4)
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32> loc(#loc5)
    %2 = stablehlo.add %0, %1 : tensor<8x2xf32> loc(#loc5)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32> loc(#loc6)
    %4 = stablehlo.multiply %arg1, %arg1 : tensor<4x2xf32> loc(#loc7)
    return %4, %3 : tensor<4x2xf32>, tensor<f32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc4 = loc("jit(train_step)/jit(main)/dot_general"(#loc1))
#loc5 = loc("jit(train_step)/jit(main)/add"(#loc2))
#loc6 = loc("jit(train_step)/jit(main)/reduce_sum"(#loc3))
#loc7 = loc("jit(train_step)/jit(main)/mul"(#loc3))
