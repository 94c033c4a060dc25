// A JAX training step as `jax.jit(train_step).lower(params, x).as_text()` writes it
// (JAX 0.4: pytree paths in jax.arg_info / jax.result_info), with the stablehlo body in
// generic form. `params` is {'dense': {'b': …, 'w': …}, 'scale': …}; the result is
// {'grads': (…, …), 'loss': …}.
//
//   abi-opt --allow-unregistered-dialect -p iree-abi-v1 examples/jax_train_step.mlir
module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "params['dense']['b']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['b']"),
                         %arg1: tensor<4x2xf32> {jax.arg_info = "params['dense']['w']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['dense']['w']"),
                         %arg2: tensor<f32> {jax.arg_info = "params['scale']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['scale']"),
                         %arg3: tensor<8x4xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x"))
      -> (tensor<4x2xf32> {jax.result_info = "['grads'][0]", mhlo.layout_mode = "default"},
          tensor<2xf32> {jax.result_info = "['grads'][1]", mhlo.layout_mode = "default"},
          tensor<f32> {jax.result_info = "['loss']", mhlo.layout_mode = "default"}) {
    %0 = "stablehlo.dot"(%arg3, %arg1) : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    %1 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<2xf32>) -> tensor<8x2xf32>
    %2 = "stablehlo.add"(%0, %1) : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
    %3 = "stablehlo.multiply"(%2, %2) : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
    %4 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %5 = "stablehlo.reduce"(%3, %4) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.multiply"(%5, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %7 = "stablehlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4x2xf32>
    %8 = "stablehlo.multiply"(%arg1, %7) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %9 = "stablehlo.reduce"(%2, %4) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
    return %8, %9, %6 : tensor<4x2xf32>, tensor<2xf32>, tensor<f32>
  }
}
