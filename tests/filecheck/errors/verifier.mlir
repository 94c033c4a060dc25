// Verifier errors (xDSL's and the project dialects'), located at the operation, or at the
// argument/result that carries a bad dialect attribute.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

func.func @return_type(%a: i32) -> f32 {
  // expected-error @+1 {{Expected arguments to have the same types as the function output types: expected [f32], got [i32]}}
  func.return %a : i32
}

// -----

func.func @callee(%a: i32) {
  func.return
}
func.func @call_types(%a: f32) {
  // expected-error @+1 {{operand type mismatch: expected operand type i32, but provided f32 for operand number 0}}
  func.call @callee(%a) : (f32) -> ()
  func.return
}

// -----

func.func @call_missing() {
  // expected-error @+1 {{'@nowhere' could not be found in symbol table}}
  func.call @nowhere() : () -> ()
  func.return
}

// -----

// expected-error @+1 {{Redefinition of symbol "twice"}}
func.func @twice() {
  func.return
}
func.func @twice() {
  func.return
}

// -----

// expected-error @+1 {{duplicate key 'a' in !abi.dict}}
func.func @duplicate_dict_key(%d: !abi.dict<"a": i32, "a": f32>) {
  func.return
}

// -----

func.func @dict_get_missing_key(%d: !abi.dict<"k": i32>) -> i32 {
  // expected-error @+1 {{key "m" is not in !abi.dict<"k": i32>}}
  %x = abi.dict.get %d["m"] : !abi.dict<"k": i32> -> i32
  func.return %x : i32
}

// -----

func.func @tuple_get_out_of_range(%t: tuple<i32>) -> i32 {
  // expected-error @+1 {{index 3 is out of range for tuple<i32>}}
  %x = abi.tuple.get %t[3] : tuple<i32> -> i32
  func.return %x : i32
}

// -----

// expected-error @+1 {{abi.name must be a string}}
func.func @name_not_a_string(%a: i32 {abi.name = 7 : i32}) {
  func.return
}

// -----

// A string literal whose bytes are not UTF-8 is a bytes attribute, not a name.
// expected-error @+1 {{abi.name must be a string}}
func.func @name_not_utf8(%a: i32 {abi.name = "\FF\FE"}) {
  func.return
}

// -----

// expected-error @+1 {{abi.name is only valid on function arguments}}
func.func @name_on_result(%a: i32) -> (i32 {abi.name = "r"}) {
  func.return %a : i32
}

// -----

// expected-error @+1 {{abi.index_path must be an array of strings and integers}}
func.func @index_path_not_an_array(%a: i32 {abi.index_path = "0"}) {
  func.return
}

// -----

// expected-error @+1 {{tf_saved_model.exported_names must be an array of strings}}
func.func @exported_names_not_strings(%a: i32) attributes {tf_saved_model.exported_names = [1 : i32]} {
  func.return
}
