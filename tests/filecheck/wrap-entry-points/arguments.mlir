// RUN: abi-opt %s -p wrap-entry-points | filecheck %s
// RUN: abi-opt %s -p wrap-entry-points | abi-opt -p wrap-entry-points | filecheck %s
// Structured arguments (docs/spec.md §8.2): each structure is one !util.list<?>, taken apart
// with util.list.get at arith.constant indices; tensors inside lists are read as
// !hal.buffer_view and imported, dynamic dims read with hal.buffer_view.dim. The
// implementation becomes private @_<name>, flattened. The second RUN line checks that a
// second run changes nothing.

// CHECK-LABEL: func.func @predict(
// CHECK-SAME: %[[D:[a-z0-9_]+]]: !util.list<?>, %[[T:[a-z0-9_]+]]: !util.list<?>, %[[S:[a-z0-9]+]]: tensor<?xi8>) -> i32
// CHECK-SAME: attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22scale\22,\22f32\22],[\22x\22,[\22ndarray\22,\22f32\22,2,null,4]]],[\22stuple\22,[\22ndarray\22,\22f32\22,1,4],\22i32\22],[\22ndarray\22,\22i8\22,1,null]],\22r\22:[\22i32\22],\22v\22:1}"}} {
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[SCALE:[0-9]+]] = util.list.get %[[D]][%[[C0]]] : !util.list<?> -> f32
// CHECK-NEXT: %[[C1:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[XV:[0-9]+]] = util.list.get %[[D]][%[[C1]]] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %[[XD0:[0-9]+]] = hal.buffer_view.dim<%[[XV]] : !hal.buffer_view>[0] : index
// CHECK-NEXT: %[[X:[0-9]+]] = hal.tensor.import %[[XV]] : !hal.buffer_view -> tensor<?x4xf32>{%[[XD0]]}
// CHECK-NEXT: %[[BV:[0-9]+]] = util.list.get %[[T]][%[[C0]]] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %[[B:[0-9]+]] = hal.tensor.import %[[BV]] : !hal.buffer_view -> tensor<4xf32>
// CHECK-NEXT: %[[N:[0-9]+]] = util.list.get %[[T]][%[[C1]]] : !util.list<?> -> i32
// CHECK-NEXT: %[[R:[0-9]+]] = func.call @_predict(%[[SCALE]], %[[X]], %[[B]], %[[N]], %[[S]]) : (f32, tensor<?x4xf32>, tensor<4xf32>, i32, tensor<?xi8>) -> i32
// CHECK-NEXT: func.return %[[R]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @_predict(%{{[0-9]+}}: f32, %x: tensor<?x4xf32>, %{{[0-9]+}}: tensor<4xf32>, %n: i32, %s: tensor<?xi8>) -> i32 {
// CHECK-NEXT: func.return %n : i32
func.func @predict(%d: !abi.dict<"x": tensor<?x4xf32>, "scale": f32>, %t: tuple<tensor<4xf32>, i32>, %s: tensor<?xi8>) -> i32 {
  %x = abi.dict.get %d["x"] : !abi.dict<"x": tensor<?x4xf32>, "scale": f32> -> tensor<?x4xf32>
  %n = abi.tuple.get %t[1] : tuple<tensor<4xf32>, i32> -> i32
  func.return %n : i32
}

// Nested structures are nested lists; empty structures carry nothing to read; top-level
// lists stay as they are and !iree.list is respelled !util.list.
// CHECK-LABEL: func.func @nested(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: !util.list<?>, %[[L:[a-z0-9]+]]: !util.list<i32>) -> i32
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[IN:[0-9]+]] = util.list.get %[[A]][%[[C0]]] : !util.list<?> -> !util.list<?>
// CHECK-NEXT: %[[I:[0-9]+]] = util.list.get %[[IN]][%[[C0]]] : !util.list<?> -> i32
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: %[[K:[0-9]+]] = util.list.get %[[A]][%[[C2]]] : !util.list<?> -> !util.list<i8>
// CHECK-NEXT: %[[R:[0-9]+]] = func.call @_nested(%[[I]], %[[K]], %[[L]]) : (i32, !util.list<i8>, !util.list<i32>) -> i32
// CHECK-NEXT: func.return %[[R]] : i32
// CHECK: func.func private @_nested(%{{[0-9]+}}: i32, %{{[0-9]+}}: !util.list<i8>, %l: !util.list<i32>) -> i32 {
func.func @nested(%a: tuple<tuple<i32>, tuple<>, !iree.list<i8>>, %l: !iree.list<i32>) -> i32 {
  %0 = abi.tuple.get %a[0] : tuple<tuple<i32>, tuple<>, !iree.list<i8>> -> tuple<i32>
  %1 = abi.tuple.get %0[0] : tuple<i32> -> i32
  func.return %1 : i32
}

// Internal callers are redirected to the implementation (and flattened themselves).
// CHECK-LABEL: func.func private @caller(
// CHECK-SAME: %[[I:[a-z0-9_]+]]: i32, %[[K:[a-z0-9_]+]]: !util.list<i8>, %[[L:[a-z]+]]: !util.list<i32>) -> i32 {
// CHECK-NEXT: %[[R:[a-z]+]] = func.call @_nested(%[[I]], %[[K]], %[[L]]) : (i32, !util.list<i8>, !util.list<i32>) -> i32
// CHECK-NEXT: func.return %[[R]] : i32
func.func private @caller(%t: tuple<tuple<i32>, tuple<>, !iree.list<i8>>, %lk: !iree.list<i32>) -> i32 {
  %r = func.call @nested(%t, %lk) : (tuple<tuple<i32>, tuple<>, !iree.list<i8>>, !iree.list<i32>) -> i32
  func.return %r : i32
}
