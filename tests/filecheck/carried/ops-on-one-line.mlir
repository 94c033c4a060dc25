// Any number of ops on a line: a function that starts after the `}` (or the `loc(…)`) of
// the one before is an item of its own, with its reflection and, when structured, its
// wrapper; the others stay carried.
// RUN: abi-opt %s | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      NONE:builtin.module {
// NONE-NEXT:  func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
// NONE-NEXT:    %0 = stablehlo.add %x, %x : tensor<2xf32>
// NONE-NEXT:    return %0 : tensor<2xf32>
// NONE-NEXT:  }
// NONE-NEXT:  func.func @b(%x: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
// NONE-NEXT:    return %x : tuple<tensor<2xf32>>
// NONE-NEXT:  } loc("b.py":1:1)
// NONE-NEXT:  func.func @c(%x: tensor<2xf32>) -> tensor<2xf32> {
// NONE-NEXT:    %0 = stablehlo.abs %x : tensor<2xf32>
// NONE-NEXT:    return %0 : tensor<2xf32>
// NONE-NEXT:  }
// NONE-NEXT:}

//      V1:builtin.module {
// V1-NEXT:  func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.add %x, %x : tensor<2xf32>
// V1-NEXT:    return %0 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @b(%x: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %x[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = func.call @_b(%2) : (tensor<2xf32>) -> tensor<2xf32>
// V1-NEXT:    func.return %3 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_b(%0: tensor<2xf32>) -> tensor<2xf32> {
// V1-NEXT:    func.return %0 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @c(%x: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.abs %x : tensor<2xf32>
// V1-NEXT:    return %0 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:}

func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
} func.func @b(%x: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
  return %x : tuple<tensor<2xf32>>
} loc("b.py":1:1) func.func @c(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
