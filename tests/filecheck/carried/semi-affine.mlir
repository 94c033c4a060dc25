// Semi-affine maps and sets (`s0 * s1`, `d0 mod s0`, `s1 ceildiv s0`, `s0 floordiv s1`),
// which MLIR reads and xDSL's affine expressions lack, are kept as written: in an alias,
// in a header's attributes, in a memref layout and in a parsed body (abi-opt stopped with
// 'internal error: NotImplementedError').
// RUN: abi-opt %s --allow-unregistered-dialect | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-v1 2>/dev/null | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-legacy 2>/dev/null | filecheck %s --check-prefix=LEGACY --match-full-lines --strict-whitespace

//      NONE:#map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>
// NONE-NEXT:#set = affine_set<(d0)[s0] : (d0 mod s0 >= 0)>
// NONE-NEXT:builtin.module {
// NONE-NEXT:  func.func @header(%a: tensor<2xf32> {foo.m = affine_map<(d0)[s0] -> (d0 * s0)>}, %b: memref<4x4xf32, affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>>) -> tensor<2xf32> attributes {foo.map = #map, foo.set = #set} {
// NONE-NEXT:    return %a : tensor<2xf32>
// NONE-NEXT:  }
// NONE-NEXT:  func.func @parsed(%t: tuple<tensor<2xf32>, tensor<3xi32>>) -> tuple<tensor<2xf32>, tensor<3xi32>> {
// NONE-NEXT:    "foo.op"() {foo.m = affine_map<()[s0, s1] -> (s0 floordiv s1)>, foo.map = #map} : () -> ()
// NONE-NEXT:    return %t : tuple<tensor<2xf32>, tensor<3xi32>>
// NONE-NEXT:  }
// NONE-NEXT:}

//      V1:#map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>
// V1-NEXT:#set = affine_set<(d0)[s0] : (d0 mod s0 >= 0)>
// V1-NEXT:builtin.module {
// V1-NEXT:  func.func @header(%a: tensor<2xf32> {foo.m = affine_map<(d0)[s0] -> (d0 * s0)>}, %b: memref<4x4xf32, affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>>) -> tensor<2xf32> attributes {foo.map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>, foo.set = affine_set<(d0)[s0] : (d0 mod s0 >= 0)>, iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2],\22unknown\22],\22r\22:[[\22ndarray\22,\22f32\22,1,2]],\22v\22:1}"}} {
// V1-NEXT:    return %a : tensor<2xf32>
// V1-NEXT:  }
// V1-NEXT:  func.func @parsed(%t: !util.list<?>) -> (tensor<2xf32>, tensor<3xi32>) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22i32\22,1,3]]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,2],[\22ndarray\22,\22i32\22,1,3]]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %t[%0] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %2 = hal.tensor.import %1 : !hal.buffer_view -> tensor<2xf32>
// V1-NEXT:    %3 = arith.constant 1 : index
// V1-NEXT:    %4 = util.list.get %t[%3] : !util.list<?> -> !hal.buffer_view
// V1-NEXT:    %5 = hal.tensor.import %4 : !hal.buffer_view -> tensor<3xi32>
// V1-NEXT:    %6, %7 = func.call @_parsed(%2, %5) : (tensor<2xf32>, tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>)
// V1-NEXT:    func.return %6, %7 : tensor<2xf32>, tensor<3xi32>
// V1-NEXT:  }
// V1-NEXT:  func.func private @_parsed(%0: tensor<2xf32>, %1: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>) {
// V1-NEXT:    "foo.op"() {foo.m = affine_map<()[s0, s1] -> (s0 floordiv s1)>, foo.map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>} : () -> ()
// V1-NEXT:    func.return %0, %1 : tensor<2xf32>, tensor<3xi32>
// V1-NEXT:  }
// V1-NEXT:}

//      LEGACY:#map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>
// LEGACY-NEXT:#set = affine_set<(d0)[s0] : (d0 mod s0 >= 0)>
// LEGACY-NEXT:builtin.module {
// LEGACY-NEXT:  func.func @header(%a: tensor<2xf32> {foo.m = affine_map<(d0)[s0] -> (d0 * s0)>}, %b: memref<4x4xf32, affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>>) -> tensor<2xf32> attributes {foo.map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>, foo.set = affine_set<(d0)[s0] : (d0 mod s0 >= 0)>, iree.reflection = {abi = "sip", f = "I9!B3!d2U1!R6!B3!d2", fv = "1", sip = "I12!S9!k0_0k1_1R3!_0", sipv = "1"}} {
// LEGACY-NEXT:    return %a : tensor<2xf32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:  func.func @parsed(%0: tensor<2xf32> {abi.index_path = [0 : i64, 0 : i64]}, %1: tensor<3xi32> {abi.index_path = [0 : i64, 1 : i64]}) -> (tensor<2xf32> {abi.index_path = [0 : i64]}, tensor<3xi32> {abi.index_path = [1 : i64]}) attributes {iree.reflection = {abi = "sip", f = "I13!B3!d2B5!t6d3R13!B3!d2B5!t6d3", fv = "1", sip = "I18!S14!k0S9!k0_0k1_1R12!S9!k0_0k1_1", sipv = "1"}} {
// LEGACY-NEXT:    "foo.op"() {foo.m = affine_map<()[s0, s1] -> (s0 floordiv s1)>, foo.map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>} : () -> ()
// LEGACY-NEXT:    func.return %0, %1 : tensor<2xf32>, tensor<3xi32>
// LEGACY-NEXT:  }
// LEGACY-NEXT:}

#map = affine_map<()[s0, s1] -> (-s1 + (s1 ceildiv s0) * s0)>
#set = affine_set<(d0)[s0] : (d0 mod s0 >= 0)>
module {
  func.func @header(%a: tensor<2xf32> {foo.m = affine_map<(d0)[s0] -> (d0 * s0)>}, %b: memref<4x4xf32, affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>>) -> tensor<2xf32> attributes {foo.map = #map, foo.set = #set} {
    return %a : tensor<2xf32>
  }
  func.func @parsed(%t: tuple<tensor<2xf32>, tensor<3xi32>>) -> tuple<tensor<2xf32>, tensor<3xi32>> {
    "foo.op"() {foo.m = affine_map<()[s0, s1] -> (s0 floordiv s1)>, foo.map = #map} : () -> ()
    return %t : tuple<tensor<2xf32>, tensor<3xi32>>
  }
}
