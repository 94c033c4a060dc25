// RUN: abi-opt %s -p materialize-sip-abi --split-input-file --verify-diagnostics
// Structured types without index paths cannot be described: flatten-signatures first.

// expected-error @+1 {{argument 0 has structured type tuple<i32, f32> without index paths: run flatten-signatures before materialize-sip-abi}}
func.func @tuple_arg(%a: tuple<i32, f32>) {
  func.return
}

// -----

// expected-error @+1 {{result 0 has structured type !abi.dict<"k": i32> without index paths: run flatten-signatures before materialize-sip-abi}}
func.func @dict_result(%a: i32) -> !abi.dict<"k": i32> {
  %0 = abi.dict.pack %a : (i32) -> !abi.dict<"k": i32>
  func.return %0 : !abi.dict<"k": i32>
}

// -----

// expected-error @+1 {{malformed existing reflection 'sip': }}
func.func @bad_existing(%a: i32) attributes {iree.reflection = {sip = "I5!_0"}} {
  func.return
}
