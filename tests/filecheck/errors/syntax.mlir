// MLIR syntax errors: one located diagnostic each, at the offending token.
// RUN: abi-opt %s --split-input-file --verify-diagnostics

func.func @unterminated_string(%a: i32) attributes {
  // expected-error @+1 {{End of file reached before closing string literal.}}
  note = "no closing quote
} {
  func.return
}

// -----

func.func @missing_comma(%a: i32) -> i32 {
  // expected-error @+1 {{Expected ','}}
  %x = arith.addi %a %a : i32
  func.return %x : i32
}

// -----

func.func @extra_brace() {
  func.return
}
// expected-error @+1 {{Could not parse entire input!}}
}

// -----

// xDSL allows forward references until the end of the input, so this is reported there.
func.func @undefined_value() -> i32 {
  func.return %x : i32
}
// The end of this chunk is two lines below (after the blank line).
// expected-error @+2 {{values used but not defined: [%x]}}

// -----

func.func @redefined_value() {
  %x = arith.constant 1 : i32
  // expected-error @+1 {{SSA value %x is already defined}}
  %x = arith.constant 2 : i32
  func.return
}

// -----

// expected-error @+1 {{unknown escape in string literal}}
func.func @bad_escape(%a: i32 {abi.name = "\q"}) {
  func.return
}

// -----

// expected-error @+1 {{type expected}}
func.func @trailing_comma_in_tuple(%a: tuple<i32,>) {
  func.return
}

// -----

// expected-error @+1 {{Expected shape type.}}
func.func @negative_dim(%a: tensor<-3xf32>) {
  func.return
}

// -----

// expected-error @+1 {{undefined symbol alias '#nowhere'}}
func.func @unknown_alias(%a: i32) attributes {note = #nowhere} {
  func.return
}

// -----

// expected-error @+1 {{string literal expected as a quoted !abi.dict key}}
func.func @unquoted_dict_key(%a: !abi.dict<k: i32>) {
  func.return
}

// -----

func.func @truncated(%a: i32) -> i32 {
  func.return %a : i32
// expected-error @below {{ in block definition}}
