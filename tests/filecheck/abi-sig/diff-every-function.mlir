// `abi-sig show` and `diff` list every function a caller can call, whatever its name: a
// TensorFlow `__call__` export is a function like any other (it was hidden with IREE's
// own `__init` once, and a complete change of it went unreported with exit status 0).
// Only what IREE adds for itself stays hidden without `--all`: the `$async` variant and
// the VM's `__init`/`__deinit`/`__notify`. The new version (made with sed) changes
// `__call__`'s batch and `__helper__`'s argument; the hidden `__init` changes too.
// RUN: abi-sig show %s | filecheck %s --check-prefix=SHOW --match-full-lines --strict-whitespace
// RUN: sed -e 's/4x8xf32/5x8xf32/g' -e 's/%x: i32/%x: i64/' -e 's/@__init(%flag: i32)/@__init(%flag: i64)/' %s > %t.new.mlir
// RUN: not abi-sig diff %s %t.new.mlir | filecheck %s --match-full-lines --strict-whitespace
// RUN: not abi-sig diff --all %s %t.new.mlir | filecheck %s --check-prefix=ALL --match-full-lines --strict-whitespace

//      SHOW:__call__(tensor<4x8xf32>) -> (tensor<4x8xf32>)  (no reflection)
// SHOW-NEXT:__helper__(i32) -> ()  (no reflection)
// SHOW-NEXT:main(tensor<4x8xf32>) -> (tensor<4x8xf32>)  (no reflection)
// SHOW-EMPTY:

//      CHECK:breaking: __call__: argument 0: shape 4x8 -> 5x8
// CHECK-NEXT:breaking: __call__: result: shape 4x8 -> 5x8
// CHECK-NEXT:breaking: __helper__: argument 0: dtype i32 -> i64
// CHECK-NEXT:breaking: main: argument 0: shape 4x8 -> 5x8
// CHECK-NEXT:breaking: main: result: shape 4x8 -> 5x8
// CHECK-EMPTY:

//      ALL:breaking: __call__: argument 0: shape 4x8 -> 5x8
// ALL-NEXT:breaking: __call__: result: shape 4x8 -> 5x8
// ALL-NEXT:breaking: __helper__: argument 0: dtype i32 -> i64
// ALL-NEXT:breaking: main: argument 0: shape 4x8 -> 5x8
// ALL-NEXT:breaking: main: result: shape 4x8 -> 5x8
// ALL-NEXT:breaking: main$async: argument 0: shape 4x8 -> 5x8
// ALL-NEXT:breaking: __init: argument 0: dtype i32 -> i64
// ALL-EMPTY:

func.func @__call__(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %a : tensor<4x8xf32>
}
func.func @__helper__(%x: i32) {
  return
}
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %a : tensor<4x8xf32>
}
func.func @main$async(%a: tensor<4x8xf32>) {
  return
}
func.func @__init(%flag: i32) {
  return
}
