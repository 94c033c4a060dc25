// Errors only the V1 wrapper can hit (docs/spec.md §8.2).
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics

// expected-error @+1 {{symbol @_clash already exists}}
func.func @clash(%t: tuple<i32>) {
  func.return
}
func.func private @_clash() {
  func.return
}

// -----

// A gap in a result structure cannot be packed into a list (the legacy SIP keeps it).
// expected-error @+1 {{no value at result path [1]}}
func.func @result_gap(%a: i32 {abi.index_path = [0]}) -> (i32 {abi.index_path = [0]}, i32 {abi.index_path = [2]}) {
  func.return %a, %a : i32, i32
}

// -----

// expected-error @+1 {{no value at result path [0, 1]}}
func.func @nested_result_gap(%a: i32 {abi.index_path = [0]}) -> (i32 {abi.index_path = [0, 0]}, i32 {abi.index_path = [0, 2]}) {
  func.return %a, %a : i32, i32
}

// -----

// An unranked tensor inside a structure: a list carries it as a buffer view, whose import
// needs a ranked type (IREE's verifier refused the lowered module).
// expected-error @+1 {{argument 0: the unranked tensor<*xf32> inside a structure cannot be passed through IREE's native ABI (a list carries a tensor as a !hal.buffer_view, whose import needs a ranked type)}}
func.func @unranked_in_tuple(%a: tuple<tensor<*xf32>, i32>) -> i32 {
  %x = abi.tuple.get %a[1] : tuple<tensor<*xf32>, i32> -> i32
  func.return %x : i32
}

// -----

// expected-error @+1 {{result 0: the unranked tensor<*xi8> inside a structure cannot be passed through IREE's native ABI (a list carries a tensor as a !hal.buffer_view, whose import needs a ranked type)}}
func.func @unranked_in_dict_result(%a: tensor<*xi8>, %b: i32) -> (!abi.dict<"k": tensor<*xi8>>, i32) {
  %d = abi.dict.pack %a : (tensor<*xi8>) -> !abi.dict<"k": tensor<*xi8>>
  func.return %d, %b : !abi.dict<"k": tensor<*xi8>>, i32
}

// -----

// An index-path structure holding an unranked tensor.
// expected-error @+1 {{argument 0: the unranked tensor<*xf32> inside a structure cannot be passed through IREE's native ABI (a list carries a tensor as a !hal.buffer_view, whose import needs a ranked type)}}
func.func @unranked_at_a_path(%a: tensor<*xf32> {abi.index_path = [0, 0]}, %b: tensor<2xf32> {abi.index_path = [0, 1]}) -> (tensor<2xf32> {abi.index_path = []}) {
  func.return %b : tensor<2xf32>
}

// -----

// At the root it stays a tensor argument, with the warning.
// expected-warning @+1 {{type tensor<*xf32> is not supported by IREE's native ABI}}
func.func @unranked_at_the_root(%a: tensor<*xf32>, %t: tuple<i32>) -> i32 {
  %x = abi.tuple.get %t[0] : tuple<i32> -> i32
  func.return %x : i32
}

// -----

// The items of a single structured result are returned one by one (inlined), not in a
// list: an unranked one stays a tensor, with the warning (once for the argument, once
// for the result).
// expected-warning @+2 {{type tensor<*xf32> is not supported by IREE's native ABI}}
// expected-warning @+1 {{type tensor<*xf32> is not supported by IREE's native ABI}}
func.func @unranked_item_of_an_inlined_result(%a: tensor<*xf32>, %b: i32) -> tuple<tensor<*xf32>, i32> {
  %t = abi.tuple.pack %a, %b : (tensor<*xf32>, i32) -> tuple<tensor<*xf32>, i32>
  func.return %t : tuple<tensor<*xf32>, i32>
}
