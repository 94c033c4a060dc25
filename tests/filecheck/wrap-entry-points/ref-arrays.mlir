// RUN: abi-opt %s -p wrap-entry-points --verify-diagnostics | filecheck %s
// ND-arrays of reference type (docs/spec.md §8.3) cross the wrapper boundary as a !util.list<?>
// of the values list and the dims list, through abi.ref_array.from_lists / to_lists, at
// the top level and inside structures. IREE's native ABI rejects them: a warning.

// CHECK-LABEL: func.func @refs(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: !util.list<?>, %[[T:[a-z0-9_]+]]: !util.list<?>) -> !util.list<?>
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,[\22py_homogeneous_list\22,\22i32\22],2,2,3],[\22stuple\22,[\22ndarray\22,[\22py_homogeneous_list\22,\22unknown\22],1,null]]],\22r\22:[[\22ndarray\22,[\22py_homogeneous_list\22,\22i32\22],2,2,3]],\22v\22:1}"}
// CHECK-NEXT: %[[ARR:[0-9]+]] = abi.ref_array.from_lists %[[A]] : !util.list<?> -> tensor<2x3x!util.list<i32>>
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[LISTS:[0-9]+]] = util.list.get %[[T]][%[[C0]]] : !util.list<?> -> !util.list<?>
// CHECK-NEXT: %[[INNER:[0-9]+]] = abi.ref_array.from_lists %[[LISTS]] : !util.list<?> -> tensor<?x!util.list<?>>
// CHECK-NEXT: %[[R:[0-9]+]] = func.call @_refs(%[[ARR]], %[[INNER]]) : (tensor<2x3x!util.list<i32>>, tensor<?x!util.list<?>>) -> tensor<2x3x!util.list<i32>>
// CHECK-NEXT: %[[OUT:[0-9]+]] = abi.ref_array.to_lists %[[R]] : tensor<2x3x!util.list<i32>> -> !util.list<?>
// CHECK-NEXT: func.return %[[OUT]] : !util.list<?>
// The result's warning is located at the function.
// expected-warning @+1 {{type tensor<2x3x!util.list<i32>> is not supported by IREE's native ABI}}
func.func @refs(
    // expected-warning @+1 {{type tensor<2x3x!util.list<i32>> is not supported by IREE's native ABI}}
    %a: tensor<2x3x!util.list<i32>>,
    // expected-warning @+1 {{type tensor<?x!util.list<?>> is not supported by IREE's native ABI}}
    %t: tuple<tensor<?x!util.list<?>>>)
    -> tensor<2x3x!util.list<i32>> {
  func.return %a : tensor<2x3x!util.list<i32>>
}
