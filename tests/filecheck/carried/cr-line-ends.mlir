// A file whose lines end in `\r` alone (or `\r\n`) is read as MLIR reads it: a comment
// ends at the `\r`, and every function is an item of its own.
// RUN: tr '\n' '\r' < %s | abi-opt -p iree-abi-v1 | tr '\r' '\n' | filecheck %s --match-full-lines --strict-whitespace
// RUN: sed 's/$/\r/' %s | abi-opt -p iree-abi-v1 | tr -d '\r' | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @a(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = stablehlo.add %x, %y : tensor<2xf32>
// CHECK-NEXT:    return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @b(%x: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = arith.constant 0 : index
// CHECK-NEXT:    %1 = util.list.get %x[%0] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// CHECK-NEXT:    %3 = func.call @_b(%2) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %3 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @_b(%0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    func.return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:}

func.func @a(%x: tensor<2xf32>, // the input
             %y: tensor<2xf32>) -> tensor<2xf32> {
  // a comment
  %0 = stablehlo.add %x, %y : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @b(%x: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
  // a comment in a parsed body
  return %x : tuple<tensor<2xf32>>
}
