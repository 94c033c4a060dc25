// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s
// RUN: abi-opt %s -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s
// Index-path (saved-model) functions are wrapped from their paths, as IREE's saved-model
// importer did (docs/spec.md §6, §8.2): the wrapper takes the exported name, argument sequences
// are lists, named root arguments are separate wrapper arguments in key order, and the
// implementation keeps the original flat argument order. The single dict result is
// inlined: its one item is the wrapper's result.

// CHECK: builtin.module {
// CHECK-NEXT: func.func @serve(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: i8, %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: !util.list<?>) -> tensor<4xf32>
// CHECK-SAME: attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[\22i8\22,[\22named\22,\22x\22,[\22ndarray\22,\22f32\22,1,4]],[\22named\22,\22y\22,[\22slist\22,\22i32\22,null,\22i64\22]]],\22r\22:[[\22sdict\22,[\22out\22,[\22ndarray\22,\22f32\22,1,4]]]],\22v\22:1}"}} {
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[Y0:[0-9]+]] = util.list.get %[[Y]][%[[C0]]] : !util.list<?> -> i32
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: %[[Y2:[0-9]+]] = util.list.get %[[Y]][%[[C2]]] : !util.list<?> -> i64
// CHECK-NEXT: %[[R:[0-9]+]] = func.call @_serve(%[[X]], %[[Y0]], %[[P]], %[[Y2]]) : (tensor<4xf32>, i32, i8, i64) -> tensor<4xf32>
// CHECK-NEXT: func.return %[[R]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @_serve(%x: tensor<4xf32>, %y0: i32, %p: i8, %y2: i64) -> tensor<4xf32> {
// CHECK-NEXT: func.return %x : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
// CHECK: %{{.*}} = func.call @_serve(%a, %c, %b, %d) : (tensor<4xf32>, i32, i8, i64) -> tensor<4xf32>
// CHECK-NOT: tf_saved_model
module attributes {tf_saved_model.semantics} {
  func.func @__inference_serve(%x: tensor<4xf32> {tf_saved_model.index_path = ["x"]},
                               %y0: i32 {tf_saved_model.index_path = ["y", 0]},
                               %p: i8 {tf_saved_model.index_path = [0]},
                               %y2: i64 {tf_saved_model.index_path = ["y", 2]})
      -> (tensor<4xf32> {tf_saved_model.index_path = ["out"]})
      attributes {tf_saved_model.exported_names = ["serve"]} {
    func.return %x : tensor<4xf32>
  }
  func.func @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
    %c = arith.constant 1 : i32
    %b = arith.constant 2 : i8
    %d = arith.constant 3 : i64
    %r = func.call @__inference_serve(%a, %c, %b, %d) : (tensor<4xf32>, i32, i8, i64) -> tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}
