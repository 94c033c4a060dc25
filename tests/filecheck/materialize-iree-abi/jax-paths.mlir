// RUN: abi-opt %s --allow-unregistered-dialect -p materialize-iree-abi --split-input-file | filecheck %s
// JAX exports (`jax.jit(f).lower(...)`): the structure comes from the pytree key strings
// JAX writes on the public function's values. `jax.arg_info = "<name><keys>"`: each
// distinct parameter name is one positional root argument, in order of first appearance;
// `jax.result_info = "<keys>"`. From there the index path rules apply: sequences among
// the arguments are lists, among the results tuples; dicts sorted by key; the results
// form one root node (inlined when it is a structure). Other attributes (mhlo.*) and the
// locations JAX puts on arguments do not matter.

// A training step: `params` is a nested dict of weights (JAX flattens dicts in sorted key
// order), `x` a plain array; the result is {'grads': [...], 'loss': ...}.
// CHECK-LABEL: builtin.module @jit_train_step
// CHECK: func.func public @main(
// CHECK-SAME: attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22dense\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]]],[\22scale\22,[\22ndarray\22,\22f32\22,0]]],[\22ndarray\22,\22f32\22,2,null,2]],\22r\22:[[\22sdict\22,[\22grads\22,[\22stuple\22,[\22ndarray\22,\22f32\22,2,4,2],[\22ndarray\22,\22f32\22,1,2]]],[\22loss\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}} {
// The private helper's jax.result_info (JAX also writes sharding names there) is ignored.
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

// -----

// The whole key grammar: `.field` (a dataclass or namedtuple attribute) is the dict key
// `field`; dict keys are Python reprs (`"it's"` is written with double quotes, MLIR
// escapes them as \22; the key a\b is written a\5C\5Cb, printed back as a\\\\b); `args[0]` is what JAX writes for `*args`.
// Parameter names are taken in order of first appearance, not sorted: `y` before `args`.
// Sequence keys 0 and 2 without 1 leave a gap below the root (null).
// CHECK-LABEL: builtin.module @jit_keys
// CHECK: func.func public @main(
// CHECK-SAME: attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22a\\\\b\22,[\22ndarray\22,\22i32\22,0]],[\22it's\22,[\22ndarray\22,\22f32\22,0]]],[\22slist\22,[\22sdict\22,[\22bias\22,[\22ndarray\22,\22i8\22,0]],[\22kernel\22,[\22ndarray\22,\22i16\22,0]]],null,[\22ndarray\22,\22i64\22,0]]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}"}} {
module @jit_keys attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32> {jax.arg_info = "y[\22it's\22]"}, %arg1: tensor<i32> {jax.arg_info = "y['a\5C\5Cb']"},
                         %arg2: tensor<i8> {jax.arg_info = "args[0].bias"}, %arg3: tensor<i16> {jax.arg_info = "args[0].kernel"},
                         %arg4: tensor<i64> {jax.arg_info = "args[2]"}) -> (tensor<f32> {jax.result_info = ""}) {
    return %arg0 : tensor<f32>
  }
}

// -----

// Results as JAX writes them since 2025: prefixed with `result`. Two results at [0], [1]
// form one stuple, returned inlined.
// CHECK-LABEL: builtin.module @jit_pair
// CHECK: func.func public @main(
// CHECK-SAME: attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,3]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22ndarray\22,\22i32\22,1,3]]],\22v\22:1}"}} {
module @jit_pair attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {jax.arg_info = "a", mhlo.sharding = "{replicated}"}) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xi32> {jax.result_info = "result[1]"}) {
    %0 = "stablehlo.convert"(%arg0) : (tensor<3xf32>) -> tensor<3xi32>
    return %arg0, %0 : tensor<3xf32>, tensor<3xi32>
  }
}
