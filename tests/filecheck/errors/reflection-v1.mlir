// Existing V1 reflection that does not decode is an error, never replaced (docs/spec.md §7):
// `malformed existing reflection '<key>': <codec error>`, located at the function.
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics

// expected-error @+1 {{malformed existing reflection 'iree.abi': invalid JSON: Expecting value (at offset 0)}}
func.func @not_json(%a: i32) attributes {iree.reflection = {iree.abi = "not json"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': unsupported version 2 (expected 1) (at offset 19)}}
func.func @wrong_version(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:2}"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': expected a JSON object {"a": [...], "r": [...], "v": 1}, got an array (at offset 0)}}
func.func @not_an_object(%a: i32) attributes {iree.reflection = {iree.abi = "[]"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': unknown record kind "tensor" (at offset 7)}}
func.func @unknown_record(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22tensor\22]],\22r\22:[],\22v\22:1}"}} {
  func.return
}

// -----

// A frontend's bare iree.abi is validated too before it moves into iree.reflection.
// expected-error @+1 {{malformed existing reflection 'iree.abi': invalid JSON: Expecting ',' delimiter (at offset 2)}}
func.func @bare_not_json(%a: i32) attributes {iree.abi = "[1"} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': expected a string}}
func.func @bare_not_a_string(%a: i32) attributes {iree.abi = 3 : i32} {
  func.return
}

// -----

// expected-error @+1 {{iree.reflection must be a dictionary attribute}}
func.func @reflection_not_a_dict(%a: i32) attributes {iree.reflection = "iree.abi"} {
  func.return
}

// -----

// A wrapped function: its existing iree.abi must describe the wrapper's arguments.
// expected-error @+1 {{existing iree.abi does not match the signature of @wrapped}}
func.func @wrapped(%t: tuple<i32, i32>) attributes {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"} {
  func.return
}

// -----

// 102 levels of stuple: one more than the decoder reads.
// expected-error @+1 {{malformed existing reflection 'iree.abi': records nested deeper than 101 levels (at offset 1016)}}
func.func @too_deep(%a: i32) attributes {iree.abi = "{\22a\22:[[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22,[\22stuple\22]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],\22r\22:[],\22v\22:1}"} {
  func.return
}
