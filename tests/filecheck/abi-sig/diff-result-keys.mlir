// `abi-sig diff` on two versions of a JAX export (locations name the arguments, as every
// JAX since mid-2023 writes them), before any lowering: both are read by the structure
// `abi-opt` reads (the pytree paths), and `show` says so. The new version returns one
// more key in its result dict: compatible (a caller reads the dict by key), exit status
// 0; breaking with `--strict` (exit status 1). Back the other way, a key is gone: breaking.
// RUN: sed -e 's/, tensor<f32> {jax.result_info = "result\[.loss.\]"}//' -e 's/return %0, %1 : tensor<8x3xf32>, tensor<f32>/return %0 : tensor<8x3xf32>/' %s > %t.old.mlir
// RUN: abi-sig show %t.old.mlir %s | filecheck %s --check-prefix=SHOW --match-full-lines --strict-whitespace
// RUN: abi-sig diff %t.old.mlir %s | filecheck %s --check-prefix=ADDED --match-full-lines --strict-whitespace
// RUN: not abi-sig diff --strict %t.old.mlir %s | filecheck %s --check-prefix=STRICT --match-full-lines --strict-whitespace
// RUN: not abi-sig diff %s %t.old.mlir | filecheck %s --check-prefix=REMOVED --match-full-lines --strict-whitespace

//      SHOW:{{.*}}.old.mlir:
// SHOW-NEXT:main(dict{b: tensor<3xf32>, w: tensor<4x3xf32>}, tensor<8x4xf32>) -> (logits: tensor<8x3xf32>)  (from JAX paths, no reflection)
// SHOW-NEXT:{{.*}}diff-result-keys.mlir:
// SHOW-NEXT:main(dict{b: tensor<3xf32>, w: tensor<4x3xf32>}, tensor<8x4xf32>) -> (logits: tensor<8x3xf32>, loss: tensor<f32>)  (from JAX paths, no reflection)
// SHOW-EMPTY:

//      ADDED:compatible: main: result: keys ['logits'] -> ['logits', 'loss']
// ADDED-EMPTY:

//      STRICT:breaking: main: result: keys ['logits'] -> ['logits', 'loss']
// STRICT-EMPTY:

//      REMOVED:breaking: main: result: keys ['logits', 'loss'] -> ['logits']
// REMOVED-EMPTY:

module @jit_predict {
  func.func public @main(%arg0: tensor<3xf32> loc("params['b']"), %arg1: tensor<4x3xf32> loc("params['w']"), %arg2: tensor<8x4xf32> loc("x")) -> (tensor<8x3xf32> {jax.result_info = "result['logits']"}, tensor<f32> {jax.result_info = "result['loss']"}) {
    %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.constant dense<0.0> : tensor<f32>
    return %0, %1 : tensor<8x3xf32>, tensor<f32>
  }
}
