// A function name MLIR rejects is a located error (xDSL reads the header and says what
// is wrong), not an internal error.
// RUN: abi-opt %s -p iree-abi-v1 --verify-diagnostics

// expected-error @+1 {{unknown escape in string literal}}
func.func @"\zz"(%x: i32) -> i32 {
  return %x : i32
}
