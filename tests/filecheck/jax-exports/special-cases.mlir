// JAX exports (tests/jax_exports/generate.py) that `-p iree-abi-v1` reads with a warning.

// `jax.jit(step, donate_argnums=0)`: JAX marks each leaf of `params` with
// `tf.aliasing_output`. IREE 3.13 honours that on a public function by writing the
// result into the argument's buffer (the caller's device array changes:
// tests/frontends/test_jax_text.py), so the V1 pipeline drops the marker, with a warning.
// RUN: abi-opt %S/../../jax_exports/donated_step.mlir -p iree-abi-v1 2>&1 | filecheck %s --check-prefix=DONATED
// One warning for the function, naming each donated leaf (by its JAX path).
// DONATED: donated_step.mlir:9:3: warning: tf.aliasing_output dropped from 2 arguments: params['b'] (argument 0 → result 0), params['w'] (argument 1 → result 1): IREE would write each result into the caller's array
// DONATED-NOT: aliasing_output
// DONATED: {{^}}  func.func @main(%params: !util.list<?>, %x: tensor<3x4xf32>) -> (!util.list<?>, tensor<f32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]],[\22ndarray\22,\22f32\22,2,3,4]],\22r\22:[[\22stuple\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]],[\22ndarray\22,\22f32\22,0]]],\22v\22:1}"}} {
// DONATED: {{^}}  func.func private @_main(%arg0: tensor<2xf32> loc("params['b']"), %arg1: tensor<4x2xf32> loc("params['w']"), %arg2: tensor<3x4xf32> loc("x")) -> (tensor<2xf32>, tensor<4x2xf32>, tensor<f32>) {

// An ordered effect: JAX threads a `!stablehlo.token` through `@main` (which wraps
// `@_wrapped_jax_export_main`). The token argument is the first positional root; the
// token result the first item of the result root, the pytree the second. (IREE 3.13
// cannot load a module with a token at its boundary: "no type registered with name
// '!stablehlo.token'".)
// RUN: abi-opt %S/../../jax_exports/effect_token.mlir -p iree-abi-v1 2>&1 | filecheck %s --check-prefix=EFFECT-TOKEN
// EFFECT-TOKEN: effect_token.mlir:8:26: warning: Argument #0 of function main is recorded as "unknown" in iree.abi: the function may not be callable with that value
// EFFECT-TOKEN-NEXT: effect_token.mlir:8:3: warning: Result #0 of function main is recorded as "unknown" in iree.abi: the function may not be callable with that value
// EFFECT-TOKEN: {{^}}  func.func @main(%0: !stablehlo.token, %x: tensor<3xf32>) -> (!stablehlo.token, !util.list<?>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[\22unknown\22,[\22ndarray\22,\22f32\22,1,3]],\22r\22:[[\22stuple\22,\22unknown\22,[\22sdict\22,[\22y\22,[\22ndarray\22,\22f32\22,1,3]]]]],\22v\22:1}"}} {
// EFFECT-TOKEN: {{^}}  func.func private @_main(%arg0: !stablehlo.token {jax.token = true} loc(unknown), %arg1: tensor<3xf32> loc(unknown)) -> (!stablehlo.token {jax.token = true}, tensor<3xf32>) {

// `f(x) = ((), x + 1)`: JAX writes no value for the empty tuple, so the only result is
// `result[1]`. What stood at `[0]` is not in the text: the function keeps its flat
// signature, and the warning names the Python API that reads it from the Exported object.
// RUN: abi-opt %S/../../jax_exports/dropped_leaf.mlir -p iree-abi-v1 2>&1 | filecheck %s --check-prefix=DROPPED-LEAF
// DROPPED-LEAF: dropped_leaf.mlir:7:3: warning: the result paths leave a gap at [0] (JAX writes no value for a None leaf or an empty container): the function keeps its flat signature; abi_compiler.frontends.jax.to_mlir(exported) writes the whole structure from the jax.export.Exported object
// DROPPED-LEAF: {{^}}  func.func public @main(%arg0: tensor<3xf32> loc("x")) -> (tensor<3xf32> {jax.result_info = "result[1]"}) attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,3]],\22r\22:[[\22ndarray\22,\22f32\22,1,3]],\22v\22:1}"}} {
