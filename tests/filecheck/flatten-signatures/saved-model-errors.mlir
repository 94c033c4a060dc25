// RUN: abi-opt %s -p flatten-signatures --split-input-file --verify-diagnostics
// Adopting saved-model exports (docs/spec.md §6): the errors.

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{Multiple exported names not supported yet}}
  func.func @f(%a: i32 {tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["a", "b"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  func.func private @taken()
  // expected-error @+1 {{symbol @taken already exists}}
  func.func @f(%a: i32 {tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["taken"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{bound input on argument 1 must be resolved before ABI processing}}
  func.func @f(%a: i32 {tf_saved_model.index_path = [0]}, %v: tensor<f32> {tf_saved_model.bound_input = @v}) attributes {tf_saved_model.exported_names = ["f"]} {
    func.return
  }
}

// -----

// Outside saved-model modules too, for a function flatten-signatures does not change.
// expected-error @+1 {{bound input on argument 0 must be resolved before ABI processing}}
func.func @flat_bound(%v: tensor<f32> {tf_saved_model.bound_input = @v}) {
  func.return
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{tf_saved_model.exported_names must not contain an empty name}}
  func.func @empty_name() attributes {tf_saved_model.exported_names = [""]} {
    func.return
  }
}
