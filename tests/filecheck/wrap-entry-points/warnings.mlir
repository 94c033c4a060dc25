// RUN: abi-opt %s -p wrap-entry-points --verify-diagnostics | filecheck %s
// Types IREE's native ABI rejects are still lowered, with a warning (docs/spec.md §8.2).

// CHECK-LABEL: func.func @rejected(
// CHECK-SAME: %t: !util.list<?>) -> ui8
// CHECK: %{{[0-9]+}} = util.list.get %t[%{{[0-9]+}}] : !util.list<?> -> si32
// CHECK: %{{[0-9]+}} = util.list.get %t[%{{[0-9]+}}] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %{{[0-9]+}} = hal.tensor.import %{{[0-9]+}} : !hal.buffer_view -> tensor<*xf32>
// CHECK: %{{[0-9]+}} = util.list.get %t[%{{[0-9]+}}] : !util.list<?> -> complex<f32>
// expected-warning @+1 {{type ui8 is not supported by IREE's native ABI}}
func.func @rejected(
    // expected-warning @+3 {{type si32 is not supported by IREE's native ABI}}
    // expected-warning @+2 {{type tensor<*xf32> is not supported by IREE's native ABI}}
    // expected-warning @+1 {{type complex<f32> is not supported by IREE's native ABI}}
    %t: tuple<si32, tensor<*xf32>, complex<f32>>) -> tuple<ui8> {
  %0 = func.call @make() : () -> ui8
  %1 = abi.tuple.pack %0 : (ui8) -> tuple<ui8>
  func.return %1 : tuple<ui8>
}
func.func private @make() -> ui8
