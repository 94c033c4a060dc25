// Quoted symbol names are read with their escapes (`@"a\22b"` and `@"a\"b"` are one
// name) and printed as MLIR prints them, renamed or not. A string MLIR rejects
// (`@"\zz"`) is an error wherever it stands (quoted-names-errors.mlir).
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @"a\22b"(%x: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = arith.constant 0 : index
// CHECK-NEXT:    %1 = util.list.get %x[%0] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// CHECK-NEXT:    %3 = func.call @"_a\22b"(%2) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %3 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @"_a\22b"(%0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    func.return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @"c\22d"(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @"_a\22b", iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = stablehlo.add %x, %x {foo.s = @"_a\22b", foo.t = "@\22a\22b\22"} : tensor<2xf32>
// CHECK-NEXT:    return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:}
// CHECK-NEXT:// -----
// CHECK-NEXT:builtin.module {
// CHECK-NEXT:  func.func @predict(%x: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = arith.constant 0 : index
// CHECK-NEXT:    %1 = util.list.get %x[%0] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// CHECK-NEXT:    %3 = func.call @_predict(%2) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %3 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @_predict(%0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    func.return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = stablehlo.add %x, %x {foo.s = @_predict} : tensor<2xf32>
// CHECK-NEXT:    return %0 : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:}

func.func @"a\22b"(%x: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
  return %x : tuple<tensor<2xf32>>
}
func.func @"c\"d"(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @"a\"b"} {
  %0 = stablehlo.add %x, %x {foo.s = @"a\22b", foo.t = "@\22a\22b\22"} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @predict(%x: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
  return %x : tuple<tensor<2xf32>>
}
func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x {foo.s = @predict} : tensor<2xf32>
  return %0 : tensor<2xf32>
}
