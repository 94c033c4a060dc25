// `abi.state` on IREE's `util.func` entry points (as IREE's torch input pipeline writes
// them): @step writes the cache through the private `util.func` it calls (`util.call`),
// @calls (no visibility: public) reads the counter, @double reads only an immutable
// global and has no state line.
// RUN: abi-compile %S/../../calling/state/util_funcs.mlir -o %t.vmfb --target vmvx
// RUN: abi-sig show %t.vmfb | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:step(tensor<4x8xf32>) -> (tensor<4x8xf32>)  (no reflection)
// CHECK-NEXT:  state: @cache float32[4,8] (reads, writes)
// CHECK-NEXT:calls() -> (tensor<i32>)  (no reflection)
// CHECK-NEXT:  state: @count int32[] (reads)
// CHECK-NEXT:double(tensor<4x8xf32>) -> (tensor<4x8xf32>)  (no reflection)
// CHECK-NEXT:targets: vmvx (vmvx-bytecode-fb)
// CHECK-EMPTY:
