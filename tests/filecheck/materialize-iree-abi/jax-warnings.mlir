// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p materialize-iree-abi,materialize-sip-abi --verify-diagnostics | filecheck %s
// RUN: abi-opt %s --allow-unregistered-dialect -p materialize-iree-abi,materialize-sip-abi --verify-diagnostics | filecheck %s
// A public function whose JAX key strings cannot give its structure keeps its flat
// (typed) structure, with one warning naming the value and the reason — never an error
// for what JAX writes. Both passes read the structure; the warning is given once.

// Shape-polymorphic exports of JAX before 0.4.14 lead with dimension arguments that have
// no name (since then JAX moves them into @_wrapped_jax_export_main, which @main calls).
// CHECK-LABEL: func.func public @shape_poly(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22i64\22,0],[\22ndarray\22,\22f32\22,2,null,4]],\22r\22:[[\22ndarray\22,\22f32\22,2,null,4]],\22v\22:1}", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}
func.func public @shape_poly(
    // expected-warning @+1 {{argument 0 has no name (neither jax.arg_info nor a name location): the function keeps its flat signature}}
    %arg0: tensor<i64> {jax.global_constant = "b"},
    %arg1: tensor<?x4xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"})
    -> (tensor<?x4xf32> {jax.result_info = ""}) {
  return %arg1 : tensor<?x4xf32>
}

// Pytree nodes registered without keys: JAX writes flattened indices. Results are
// located at the function.
// CHECK-LABEL: func.func public @flat_index(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f64\22,1,32]],\22r\22:[[\22ndarray\22,\22f64\22,1,32],[\22ndarray\22,\22i64\22,0]],\22v\22:1}", sip = "I8!S5!k0_0R12!S9!k0_0k1_1", sipv = "1"}
// expected-warning @+1 {{jax.result_info of result 0 does not read: pytree node without keys '[<flat index 0>]' (a flattened index, not a path) (at offset 0): the function keeps its flat signature}}
func.func public @flat_index(%arg0: tensor<32xf64> {jax.arg_info = "state"})
    -> (tensor<32xf64> {jax.result_info = "[<flat index 0>][<flat index 0>]"},
        tensor<i64> {jax.result_info = "[<flat index 1>]"}) {
  %0 = "stablehlo.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  return %arg0, %0 : tensor<32xf64>, tensor<i64>
}

// A custom key (a tuple as a dict key) on an argument.
// CHECK-LABEL: func.func public @custom_key(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22f32\22,1,2]],\22r\22:[],\22v\22:1}", sip = "I12!S9!k0_0k1_1R1!", sipv = "1"}
func.func public @custom_key(
    %arg0: tensor<2xf32> {jax.arg_info = "x['a']"},
    // expected-warning @+1 {{jax.arg_info of argument 1 does not read: unsupported key '[('b', 1)]' (at offset 1): the function keeps its flat signature}}
    %arg1: tensor<2xf32> {jax.arg_info = "x[('b', 1)]"}) {
  return
}

// Not a string.
// CHECK-LABEL: func.func public @not_a_string(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}", sip = "I8!S5!k0_0R1!", sipv = "1"}
// expected-warning @+2 {{jax.arg_info of argument 0 is not a string: the function keeps its flat signature}}
func.func public @not_a_string(
    %arg0: i32 {jax.arg_info = 3 : i32}) {
  return
}

// A location that is not a name location (a file location, `unknown`) names nothing.
// CHECK-LABEL: func.func public @file_location(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,0],[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}
func.func public @file_location(
    %arg0: tensor<f32> loc("x"),
    // expected-warning @+1 {{argument 1 has no name (neither jax.arg_info nor a name location): the function keeps its flat signature}}
    %arg1: tensor<f32> loc("model.py":3:4)) -> (tensor<f32> {jax.result_info = "result"}) {
  return %arg0 : tensor<f32>
}

// A name location that is not a pytree path.
// CHECK-LABEL: func.func public @not_a_path(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}", sip = "I8!S5!k0_0R3!_0", sipv = "1"}
func.func public @not_a_path(
    // expected-warning @+1 {{the name location of argument 0 does not read: parameter name 'jit(f)' is not an identifier (at offset 0): the function keeps its flat signature}}
    %arg0: tensor<f32> loc("jit(f)")) -> (tensor<f32> {jax.result_info = "result"}) {
  return %arg0 : tensor<f32>
}

// JAX writes no value for a `None` leaf or an empty container: `f(x) = ((), x)` has the
// single result `[1]` (docs/structure.md#2-jax-pytree-paths). The text cannot say what
// was at `[0]`, so the function keeps its flat signature (the Python API reads it from
// the Exported object).
// CHECK-LABEL: func.func public @dropped_leaf(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,3]],\22r\22:[[\22ndarray\22,\22f32\22,1,3]],\22v\22:1}", sip = "I8!S5!k0_0R3!_0", sipv = "1"}
// expected-warning @+1 {{the result paths leave a gap at [0] (JAX writes no value for a None leaf or an empty container): the function keeps its flat signature; abi_compiler.frontends.jax.to_mlir(exported) writes the whole structure from the jax.export.Exported object}}
func.func public @dropped_leaf(%arg0: tensor<3xf32> loc("x"))
    -> (tensor<3xf32> {jax.result_info = "result[1]"}) {
  return %arg0 : tensor<3xf32>
}

// A gap below the root: `{'a': [x, None, x]}`.
// CHECK-LABEL: func.func public @dropped_inner_leaf(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,3]],\22r\22:[[\22ndarray\22,\22f32\22,1,3],[\22ndarray\22,\22f32\22,1,3]],\22v\22:1}", sip = "I8!S5!k0_0R12!S9!k0_0k1_1", sipv = "1"}
// expected-warning @+1 {{the result paths leave a gap at ['a', 1] (JAX writes no value for a None leaf or an empty container): the function keeps its flat signature; abi_compiler.frontends.jax.to_mlir(exported) writes the whole structure from the jax.export.Exported object}}
func.func public @dropped_inner_leaf(%arg0: tensor<3xf32> loc("x"))
    -> (tensor<3xf32> {jax.result_info = "result['a'][0]"}, tensor<3xf32> {jax.result_info = "result['a'][2]"}) {
  return %arg0, %arg0 : tensor<3xf32>, tensor<3xf32>
}

// A result without jax.result_info (and not an effect token).
// CHECK-LABEL: func.func public @unnamed_result(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0],[\22ndarray\22,\22f32\22,0]],\22v\22:1}", sip = "I8!S5!k0_0R12!S9!k0_0k1_1", sipv = "1"}
// expected-warning @+1 {{result 1 carries no jax.result_info: the function keeps its flat signature}}
func.func public @unnamed_result(%arg0: tensor<f32> loc("x"))
    -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<f32>) {
  return %arg0, %arg0 : tensor<f32>, tensor<f32>
}

