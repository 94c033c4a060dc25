// Constants keep their value: float elements written as bit patterns stay bit patterns
// (infinities, NaNs with their payloads, signalling NaNs), -0.0 is not 0.0, splats stay
// splats, and the other literal forms print back as they were read. Each CHECK line is
// what `iree-opt` (IREE 3.13) prints for the same constant; a second run changes nothing.
// `--parse-all` makes abi-opt parse and print every body; without it, a body no pass
// rewrites is carried as text, constants as written (CARRIED).
// RUN: abi-opt --parse-all %s > %t
// RUN: filecheck %s < %t
// RUN: abi-opt --parse-all %t | diff %t -
// RUN: abi-opt --parse-all %s -p iree-abi-v1 | filecheck %s --check-prefix=V1
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=CARRIED

// CHECK-LABEL: func.func @floats()
func.func @floats() -> (tensor<f32>, tensor<f16>, tensor<f64>, tensor<bf16>, tensor<2xf32>, tensor<3xf32>, tensor<2xf16>, tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf16>) {
  // CHECK-NEXT: arith.constant dense<0xFF800000> : tensor<f32>
  %0 = arith.constant dense<0xFF800000> : tensor<f32>
  // CHECK-NEXT: arith.constant dense<0xFC00> : tensor<f16>
  %1 = arith.constant dense<0xFC00> : tensor<f16>
  // CHECK-NEXT: arith.constant dense<0x7FF8000000000001> : tensor<f64>
  %2 = arith.constant dense<0x7FF8000000000001> : tensor<f64>
  // CHECK-NEXT: arith.constant dense<0xFF81> : tensor<bf16>
  %3 = arith.constant dense<0xFF81> : tensor<bf16>
  // CHECK-NEXT: arith.constant dense<[0xFF800000, 0x7F800001]> : tensor<2xf32>
  %4 = arith.constant dense<[0xFF800000, 0x7F800001]> : tensor<2xf32>
  // CHECK-NEXT: arith.constant dense<[0.000000e+00, -0.000000e+00, 1.500000e+00]> : tensor<3xf32>
  %5 = arith.constant dense<[0.0, -0.0, 1.5]> : tensor<3xf32>
  // CHECK-NEXT: arith.constant dense<[0x7C01, 0xFE00]> : tensor<2xf16>
  %6 = arith.constant dense<[0x7C01, 0xFE00]> : tensor<2xf16>
  // CHECK-NEXT: arith.constant dense<-0.000000e+00> : tensor<f32>
  %7 = arith.constant dense<-0.0> : tensor<f32>
  // CHECK-NEXT: arith.constant dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>
  %8 = arith.constant dense<[0.0, -0.0]> : tensor<2xf32>
  // CHECK-NEXT: arith.constant dense<[0x7F800000, 0xFFC00000]> : tensor<2xf32>
  %9 = arith.constant dense<"0x0000807F0000C0FF"> : tensor<2xf32>
  // CHECK-NEXT: arith.constant dense<0x7C00> : tensor<2x3xf16>
  %10 = arith.constant dense<"0x007C"> : tensor<2x3xf16>
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<f32>, tensor<f16>, tensor<f64>, tensor<bf16>, tensor<2xf32>, tensor<3xf32>, tensor<2xf16>, tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf16>
}

// CHECK-LABEL: func.func @scalars()
func.func @scalars() -> (f32, f16, bf16, f64, f32, f32, f32) {
  // CHECK-NEXT: arith.constant 0x7F800001 : f32
  %0 = arith.constant 0x7F800001 : f32
  // CHECK-NEXT: arith.constant 0x7C01 : f16
  %1 = arith.constant 0x7C01 : f16
  // CHECK-NEXT: arith.constant 0xFFC1 : bf16
  %2 = arith.constant 0xFFC1 : bf16
  // CHECK-NEXT: arith.constant 0xFFF0000000000001 : f64
  %3 = arith.constant 0xFFF0000000000001 : f64
  // CHECK-NEXT: arith.constant -0.000000e+00 : f32
  %4 = arith.constant -0.0 : f32
  // A value too large for f32 rounds to infinity.
  // CHECK-NEXT: arith.constant 0x7F800000 : f32
  %5 = arith.constant 1.0e39 : f32
  // CHECK-NEXT: arith.constant 0x7FC00001 : f32
  %6 = arith.constant 0x7FC00001 : f32
  func.return %0, %1, %2, %3, %4, %5, %6 : f32, f16, bf16, f64, f32, f32, f32
}

