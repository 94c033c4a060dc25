// RUN: abi-opt %s -p flatten-signatures --split-input-file --verify-diagnostics --allow-unregistered-dialect
// A structured value used by an op that cannot be decomposed (docs/spec.md §8).

func.func @escapes(%t: tuple<i32, i32>) {
  // expected-error @+1 {{cannot lower structured value of type tuple<i32, i32>: used by 'test.use'}}
  "test.use"(%t) : (tuple<i32, i32>) -> ()
  func.return
}

// -----

func.func @escapes_dict(%a: i32) -> i32 {
  %d = abi.dict.pack %a : (i32) -> !abi.dict<"k": i32>
  // expected-error @+1 {{cannot lower structured value of type !abi.dict<"k": i32>: used by 'test.use'}}
  "test.use"(%d) : (!abi.dict<"k": i32>) -> ()
  func.return %a : i32
}
