// Both conventions on one module, in every order. Reflection on a function describes
// that function's own signature: when iree-abi-v1 wraps a function iree-abi-legacy has
// already flattened, the legacy entries moved onto the wrapper are recomputed for the
// wrapper (a structure is one !util.list<?>: O1!), which is also what iree-abi-legacy
// writes when it runs second. Only iree.abi differs between the orders: from the index
// paths the legacy pass wrote, an argument sequence is a list (slist).
// RUN: abi-opt %s -p iree-abi-legacy | abi-opt -p iree-abi-v1 | filecheck %s --check-prefix=LV
// RUN: abi-opt %s -p iree-abi-legacy,iree-abi-v1 | filecheck %s --check-prefix=LV
// RUN: abi-opt %s -p iree-abi-v1 | abi-opt -p iree-abi-legacy | filecheck %s --check-prefix=VL
// RUN: abi-opt %s -p iree-abi-legacy | abi-opt -p iree-abi-legacy | filecheck %s --check-prefix=LL
// RUN: abi-opt %s -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s --check-prefix=VV

func.func @swap(%pair: tuple<tensor<4xf32>, tensor<?xi32>>) -> tuple<tensor<?xi32>, tensor<4xf32>> {
  %a = abi.tuple.get %pair[0] : tuple<tensor<4xf32>, tensor<?xi32>> -> tensor<4xf32>
  %b = abi.tuple.get %pair[1] : tuple<tensor<4xf32>, tensor<?xi32>> -> tensor<?xi32>
  %r = abi.tuple.pack %b, %a : (tensor<?xi32>, tensor<4xf32>) -> tuple<tensor<?xi32>, tensor<4xf32>>
  func.return %r : tuple<tensor<?xi32>, tensor<4xf32>>
}

// LV: func.func @swap(%0: !util.list<?>) -> (tensor<?xi32>, tensor<4xf32>) attributes {iree.abi.stub, iree.reflection = {abi = "sip", f = "I4!O1!R14!B6!t6d-1B3!d4", fv = "1", iree.abi = "{\22a\22:[[\22slist\22,[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22i32\22,1,null]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22i32\22,1,null],[\22ndarray\22,\22f32\22,1,4]]],\22v\22:1}", sip = "I8!S5!k0_0R12!S9!k0_0k1_1", sipv = "1"}} {
// VL: func.func @swap(%pair: !util.list<?>) -> (tensor<?xi32>, tensor<4xf32>) attributes {iree.abi.stub, iree.reflection = {abi = "sip", f = "I4!O1!R14!B6!t6d-1B3!d4", fv = "1", iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22i32\22,1,null]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22i32\22,1,null],[\22ndarray\22,\22f32\22,1,4]]],\22v\22:1}", sip = "I8!S5!k0_0R12!S9!k0_0k1_1", sipv = "1"}} {
// LV: func.func private @_swap(%a: tensor<4xf32>, %b: tensor<?xi32>) -> (tensor<?xi32>, tensor<4xf32>) {
// VL: func.func private @_swap(%a: tensor<4xf32>, %b: tensor<?xi32>) -> (tensor<?xi32>, tensor<4xf32>) {

// LL: func.func @swap(%a: tensor<4xf32> {abi.index_path = [0 : i64, 0 : i64]}, %b: tensor<?xi32> {abi.index_path = [0 : i64, 1 : i64]}) -> (tensor<?xi32> {abi.index_path = [0 : i64]}, tensor<4xf32> {abi.index_path = [1 : i64]}) attributes {iree.reflection = {abi = "sip", f = "I14!B3!d4B6!t6d-1R14!B6!t6d-1B3!d4", fv = "1", sip = "I18!S14!k0S9!k0_0k1_1R12!S9!k0_0k1_1", sipv = "1"}} {

// VV: func.func @swap(%pair: !util.list<?>) -> (tensor<?xi32>, tensor<4xf32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22i32\22,1,null]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22i32\22,1,null],[\22ndarray\22,\22f32\22,1,4]]],\22v\22:1}"}} {
// VV: func.func private @_swap(
