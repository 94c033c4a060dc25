// RUN: abi-opt %s -p materialize-iree-abi | filecheck %s
// Every row of the type table of docs/spec.md §4.1.

// CHECK-LABEL: func.func @integers
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22i1\22,\22i8\22,\22i16\22,\22i32\22,\22i64\22,\22i8\22,\22i32\22,\22i16\22,\22i64\22,\22i3\22],\22r\22:[],\22v\22:1}"}
func.func @integers(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64, %f: si8, %g: si32, %h: ui16, %i: ui64, %j: i3) {
  func.return
}

// CHECK-LABEL: func.func @floats
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22f16\22,\22f32\22,\22f64\22,\22bf16\22,\22f80\22],\22r\22:[],\22v\22:1}"}
func.func @floats(%a: f16, %b: f32, %c: f64, %d: bf16, %e: f80) {
  func.return
}

// CHECK-LABEL: func.func @tensors
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,4,null],[\22ndarray\22,\22i8\22,null],[\22ndarray\22,\22f64\22,0],[\22ndarray\22,\22i1\22,3,null,null,7]],\22r\22:[[\22ndarray\22,\22bf16\22,2,2,3]],\22v\22:1}"}
func.func @tensors(%a: tensor<4x?xf32>, %b: tensor<*xi8>, %c: tensor<f64>, %d: tensor<?x?x7xi1>) -> tensor<2x3xbf16> {
  %0 = tensor.empty() : tensor<2x3xbf16>
  func.return %0 : tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @lists
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22py_homogeneous_list\22,\22unknown\22],[\22py_homogeneous_list\22,\22i32\22],[\22py_homogeneous_list\22,[\22ndarray\22,\22f32\22,1,null]],[\22py_homogeneous_list\22,[\22py_homogeneous_list\22,\22f16\22]]],\22r\22:[[\22py_homogeneous_list\22,\22unknown\22]],\22v\22:1}"}
func.func @lists(%a: !util.list<?>, %b: !util.list<i32>, %c: !iree.list<tensor<?xf32>>, %d: !util.list<!iree.list<f16>>) -> !util.list<?> {
  func.return %a : !util.list<?>
}

// CHECK-LABEL: func.func @unknown
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22unknown\22,\22unknown\22,\22unknown\22,[\22ndarray\22,\22unknown\22,1,2]],\22r\22:[],\22v\22:1}"}
func.func @unknown(%a: index, %b: complex<f32>, %c: !hal.buffer_view, %d: tensor<2xindex>) {
  func.return
}

// An ND-array of reference type (docs/spec.md §8.3) is an ndarray of the element's record.
// CHECK-LABEL: func.func @ref_array
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,[\22py_homogeneous_list\22,\22i32\22],2,2,3]],\22r\22:[],\22v\22:1}"}
func.func @ref_array(%a: tensor<2x3x!util.list<i32>>) {
  func.return
}
