// The iree types' syntax, violated.
// RUN: abi-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{type expected}}
func.func @list_without_element(%l: !iree.list<>) {
  func.return
}

// -----

// expected-error @+1 {{type expected}}
func.func @list_of_an_attribute(%l: !iree.list<"x">) {
  func.return
}

// -----

// expected-error @+1 {{type expected}}
func.func @tuple_of_an_attribute(%t: !iree.tuple<i32, 1>) {
  func.return
}
