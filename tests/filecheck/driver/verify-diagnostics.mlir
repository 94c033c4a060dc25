// --verify-diagnostics (mlir-opt semantics): every diagnostic matches an annotation on
// its line (substring match), so the run succeeds and prints the chunks that had no error.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics -p materialize-raw-abi | filecheck %s

// expected-error @+1 {{')' expected}}
func.func @syntax(%a: i32 %b: i32) {
  func.return
}

// -----

func.func @verifier(%a: i32) -> f32 {
  // expected-error @+1 {{same types as the function output types}}
  func.return %a : i32
}

// -----

func.func @same_line(%a: i32) -> f32 {
  func.return %a : i32 // expected-error {{expected [f32], got [i32]}}
}

// -----

// expected-error @below {{bound input on argument 0}}
func.func @below(%b: i32 {tf_saved_model.bound_input = @v}) -> i32 {
  func.return %b : i32
}

// -----

// Warnings do not stop the chunk: its output is printed.
// expected-warning @+2 {{Argument #0 of function warned is not a recognized public ABI type}}
// expected-warning @+1 {{Result #0 of function warned}}
func.func @warned(%a: index) -> index {
  func.return %a : index
}
// CHECK:      func.func @warned(%a: index) -> index
// CHECK-SAME:   f = "I4!U1!R4!U1!"

// -----

func.func @argument(%a: i32,
                    // expected-warning @+1 {{Argument #1 of function argument}}
                    %b: complex<f32>) {
  func.return
}
// CHECK: // -----
// CHECK: func.func @argument
