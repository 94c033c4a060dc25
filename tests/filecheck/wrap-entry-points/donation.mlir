// RUN: abi-opt %s -p iree-abi-v1 --verify-diagnostics | filecheck %s
// JAX's donation (`tf.aliasing_output`) is dropped from an exported function, with one
// warning per function naming the donated arguments (their name locations, where JAX
// wrote them): at the argument when there is one, at the function when there are more.

// CHECK-LABEL: func.func @one(
// CHECK-NOT: tf.aliasing_output
func.func @one(
    // expected-warning @+1 {{tf.aliasing_output dropped from argument 0 → result 0: IREE would write the result into the caller's array}}
    %a: tensor<2xf32> {tf.aliasing_output = 0 : i32},
    %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.addf %a, %b : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @three(
// CHECK-NOT: tf.aliasing_output
// expected-warning @+1 {{tf.aliasing_output dropped from 3 arguments: w (argument 0 → result 0), b (argument 1 → result 1), argument 3 → result 2: IREE would write each result into the caller's array}}
func.func @three(
    %w: tensor<2xf32> {tf.aliasing_output = 0 : i32} loc("w"),
    %b: tensor<2xf32> {tf.aliasing_output = 1 : i32} loc("b"),
    %x: tensor<2xf32>,
    %s: tensor<f32> {tf.aliasing_output = 2 : i32}) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  func.return %w, %b, %s : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}
