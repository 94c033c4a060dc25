// Version 1 of a JAX model's export, as `jax.jit(predict).lower(params, x).as_text()`
// writes it (JAX 0.4: pytree paths in jax.arg_info / jax.result_info): `params` is
// {'dense': {'bias': f32[3], 'kernel': f32[4, 3]}}, `x` a batch of 8 rows of 4 features.
// examples/jax_predict_v2.mlir is the next version; docs/formats.md compares the two:
//
//   abi-opt -p iree-abi-v1 examples/jax_predict_v1.mlir -o old.mlir
//   abi-opt -p iree-abi-v1 examples/jax_predict_v2.mlir -o new.mlir
//   abi-sig diff old.mlir new.mlir
module @jit_predict attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {jax.arg_info = "params['dense']['bias']", mhlo.sharding = "{replicated}"},
                         %arg1: tensor<4x3xf32> {jax.arg_info = "params['dense']['kernel']", mhlo.sharding = "{replicated}"},
                         %arg2: tensor<8x4xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"})
      -> (tensor<8x3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x3xf32>
    return %2 : tensor<8x3xf32>
  }
}
