// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p wrap-entry-points | filecheck %s
// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p iree-abi-v1 | filecheck %s
// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p iree-abi-v1 | abi-opt --parse-all --allow-unregistered-dialect -p iree-abi-v1 | filecheck %s
// A JAX export is wrapped like an index-path function: the wrapper's arguments are the
// pytree's root values, one per parameter in order of first appearance (named after the
// parameter when that is an SSA name), each structure one !util.list<?> (tensors inside
// as !hal.buffer_view); the single dict result is returned inlined (its items in sorted
// key order). The private implementation keeps JAX's flat order and its other attributes,
// without the key strings (the wrapper's iree.abi carries the structure).

// CHECK: builtin.module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK-NEXT: func.func @main(%params: !util.list<?>, %x: tensor<?x2xf32>) -> (!util.list<?>, tensor<f32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22dense\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]]],[\22scale\22,[\22ndarray\22,\22f32\22,0]]],[\22ndarray\22,\22f32\22,2,null,2]],\22r\22:[[\22sdict\22,[\22grads\22,[\22stuple\22,[\22ndarray\22,\22f32\22,2,4,2],[\22ndarray\22,\22f32\22,1,2]]],[\22loss\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}} {
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[DENSE:[0-9]+]] = util.list.get %params[%[[C0]]] : !util.list<?> -> !util.list<?>
// CHECK-NEXT: %[[BV:[0-9]+]] = util.list.get %[[DENSE]][%[[C0]]] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %[[B:[0-9]+]] = hal.tensor.import %[[BV]] : !hal.buffer_view -> tensor<2xf32>
// CHECK-NEXT: %[[C1:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[WV:[0-9]+]] = util.list.get %[[DENSE]][%[[C1]]] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %[[W:[0-9]+]] = hal.tensor.import %[[WV]] : !hal.buffer_view -> tensor<4x2xf32>
// CHECK-NEXT: %[[SV:[0-9]+]] = util.list.get %params[%[[C1]]] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %[[S:[0-9]+]] = hal.tensor.import %[[SV]] : !hal.buffer_view -> tensor<f32>
// CHECK-NEXT: %[[GW:[0-9]+]], %[[GB:[0-9]+]], %[[LOSS:[0-9]+]] = func.call @_main(%[[B]], %[[W]], %[[S]], %x) : (tensor<2xf32>, tensor<4x2xf32>, tensor<f32>, tensor<?x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<f32>)
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: %[[GRADS:[0-9]+]] = util.list.create %[[C2]] : !util.list<?>
// CHECK-NEXT: util.list.resize %[[GRADS]], %[[C2]] : !util.list<?>
// CHECK-NEXT: %[[GWV:[0-9]+]] = hal.tensor.export %[[GW]] : tensor<4x2xf32> -> !hal.buffer_view
// CHECK-NEXT: util.list.set %[[GRADS]][%[[C0]]], %[[GWV]] : !hal.buffer_view -> !util.list<?>
// CHECK-NEXT: %[[GBV:[0-9]+]] = hal.tensor.export %[[GB]] : tensor<2xf32> -> !hal.buffer_view
// CHECK-NEXT: util.list.set %[[GRADS]][%[[C1]]], %[[GBV]] : !hal.buffer_view -> !util.list<?>
// CHECK-NEXT: func.return %[[GRADS]], %[[LOSS]] : !util.list<?>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @_main(%arg0: tensor<2xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<4x2xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg2: tensor<f32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg3: tensor<?x2xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) -> (tensor<4x2xf32> {mhlo.layout_mode = "default"}, tensor<2xf32> {mhlo.layout_mode = "default"}, tensor<f32> {mhlo.layout_mode = "default"}) {
// CHECK-NEXT: %0 = "stablehlo.multiply"(%arg1, %arg1) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %1 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %2 = func.call @loss(%arg2) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: func.return %0, %1, %2 : tensor<4x2xf32>, tensor<2xf32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @loss(%arg0: tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "[('i',)]"}) {
// CHECK: }

// Parameter names that are not SSA names leave the printer's numbering; a single leaf
// result ("") is returned as it is.
// CHECK-NEXT: func.func @names(%{{[0-9]+}}: tensor<3xf32>, %args: !util.list<?>) -> tensor<3xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,3],[\22slist\22,[\22ndarray\22,\22f32\22,1,3]]],\22r\22:[[\22ndarray\22,\22f32\22,1,3]],\22v\22:1}"}} {
// CHECK: func.call @_names(
// CHECK: func.func private @_names(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {

// A function whose key strings cannot be used is not wrapped: it gets its flat iree.abi.
// CHECK-NEXT: func.return %arg0 : tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func public @shape_poly(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32> {jax.arg_info = "x"}) -> (tensor<?x4xf32> {jax.result_info = ""}) attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22i64\22,0],[\22ndarray\22,\22f32\22,2,null,4]],\22r\22:[[\22ndarray\22,\22f32\22,2,null,4]],\22v\22:1}"}} {
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
  func.func public @names(%arg0: tensor<3xf32> {jax.arg_info = "état"}, %arg1: tensor<3xf32> {jax.arg_info = "args[0]"})
      -> (tensor<3xf32> {jax.result_info = ""}) {
    return %arg0 : tensor<3xf32>
  }
  func.func public @shape_poly(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32> {jax.arg_info = "x"})
      -> (tensor<?x4xf32> {jax.result_info = ""}) {
    return %arg1 : tensor<?x4xf32>
  }
}
