// Locations are dropped only where MLIR has a location (the trailing `loc(…)` of an op,
// an argument or a block argument), and only where xDSL parses: an attribute or a type
// that holds a location keeps it, in a header read into IR and in a parsed body (@parsed,
// whose body the wrapper's implementation @_parsed takes). `loc (…)` may have blanks
// before its `(`, and a location may name an alias defined after it; a declaration keeps
// its location.
// RUN: abi-opt %s | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      NONE:#loc0 = loc("m.py":2:2)
// NONE-NEXT:builtin.module {
// NONE-NEXT:  func.func @kept(%a: tensor<2xf32> {foo.l = [loc("m.py":10:4)], foo.t = !foo.t<loc(1)>} loc (#loc1)) -> tensor<2xf32> {
// NONE-NEXT:    %0 = stablehlo.add %a, %a : tensor<2xf32> loc("m.py":11:4 to :20)
// NONE-NEXT:    return %0 : tensor<2xf32>
// NONE-NEXT:  } loc (#loc1)
// NONE-NEXT:  func.func @parsed(%p: tuple<tensor<2xf32>> {foo.l = [loc(#loc0)]} loc("m.py":1:2 to :5)) -> tuple<tensor<2xf32>> {
// NONE-NEXT:    "foo.op"() {l = [loc("m.py":10:4)], t = !foo.t<loc(1)>} : () -> () loc (#loc1)
// NONE-NEXT:    return %p : tuple<tensor<2xf32>> loc(fused["a.py":1:2 to :5, #loc0])
// NONE-NEXT:  } loc(#loc1)
// NONE-NEXT:  func.func private @declared(tensor<2xf32> {foo.l = [loc("m.py":10:4)]}) -> tensor<2xf32> loc (#loc1)
// NONE-NEXT:}
// NONE-NEXT:#loc1 = loc("m.py":1:1)

//      V1:#loc0 = loc("m.py":2:2)
// V1-NEXT:builtin.module {
// V1-NEXT:  func.func @kept(%a: tensor<2xf32> {foo.l = [loc("m.py":10:4)], foo.t = !foo.t<loc(1)>} loc (#loc1)) -> tensor<2xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.add %a, %a : tensor<2xf32> loc("m.py":11:4 to :20)
// V1-NEXT:    return %0 : tensor<2xf32>
// V1-NEXT:  } loc (#loc1)
// V1-NEXT:  func.func @parsed(%p: !util.list<?>) -> tensor<2xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %p[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = func.call @_parsed(%2) : (tensor<2xf32>) -> tensor<2xf32>
// V1-NEXT:    func.return %3 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_parsed(%0: tensor<2xf32>) -> tensor<2xf32> {
// V1-NEXT:    "foo.op"() {l = [loc("m.py":10:4)], t = !foo.t<loc(1)>} : () -> ()
// V1-NEXT:    func.return %0 : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @declared(tensor<2xf32> {foo.l = [loc("m.py":10:4)]}) -> tensor<2xf32> loc (#loc1)
// V1-NEXT:}
// V1-NEXT:#loc1 = loc("m.py":1:1)

// Locations are dropped only where MLIR has a location (the trailing `loc(…)` of an op,
// an argument or a block argument), and only where xDSL parses: an attribute or a type
// that holds a location keeps it, in a header read into IR, a header printed from the IR
// and a parsed body. `loc (…)` may have blanks before its `(`; a declaration keeps its
// location; a location may use an alias defined after it.
// RUN: abi-opt %s | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

#loc0 = loc("m.py":2:2)
func.func @kept(%a: tensor<2xf32> {foo.l = [loc("m.py":10:4)], foo.t = !foo.t<loc(1)>} loc (#loc1)) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32> loc("m.py":11:4 to :20)
  return %0 : tensor<2xf32>
} loc (#loc1)
func.func @parsed(%p: tuple<tensor<2xf32>> {foo.l = [loc(#loc0)]} loc("m.py":1:2 to :5)) -> tuple<tensor<2xf32>> {
  "foo.op"() {l = [loc("m.py":10:4)], t = !foo.t<loc(1)>} : () -> () loc (#loc1)
  return %p : tuple<tensor<2xf32>> loc(fused["a.py":1:2 to :5, #loc0])
} loc(#loc1)
func.func private @declared(tensor<2xf32> {foo.l = [loc("m.py":10:4)]}) -> tensor<2xf32> loc (#loc1)
#loc1 = loc("m.py":1:1)
