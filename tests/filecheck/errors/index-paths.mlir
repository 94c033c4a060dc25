// Every index path error of docs/spec.md §3.2, through materialize-iree-abi alone and both
// pipelines (iree-abi-v1 reads the paths in materialize-iree-abi and wrap-entry-points,
// iree-abi-legacy in materialize-sip-abi), located at the offending argument or result.
// RUN: abi-opt %s -p materialize-iree-abi --split-input-file --verify-diagnostics
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics
// RUN: abi-opt %s -p iree-abi-legacy --split-input-file --verify-diagnostics

func.func @missing_argument(%a: i32 {abi.index_path = [0]},
                            // expected-error @+1 {{Missing argument attribute abi.index_path on argument 1}}
                            %b: i32) {
  func.return
}

// -----

// expected-error @+1 {{Missing result attribute abi.index_path on result 0}}
func.func @missing_result(%a: i32 {abi.index_path = [0]}) -> i32 {
  func.return %a : i32
}

// -----

// expected-error @+1 {{Missing result attribute tf_saved_model.index_path on result 0}}
func.func @missing_tf_result(%a: i32 {tf_saved_model.index_path = [0]}) -> i32 {
  func.return %a : i32
}

// -----

// The first attribute found names the one in use: here TensorFlow's.
func.func @mixed_attributes(%a: i32 {tf_saved_model.index_path = [0]},
                            // expected-error @+1 {{Missing argument attribute tf_saved_model.index_path on argument 1}}
                            %b: i32 {abi.index_path = [1]}) {
  func.return
}

// -----

func.func @dict_key_on_sequence(%a: i32 {abi.index_path = [0, 0]},
                                // expected-error @+1 {{structure path mismatch: dereference a non-dict with a dict key 'k'}}
                                %b: i32 {abi.index_path = [0, "k"]}) {
  func.return
}

// -----

func.func @sequence_key_on_dict(%a: i32 {abi.index_path = [0, "k"]},
                                // expected-error @+1 {{structure path mismatch: dereference a non-sequence with a sequence key 3}}
                                %b: i32 {abi.index_path = [0, 3]}) {
  func.return
}

// -----

// expected-error @+1 {{structure path mismatch: dereference a non-dict with a dict key 'x'}}
func.func @result_mismatch(%a: i32 {abi.index_path = [0]}) -> (i32 {abi.index_path = [0]}, i32 {abi.index_path = ["x"]}) {
  func.return %a, %a : i32, i32
}

// -----

// expected-error @+1 {{each index path component must be a string or integer}}
func.func @float_component(%a: i32 {abi.index_path = [1.5]}) {
  func.return
}

// -----

// expected-error @+1 {{each index path component must be a string or integer}}
func.func @array_component(%a: i32 {abi.index_path = [[0]]}) {
  func.return
}

// -----

// `true` is a boolean, not the sequence key -1 (xDSL reads it as the integer -1).
// expected-error @+1 {{each index path component must be a string or integer}}
func.func @boolean_component(%a: i32 {abi.index_path = [0, true]}) {
  func.return
}

// -----

// expected-error @+1 {{each index path component must be a string or integer}}
func.func @unit_component(%a: i32 {abi.index_path = [0, unit]}) {
  func.return
}

// -----

func.func @duplicate(%a: i32 {abi.index_path = [0, 1]},
                     // expected-error @+1 {{duplicate assignment to structure path [0, 1]}}
                     %b: i32 {abi.index_path = [0, 1]}) {
  func.return
}

// -----

func.func @leaf_then_inner(%a: i32 {abi.index_path = [0]},
                           // expected-error @+1 {{duplicate assignment to structure path [0, 'x']}}
                           %b: i32 {abi.index_path = [0, "x"]}) {
  func.return
}

// -----

func.func @inner_then_leaf(%a: i32 {abi.index_path = [0, "x"]},
                           // expected-error @+1 {{duplicate assignment to structure path [0]}}
                           %b: i32 {abi.index_path = [0]}) {
  func.return
}

// -----

func.func @duplicate_name(%a: i32 {abi.index_path = ["x"]},
                          // expected-error @+1 {{duplicate assignment to structure path ['x']}}
                          %b: i32 {abi.index_path = ["x"]}) {
  func.return
}

// -----

// The argument root is always a sequence: a value at [] would replace it.
// expected-error @+1 {{duplicate assignment to structure path []}}
func.func @argument_at_root(%a: i32 {abi.index_path = []}) {
  func.return
}

// -----

// expected-error @+1 {{duplicate assignment to structure path [0]}}
func.func @result_duplicate(%a: i32 {abi.index_path = [0]}) -> (i32 {abi.index_path = [0]}, i32 {abi.index_path = [0]}) {
  func.return %a, %a : i32, i32
}

// -----

// expected-error @+1 {{negative sequence key -1 in structure path}}
func.func @negative_root_key(%a: i32 {abi.index_path = [-1]}) {
  func.return
}

// -----

// expected-error @+1 {{negative sequence key -2 in structure path}}
func.func @negative_inner_key(%a: i32 {abi.index_path = [0, -2]}) {
  func.return
}

// -----

// expected-error @+1 {{index path on a structured value (argument 0)}}
func.func @structured_argument(%a: tuple<i32> {abi.index_path = [0]}) {
  func.return
}

// -----

// expected-error @+1 {{index path on a structured value (result 0)}}
func.func @structured_result(%a: i32 {abi.index_path = [0]}) -> (!abi.dict<"k": i32> {abi.index_path = []}) {
  %d = abi.dict.pack %a : (i32) -> !abi.dict<"k": i32>
  func.return %d : !abi.dict<"k": i32>
}

// -----

// A path of 102 components nests the argument 101 levels deep (the limit is 100).
// expected-error @+1 {{structure nested deeper than 100 levels}}
func.func @too_deep(%a: i32 {abi.index_path = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}) {
  func.return
}

// -----

// Gaps are kept (null records): a sequence key above 2^20 would ask for that many.
// expected-error @+1 {{sequence key 2147483648 in structure path is out of range (at most 1048576)}}
func.func @huge_key_below_root(%a: i32 {abi.index_path = [0, 2147483648]}) {
  func.return
}

// -----

// expected-error @+1 {{sequence key 30000000 in structure path is out of range (at most 1048576)}}
func.func @huge_root_key(%a: i32 {abi.index_path = [30000000]}) {
  func.return
}

// -----

// expected-error @+1 {{sequence key of 201 bits in structure path is out of range (at most 1048576)}}
func.func @huge_result_key() -> (i32 {abi.index_path = [1606938044258990275541962092341162602522202993782792835301376 : i202]}) {
  %c = arith.constant 0 : i32
  func.return %c : i32
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{bound input on argument 0 must be resolved before ABI processing}}
  func.func @bound(%v: tensor<f32> {tf_saved_model.bound_input = @var}) attributes {tf_saved_model.exported_names = ["bound"]} {
    func.return
  }
}
