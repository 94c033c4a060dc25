// RUN: abi-opt %s -p materialize-sip-abi --verify-diagnostics | filecheck %s
// The trivial structure of a flat function (docs/spec.md §6): argument i at [i], or at
// ["<name>"] when every argument is named; a single result is the root itself.

// The example of docs/spec.md §6.
// CHECK-LABEL: func.func @spec_example
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}
func.func @spec_example(%a: i32, %b: tensor<4xf32>) -> i32 {
  func.return %a : i32
}

// CHECK-LABEL: func.func @empty()
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I1!R1!", sipv = "1"}
func.func @empty() {
  func.return
}

// CHECK-LABEL: func.func @several_results
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I1!R12!S9!k0_0k1_1", sipv = "1"}
func.func @several_results() -> (i32, f32) {
  %0 = arith.constant 1 : i32
  %1 = arith.constant 1.0 : f32
  func.return %0, %1 : i32, f32
}

// Every argument named: a dict root keyed by name, keys sorted.
// CHECK-LABEL: func.func @all_named
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I17!D13!K2!a_1K2!x_0R1!", sipv = "1"}
func.func @all_named(%x: i32 {abi.name = "x"}, %a: i32 {abi.name = "a"}) {
  func.return
}

// Some named: a sequence root, and a warning.
// CHECK-LABEL: func.func @some_named
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I12!S9!k0_0k1_1R1!", sipv = "1"}
// expected-warning @+1 {{argument names dropped: a SIP root cannot mix positional and named arguments}}
func.func @some_named(%a: i32, %x: i32 {abi.name = "x"}) {
  func.return
}

// Lists and tensors are leaves.
// CHECK-LABEL: func.func @leaves
// CHECK-SAME: iree.reflection = {abi = "sip", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}
func.func @leaves(%a: !util.list<?>, %b: tensor<2x!util.list<i32>>) -> !iree.list<i8> {
  %0 = func.call @make() : () -> !iree.list<i8>
  func.return %0 : !iree.list<i8>
}
func.func private @make() -> !iree.list<i8>
