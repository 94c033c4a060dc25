// RUN: abi-opt %s -p wrap-entry-points --split-input-file --verify-diagnostics --allow-unregistered-dialect
// What wrap-entry-points cannot do (docs/spec.md §8, §8.2), with exact diagnostics.

func.func private @_taken()
// expected-error @+1 {{symbol @_taken already exists}}
func.func @taken(%t: tuple<i32>) {
  func.return
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{no value at result path [1]}}
  func.func @gap(%a: i32 {tf_saved_model.index_path = [0]})
      -> (i32 {tf_saved_model.index_path = [0]}, i32 {tf_saved_model.index_path = [2]})
      attributes {tf_saved_model.exported_names = ["gap"]} {
    func.return %a, %a : i32, i32
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{no value at result path [0, 'k', 0]}}
  func.func @nested_gap(%a: i32 {tf_saved_model.index_path = [0]})
      -> (i32 {tf_saved_model.index_path = [0, "k", 1]}, i32 {tf_saved_model.index_path = [1]})
      attributes {tf_saved_model.exported_names = ["nested_gap"]} {
    func.return %a, %a : i32, i32
  }
}

// -----

// expected-error @+1 {{existing iree.abi does not match the signature of @mismatch}}
func.func @mismatch(%t: tuple<i32, i32>) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22,\22i32\22],\22r\22:[],\22v\22:1}"}} {
  func.return
}

// -----

// expected-error @+1 {{malformed existing reflection 'iree.abi': }}
func.func @malformed(%t: tuple<i32, i32>) attributes {iree.abi = "[]"} {
  func.return
}

// -----

func.func @escapes(%t: tuple<i32, i32>) {
  // expected-error @+1 {{cannot lower structured value of type tuple<i32, i32>: used by 'test.use'}}
  "test.use"(%t) : (tuple<i32, i32>) -> ()
  func.return
}

// -----

// A public declaration whose signature is flattened gets a warning (docs/spec.md §2).
// expected-warning @+1 {{the signature of public declaration @external is flattened: its structured types are replaced by their leaves}}
func.func @external(tuple<i32, f32>) -> i32

// -----

// expected-error @+1 {{bound input on argument 0 must be resolved before ABI processing}}
func.func @flat_bound(%v: tensor<f32> {tf_saved_model.bound_input = @v}) {
  func.return
}

// -----

// An iree.abi.output that names no result of the argument's type.
// expected-error @+1 {{argument 0: iree.abi.output must name a result of its tensor type that no other argument names}}
func.func @bad_output(%c: tensor<4xf32> {abi.index_path = [0], iree.abi.output = 1 : index})
    -> (tensor<4xf32> {abi.index_path = [0]}) {
  func.return %c : tensor<4xf32>
}
