// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p flatten-signatures | filecheck %s
// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY
// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p iree-abi-legacy | abi-opt --parse-all --allow-unregistered-dialect -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY
// A JAX export is already flat: flatten-signatures keeps its arguments, results and
// body, and writes the index paths read from the JAX key strings as abi.index_path in
// their place (flat order kept), so materialize-sip-abi describes the pytrees. Other
// attributes stay. A public function whose key strings cannot be used, and private
// functions, are left alone.

// CHECK: func.func public @main(%arg0: tensor<2xf32> {abi.index_path = [0 : i64, "dense", "b"], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<4x2xf32> {abi.index_path = [0 : i64, "dense", "w"], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg2: tensor<f32> {abi.index_path = [0 : i64, "scale"], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg3: tensor<?x2xf32> {abi.index_path = [1 : i64], mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) -> (tensor<4x2xf32> {abi.index_path = ["grads", 0 : i64], mhlo.layout_mode = "default"}, tensor<2xf32> {abi.index_path = ["grads", 1 : i64], mhlo.layout_mode = "default"}, tensor<f32> {abi.index_path = ["loss"], mhlo.layout_mode = "default"}) {
// CHECK-NEXT: %0 = "stablehlo.multiply"(%arg1, %arg1) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %1 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %2 = func.call @loss(%arg2) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: func.return %0, %1, %2 : tensor<4x2xf32>, tensor<2xf32>, tensor<f32>
// CHECK: func.func private @loss(%arg0: tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "[('i',)]"}) {
// CHECK: func.func public @shape_poly(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32> {jax.arg_info = "x"}) -> (tensor<?x4xf32> {jax.result_info = ""}) {

// The legacy pipeline: raw from the actual types, SIP from the paths.
// LEGACY: func.func public @main(
// LEGACY-SAME: attributes {iree.reflection = {abi = "sip", f = "I24!B3!d2B5!d4d2B1!B6!d-1d2R16!B5!d4d2B3!d2B1!", fv = "1", sip = "I49!S45!k0D35!K6!denseD13!K2!b_0K2!w_1K6!scale_2k1_3R33!D29!K6!gradsS9!k0_0k1_1K5!loss_2", sipv = "1"}} {
// LEGACY: func.func public @shape_poly(
// LEGACY-SAME: attributes {iree.reflection = {abi = "sip", f = "I14!B3!t7B6!d-1d4R9!B6!d-1d4", fv = "1", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}} {
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
  func.func public @shape_poly(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32> {jax.arg_info = "x"})
      -> (tensor<?x4xf32> {jax.result_info = ""}) {
    return %arg1 : tensor<?x4xf32>
  }
}
