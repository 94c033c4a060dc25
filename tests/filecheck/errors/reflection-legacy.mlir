// Existing legacy reflection (`fv`/`f`, `abi`/`sipv`/`sip`) that does not decode, or has
// the wrong version value, is an error, never replaced (docs/spec.md §7), located at the function.
// RUN: abi-opt %s -p iree-abi-legacy --split-input-file --verify-diagnostics

// expected-error @+1 {{malformed existing reflection 'f': expected a span length after span tag 'R' (at offset 4)}}
func.func @f_truncated(%a: i32) attributes {iree.reflection = {f = "I1!R"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'f': unknown scalar type code 99 (expected 0..11) (at offset 7)}}
func.func @f_unknown_code(%a: i32) attributes {iree.reflection = {f = "I7!S4!t99R1!"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'f': expected decimal digits after integer tag 'g' (at offset 1)}}
func.func @f_garbage(%a: i32) attributes {iree.reflection = {f = "garbage"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'f': expected a string}}
func.func @f_not_a_string(%a: i32) attributes {iree.reflection = {f = 1 : i32}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'fv': expected '1', got '2'}}
func.func @fv_wrong(%a: i32) attributes {iree.reflection = {fv = "2"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'sip': expected a structured value ('_' index, 'S' or 'D' span), got integer component 'k' (at offset 3)}}
func.func @sip_key_without_span(%a: i32) attributes {iree.reflection = {sip = "I3!k0R1!"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'sip': duplicate raw index 0 (at offset 14)}}
func.func @sip_duplicate_index(%a: i32) attributes {iree.reflection = {sip = "I12!S9!k0_0k1_0R1!"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'sip': expected a sequence key 'k', got span component 'K' (at offset 6)}}
func.func @sip_dict_key_in_sequence(%a: i32) attributes {iree.reflection = {sip = "I9!S6!K1!_0R1!"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'sipv': expected '1', got '0'}}
func.func @sipv_wrong(%a: i32) attributes {iree.reflection = {sipv = "0"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'abi': expected 'sip', got 'raw'}}
func.func @abi_wrong(%a: i32) attributes {iree.reflection = {abi = "raw"}} {
  func.return
}
