// MLIR syntax errors: one located diagnostic each, at the offending token.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

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
// expected-error @+1 {{Could not parse entire input: expected an operation, an alias definition or a resource section, found '}'}}
}

// -----

// As in MLIR, a value used in an isolated region must be defined in it: reported at
// the use, when the region ends.
func.func @undefined_value() -> i32 {
  // expected-error @+1 {{use of undeclared SSA value name}}
  func.return %x : i32
}

// -----

// Not resolved to a value of the same name in a later function.
func.func @undefined_here() -> i32 {
  // expected-error @+1 {{use of undeclared SSA value name}}
  func.return %x : i32
}
func.func @defined_there() -> i32 {
  %x = arith.constant 1 : i32
  func.return %x : i32
}

// -----

// Of several undefined values, the first use is reported (parsing stops there).
func.func @two_undefined() -> i32 {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %w = arith.addi %u, %u : i32
  %y = arith.addi %v, %w : i32
  func.return %y : i32
}

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