// Reduced-precision types: a pattern that is not a NaN prints as its value.
// CHECK-LABEL: func.func @small_floats()
func.func @small_floats() -> (tensor<2xf8E5M2>, tensor<4xf8E4M3FNUZ>, tensor<f8E4M3FNUZ>) {
  // CHECK-NEXT: arith.constant dense<[-0.000000e+00, 0x7F]> : tensor<2xf8E5M2>
  %0 = arith.constant dense<[0x80, 0x7F]> : tensor<2xf8E5M2>
  // CHECK-NEXT: arith.constant dense<0x80> : tensor<4xf8E4M3FNUZ>
  %1 = arith.constant dense<0x80> : tensor<4xf8E4M3FNUZ>
  // CHECK-NEXT: arith.constant dense<9.765620e-04> : tensor<f8E4M3FNUZ>
  %2 = arith.constant dense<0x01> : tensor<f8E4M3FNUZ>
  func.return %0, %1, %2 : tensor<2xf8E5M2>, tensor<4xf8E4M3FNUZ>, tensor<f8E4M3FNUZ>
}

// A splat of 10^8 elements is one element, not 400 MB.
// CHECK-LABEL: func.func @splats()
func.func @splats() -> (tensor<100000000xf32>, tensor<100000000xf32>, tensor<200xi1>) {
  // CHECK-NEXT: arith.constant dense<1.000000e+00> : tensor<100000000xf32>
  %0 = arith.constant dense<1.0> : tensor<100000000xf32>
  // CHECK-NEXT: arith.constant dense<0x7F800000> : tensor<100000000xf32>
  %1 = arith.constant dense<"0x0000807F"> : tensor<100000000xf32>
  // CHECK-NEXT: arith.constant dense<true> : tensor<200xi1>
  %2 = arith.constant dense<true> : tensor<200xi1>
  func.return %0, %1, %2 : tensor<100000000xf32>, tensor<100000000xf32>, tensor<200xi1>
}

// Integers beyond 64 bits (as scalars), complex numbers, strings with escapes.
// CHECK-LABEL: func.func @other_literals()
// CHECK-SAME: attributes {s = "a\22b\\c\0A\09\01\FF", t = "\C3\A9"}
func.func @other_literals() -> (i128, tensor<complex<f32>>, tensor<2xcomplex<i32>>, tensor<2xi8>) attributes {s = "a\"b\\c\n\t\01\FF", t = "é"} {
  // CHECK-NEXT: arith.constant 170141183460469231731687303715884105727 : i128
  %0 = arith.constant 170141183460469231731687303715884105727 : i128
  // CHECK-NEXT: arith.constant dense<(1.500000e+00,-0.000000e+00)> : tensor<complex<f32>>
  %1 = arith.constant dense<(1.5, -0.0)> : tensor<complex<f32>>
  // CHECK-NEXT: arith.constant dense<[(1,-2), (3,4)]> : tensor<2xcomplex<i32>>
  %2 = arith.constant dense<[(1, -2), (3, 4)]> : tensor<2xcomplex<i32>>
  // CHECK-NEXT: arith.constant dense<[-128, 127]> : tensor<2xi8>
  %3 = arith.constant dense<[0x80, 127]> : tensor<2xi8>
  func.return %0, %1, %2, %3 : i128, tensor<complex<f32>>, tensor<2xcomplex<i32>>, tensor<2xi8>
}

// Float arrays hold bits too.
// CHECK-LABEL: func.func @arrays()
// CHECK-SAME: attributes {a = array<f32: 1.500000e+00, 0x7FC00000, 0x7F800001, -0.000000e+00>, b = array<i32: 1, -2>, c = array<f16>, d = array<f16: 0x7C01>}
func.func @arrays() attributes {a = array<f32: 1.5, 0x7FC00000, 0x7F800001, -0.0>, b = array<i32: 1, -2>, c = array<f16>, d = array<f16: 0x7C01>} {
  func.return
}

// A resource blob and its `{-# dialect_resources #-}` section.
// CHECK-LABEL: func.func @resource()
func.func @resource() -> tensor<4xf32> {
  // CHECK-NEXT: arith.constant dense_resource<blob1> : tensor<4xf32>
  %0 = arith.constant dense_resource<blob1> : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob1: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}

// The pipeline leaves the constants alone.
// V1: arith.constant dense<0xFF800000> : tensor<f32>
// V1: arith.constant dense<[0x7C01, 0xFE00]> : tensor<2xf16>
// V1: arith.constant dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>
// V1: arith.constant dense<1.000000e+00> : tensor<100000000xf32>
// CARRIED: %0 = arith.constant dense<0xFF800000> : tensor<f32>
// CARRIED: %8 = arith.constant dense<[0.0, -0.0]> : tensor<2xf32>
// CARRIED: %0 = arith.constant dense<1.0> : tensor<100000000xf32>

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
