// Operations, types and attributes of dialects abi-opt does not know (or names a known
// dialect does not define): located at the name.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

func.func @custom_form() {
  // expected-error @+1 {{Operation foo.bar is not registered and its custom syntax cannot be parsed: write it in generic form ("foo.bar"(…) : (…) -> (…)) with --allow-unregistered-dialect, or leave out --parse-all to carry the body as text}}
  foo.bar
  func.return
}

// -----

// expected-error @+1 {{Operation foo.bar is not registered (--allow-unregistered-dialect accepts it in generic form)}}
"foo.bar"() : () -> ()

// -----

func.func @known_dialect_unknown_op(%a: i32) {
  // expected-error @+1 {{Operation arith.frobnicate is not registered and its custom syntax cannot be parsed: write it in generic form ("arith.frobnicate"(…) : (…) -> (…)) with --allow-unregistered-dialect, or leave out --parse-all to carry the body as text}}
  %x = arith.frobnicate %a : i32
  func.return
}

// -----

func.func @util_unknown_op(%l: !util.list<?>) {
  // expected-error @+1 {{Operation util.list.pop is not registered and its custom syntax cannot be parsed: write it in generic form ("util.list.pop"(…) : (…) -> (…)) with --allow-unregistered-dialect, or leave out --parse-all to carry the body as text}}
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
