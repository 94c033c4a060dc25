// RUN: abi-opt %s -p materialize-iree-abi --split-input-file --verify-diagnostics
// The errors of docs/spec.md §4.3, located at the offending argument.

// expected-error @+1 {{named arguments must follow all positional arguments}}
func.func @named_first(%x: i32 {abi.name = "x"}, %a: i32) {
  func.return
}

// -----

func.func @duplicate(%x: i32 {abi.name = "x"},
                     // expected-error @+1 {{duplicate argument name 'x'}}
                     %y: i32 {abi.name = "x"}) {
  func.return
}

// -----

func.func @positional_after(%a: i32,
                            %x: i32 {abi.name = "x"},
                            // expected-error @+1 {{named arguments must follow all positional arguments}}
                            %b: i32,
                            %c: i32) {
  func.return
}
