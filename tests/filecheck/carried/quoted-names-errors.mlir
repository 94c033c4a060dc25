// A string MLIR rejects (an escape other than `\\`, `\"`, `\n`, `\t` and two hex
// digits) is a located error wherever it stands, as iree-opt says: in a function's name
// (xDSL reads the header), in a carried body, in a dialect body, in a top-level op the
// passes never parse (the scanner that skips it says so), not an internal error and not
// text carried through.
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics
// RUN: abi-opt %s --split-input-file --verify-diagnostics
// RUN: abi-opt %s -p iree-abi-legacy --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error @+1 {{unknown escape in string literal}}
func.func @"\zz"(%x: i32) -> i32 {
  return %x : i32
}

// -----

func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{unknown escape in string literal}}
  %0 = stablehlo.add %x, %x {foo.r = @"\zz", foo.s = @predict} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @h(%a: i32) -> i32 {
  // expected-error @+1 {{unknown escape in string literal}}
  %0 = "foo.bar"(%a) {s = "a\\b\"c\n\t\0A", t = #foo<"x\q">} : (i32) -> i32
  return %0 : i32
}

// -----

// expected-error @+1 {{unknown escape in string literal}}
"foo.global"() {sym_name = "a\b"} : () -> ()
