// Version 2 of the model of examples/jax_predict_v1.mlir: 5 classes instead of 3 (the
// kernel is f32[4, 5], the bias f32[5]), exported for any batch size (`x` is f32[b, 4]).
// docs/formats.md compares the two versions.
module @jit_predict attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32> {jax.arg_info = "params['dense']['bias']", mhlo.sharding = "{replicated}"},
                         %arg1: tensor<4x5xf32> {jax.arg_info = "params['dense']['kernel']", mhlo.sharding = "{replicated}"},
                         %arg2: tensor<?x4xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"})
      -> (tensor<?x5xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
    %1 = stablehlo.get_dimension_size %arg2, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %2 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
    %c = stablehlo.constant dense<5> : tensor<1xi32>
    %3 = stablehlo.concatenate %2, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %4 = stablehlo.dynamic_broadcast_in_dim %arg0, %3, dims = [1] : (tensor<5xf32>, tensor<2xi32>) -> tensor<?x5xf32>
    %5 = stablehlo.add %0, %4 : tensor<?x5xf32>
    return %5 : tensor<?x5xf32>
  }
}
