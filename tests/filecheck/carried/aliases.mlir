// Alias definitions keep their place before their uses: one written between two
// functions (of the implicit module) prints before the module; location aliases and
// resource sections, which may follow their uses, print after it. A `#-}` inside a
// resource section's string does not end the section.
// RUN: abi-opt %s | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      NONE:#loc1 = loc("a.py":1:1)
// NONE-NEXT:!pair = tuple<tensor<2xf32>, tensor<2xf32>>
// NONE-NEXT:#note = {foo.k = "between"}
// NONE-NEXT:builtin.module {
// NONE-NEXT:  func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
// NONE-NEXT:    %0 = stablehlo.add %x, %x : tensor<2xf32>
// NONE-NEXT:    return %0 : tensor<2xf32>
// NONE-NEXT:  } loc(#loc1)
// NONE-NEXT:  func.func @second(%p: !pair {foo.n = #note}) -> !pair {
// NONE-NEXT:    return %p : !pair
// NONE-NEXT:  } loc(#loc2)
// NONE-NEXT:}
// NONE-NEXT:#loc2 = loc("a.py":2:2)
// NONE-NEXT:{-#
// NONE-NEXT:  external_resources: {
// NONE-NEXT:    mlir_reactor: {
// NONE-NEXT:      note: "a #-} inside a string"
// NONE-NEXT:    }
// NONE-NEXT:  }
// NONE-NEXT:#-}

//      V1:#loc1 = loc("a.py":1:1)
// V1-NEXT:!pair = tuple<tensor<2xf32>, tensor<2xf32>>
// V1-NEXT:#note = {foo.k = "between"}
// V1-NEXT:builtin.module {
// V1-NEXT:  func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.add %x, %x : tensor<2xf32>
// V1-NEXT:    return %0 : tensor<2xf32>
// V1-NEXT:  } loc(#loc1)
// V1-NEXT:  func.func @second(%p: !util.list<?>) -> (tensor<2xf32>, tensor<2xf32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %p[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = arith.constant 1 : index
// V1-NEXT:    %4 = util.list.get %p[%3] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %5 = hal.tensor.import %4 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %6, %7 = func.call @_second(%2, %5) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// V1-NEXT:    func.return %6, %7 : tensor<2xf32>, tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_second(%0: tensor<2xf32>, %1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
// V1-NEXT:    func.return %0, %1 : tensor<2xf32>, tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:}
// V1-NEXT:#loc2 = loc("a.py":2:2)
// V1-NEXT:{-#
// V1-NEXT:  external_resources: {
// V1-NEXT:    mlir_reactor: {
// V1-NEXT:      note: "a #-} inside a string"
// V1-NEXT:    }
// V1-NEXT:  }
// V1-NEXT:#-}

#loc1 = loc("a.py":1:1)
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
} loc(#loc1)
!pair = tuple<tensor<2xf32>, tensor<2xf32>>
#note = {foo.k = "between"}
func.func @second(%p: !pair {foo.n = #note}) -> !pair {
  return %p : !pair
} loc(#loc2)
#loc2 = loc("a.py":2:2)
{-#
  external_resources: {
    mlir_reactor: {
      note: "a #-} inside a string"
    }
  }
#-}
