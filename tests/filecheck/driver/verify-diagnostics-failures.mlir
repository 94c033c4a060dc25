// --verify-diagnostics fails (exit 1) on a diagnostic no annotation expects and on an
// annotation no diagnostic matches, with mlir-opt's messages.
// RUN: not abi-opt --parse-all %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:3: error: unexpected error: Expected arguments to have the same types as the function output types: expected [f32], got [i32]
func.func @unexpected(%a: i32) -> f32 {
  func.return %a : i32
}

// -----

// The annotation's text is a substring match, but case matters.
func.func @wrong_text(%a: i32) -> f32 {
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 3]]:3: error: unexpected error: Expected arguments to have the same types
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 1]]:6: error: expected error "EXPECTED ARGUMENTS" was not produced
  // expected-error @+1 {{EXPECTED ARGUMENTS}}
  func.return %a : i32
}

// -----

// The right message on the wrong line does not match.
func.func @wrong_line(%a: i32) -> f32 {
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:3: error: unexpected error: Expected arguments
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: expected error "Expected arguments" was not produced
  func.return %a : i32
  // expected-error @+1 {{Expected arguments}}
}

// -----

// Severity matters: an error is not a warning.
func.func @wrong_kind(%a: i32) -> f32 {
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 3]]:3: error: unexpected error: Expected arguments
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 1]]:6: error: expected warning "Expected arguments" was not produced
  // expected-warning @+1 {{Expected arguments}}
  func.return %a : i32
}

// -----

// An expectation in a chunk without diagnostics.
func.func @nothing() {
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 1]]:6: error: expected note "never" was not produced
  // expected-note @+1 {{never}}
  func.return
}
