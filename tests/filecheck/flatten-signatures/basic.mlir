// RUN: abi-opt %s -p flatten-signatures | filecheck %s
// RUN: abi-opt %s -p flatten-signatures | abi-opt -p flatten-signatures | filecheck %s
// flatten-signatures (docs/spec.md §8.1): structured arguments and results become their leaves
// in natural order; exported functions it changes get abi.index_path on every value.

// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: %a: tensor<?x4xf32> {abi.index_path = [0 : i64]},
// CHECK-SAME: %{{.*}}: i32 {abi.index_path = [1 : i64, 0 : i64]},
// CHECK-SAME: %{{.*}}: f32 {abi.index_path = [1 : i64, 1 : i64, "a"]},
// CHECK-SAME: %{{.*}}: i8 {abi.index_path = [1 : i64, 1 : i64, "b"]},
// CHECK-SAME: %c: i64 {abi.index_path = [3 : i64]})
// CHECK-SAME: -> (i32 {abi.index_path = [0 : i64]}, i64 {abi.index_path = [1 : i64]}) {
// CHECK-NEXT: func.return %{{.*}}, %c : i32, i64
// CHECK-NEXT: }
func.func @mixed(%a: tensor<?x4xf32>, %t: tuple<i32, !abi.dict<"b": i8, "a": f32>>, %e: tuple<>, %c: i64) -> tuple<i32, i64> {
  %0 = abi.tuple.get %t[0] : tuple<i32, !abi.dict<"b": i8, "a": f32>> -> i32
  %1 = abi.tuple.pack %0, %c : (i32, i64) -> tuple<i32, i64>
  func.return %1 : tuple<i32, i64>
}

// A single leaf result of a changed function is at []; tuple<x> becomes x.
// CHECK-LABEL: func.func @single(
// CHECK-SAME: %{{.*}}: f32 {abi.index_path = [0 : i64, 0 : i64]}) -> (f32 {abi.index_path = []}) {
func.func @single(%t: tuple<f32>) -> f32 {
  %0 = abi.tuple.get %t[0] : tuple<f32> -> f32
  func.return %0 : f32
}

// Several results start with their position.
// CHECK-LABEL: func.func @several(
// CHECK-SAME: %a: i8 {abi.index_path = [0 : i64]})
// CHECK-SAME: -> (i8 {abi.index_path = [0 : i64, 0 : i64]}, i8 {abi.index_path = [0 : i64, 1 : i64]}, i16 {abi.index_path = [1 : i64]}) {
func.func @several(%a: i8) -> (tuple<i8, i8>, i16) {
  %0 = abi.tuple.pack %a, %a : (i8, i8) -> tuple<i8, i8>
  %1 = arith.constant 3 : i16
  func.return %0, %1 : tuple<i8, i8>, i16
}

// Every argument named: paths start with the names.
// CHECK-LABEL: func.func @named(
// CHECK-SAME: %x: i32 {abi.index_path = ["x"], abi.name = "x"},
// CHECK-SAME: %{{.*}}: f32 {abi.index_path = ["cfg", "lr"]})
func.func @named(%x: i32 {abi.name = "x"}, %cfg: !abi.dict<"lr": f32> {abi.name = "cfg"}) {
  func.return
}

// Flat exported functions and private functions get no paths; private functions and
// call sites are flattened too.
// CHECK-LABEL: func.func @flat(%a: i32) -> i32 {
// CHECK-NEXT: %{{.*}}, %[[R:[0-9]+]] = func.call @helper(%a, %a) : (i32, i32) -> (i32, i32)
// CHECK-NEXT: func.return %[[R]] : i32
func.func @flat(%a: i32) -> i32 {
  %0 = abi.tuple.pack %a, %a : (i32, i32) -> tuple<i32, i32>
  %1 = func.call @helper(%0) : (tuple<i32, i32>) -> tuple<i32, i32>
  %2 = abi.tuple.get %1[1] : tuple<i32, i32> -> i32
  func.return %2 : i32
}
// CHECK-LABEL: func.func private @helper(%{{.*}}: i32, %{{.*}}: i32) -> (i32, i32) {
// CHECK-NEXT: func.return %{{.*}}, %{{.*}} : i32, i32
func.func private @helper(%t: tuple<i32, i32>) -> tuple<i32, i32> {
  func.return %t : tuple<i32, i32>
}
// CHECK-LABEL: func.func private @external(i32, f32) -> i8
func.func private @external(tuple<i32, tuple<>, f32>) -> tuple<i8>
