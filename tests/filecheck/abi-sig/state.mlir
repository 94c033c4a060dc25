// `abi.state`: a compiled module records, on each function that uses its state (its
// mutable globals), which globals it reads or writes, directly or through a function it
// calls; `abi-sig show` prints it as a `state:` line. A function that reads only
// immutable globals (@double) has none.
// RUN: abi-compile %S/../../calling/state/cache.mlir -o %t.vmfb --target vmvx
// RUN: abi-sig show %t.vmfb | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-sig show %s | filecheck %s --check-prefix=TEXT --match-full-lines --strict-whitespace
// MLIR text says the same before it is compiled (read from the text, as compiling records
// it), so the module and its `.vmfb` have no difference:
// RUN: abi-sig show %S/../../calling/state/cache.mlir | filecheck %s --check-prefix=SOURCE --match-full-lines --strict-whitespace
// RUN: abi-sig diff %S/../../calling/state/cache.mlir %t.vmfb | filecheck %s --check-prefix=SAME --allow-empty

//      CHECK:step(tensor<8xf32>, tensor<i32>) -> (tensor<f32>)
// CHECK-NEXT:  state: @cache float32[4,8] (reads, writes), @count int32[] (reads, writes)
// CHECK-NEXT:calls() -> (tensor<i32>)
// CHECK-NEXT:  state: @count int32[] (reads)
// CHECK-NEXT:double(tensor<8xf32>) -> (tensor<8xf32>)
// CHECK-NEXT:reset_count() -> ()
// CHECK-NEXT:  state: @count int32[] (writes)
// CHECK-NEXT:targets: vmvx (vmvx-bytecode-fb)
// CHECK-EMPTY:

//      SOURCE:step(tensor<8xf32>, tensor<i32>) -> (tensor<f32>)  (no reflection)
// SOURCE-NEXT:  state: @cache float32[4,8] (reads, writes), @count int32[] (reads, writes)
// SOURCE-NEXT:calls() -> (tensor<i32>)  (no reflection)
// SOURCE-NEXT:  state: @count int32[] (reads)
// SOURCE-NEXT:double(tensor<8xf32>) -> (tensor<8xf32>)  (no reflection)
// SOURCE-NEXT:reset_count() -> ()  (no reflection)
// SOURCE-NEXT:  state: @count int32[] (writes)
// SOURCE-EMPTY:

// SAME-NOT: {{.}}

// The entry as written (a dynamic dim, a type without a dtype):
//      TEXT:step(tensor<?x8xf32>) -> ()
// TEXT-NEXT:  state: @cache float32[?,8] (writes), @handle !util.list<?> (reads)
// TEXT-EMPTY:

func.func @step(%x: tensor<?x8xf32>) attributes {iree.reflection = {abi.state = "{\22v\22:1,\22globals\22:[{\22name\22:\22cache\22,\22type\22:\22tensor<?x8xf32>\22,\22dtype\22:\22float32\22,\22shape\22:[null,8],\22access\22:\22w\22},{\22name\22:\22handle\22,\22type\22:\22!util.list<?>\22,\22dtype\22:null,\22shape\22:null,\22access\22:\22r\22}]}", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,null,8]],\22r\22:[],\22v\22:1}"}} {
  func.return
}
