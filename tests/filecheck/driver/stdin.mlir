// Input from standard input (no file, or `-`) is named `<stdin>` in diagnostics.
// RUN: not abi-opt --parse-all < %s 2>&1 | filecheck %s
// RUN: not abi-opt --parse-all - < %s 2>&1 | filecheck %s
// RUN: abi-opt --parse-all < %examples/structured.mlir | filecheck %s --check-prefix=OK

// CHECK: <stdin>:[[# @LINE + 2]]:3: error: Expected arguments to have the same types as the function output types: expected [f32], got [i32]
func.func @f(%a: i32) -> f32 {
  func.return %a : i32
}

// OK: func.func @predict(
