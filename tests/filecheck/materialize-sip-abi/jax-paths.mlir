// RUN: abi-opt %s --allow-unregistered-dialect -p materialize-sip-abi | filecheck %s
// The SIP of a JAX export describes its pytrees (read from jax.arg_info and
// jax.result_info like index paths): the input root is a sequence of the parameters
// (`params` a dict of dicts, `x` a leaf), the result root the {'grads', 'loss'} dict.
// Leaf indices are the flat positions JAX chose (sorted dict keys).

// CHECK-LABEL: func.func public @main(
// CHECK-SAME: attributes {iree.reflection = {abi = "sip", sip = "I49!S45!k0D35!K6!denseD13!K2!b_0K2!w_1K6!scale_2k1_3R33!D29!K6!gradsS9!k0_0k1_1K5!loss_2", sipv = "1"}} {
// CHECK: func.func private @loss(%arg0: tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "[('i',)]"}) {
module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "params['dense']['b']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['b']"),
                         %arg1: tensor<4x2xf32> {jax.arg_info = "params['dense']['w']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['w']"),
                         %arg2: tensor<f32> {jax.arg_info = "params['scale']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['scale']"),
                         %arg3: tensor<?x2xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x"))
      -> (tensor<4x2xf32> {jax.result_info = "['grads'][0]", mhlo.layout_mode = "default"},
          tensor<2xf32> {jax.result_info = "['grads'][1]", mhlo.layout_mode = "default"},
          tensor<f32> {jax.result_info = "['loss']", mhlo.layout_mode = "default"}) {
    %0 = "stablehlo.multiply"(%arg1, %arg1) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = func.call @loss(%arg2) : (tensor<f32>) -> tensor<f32>
    return %0, %1, %2 : tensor<4x2xf32>, tensor<2xf32>, tensor<f32>
  }
  func.func private @loss(%arg0: tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "[('i',)]"}) {
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
}
