// A module `abi-sig show` cannot read: its first problem on stderr, located at the
// function, nothing on stdout, exit status 1. The other functions are fine; the error is
// still an error.
// RUN: not abi-sig show %s 2>&1 > %t.stdout | filecheck %s --match-full-lines --strict-whitespace
// RUN: echo -n > %t.empty
// RUN: diff %t.stdout %t.empty
// A header xDSL cannot parse, and a file that is not there:
// RUN: sed -e 's/tensor<4xf32>, %n/tensor<4xf32, %n/' %s > %t.bad.mlir
// RUN: not abi-sig show %t.bad.mlir 2>&1 | filecheck %s --check-prefix=SYNTAX --match-full-lines
// RUN: not abi-sig show %t.missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING --match-full-lines

//      CHECK:{{.*}}show-errors.mlir:25:1: error: @legacy: malformed reflection 'sip': sip inputs leaf indices [0] do not match the 2 raw inputs of f
// CHECK-EMPTY:
// Without @legacy, the next one:
// RUN: grep -v -e '@legacy' %s | not abi-sig show - 2>&1 | filecheck %s --check-prefix=NEXT --match-full-lines --strict-whitespace
// NEXT:<stdin>:22:1: error: @wrong_version: malformed reflection 'iree.abi': unsupported version 2 (expected 1) (at offset 19)

// SYNTAX:{{.*}}.bad.mlir:22:35: error: attribute expected

// MISSING:abi-sig: error: could not open input file '{{.*}}.missing.mlir': No such file or directory

func.func @fine(%a: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @legacy(%a: tensor<4xf32>, %n: i32) attributes {iree.reflection = {f = "I11!B3!d4S3!t6R1!", sip = "I8!S5!k0_0R1!"}} { return }
func.func @wrong_version(%a: tensor<4xf32>) attributes {iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:2}"}} {
  return
}
