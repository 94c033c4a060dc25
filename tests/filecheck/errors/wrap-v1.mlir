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
