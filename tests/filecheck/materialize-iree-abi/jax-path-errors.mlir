// RUN: abi-opt %s -p materialize-iree-abi --split-input-file --verify-diagnostics
// JAX key strings that read but do not form a structure are errors, as for index paths:
// the same rules and messages (paths in messages are the index paths read).

func.func public @same_leaf_twice(%arg0: tensor<f32> {jax.arg_info = "x"},
                                  // expected-error @+1 {{duplicate assignment to structure path [0]}}
                                  %arg1: tensor<f32> {jax.arg_info = "x"}) {
  return
}

// -----

func.func public @leaf_and_node(%arg0: tensor<f32> {jax.arg_info = "y"},
                                // expected-error @+1 {{duplicate assignment to structure path [0, 0]}}
                                %arg1: tensor<f32> {jax.arg_info = "y[0]"}) {
  return
}

// -----

// `.w` is a dict key: `p` is a dict, so `[0]` cannot follow.
func.func public @mixed_keys(%arg0: tensor<f32> {jax.arg_info = "p.w"},
                             // expected-error @+1 {{structure path mismatch: dereference a non-sequence with a sequence key 0}}
                             %arg1: tensor<f32> {jax.arg_info = "p[0]['b']"}) {
  return
}

// -----

// Results are located at the function.
// expected-error @+1 {{structure path mismatch: dereference a non-sequence with a sequence key 1}}
func.func public @mixed_results() -> (tensor<f32> {jax.result_info = "['loss']"}, tensor<f32> {jax.result_info = "[1]"}) {
  %0 = arith.constant dense<0.0> : tensor<f32>
  return %0, %0 : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{index path on a structured value (argument 0)}}
func.func public @on_a_tuple(%arg0: tuple<f32, f32> {jax.arg_info = "x"}) {
  return
}

// -----

// expected-error @+1 {{structure nested deeper than 100 levels}}
func.func public @too_deep(%arg0: tensor<f32> {jax.arg_info = "x[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"}) {
  return
}
