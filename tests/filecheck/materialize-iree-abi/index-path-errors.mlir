// RUN: abi-opt %s -p materialize-iree-abi --split-input-file --verify-diagnostics
// Every index path error of docs/spec.md §3.2, located at the offending argument or result.

func.func @missing(%a: i32 {abi.index_path = [0]},
                   // expected-error @+1 {{Missing argument attribute abi.index_path on argument 1}}
                   %b: i32) {
  func.return
}

// -----

// expected-error @+1 {{Missing result attribute tf_saved_model.index_path on result 0}}
func.func @missing_result(%a: i32 {tf_saved_model.index_path = [0]}) -> i32 {
  func.return %a : i32
}

// -----

func.func @dict_after_sequence(%a: i32 {abi.index_path = [0, 0]},
                               // expected-error @+1 {{structure path mismatch: dereference a non-dict with a dict key 'k'}}
                               %b: i32 {abi.index_path = [0, "k"]}) {
  func.return
}

// -----

func.func @sequence_after_dict(%a: i32 {abi.index_path = [0, "k"]},
                               // expected-error @+1 {{structure path mismatch: dereference a non-sequence with a sequence key 3}}
                               %b: i32 {abi.index_path = [0, 3]}) {
  func.return
}

// -----

// expected-error @+1 {{each index path component must be a string or integer}}
func.func @bad_component(%a: i32 {abi.index_path = [1.5]}) {
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

// expected-error @+1 {{index path on a structured value (argument 0)}}
func.func @structured(%a: tuple<i32> {abi.index_path = [0]}) {
  func.return
}

// -----

// expected-error @+1 {{index path on a structured value (result 0)}}
func.func @structured_result(%a: i32 {abi.index_path = [0]}) -> (!abi.dict<"k": i32> {abi.index_path = []}) {
  %0 = abi.dict.pack %a : (i32) -> !abi.dict<"k": i32>
  func.return %0 : !abi.dict<"k": i32>
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{bound input on argument 0 must be resolved before ABI processing}}
  func.func @bound(%v: tensor<f32> {tf_saved_model.bound_input = @var}) attributes {tf_saved_model.exported_names = ["bound"]} {
    func.return
  }
}
