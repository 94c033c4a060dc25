// `abi-sig diff` compares element types as the function types spell them where the
// records cannot: `iree.abi` writes `f8` for every 8-bit float and "unknown" for complex,
// vector and memref values; the legacy `f` writes "unknown" (`U1!`) for an f8 or complex
// tensor. Such a change breaks callers. The new version (made with sed) changes every one
// of them, and the signedness of two integers, which is not a change (a record has none).
// Inside a structure of a V1 function the function a caller calls takes a list, whose
// items its type does not describe: there the records are all there is (`argument 4`).
// RUN: sed -e 's/f8E4M3FN/f8E5M2/g' -e 's/complex<f32>/complex<f64>/g' -e 's/vector<4xf32>/vector<8xf32>/' -e 's/memref<4xf32>/memref<4xf16>/' -e 's/%g: ui8/%g: i8/' -e 's/si32/i32/' %s > %t.new.mlir
// RUN: not abi-sig diff %s %t.new.mlir | filecheck %s --check-prefix=TYPE --match-full-lines --strict-whitespace
// RUN: abi-opt -p iree-abi-v1 %s -o %t.old.v1.mlir 2>/dev/null
// RUN: abi-opt -p iree-abi-v1 %t.new.mlir -o %t.new.v1.mlir 2>/dev/null
// RUN: not abi-sig diff %t.old.v1.mlir %t.new.v1.mlir | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace
// RUN: abi-opt -p iree-abi-legacy %s -o %t.old.legacy.mlir 2>/dev/null
// RUN: abi-opt -p iree-abi-legacy %t.new.mlir -o %t.new.legacy.mlir 2>/dev/null
// RUN: not abi-sig diff %t.old.legacy.mlir %t.new.legacy.mlir | filecheck %s --check-prefix=LEGACY --match-full-lines --strict-whitespace
// Each against itself, and the legacy form against the V1 one (which only differ in how
// they record the tuple): the same types are no finding.
// RUN: abi-sig diff %t.old.v1.mlir %t.old.v1.mlir | filecheck %s --check-prefix=SAME --allow-empty
// RUN: abi-sig diff %t.old.legacy.mlir %t.old.legacy.mlir | filecheck %s --check-prefix=SAME --allow-empty
// RUN: not abi-sig diff %t.old.legacy.mlir %t.old.v1.mlir | filecheck %s --check-prefix=MIXED --match-full-lines --strict-whitespace

//      TYPE:breaking: main: argument 0: dtype f8E4M3FN -> f8E5M2
// TYPE-NEXT:breaking: main: argument 1: type complex<f32> -> complex<f64>
// TYPE-NEXT:breaking: main: argument 2: type vector<4xf32> -> vector<8xf32>
// TYPE-NEXT:breaking: main: argument 3: type memref<4xf32> -> memref<4xf16>
// TYPE-NEXT:breaking: main: argument 4[0]: dtype f8E4M3FN -> f8E5M2
// TYPE-NEXT:breaking: main: argument 4[1]: type complex<f32> -> complex<f64>
// TYPE-NEXT:breaking: main: argument 5: dtype complex<f32> -> complex<f64>
// TYPE-NEXT:breaking: main: result[0]: dtype f8E4M3FN -> f8E5M2
// TYPE-NEXT:breaking: main: result[1]: type complex<f32> -> complex<f64>
// TYPE-EMPTY:

//      V1:breaking: main: argument 0: dtype f8E4M3FN -> f8E5M2
// V1-NEXT:breaking: main: argument 1: type complex<f32> -> complex<f64>
// V1-NEXT:breaking: main: argument 2: type vector<4xf32> -> vector<8xf32>
// V1-NEXT:breaking: main: argument 3: type memref<4xf32> -> memref<4xf16>
// V1-NEXT:breaking: main: argument 5: dtype complex<f32> -> complex<f64>
// V1-NEXT:breaking: main: result[0]: dtype f8E4M3FN -> f8E5M2
// V1-NEXT:breaking: main: result[1]: type complex<f32> -> complex<f64>
// V1-EMPTY:

//      LEGACY:breaking: main: argument 0: type tensor<4xf8E4M3FN> -> tensor<4xf8E5M2>
// LEGACY-NEXT:breaking: main: argument 1: type complex<f32> -> complex<f64>
// LEGACY-NEXT:breaking: main: argument 2: type vector<4xf32> -> vector<8xf32>
// LEGACY-NEXT:breaking: main: argument 3: type memref<4xf32> -> memref<4xf16>
// LEGACY-NEXT:breaking: main: argument 4[0]: type tensor<2xf8E4M3FN> -> tensor<2xf8E5M2>
// LEGACY-NEXT:breaking: main: argument 4[1]: type complex<f32> -> complex<f64>
// LEGACY-NEXT:breaking: main: argument 5: type tensor<3xcomplex<f32>> -> tensor<3xcomplex<f64>>
// LEGACY-NEXT:breaking: main: result[0]: type tensor<4xf8E4M3FN> -> tensor<4xf8E5M2>
// LEGACY-NEXT:breaking: main: result[1]: type complex<f32> -> complex<f64>
// LEGACY-EMPTY:

// SAME-NOT: {{.}}

//      MIXED:breaking: main: argument 4: kind list -> tuple
// MIXED-EMPTY:

func.func @main(%a: tensor<4xf8E4M3FN>, %b: complex<f32>, %c: vector<4xf32>, %d: memref<4xf32>, %e: tuple<tensor<2xf8E4M3FN>, complex<f32>>, %f: tensor<3xcomplex<f32>>, %g: ui8, %h: tensor<2xsi32>) -> (tensor<4xf8E4M3FN>, complex<f32>) {
  return %a, %b : tensor<4xf8E4M3FN>, complex<f32>
}
