// Every error is `<file>:<line>:<col>: error: <message>` at the place it is about, exit
// status 1; every chunk of a split file is processed and reports its own errors.
// RUN: not abi-opt --parse-all %s --split-input-file -p materialize-iree-abi 2>&1 | filecheck %s

// A syntax error, at the offending token.
// CHECK: located-errors.mlir:[[# @LINE + 2]]:22: error: Expected ','
func.func @syntax(%a: i32) -> i32 {
  %x = arith.addi %a %a : i32
  func.return %x : i32
}

// -----

// An unknown operation.
// CHECK: located-errors.mlir:[[# @LINE + 2]]:4: error: Operation foo.bar is not registered
func.func @unknown() {
  "foo.bar"() : () -> ()
  func.return
}

// -----

// A verifier error, at the operation that does not verify.
// CHECK: located-errors.mlir:[[# @LINE + 2]]:3: error: Expected arguments to have the same types as the function output types: expected [f32], got [i32]
func.func @verifier(%a: i32) -> f32 {
  func.return %a : i32
}

// -----

// A pass error about an argument, at that argument's name.
// CHECK: located-errors.mlir:[[# @LINE + 2]]:21: error: bound input on argument 1 must be resolved before ABI processing
func.func @bound(%a: i32,
                    %b: i32 {tf_saved_model.bound_input = @v}) -> i32 {
  func.return %b : i32
}

// -----

// The second use of a name, at that argument.
// CHECK: located-errors.mlir:[[# @LINE + 1]]:44: error: duplicate argument name 'x'
func.func @names(%a: i32 {abi.name = "x"}, %b: i32 {abi.name = "x"}) {
  func.return
}

// -----

// A chunk without errors still prints nothing: output is written only on success.
// CHECK-NOT: func.func @fine
func.func @fine() {
  func.return
}

// -----

// A bad dialect attribute on an argument, at that argument.
// CHECK: located-errors.mlir:[[# @LINE + 2]]:18: error: each index path component must be a string or integer
func.func @attribute(%a: i32,
                 %b: i32 {abi.index_path = [1.5]}) {
  func.return
}

// -----

// Columns count UTF-8 bytes, as MLIR's do: "é" is two bytes (character column 44).
// CHECK: located-errors.mlir:[[# @LINE + 1]]:45: error: duplicate argument name 'é'
func.func @bytes(%a: i32 {abi.name = "é"}, %b: i32 {abi.name = "é"}) {
  func.return
}
