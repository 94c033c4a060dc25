// A carried op in custom form whose `@name` is a func.func's name refers to the function
// (IREE's `iree_codegen.dispatch_config @f {…}`), before or after it: it defines no second
// symbol (abi-opt refused the module: 'Redefinition of symbol'), and a reference to a
// wrapped function follows its rename.
// RUN: abi-opt %s | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      NONE:builtin.module {
// NONE-NEXT:  iree_codegen.dispatch_config @before {
// NONE-NEXT:  ^bb0(%arg0: index):
// NONE-NEXT:    %c1 = arith.constant 1 : index
// NONE-NEXT:    iree_codegen.yield %arg0, %c1, %c1 : index, index, index
// NONE-NEXT:  }
// NONE-NEXT:  func.func @before(%a: tensor<2xf32>) -> tensor<2xf32> {
// NONE-NEXT:    return %a : tensor<2xf32>
// NONE-NEXT:  }
// NONE-NEXT:  func.func @pair(%t: tuple<tensor<2xf32>, tensor<3xi32>>) -> tuple<tensor<2xf32>, tensor<3xi32>> {
// NONE-NEXT:    return %t : tuple<tensor<2xf32>, tensor<3xi32>>
// NONE-NEXT:  }
// NONE-NEXT:  iree_codegen.dispatch_config @pair {
// NONE-NEXT:  ^bb0(%arg0: index):
// NONE-NEXT:    %c1 = arith.constant 1 : index
// NONE-NEXT:    iree_codegen.yield %arg0, %c1, %c1 : index, index, index
// NONE-NEXT:  }
// NONE-NEXT:}

//      V1:builtin.module {
// V1-NEXT:  iree_codegen.dispatch_config @before {
// V1-NEXT:  ^bb0(%arg0: index):
// V1-NEXT:    %c1 = arith.constant 1 : index
// V1-NEXT:    iree_codegen.yield %arg0, %c1, %c1 : index, index, index
// V1-NEXT:  }
// V1-NEXT:  func.func @before(%a: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    return %a : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @pair(%t: !util.list<?>) -> (tensor<2xf32>, tensor<3xi32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22i32\22,1,3]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22i32\22,1,3]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %t[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = arith.constant 1 : index
// V1-NEXT:    %4 = util.list.get %t[%3] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %5 = hal.tensor.import %4 : !hal.buffer_view -> tensor<3xi32>
// V1-NEXT:    %6, %7 = func.call @_pair(%2, %5) : (tensor<2xf32>, tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>)
// V1-NEXT:    func.return %6, %7 : tensor<2xf32>, tensor<3xi32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_pair(%0: tensor<2xf32>, %1: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>) {
// V1-NEXT:    func.return %0, %1 : tensor<2xf32>, tensor<3xi32>
// V1-NEXT:  }
// V1-NEXT:  iree_codegen.dispatch_config @_pair {
// V1-NEXT:  ^bb0(%arg0: index):
// V1-NEXT:    %c1 = arith.constant 1 : index
// V1-NEXT:    iree_codegen.yield %arg0, %c1, %c1 : index, index, index
// V1-NEXT:  }
// V1-NEXT:}

iree_codegen.dispatch_config @before {
^bb0(%arg0: index):
  %c1 = arith.constant 1 : index
  iree_codegen.yield %arg0, %c1, %c1 : index, index, index
}
func.func @before(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @pair(%t: tuple<tensor<2xf32>, tensor<3xi32>>) -> tuple<tensor<2xf32>, tensor<3xi32>> {
  return %t : tuple<tensor<2xf32>, tensor<3xi32>>
}
iree_codegen.dispatch_config @pair {
^bb0(%arg0: index):
  %c1 = arith.constant 1 : index
  iree_codegen.yield %arg0, %c1, %c1 : index, index, index
}
