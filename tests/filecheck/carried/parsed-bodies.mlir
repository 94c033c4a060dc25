// Which bodies the lowering passes parse: a function whose signature holds a structure
// (@pair), and a function that calls one (@caller) — here written in generic form, which
// parses without --allow-unregistered-dialect. Every other body (@untouched, in custom
// syntax) is carried as written, one level deeper inside the implicit module.
// RUN: abi-opt %s -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      LEGACY:builtin.module {
// LEGACY-NEXT:  func.func @pair(%a: tensor<4xf32> {abi.index_path = [0 : i64, 0 : i64]}, %b: tensor<4xf32> {abi.index_path = [0 : i64, 1 : i64]}) -> (tensor<4xf32> {abi.index_path = []}) attributes {iree.reflection = {abi = "sip", f = "I11!B3!d4B3!d4R6!B3!d4", fv = "1", sip = "I18!S14!k0S9!k0_0k1_1R3!_0", sipv = "1"}} {
// LEGACY-NEXT:    %s = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// LEGACY-NEXT:    func.return %s : tensor<4xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:  func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {abi = "sip", f = "I6!B3!d4R6!B3!d4", fv = "1", sip = "I8!S5!k0_0R3!_0", sipv = "1"}} {
// LEGACY-NEXT:    %r = func.call @pair(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// LEGACY-NEXT:    %m = "stablehlo.multiply"(%r, %r) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// LEGACY-NEXT:    func.return %m : tensor<4xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:  func.func @untouched(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {abi = "sip", f = "I6!B3!d4R6!B3!d4", fv = "1", sip = "I8!S5!k0_0R3!_0", sipv = "1"}} {
// LEGACY-NEXT:    %0 = stablehlo.multiply %x, %x : tensor<4xf32>
// LEGACY-NEXT:    return %0 : tensor<4xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:}

//      V1:builtin.module {
// V1-NEXT:  func.func @pair(%p: !util.list<?>) -> tensor<4xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22f32\22,1,4]]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %p[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<4xf32>
// V1-NEXT:    %3 = arith.constant 1 : index
// V1-NEXT:    %4 = util.list.get %p[%3] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %5 = hal.tensor.import %4 : !hal.buffer_view -> tensor<4xf32>
// V1-NEXT:    %6 = func.call @_pair(%2, %5) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// V1-NEXT:    func.return %6 : tensor<4xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_pair(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
// V1-NEXT:    %s = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// V1-NEXT:    func.return %s : tensor<4xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
// V1-NEXT:    %r = func.call @_pair(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// V1-NEXT:    %m = "stablehlo.multiply"(%r, %r) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// V1-NEXT:    func.return %m : tensor<4xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @untouched(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.multiply %x, %x : tensor<4xf32>
// V1-NEXT:    return %0 : tensor<4xf32>
// V1-NEXT:  }
// V1-NEXT:}

func.func @pair(%p: tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32> {
  %a = abi.tuple.get %p[0] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
  %b = abi.tuple.get %p[1] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
  %s = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = abi.tuple.pack %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %r = func.call @pair(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %m = "stablehlo.multiply"(%r, %r) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}
func.func @untouched(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
