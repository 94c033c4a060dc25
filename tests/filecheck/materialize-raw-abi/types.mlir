// RUN: abi-opt %s -p materialize-raw-abi 2>/dev/null | filecheck %s
// Every row of the type mapping of docs/spec.md §5. Unrecognized types warn (see warnings.mlir).

// Scalars: i1 i8 → 4, i16 → 5, i32 → 6, i64 → 7, f16 → 1, f32 → (0, not written),
// f64 → 2, bf16 → 3, si8..si64 → 4..7, ui8..ui64 → 8..11.
// CHECK-LABEL: func.func @scalars
// CHECK: iree.reflection = {f = "I86!S3!t4S3!t4S3!t5S3!t6S3!t7S3!t1S1!S3!t2S3!t3S3!t4S3!t5S3!t6S3!t7S3!t8S3!t9S4!t10S4!t11R1!", fv = "1"}
func.func @scalars(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64, %f: f16, %g: f32, %h: f64, %i: bf16,
                   %j: si8, %k: si16, %l: si32, %m: si64, %n: ui8, %o: ui16, %p: ui32, %q: ui64) {
  func.return
}

// Ranked tensors: B span, element code omitted for float32, d-1 for dynamic dims.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: iree.reflection = {f = "I29!B1!B13!t2d-1d128d64B7!t6d2d3R17!B13!t11d32d-1d64", fv = "1"}
func.func @buffers(%a: tensor<f32>, %b: tensor<?x128x64xf64>, %c: tensor<2x3xi32>) -> tensor<32x?x64xui64> {
  %c0 = arith.constant 0 : index
  %0 = tensor.empty(%c0) : tensor<32x?x64xui64>
  func.return %0 : tensor<32x?x64xui64>
}

// Lists and ND-arrays of reference type are reference objects.
// CHECK-LABEL: func.func @references
// CHECK-SAME: iree.reflection = {f = "I10!O1!O1!O1!R4!O1!", fv = "1"}
func.func @references(%a: !util.list<?>, %b: !iree.list<i32>, %c: tensor<2x!util.list<f32>>) -> !util.list<i8> {
  %0 = util.list.create : !util.list<i8>
  func.return %0 : !util.list<i8>
}

// The example of docs/spec.md §9.
// CHECK-LABEL: func.func @spec_example
// CHECK-SAME: iree.reflection = {f = "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64", fv = "1"}
func.func @spec_example(%a: !util.list<?>, %b: tensor<?x128x64xf32>, %c: i32) -> tensor<32x?x64xui64> {
  %c0 = arith.constant 0 : index
  %0 = tensor.empty(%c0) : tensor<32x?x64xui64>
  func.return %0 : tensor<32x?x64xui64>
}

// CHECK-LABEL: func.func @empty()
// CHECK-SAME: iree.reflection = {f = "I1!R1!", fv = "1"}
func.func @empty() {
  func.return
}
