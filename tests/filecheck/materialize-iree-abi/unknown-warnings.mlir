// RUN: abi-opt %s --parse-all -p materialize-iree-abi --verify-diagnostics --split-input-file | filecheck %s
// RUN: abi-opt %s --parse-all -p iree-abi-v1 --verify-diagnostics --split-input-file | filecheck %s --check-prefix=V1
// A value recorded as "unknown" (index, complex, opaque types, tensors of them) warns at
// the value, as materialize-raw-abi warns for U1!: no runtime knows how to pass it. The
// output is still written. A variant list (!util.list<?>) is a known record.

// CHECK-LABEL: func.func @unknown_values
// CHECK-SAME: iree.abi = "{\22a\22:[\22unknown\22,[\22stuple\22,\22i32\22,\22unknown\22],[\22ndarray\22,\22unknown\22,1,4],[\22py_homogeneous_list\22,\22unknown\22]],\22r\22:[\22unknown\22],\22v\22:1}"
// V1-LABEL: func.func @unknown_values
// V1-SAME: iree.abi.stub
// expected-warning @+1 {{Result #0 of function unknown_values is recorded as "unknown" in iree.abi: the function may not be callable with that value}}
func.func @unknown_values(
    // expected-warning @+1 {{Argument #0 of function unknown_values is recorded as "unknown" in iree.abi: the function may not be callable with that value}}
    %a: index,
    // expected-warning @+1 {{Argument #1 of function unknown_values is recorded as "unknown"}}
    %b: tuple<i32, !hal.buffer_view>,
    // expected-warning @+1 {{Argument #2 of function unknown_values is recorded as "unknown"}}
    %c: tensor<4xindex>,
    %d: !util.list<?>) -> index {
  func.return %a : index
}

// -----

// From index paths the warning is at the flat value.
// CHECK-LABEL: func.func @by_paths
// CHECK-SAME: iree.abi = "{\22a\22:[[\22slist\22,\22i32\22,\22unknown\22]],\22r\22:[[\22sdict\22,[\22k\22,[\22ndarray\22,\22unknown\22,1,null]]]],\22v\22:1}"
// V1-LABEL: func.func @by_paths
// V1-SAME: iree.abi.stub
// expected-warning @+1 {{Result #0 of function by_paths is recorded as "unknown"}}
func.func @by_paths(
    // expected-warning @+1 {{Argument #0 of function by_paths is recorded as "unknown"}}
    %a: index {abi.index_path = [0, 1]},
    %b: i32 {abi.index_path = [0, 0]}) -> (tensor<?xindex> {abi.index_path = ["k"]}) {
  %t = tensor.empty(%a) : tensor<?xindex>
  func.return %t : tensor<?xindex>
}

// -----

// An existing entry is validated, not recomputed: no warning.
// CHECK-LABEL: func.func @existing
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22unknown\22],\22r\22:[],\22v\22:1}"}
func.func @existing(%a: index) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22unknown\22],\22r\22:[],\22v\22:1}"}} {
  func.return
}
