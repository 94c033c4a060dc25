// RUN: abi-opt %s -p materialize-iree-abi | filecheck %s
// Tuples and dicts (docs/spec.md §3.1, §4.1, §4.2): nested, empty, single-element; dict slots in
// byte-wise sorted key order whatever order the type lists them in.

// CHECK-LABEL: func.func @empty()
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}
func.func @empty() {
  func.return
}

// The example of docs/spec.md §4.2: a single structured result is inlined.
// CHECK-LABEL: func.func @spec_example
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,null,4],\22i32\22],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22f32\22,1,4]]],\22v\22:1}"}
func.func @spec_example(%a: tensor<?x4xf32>, %b: i32) -> tuple<tensor<4xf32>, tensor<4xf32>> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = abi.tuple.pack %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  func.return %1 : tuple<tensor<4xf32>, tensor<4xf32>>
}

// Several typed results: one record each.
// CHECK-LABEL: func.func @several_results
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[\22i32\22,[\22stuple\22,\22f32\22],[\22ndarray\22,\22f32\22,1,null]],\22v\22:1}"}
func.func @several_results() -> (i32, tuple<f32>, tensor<?xf32>) {
  %0:3 = func.call @produce() : () -> (i32, tuple<f32>, tensor<?xf32>)
  func.return %0#0, %0#1, %0#2 : i32, tuple<f32>, tensor<?xf32>
}
func.func private @produce() -> (i32, tuple<f32>, tensor<?xf32>)

// A single leaf result is not inlined; a single list result is a leaf.
// CHECK-LABEL: func.func @single_leaf
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[\22i32\22],\22v\22:1}"}
func.func @single_leaf(%a: i32) -> i32 {
  func.return %a : i32
}
// CHECK-LABEL: func.func @single_list
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22py_homogeneous_list\22,\22i8\22]],\22r\22:[[\22py_homogeneous_list\22,\22i8\22]],\22v\22:1}"}
func.func @single_list(%a: !util.list<i8>) -> !util.list<i8> {
  func.return %a : !util.list<i8>
}

// Nested tuples, the empty tuple and a single-element tuple.
// CHECK-LABEL: func.func @tuples
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,\22i32\22,[\22stuple\22,[\22stuple\22],[\22stuple\22,\22f64\22]]],[\22stuple\22]],\22r\22:[[\22stuple\22,[\22stuple\22,\22i8\22]]],\22v\22:1}"}
func.func @tuples(%a: tuple<i32, tuple<tuple<>, tuple<f64>>>, %b: tuple<>) -> tuple<tuple<i8>> {
  %0 = func.call @make_tuples() : () -> tuple<tuple<i8>>
  func.return %0 : tuple<tuple<i8>>
}
func.func private @make_tuples() -> tuple<tuple<i8>>

// Dict keys sorted byte-wise ("B" < "a" < "b" < "é"), nested dicts, tuples in dicts.
// CHECK-LABEL: func.func @dicts
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22B\22,\22i16\22],[\22a\22,[\22sdict\22,[\22x\22,\22f32\22],[\22y\22,[\22stuple\22,\22i1\22,\22i8\22]]]],[\22b\22,\22i32\22],[\22\\u00e9\22,\22f16\22]],[\22sdict\22]],\22r\22:[[\22sdict\22,[\22k\22,\22i64\22]]],\22v\22:1}"}
func.func @dicts(%a: !abi.dict<"b": i32, "é": f16, "a": !abi.dict<"y": tuple<i1, i8>, "x": f32>, "B": i16>, %b: !abi.dict<>) -> !abi.dict<"k": i64> {
  %0 = func.call @make_dict() : () -> !abi.dict<"k": i64>
  func.return %0 : !abi.dict<"k": i64>
}
func.func private @make_dict() -> !abi.dict<"k": i64>
