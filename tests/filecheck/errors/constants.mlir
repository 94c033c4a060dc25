// Constants abi-opt cannot keep exactly are errors at the literal, never a changed value.
// Messages follow MLIR's where MLIR has one. (`--parse-all`: a body no pass rewrites is
// otherwise carried as text, unparsed.)
// RUN: not abi-opt %s --parse-all --split-input-file --allow-unregistered-dialect 2>&1 | filecheck %s

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: hexadecimal float literal should not have a leading minus
func.func @f() -> tensor<f32> {
  %0 = arith.constant dense<-0x7F800000> : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:23: error: hexadecimal float literal should not have a leading minus
func.func @f() -> f32 {
  %0 = arith.constant -0x7F800000 : f32
  func.return %0 : f32
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:33: error: hexadecimal float constant out of range for type
func.func @f() -> tensor<2xf16> {
  %0 = arith.constant dense<[0, 0x1FC00]> : tensor<2xf16>
  func.return %0 : tensor<2xf16>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:23: error: hexadecimal float constant out of range for type
func.func @f() -> f32 {
  %0 = arith.constant 0x1FF800000 : f32
  func.return %0 : f32
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: expected floating point literal
func.func @f() -> tensor<f32> {
  %0 = arith.constant dense<true> : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: expected string containing hex digits starting with `0x`
func.func @f() -> tensor<f32> {
  %0 = arith.constant dense<"0xZZ"> : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: expected string containing hex digits starting with `0x`
func.func @f() -> tensor<f32> {
  %0 = arith.constant dense<"abc"> : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: elements hex data size is invalid for provided type: 'tensor<3xf32>'
func.func @f() -> tensor<3xf32> {
  %0 = arith.constant dense<"0x0000"> : tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:30: error: Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)
func.func @f() -> tensor<2xi8> {
  %0 = arith.constant dense<[300, 1]> : tensor<2xi8>
  func.return %0 : tensor<2xi8>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:23: error: Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)
func.func @f() -> i8 {
  %0 = arith.constant 300 : i8
  func.return %0 : i8
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: Expected non-negative integer values
func.func @f() -> tensor<2xui8> {
  %0 = arith.constant dense<-1> : tensor<2xui8>
  func.return %0 : tensor<2xui8>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:30: error: expected integer value
func.func @f() -> tensor<2xi32> {
  %0 = arith.constant dense<[1.5, 2]> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: Boolean values are only allowed for i1 types
func.func @f() -> tensor<i32> {
  %0 = arith.constant dense<true> : tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

// xDSL cannot store these element types: an error, not an internal error.
// CHECK: constants.mlir:[[# @LINE + 2]]:39: error: dense literals of i128 elements are not supported
func.func @f() -> tensor<2xi128> {
  %0 = arith.constant dense<[1, 2]> : tensor<2xi128>
  func.return %0 : tensor<2xi128>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:36: error: dense literals of f80 elements are not supported
func.func @f() -> tensor<f80> {
  %0 = arith.constant dense<1.0> : tensor<f80>
  func.return %0 : tensor<f80>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:23: error: hexadecimal float constant out of range for type
func.func @f() -> f128 {
  %0 = arith.constant 0x17FFF0000000000000000000000000000 : f128
  func.return %0 : f128
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:23: error: hexadecimal float literal should not have a leading minus
func.func @f() -> f80 {
  %0 = arith.constant -0x7FFF8000000000000000 : f80
  func.return %0 : f80
}

// -----

// An integer without a type is an i64: out of range, the error is at the integer.
// CHECK: constants.mlir:[[# @LINE + 2]]:27: error: Integer value 99999999999999999999 is out of range for type i64 which supports values in the range [-9223372036854775808, 18446744073709551616)
func.func @f() {
  "test.op"() {a = 1, b = 99999999999999999999} : () -> ()
  func.return
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:23: error: integer constant out of range for index
func.func @f() -> index {
  %0 = arith.constant 9223372036854775808 : index
  func.return %0 : index
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: hexadecimal parts of a complex literal are not supported
func.func @f() -> tensor<complex<f32>> {
  %0 = arith.constant dense<(0x7F800000, 0)> : tensor<complex<f32>>
  func.return %0 : tensor<complex<f32>>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: expected a complex literal `(real, imaginary)`
func.func @f() -> tensor<complex<f32>> {
  %0 = arith.constant dense<1.0> : tensor<complex<f32>>
  func.return %0 : tensor<complex<f32>>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 2]]:29: error: unexpected complex literal for a non-complex element type
func.func @f() -> tensor<f32> {
  %0 = arith.constant dense<(1.0, 2.0)> : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: constants.mlir:[[# @LINE + 1]]:48: error: hexadecimal float literal should not have a leading minus
func.func @f() attributes {a = array<f32: 1.0, -0x7F800000>} {
  func.return
}

// -----

// CHECK: constants.mlir:[[# @LINE + 1]]:43: error: hexadecimal float constant out of range for type
func.func @f() attributes {a = array<f16: 0x10000>} {
  func.return
}
