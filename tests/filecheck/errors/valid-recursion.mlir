// Valid: recursive and mutually recursive calls through functions whose signatures are
// flattened. Every function of the module is decomposed (docs/spec.md §8), calls are rewritten to
// the flat signature (a wrapped export's own recursive call goes to the private `_<name>`).
// RUN: abi-opt %s -p iree-abi-legacy | abi-opt -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY
// RUN: abi-opt %s -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s --check-prefix=V1

// LEGACY-LABEL: func.func @self(
// LEGACY-SAME:      %0: i32 {abi.index_path = [0 : i64, 0 : i64]}, %1: i32 {abi.index_path = [0 : i64, 1 : i64, "a"]}, %2: f32 {abi.index_path = [0 : i64, 1 : i64, "b"]}, %n: i32 {abi.index_path = [1 : i64]}) -> (i32 {abi.index_path = [0 : i64]}, i32 {abi.index_path = [1 : i64, "a"]}, f32 {abi.index_path = [1 : i64, "b"]})
// LEGACY-SAME:      sip = "I37!S33!k0S23!k0_0k1D13!K2!a_1K2!b_2k1_3R27!S23!k0_0k1D13!K2!a_1K2!b_2"
// LEGACY-NEXT:   %3, %4, %5 = func.call @self(%0, %1, %2, %n) : (i32, i32, f32, i32) -> (i32, i32, f32)
// LEGACY-NEXT:   func.return %3, %4, %5 : i32, i32, f32
// LEGACY-LABEL: func.func @even(
// LEGACY-SAME:      %x: i32 {abi.index_path = [0 : i64]}, %0: f32 {abi.index_path = [1 : i64, 0 : i64]}) -> (i32 {abi.index_path = [0 : i64]}, f32 {abi.index_path = [1 : i64, 0 : i64]})
// LEGACY-SAME:      sip = "I18!S14!k0_0k1S5!k0_1R18!S14!k0_0k1S5!k0_1"
// LEGACY-NEXT:   %1, %2 = func.call @odd(%x, %0) : (i32, f32) -> (i32, f32)
// LEGACY-NEXT:   func.return %1, %2 : i32, f32
// LEGACY-LABEL: func.func private @odd(%x: i32, %y: f32) -> (i32, f32) {
// LEGACY-NEXT:   %0, %1 = func.call @even(%x, %y) : (i32, f32) -> (i32, f32)

// V1-LABEL: func.func @self(%s: !util.list<?>, %n: i32) -> (i32, !util.list<?>)
// V1:         func.call @_self(%{{.*}}, %{{.*}}, %{{.*}}, %n) : (i32, i32, f32, i32) -> (i32, i32, f32)
// V1-LABEL: func.func private @_self(%0: i32, %1: i32, %2: f32, %n: i32) -> (i32, i32, f32) {
// V1-NEXT:    %3, %4, %5 = func.call @_self(%0, %1, %2, %n) : (i32, i32, f32, i32) -> (i32, i32, f32)
// V1-LABEL: func.func @even(%x: i32, %t: !util.list<?>) -> (i32, !util.list<?>)
// V1:         func.call @_even(%x, %{{.*}}) : (i32, f32) -> (i32, f32)
// V1-LABEL: func.func private @_even(%x: i32, %0: f32) -> (i32, f32) {
// V1-NEXT:    %1, %2 = func.call @odd(%x, %0) : (i32, f32) -> (i32, f32)
// V1-LABEL: func.func private @odd(%x: i32, %y: f32) -> (i32, f32) {
// V1-NEXT:    %0, %1 = func.call @_even(%x, %y) : (i32, f32) -> (i32, f32)

func.func @self(%s: tuple<i32, !abi.dict<"b": f32, "a": i32>>, %n: i32) -> tuple<i32, !abi.dict<"b": f32, "a": i32>> {
  %r = func.call @self(%s, %n) : (tuple<i32, !abi.dict<"b": f32, "a": i32>>, i32) -> tuple<i32, !abi.dict<"b": f32, "a": i32>>
  func.return %r : tuple<i32, !abi.dict<"b": f32, "a": i32>>
}

func.func @even(%x: i32, %t: tuple<f32>) -> tuple<i32, tuple<f32>> {
  %r = func.call @odd(%x, %t) : (i32, tuple<f32>) -> tuple<i32, tuple<f32>>
  func.return %r : tuple<i32, tuple<f32>>
}

func.func private @odd(%x: i32, %t: tuple<f32>) -> tuple<i32, tuple<f32>> {
  %y = abi.tuple.get %t[0] : tuple<f32> -> f32
  %u = abi.tuple.pack %y : (f32) -> tuple<f32>
  %r = func.call @even(%x, %u) : (i32, tuple<f32>) -> tuple<i32, tuple<f32>>
  func.return %r : tuple<i32, tuple<f32>>
}
