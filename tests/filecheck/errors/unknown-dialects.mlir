// Operations, types and attributes of dialects abi-opt does not know (or names a known
// dialect does not define): located at the name.
// RUN: abi-opt %s --split-input-file --verify-diagnostics

func.func @custom_form() {
  // expected-error @+1 {{Operation foo.bar is not registered}}
  foo.bar
  func.return
}

// -----

// expected-error @+1 {{Operation foo.bar is not registered}}
"foo.bar"() : () -> ()

// -----

func.func @known_dialect_unknown_op(%a: i32) {
  // expected-error @+1 {{Operation arith.frobnicate is not registered}}
  %x = arith.frobnicate %a : i32
  func.return
}

// -----

func.func @util_unknown_op(%l: !util.list<?>) {
  // expected-error @+1 {{Operation util.list.pop is not registered}}
  util.list.pop %l : !util.list<?>
  func.return
}

// -----

// expected-error @+1 {{'foo.bar' is not registered}}
func.func @unknown_type(%a: !foo.bar) {
  func.return
}

// -----

// expected-error @+1 {{'abi.frozenset' is not registered}}
func.func @unknown_abi_type(%a: !abi.frozenset<i32>) {
  func.return
}

// -----

// expected-error @+1 {{'foo.attr' is not registered}}
func.func @unknown_attribute(%a: i32) attributes {note = #foo.attr<1>} {
  func.return
}
