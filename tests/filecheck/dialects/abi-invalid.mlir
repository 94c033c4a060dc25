// Every constraint of the abi dialect's type and ops, violated once.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

// expected-error @+1 {{duplicate key 'k' in !abi.dict}}
func.func @dict_duplicate_key(%d: !abi.dict<"k": i32, "k": f32>) {
  func.return
}

// -----

// expected-error @+1 {{string literal expected as a quoted !abi.dict key}}
func.func @dict_unquoted_key(%d: !abi.dict<k: i32>) {
  func.return
}

// -----

func.func @tuple_pack_type_mismatch(%a: i32) {
  // expected-error @+1 {{result type tuple<i64> does not match the element types (i32)}}
  %t = "abi.tuple.pack"(%a) : (i32) -> tuple<i64>
  func.return
}

// -----

func.func @tuple_pack_count_mismatch(%a: i32) {
  // expected-error @+1 {{result type tuple<i32, i32> does not match the element types (i32)}}
  %t = abi.tuple.pack %a : (i32) -> tuple<i32, i32>
  func.return
}

// -----

func.func @tuple_pack_non_tuple(%a: i32) {
  // expected-error @+1 {{i32 should be of base attribute tuple}}
  %t = "abi.tuple.pack"(%a) : (i32) -> i32
  func.return
}

// -----

func.func @tuple_get_out_of_range(%t: tuple<i32>) {
  // expected-error @+1 {{index 1 is out of range for tuple<i32>}}
  %x = abi.tuple.get %t[1] : tuple<i32> -> i32
  func.return
}

// -----

func.func @tuple_get_negative(%t: tuple<i32>) {
  // expected-error @+1 {{index -1 is out of range for tuple<i32>}}
  %x = abi.tuple.get %t[-1] : tuple<i32> -> i32
  func.return
}

// -----

func.func @tuple_get_type_mismatch(%t: tuple<i32, f32>) {
  // expected-error @+1 {{result type i32 does not match element 1 of tuple<i32, f32>: f32}}
  %x = abi.tuple.get %t[1] : tuple<i32, f32> -> i32
  func.return
}

// -----

func.func @tuple_get_from_a_dict(%d: !abi.dict<"k": i32>) {
  // expected-error @+1 {{!abi.dict<"k": i32> should be of base attribute tuple}}
  %x = "abi.tuple.get"(%d) <{index = 0 : index}> : (!abi.dict<"k": i32>) -> i32
  func.return
}

// -----

// The operands come in sorted key order: "k" before "m".
func.func @dict_pack_unsorted_operands(%k: i32, %m: f32) {
  // expected-error @+1 {{value 0 has type f32 but slot "k" of !abi.dict<"m": f32, "k": i32> (the 1st in sorted key order) has type i32}}
  %d = abi.dict.pack %m, %k : (f32, i32) -> !abi.dict<"m": f32, "k": i32>
  func.return
}

// -----

func.func @dict_pack_count_mismatch(%k: i32) {
  // expected-error @+1 {{expected 2 values for !abi.dict<"k": i32, "m": f32> (one per slot, in sorted key order), got 1}}
  %d = abi.dict.pack %k : (i32) -> !abi.dict<"k": i32, "m": f32>
  func.return
}

// -----

func.func @dict_pack_non_dict(%k: i32) {
  // expected-error @+1 {{tuple<i32> should be of base attribute abi.dict}}
  %d = "abi.dict.pack"(%k) : (i32) -> tuple<i32>
  func.return
}

// -----

func.func @dict_get_missing_key(%d: !abi.dict<"k": i32>) {
  // expected-error @+1 {{key "m" is not in !abi.dict<"k": i32>}}
  %x = abi.dict.get %d["m"] : !abi.dict<"k": i32> -> i32
  func.return
}

// -----

func.func @dict_get_type_mismatch(%d: !abi.dict<"k": i32>) {
  // expected-error @+1 {{result type f32 does not match slot "k" of !abi.dict<"k": i32>: i32}}
  %x = abi.dict.get %d["k"] : !abi.dict<"k": i32> -> f32
  func.return
}

// -----

func.func @dict_get_key_not_a_string(%d: !abi.dict<"k": i32>) {
  // expected-error @+1 {{0 : i64 should be of base attribute string}}
  %x = abi.dict.get %d[0] : !abi.dict<"k": i32> -> i32
  func.return
}

// -----

func.func @to_lists_of_a_plain_tensor(%a: tensor<2xi32>) {
  // expected-error @+1 {{expected a ranked tensor of !util.list or !iree.list elements}}
  %l = abi.ref_array.to_lists %a : tensor<2xi32> -> !util.list<?>
  func.return
}

// -----

func.func @to_lists_of_an_unranked_tensor(%a: tensor<*x!util.list<i32>>) {
  // expected-error @+1 {{expected a ranked tensor of !util.list or !iree.list elements}}
  %l = abi.ref_array.to_lists %a : tensor<*x!util.list<i32>> -> !util.list<?>
  func.return
}

// -----

func.func @to_lists_typed_result(%a: tensor<2x!util.list<i32>>) {
  // expected-error @+1 {{expected !util.list<?>}}
  %l = abi.ref_array.to_lists %a : tensor<2x!util.list<i32>> -> !util.list<i32>
  func.return
}

// -----

func.func @from_lists_typed_operand(%l: !util.list<i32>) {
  // expected-error @+1 {{expected !util.list<?>}}
  %a = abi.ref_array.from_lists %l : !util.list<i32> -> tensor<2x!util.list<i32>>
  func.return
}

// -----

func.func @from_lists_to_a_plain_tensor(%l: !util.list<?>) {
  // expected-error @+1 {{expected a ranked tensor of !util.list or !iree.list elements}}
  %a = abi.ref_array.from_lists %l : !util.list<?> -> tensor<2xf32>
  func.return
}
