// A comment in an explicit module's header ends at a `\r` (CR-only line ends) as at a
// `\n`: the header's attributes after it are read (the comment is not xDSL's to see).
// RUN: tr '\n' '\r' < %s | abi-opt | tr '\r' '\n' | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-opt %s | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module attributes {foo.a = "//", foo.b = 2 : i32} {
// CHECK-NEXT:  func.func @f(%a: i32) -> i32 {
// CHECK-NEXT:    return %a : i32
// CHECK-NEXT:  }
// CHECK-NEXT:}

module attributes {foo.a = "//", // a comment
    foo.b = 2 : i32} {
  func.func @f(%a: i32) -> i32 {
    return %a : i32
  }
}
