// RUN: abi-opt %s -p wrap-entry-points | filecheck %s
// Result structures (docs/spec.md §8.2): built with util.list.create / resize / set; tensors
// exported as !hal.buffer_view (dynamic dims through tensor.dim); a single structured
// result is inlined (its items are the wrapper's results); several typed results keep
// one value each.

// CHECK-LABEL: func.func @inlined(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<?x4xf32>, %[[N:[a-z0-9]+]]: i32) -> (tensor<?x4xf32>, !util.list<?>)
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,null,4],\22i32\22],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,2,null,4],[\22sdict\22,[\22n\22,\22i32\22],[\22t\22,[\22ndarray\22,\22f32\22,2,null,4]]]]],\22v\22:1}"}
// CHECK-NEXT: %[[R0:[0-9]+]], %[[R1:[0-9]+]], %[[R2:[0-9]+]] = func.call @_inlined(%[[A]], %[[N]]) : (tensor<?x4xf32>, i32) -> (tensor<?x4xf32>, i32, tensor<?x4xf32>)
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: %[[L:[0-9]+]] = util.list.create %[[C2]] : !util.list<?>
// CHECK-NEXT: util.list.resize %[[L]], %[[C2]] : !util.list<?>
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: util.list.set %[[L]][%[[C0]]], %[[R1]] : i32 -> !util.list<?>
// CHECK-NEXT: %[[D0:[0-9]+]] = tensor.dim %[[R2]], %[[C0]] : tensor<?x4xf32>
// CHECK-NEXT: %[[BV:[0-9]+]] = hal.tensor.export %[[R2]] : tensor<?x4xf32>{%[[D0]]} -> !hal.buffer_view
// CHECK-NEXT: %[[C1:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: util.list.set %[[L]][%[[C1]]], %[[BV]] : !hal.buffer_view -> !util.list<?>
// CHECK-NEXT: func.return %[[R0]], %[[L]] : tensor<?x4xf32>, !util.list<?>
func.func @inlined(%a: tensor<?x4xf32>, %n: i32) -> tuple<tensor<?x4xf32>, !abi.dict<"t": tensor<?x4xf32>, "n": i32>> {
  %d = abi.dict.pack %n, %a : (i32, tensor<?x4xf32>) -> !abi.dict<"t": tensor<?x4xf32>, "n": i32>
  %r = abi.tuple.pack %a, %d : (tensor<?x4xf32>, !abi.dict<"t": tensor<?x4xf32>, "n": i32>) -> tuple<tensor<?x4xf32>, !abi.dict<"t": tensor<?x4xf32>, "n": i32>>
  func.return %r : tuple<tensor<?x4xf32>, !abi.dict<"t": tensor<?x4xf32>, "n": i32>>
}

// Several typed results: each structured one is a list, leaves stay as they are.
// CHECK-LABEL: func.func @several(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>) -> (tensor<2xf32>, !util.list<?>)
// CHECK-NEXT: %[[R0:[0-9]+]], %[[R1:[0-9]+]] = func.call @_several(%[[A]]) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT: %[[C1:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[L:[0-9]+]] = util.list.create %[[C1]] : !util.list<?>
// CHECK-NEXT: util.list.resize %[[L]], %[[C1]] : !util.list<?>
// CHECK-NEXT: %[[BV:[0-9]+]] = hal.tensor.export %[[R1]] : tensor<2xf32> -> !hal.buffer_view
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: util.list.set %[[L]][%[[C0]]], %[[BV]] : !hal.buffer_view -> !util.list<?>
// CHECK-NEXT: func.return %[[R0]], %[[L]] : tensor<2xf32>, !util.list<?>
func.func @several(%a: tensor<2xf32>) -> (tensor<2xf32>, tuple<tensor<2xf32>>) {
  %t = abi.tuple.pack %a : (tensor<2xf32>) -> tuple<tensor<2xf32>>
  func.return %a, %t : tensor<2xf32>, tuple<tensor<2xf32>>
}

// Nested result structures are lists set into lists.
// CHECK-LABEL: func.func @nested_result(
// CHECK-SAME: %[[A:[a-z0-9]+]]: i32) -> !util.list<?>
// CHECK-NEXT: %[[V:[0-9]+]] = func.call @_nested_result(%[[A]]) : (i32) -> i32
// CHECK: %[[OUTER:[0-9]+]] = util.list.create %{{[0-9]+}} : !util.list<?>
// CHECK: %[[INNER:[0-9]+]] = util.list.create %{{[0-9]+}} : !util.list<?>
// CHECK: util.list.set %[[INNER]][%{{[0-9]+}}], %[[V]] : i32 -> !util.list<?>
// CHECK: util.list.set %[[OUTER]][%{{[0-9]+}}], %[[INNER]] : !util.list<?> -> !util.list<?>
// CHECK: func.return %[[OUTER]] : !util.list<?>
func.func @nested_result(%a: i32) -> tuple<tuple<tuple<i32>>> {
  %0 = abi.tuple.pack %a : (i32) -> tuple<i32>
  %1 = abi.tuple.pack %0 : (tuple<i32>) -> tuple<tuple<i32>>
  %2 = abi.tuple.pack %1 : (tuple<tuple<i32>>) -> tuple<tuple<tuple<i32>>>
  func.return %2 : tuple<tuple<tuple<i32>>>
}

// Exports that need no wrapper stay as they are and get iree.abi if it is missing.
// CHECK-LABEL: func.func @flat(%a: i32) -> i32 attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[\22i32\22],\22v\22:1}"}} {
func.func @flat(%a: i32) -> i32 {
  func.return %a : i32
}
