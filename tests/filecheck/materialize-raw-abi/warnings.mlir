// RUN: abi-opt %s -p materialize-raw-abi --verify-diagnostics | filecheck %s
// Types the raw signature cannot describe are U1! with a warning located at the value
// (docs/spec.md §5); the output is still written.

// CHECK-LABEL: func.func @unrecognized
// CHECK: iree.reflection = {f = "I22!U1!U1!U1!U1!U1!U1!U1!R4!U1!", fv = "1"}
// Results are located at the function.
// expected-warning @+1 {{Result #0 of function unrecognized is not a recognized public ABI type and the function may not be invokable by standard tools}}
func.func @unrecognized(
    // expected-warning @+1 {{Argument #0 of function unrecognized is not a recognized public ABI type and the function may not be invokable by standard tools}}
    %a: tuple<i32>,
    // expected-warning @+1 {{Argument #1 of function unrecognized is not a recognized public ABI type}}
    %b: !abi.dict<"k": i32>,
    // expected-warning @+1 {{Argument #2 of function unrecognized is not a recognized public ABI type}}
    %c: index,
    // expected-warning @+1 {{Argument #3 of function unrecognized is not a recognized public ABI type}}
    %d: i3,
    // expected-warning @+1 {{Argument #4 of function unrecognized is not a recognized public ABI type}}
    %e: tensor<*xf32>,
    // expected-warning @+1 {{Argument #5 of function unrecognized is not a recognized public ABI type}}
    %f: tensor<4xindex>,
    // expected-warning @+1 {{Argument #6 of function unrecognized is not a recognized public ABI type}}
    %g: tensor<2147483648xf32>) -> complex<f32> {
  %0 = func.call @make_complex() : () -> complex<f32>
  func.return %0 : complex<f32>
}
func.func private @make_complex() -> complex<f32>

// The largest dim the raw signature carries is 2^31 - 1.
// CHECK-LABEL: func.func @largest_dim
// CHECK-SAME: iree.reflection = {f = "I16!B12!d2147483647R1!", fv = "1"}
func.func @largest_dim(%a: tensor<2147483647xf32>) {
  func.return
}
