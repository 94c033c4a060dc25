// RUN: abi-opt %s -p wrap-entry-points --verify-diagnostics | filecheck %s
// Types IREE's native ABI rejects are still lowered, with a warning (docs/spec.md §8.2);
// an unranked tensor only at the root (inside a structure it is an error:
// tests/filecheck/errors/wrap-v1.mlir).

// CHECK-LABEL: func.func @rejected(
// CHECK-SAME: %u: tensor<*xf32>, %t: !util.list<?>) -> ui8
// CHECK: %{{[0-9]+}} = util.list.get %t[%{{[0-9]+}}] : !util.list<?> -> si32
// CHECK: %{{[0-9]+}} = util.list.get %t[%{{[0-9]+}}] : !util.list<?> -> complex<f32>
// CHECK: func.call @_rejected(%u, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<*xf32>, si32, complex<f32>) -> ui8
// expected-warning @+1 {{type ui8 is not supported by IREE's native ABI}}
func.func @rejected(
    // expected-warning @+1 {{type tensor<*xf32> is not supported by IREE's native ABI}}
    %u: tensor<*xf32>,
    // expected-warning @+2 {{type si32 is not supported by IREE's native ABI}}
    // expected-warning @+1 {{type complex<f32> is not supported by IREE's native ABI}}
    %t: tuple<si32, complex<f32>>) -> tuple<ui8> {
  %0 = func.call @make() : () -> ui8
  %1 = abi.tuple.pack %0 : (ui8) -> tuple<ui8>
  func.return %1 : tuple<ui8>
}
func.func private @make() -> ui8
