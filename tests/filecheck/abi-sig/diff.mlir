// `abi-sig diff OLD NEW` on two versions of a JAX export, lowered to IREE's V1 calling
// convention. This file is the old version: `params` is {'dense': {'bias', 'kernel'}}
// (positional root 0, from JAX's pytree paths), `x` a batch of 8. The new version (made
// below with sed) has 5 outputs instead of 3 and takes any batch size: the kernel's,
// the bias's and the result's shapes break callers, a batch dim made dynamic on an
// argument does not. Breaking findings come first; exit status 1 (`not`).
// RUN: abi-opt -p iree-abi-v1 %s -o %t.old.mlir
// RUN: sed -e 's/4x3xf32/4x5xf32/g' -e 's/tensor<3xf32>/tensor<5xf32>/g' -e 's/8x3xf32/?x5xf32/g' -e 's/8x4xf32/?x4xf32/g' %s | abi-opt -p iree-abi-v1 - -o %t.new.mlir
// RUN: abi-sig show %t.old.mlir %t.new.mlir | filecheck %s --check-prefix=SHOW --match-full-lines --strict-whitespace
// RUN: not abi-sig diff %t.old.mlir %t.new.mlir | filecheck %s --match-full-lines --strict-whitespace
// Lowered to the legacy convention instead, the same findings (f + sip read as the same
// records):
// RUN: abi-opt -p iree-abi-legacy %s -o %t.old-legacy.mlir
// RUN: sed -e 's/4x3xf32/4x5xf32/g' -e 's/tensor<3xf32>/tensor<5xf32>/g' -e 's/8x3xf32/?x5xf32/g' -e 's/8x4xf32/?x4xf32/g' %s | abi-opt -p iree-abi-legacy - -o %t.new-legacy.mlir
// RUN: not abi-sig diff %t.old-legacy.mlir %t.new-legacy.mlir | filecheck %s --match-full-lines --strict-whitespace
// Swapped, the static dim where there was a dynamic one breaks too:
// RUN: not abi-sig diff %t.new.mlir %t.old.mlir | filecheck %s --check-prefix=BACK --match-full-lines --strict-whitespace
// A module against itself: no finding (and exit status 0).
// RUN: abi-sig diff %t.old.mlir %t.old.mlir | filecheck %s --check-prefix=SAME --allow-empty
// Before lowering, the export has no reflection: `show` reads the structure `abi-opt`
// would read (its JAX pytree paths), and says so.
// RUN: abi-sig show %s | filecheck %s --check-prefix=RAW --match-full-lines --strict-whitespace

//      SHOW:{{.*}}.old.mlir:
// SHOW-NEXT:main(dict{dense: dict{bias: tensor<3xf32>, kernel: tensor<4x3xf32>}}, tensor<8x4xf32>) -> (tensor<8x3xf32>)
// SHOW-NEXT:{{.*}}.new.mlir:
// SHOW-NEXT:main(dict{dense: dict{bias: tensor<5xf32>, kernel: tensor<4x5xf32>}}, tensor<?x4xf32>) -> (tensor<?x5xf32>)
// SHOW-EMPTY:

//      CHECK:breaking: main: argument 0['dense']['bias']: shape 3 -> 5
// CHECK-NEXT:breaking: main: argument 0['dense']['kernel']: shape 4x3 -> 4x5
// CHECK-NEXT:breaking: main: result: shape 8x3 -> ?x5
// CHECK-NEXT:compatible: main: argument 1: shape 8x4 -> ?x4
// CHECK-EMPTY:

//      BACK:breaking: main: argument 0['dense']['bias']: shape 5 -> 3
// BACK-NEXT:breaking: main: argument 0['dense']['kernel']: shape 4x5 -> 4x3
// BACK-NEXT:breaking: main: argument 1: shape ?x4 -> 8x4
// BACK-NEXT:breaking: main: result: shape ?x5 -> 8x3
// BACK-EMPTY:

// SAME-NOT: {{.}}

//      RAW:main(dict{dense: dict{bias: tensor<3xf32>, kernel: tensor<4x3xf32>}}, tensor<8x4xf32>) -> (tensor<8x3xf32>)  (from JAX paths, no reflection)
// RAW-EMPTY:

module @jit_predict attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {jax.arg_info = "params['dense']['bias']"}, %arg1: tensor<4x3xf32> {jax.arg_info = "params['dense']['kernel']"}, %arg2: tensor<8x4xf32> {jax.arg_info = "x"}) -> (tensor<8x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg2, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x3xf32>
    return %2 : tensor<8x3xf32>
  }
}