// Name locations on a function that is not a JAX export (no value carries jax.arg_info
// or jax.result_info) are locations, nothing more: no warning, structure from the types.
// CHECK-LABEL: func.func public @not_jax(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}", sip = "I8!S5!k0_0R3!_0", sipv = "1"}
func.func public @not_jax(%arg0: tensor<f32> loc("params['w']")) -> tensor<f32> {
  return %arg0 : tensor<f32>
}

// Private functions' key strings are ignored, even when the function is exported with
// iree.module.export: no warning, structure from the types.
// CHECK-LABEL: func.func private @private_export(
// CHECK-SAME: iree.reflection = {abi = "sip", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0],[\22ndarray\22,\22f32\22,0]],\22v\22:1}", sip = "I8!S5!k0_0R12!S9!k0_0k1_1", sipv = "1"}
func.func private @private_export(%arg0: tensor<f32> {jax.arg_info = "x"})
    -> (tensor<f32> {jax.result_info = "[0]"}, tensor<f32> {jax.result_info = "[1]"})
    attributes {iree.module.export} {
  return %arg0, %arg0 : tensor<f32>, tensor<f32>
}
// CHECK: func.func private @shmap_body(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "[('i',)]"}) {
// CHECK-NEXT: {{(func\.)?}}return %arg0 : tensor<f32>
func.func private @shmap_body(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "[('i',)]"}) {
  return %arg0 : tensor<f32>
}
