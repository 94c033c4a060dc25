// iree-abi-v1's wrappers are built, verified and printed one at a time while the module
// is printed (wrap-entry-points defers them when it is the last pass, so a large module
// never holds all of them). A wrapper that fails takes back the part of its chunk
// already printed; the other chunks print in full.
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics | filecheck %s --match-full-lines

func.func @first(%t: tuple<i32, f32>) -> i32 {
  %x = abi.tuple.get %t[0] : tuple<i32, f32> -> i32
  func.return %x : i32
}

// -----

func.func @printed_then_taken_back(%t: tuple<i32>) -> i32 {
  %x = abi.tuple.get %t[0] : tuple<i32> -> i32
  func.return %x : i32
}
// expected-error @+1 {{no value at result path [1]}}
func.func @result_gap(%a: i32 {abi.index_path = [0]}) -> (i32 {abi.index_path = [0]}, i32 {abi.index_path = [2]}) {
  func.return %a, %a : i32, i32
}

// -----

func.func @last(%d: !abi.dict<"b": i64, "a": f32>) -> f32 {
  %a = abi.dict.get %d["a"] : !abi.dict<"b": i64, "a": f32> -> f32
  func.return %a : f32
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func @first(%t: !util.list<?>) -> i32 attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,\22i32\22,\22f32\22]],\22r\22:[\22i32\22],\22v\22:1}"}} {
// CHECK-NEXT:     %0 = arith.constant 0 : index
// CHECK-NEXT:     %1 = util.list.get %t[%0] : !util.list<?> -> i32
// CHECK-NEXT:     %2 = arith.constant 1 : index
// CHECK-NEXT:     %3 = util.list.get %t[%2] : !util.list<?> -> f32
// CHECK-NEXT:     %4 = func.call @_first(%1, %3) : (i32, f32) -> i32
// CHECK-NEXT:     func.return %4 : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @_first(%x: i32, %0: f32) -> i32 {
// CHECK-NEXT:     func.return %x : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @last(%d: !util.list<?>) -> f32 attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22a\22,\22f32\22],[\22b\22,\22i64\22]]],\22r\22:[\22f32\22],\22v\22:1}"}} {
// CHECK-NEXT:     %0 = arith.constant 0 : index
// CHECK-NEXT:     %1 = util.list.get %d[%0] : !util.list<?> -> f32
// CHECK-NEXT:     %2 = arith.constant 1 : index
// CHECK-NEXT:     %3 = util.list.get %d[%2] : !util.list<?> -> i64
// CHECK-NEXT:     %4 = func.call @_last(%1, %3) : (f32, i64) -> f32
// CHECK-NEXT:     func.return %4 : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @_last(%a: f32, %0: i64) -> f32 {
// CHECK-NEXT:     func.return %a : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT: {{.+}}
