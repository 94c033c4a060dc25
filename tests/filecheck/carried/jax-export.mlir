// A JAX/StableHLO export as `jax.jit(f).lower(...)` prints it: custom syntax of a dialect
// abi-opt does not know, location aliases defined after the module and used before (in
// argument locations), location ranges, a -inf hex constant. The reflection passes read
// signatures only: every body, every alias and every location is carried as written, and
// only the headers of the exported function gain their reflection.
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefixes=CHECK,V1 --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-legacy | filecheck %s --check-prefixes=CHECK,LEGACY --match-full-lines --strict-whitespace
// The output is the input of a second run, which changes nothing:
// RUN: abi-opt %s -p iree-abi-v1 > %t && abi-opt %t -p iree-abi-v1 | diff %t -
// Without passes the output is the input without its comments (and with the module op
// spelled `builtin.module`, as the module header is printed from the IR):
// RUN: grep -v -e '^//' -e '^$' %s > %t.input
// RUN: abi-opt %s | sed -e 's/^builtin\.module /module /' | diff %t.input -

//      CHECK:#loc1 = loc("x")
// CHECK-NEXT:#loc2 = loc("scale")
// CHECK-NEXT:builtin.module @jit_predict attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
//   V1-NEXT:  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<f32> {mhlo.layout_mode = "default"} loc(#loc2)) -> (tensor<f32> {mhlo.layout_mode = "default"}) attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}"}} {
// LEGACY-NEXT:  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<f32> {mhlo.layout_mode = "default"} loc(#loc2)) -> (tensor<f32> {mhlo.layout_mode = "default"}) attributes {iree.reflection = {abi = "sip", f = "I9!B3!d4B1!R4!B1!", fv = "1", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}} {
// CHECK-NEXT:    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32> loc(#loc)
// CHECK-NEXT:    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32> loc(#loc5)
// CHECK-NEXT:    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32> loc(#loc6)
// CHECK-NEXT:    %2 = call @scale(%1, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc7)
// CHECK-NEXT:    return %2 : tensor<f32> loc(#loc)
// CHECK-NEXT:  } loc(#loc)
// CHECK-NEXT:  func.func private @scale(%arg0: tensor<f32> loc(#loc9), %arg1: tensor<f32> loc(#loc9)) -> tensor<f32> {
// CHECK-NEXT:    %0 = stablehlo.multiply %arg0, %arg1 : tensor<f32> loc(#loc8)
// CHECK-NEXT:    return %0 : tensor<f32> loc(#loc)
// CHECK-NEXT:  } loc(#loc)
// CHECK-NEXT:} loc(#loc)
// CHECK-NEXT:#loc = loc(unknown)
// CHECK-NEXT:#loc3 = loc("/home/user/model.py":12:10 to :41)
// CHECK-NEXT:#loc4 = loc("/home/user/model.py":20:4 to 22:9)
// CHECK-NEXT:#loc5 = loc("jit(predict)/jit(main)/mul"(#loc3))
// CHECK-NEXT:#loc6 = loc("jit(predict)/jit(main)/reduce_max"(#loc4))
// CHECK-NEXT:#loc7 = loc("jit(predict)/jit(main)/pjit[name=scale]"(#loc4))
// CHECK-NEXT:#loc8 = loc("jit(predict)/scale/mul"(#loc3))
// CHECK-NEXT:#loc9 = loc("jit(predict)/scale"(#loc3))
// CHECK-EMPTY:


#loc1 = loc("x")
#loc2 = loc("scale")
module @jit_predict attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<f32> {mhlo.layout_mode = "default"} loc(#loc2)) -> (tensor<f32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32> loc(#loc)
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32> loc(#loc5)
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32> loc(#loc6)
    %2 = call @scale(%1, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc7)
    return %2 : tensor<f32> loc(#loc)
  } loc(#loc)
  func.func private @scale(%arg0: tensor<f32> loc(#loc9), %arg1: tensor<f32> loc(#loc9)) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<f32> loc(#loc8)
    return %0 : tensor<f32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("/home/user/model.py":12:10 to :41)
#loc4 = loc("/home/user/model.py":20:4 to 22:9)
#loc5 = loc("jit(predict)/jit(main)/mul"(#loc3))
#loc6 = loc("jit(predict)/jit(main)/reduce_max"(#loc4))
#loc7 = loc("jit(predict)/jit(main)/pjit[name=scale]"(#loc4))
#loc8 = loc("jit(predict)/scale/mul"(#loc3))
#loc9 = loc("jit(predict)/scale"(#loc3))
