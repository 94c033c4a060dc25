// A file that ends with the split marker (and blank lines) is accepted, as by mlir-opt:
// there is no empty last chunk.
// RUN: abi-opt %s --split-input-file | filecheck %s --match-full-lines

// CHECK: builtin.module {
// CHECK-NEXT:   func.func @only() {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT: // -----
func.func @only() {
  func.return
}

// -----

