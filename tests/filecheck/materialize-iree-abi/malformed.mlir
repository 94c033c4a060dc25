// RUN: abi-opt %s -p materialize-iree-abi --split-input-file --verify-diagnostics
// An existing iree.abi that does not decode is an error (docs/spec.md §7), not replaced.

// expected-error @+1 {{malformed existing reflection 'iree.abi': }}
func.func @not_json(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:["}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': }}
func.func @not_a_record(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22tensor\22],\22r\22:[],\22v\22:1}"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': expected a string}}
func.func @not_a_string(%a: i32) attributes {iree.reflection = {iree.abi = 1 : i32}} {
  func.return
}
