// Symbols as MLIR resolves them: renaming @predict (wrap-entry-points names its
// implementation @_predict) redirects every reference of the module's own symbol table —
// in carried bodies, in attributes, nested (`@predict::@inner`), quoted (`@"predict"`),
// through an alias (`#callee`, whose text is redirected too), and in a nested module's
// own attributes — and none inside a nested module, custom or generic form, which is a
// symbol table of its own with its own @predict. A function that calls @predict, even
// through the alias, has its body parsed (the call is rewritten); one that only names it
// in an attribute stays carried.
// RUN: abi-opt %s -p iree-abi-v1 2>/dev/null | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-legacy 2>/dev/null | filecheck %s --check-prefix=LEGACY --match-full-lines --strict-whitespace

//      V1:#callee = @_predict
// V1-NEXT:builtin.module {
// V1-NEXT:  func.func @predict(%x: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %x[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = func.call @_predict(%2) : (tensor<2xf32>) -> tensor<2xf32>
// V1-NEXT:    func.return %3 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_predict(%0: tensor<2xf32>) -> tensor<2xf32> {
// V1-NEXT:    func.return %0 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @referrer(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @_predict, foo.s = @_predict, iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.add %x, %x {foo.t = [@_predict, @_predict::@inner, @_predict]} : tensor<2xf32>
// V1-NEXT:    return %0 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @caller(%t: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %t[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = func.call @_caller(%2) : (tensor<2xf32>) -> tensor<2xf32>
// V1-NEXT:    func.return %3 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_caller(%0: tensor<2xf32>) -> tensor<2xf32> {
// V1-NEXT:    %1 = func.call @_predict(%0) : (tensor<2xf32>) -> tensor<2xf32>
// V1-NEXT:    func.return %1 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  module @x attributes {foo.r = @_predict} {
// V1-NEXT:    func.func private @predict(%x: tensor<2xf32>) -> tensor<2xf32> {
// V1-NEXT:      %0 = stablehlo.add %x, %x : tensor<2xf32>
// V1-NEXT:      return %0 : tensor<2xf32>
// V1-NEXT:    }
// V1-NEXT:    func.func @inner(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @predict} {
// V1-NEXT:      %0 = call @predict(%x) : (tensor<2xf32>) -> tensor<2xf32>
// V1-NEXT:      return %0 : tensor<2xf32>
// V1-NEXT:    }
// V1-NEXT:  }
// V1-NEXT:  "builtin.module"() <{sym_name = "y"}> ({
// V1-NEXT:    "foo.use"() {r = @predict} : () -> ()
// V1-NEXT:  }) : () -> ()
// V1-NEXT:}

//      LEGACY:#callee = @predict
// LEGACY-NEXT:builtin.module {
// LEGACY-NEXT:  func.func @predict(%0: tensor<2xf32> {abi.index_path = [0 : i64, 0 : i64]}) -> (tensor<2xf32> {abi.index_path = [0 : i64]}) attributes {iree.reflection = {abi = "sip", f = "I6!B3!d2R6!B3!d2", fv = "1", sip = "I14!S10!k0S5!k0_0R8!S5!k0_0", sipv = "1"}} {
// LEGACY-NEXT:    func.return %0 : tensor<2xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:  func.func @referrer(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @predict, foo.s = @predict, iree.reflection = {abi = "sip", f = "I6!B3!d2R6!B3!d2", fv = "1", sip = "I8!S5!k0_0R3!_0", sipv = "1"}} {
// LEGACY-NEXT:    %0 = stablehlo.add %x, %x {foo.t = [@predict, @predict::@inner, @"predict"]} : tensor<2xf32>
// LEGACY-NEXT:    return %0 : tensor<2xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:  func.func @caller(%0: tensor<2xf32> {abi.index_path = [0 : i64, 0 : i64]}) -> (tensor<2xf32> {abi.index_path = [0 : i64]}) attributes {iree.reflection = {abi = "sip", f = "I6!B3!d2R6!B3!d2", fv = "1", sip = "I14!S10!k0S5!k0_0R8!S5!k0_0", sipv = "1"}} {
// LEGACY-NEXT:    %1 = func.call @predict(%0) : (tensor<2xf32>) -> tensor<2xf32>
// LEGACY-NEXT:    func.return %1 : tensor<2xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:  module @x attributes {foo.r = @predict} {
// LEGACY-NEXT:    func.func private @predict(%x: tensor<2xf32>) -> tensor<2xf32> {
// LEGACY-NEXT:      %0 = stablehlo.add %x, %x : tensor<2xf32>
// LEGACY-NEXT:      return %0 : tensor<2xf32>
// LEGACY-NEXT:    }
// LEGACY-NEXT:    func.func @inner(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @predict} {
// LEGACY-NEXT:      %0 = call @predict(%x) : (tensor<2xf32>) -> tensor<2xf32>
// LEGACY-NEXT:      return %0 : tensor<2xf32>
// LEGACY-NEXT:    }
// LEGACY-NEXT:  }
// LEGACY-NEXT:  "builtin.module"() <{sym_name = "y"}> ({
// LEGACY-NEXT:    "foo.use"() {r = @predict} : () -> ()
// LEGACY-NEXT:  }) : () -> ()
// LEGACY-NEXT:}

#callee = @predict
module {
  func.func @predict(%x: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
    return %x : tuple<tensor<2xf32>>
  }
  func.func @referrer(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @predict, foo.s = #callee} {
    %0 = stablehlo.add %x, %x {foo.t = [@predict, @predict::@inner, @"predict"]} : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @caller(%t: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
    %0 = "func.call"(%t) <{callee = #callee}> : (tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>>
    return %0 : tuple<tensor<2xf32>>
  }
  module @x attributes {foo.r = @predict} {
    func.func private @predict(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.add %x, %x : tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    func.func @inner(%x: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = @predict} {
      %0 = call @predict(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
  }
  "builtin.module"() <{sym_name = "y"}> ({
    "foo.use"() {r = @predict} : () -> ()
  }) : () -> ()
}
