// --split-input-file processes each `// -----` chunk on its own and joins the outputs with
// the same marker; positions stay those of the whole file.
// RUN: abi-opt %s --split-input-file | filecheck %s
// RUN: not abi-opt %s 2>&1 | filecheck %s --check-prefix=WHOLE

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @first() {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @first() {
// CHECK:      // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @third(%a: i32) -> i32 {
// CHECK-NOT:  // -----
// WHOLE: split-input-file.mlir:[[# @LINE + 1]]:1: error: Redefinition of symbol "first"
func.func @first() {
  func.return
}

// -----

// The same symbol again: fine in its own chunk, an error in one module (located at the
// module, which for an implicit module is its first operation).
func.func @first() {
  func.return
}

// -----

func.func @third(%a: i32) -> i32 {
  func.return %a : i32
}
