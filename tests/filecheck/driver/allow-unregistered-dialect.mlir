// Operations of unknown dialects are errors unless --allow-unregistered-dialect.
// RUN: abi-opt --parse-all %s --allow-unregistered-dialect | filecheck %s
// RUN: not abi-opt --parse-all %s 2>&1 | filecheck %s --check-prefix=ERROR

// CHECK:      func.func @f(%a: i32) -> i32 {
// CHECK-NEXT:   %b = "mystery.op"(%a) {level = 3 : i64} : (i32) -> i32
// ERROR: allow-unregistered-dialect.mlir:[[# @LINE + 2]]:9: error: Operation mystery.op is not registered
func.func @f(%a: i32) -> i32 {
  %b = "mystery.op"(%a) {level = 3 : i64} : (i32) -> i32
  func.return %b : i32
}
