// --no-implicit-module: the input is one builtin.module (aliases and resource sections
// beside it); any other top-level op is an error at that op, whether it is carried as
// text or parsed (--parse-all). Nothing after the module is dropped.
// RUN: abi-opt %s --no-implicit-module --split-input-file --verify-diagnostics | filecheck %s
// RUN: abi-opt %s --no-implicit-module --split-input-file --verify-diagnostics --parse-all | filecheck %s
// RUN: not abi-opt %s --no-implicit-module 2>&1 | filecheck %s --check-prefix=WHOLE

// WHOLE: no-implicit-module.mlir:[[# @LINE + 2]]:1: error: builtin.module operation expected: without an implicit module the input is one builtin.module
// expected-error @+1 {{builtin.module operation expected: without an implicit module the input is one builtin.module}}
func.func @f() {
  func.return
}

// -----

module {
}
// expected-error @+1 {{builtin.module operation expected: without an implicit module the input is one builtin.module}}
func.func @g() {
  func.return
}

// -----

module {
}
// expected-error @+1 {{builtin.module operation expected: without an implicit module the input is one builtin.module}}
module {
}

// -----

// An alias beside the module is fine (xDSL's own check refused it).
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @h(%a: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:     func.return %a : tensor<4xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  error
!t = tensor<4xf32>
module {
  func.func @h(%a: tensor<4xf32>) -> tensor<4xf32> {
    func.return %a : tensor<4xf32>
  }
}
