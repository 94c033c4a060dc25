// The options an mlir-opt user reaches for: --version, --print-ir-after-all (to stderr,
// the output proper unchanged), --mlir-timing (a report on stderr, one row per phase).
// RUN: abi-opt --version | filecheck %s --check-prefix=VERSION
// RUN: abi-opt %s -p materialize-iree-abi,materialize-raw-abi --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: abi-opt %s -p materialize-iree-abi,materialize-raw-abi --print-ir-after-all 2>/dev/null | filecheck %s --check-prefix=OUT
// RUN: abi-opt %s -p iree-abi-legacy --mlir-timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIME

// VERSION: abi-opt {{[0-9]+\.[0-9]+\.[0-9]+}} (xDSL 0.74.0)

//      DUMP: // -----// IR Dump After materialize-iree-abi //----- //
// DUMP-NEXT: builtin.module {
// DUMP-NEXT:   func.func @f(%x: i32) -> i32 attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[\22i32\22],\22v\22:1}"}} {
// DUMP-NEXT:   return %x : i32
// DUMP-NEXT: }
// DUMP-NEXT: }
// DUMP-NEXT: // -----// IR Dump After materialize-raw-abi //----- //
// DUMP-NEXT: builtin.module {
// DUMP-NEXT:   func.func @f(%x: i32) -> i32 attributes {iree.reflection = {f = "I6!S3!t6R6!S3!t6", fv = "1", iree.abi = "{\22a\22:[\22i32\22],\22r\22:[\22i32\22],\22v\22:1}"}} {
// DUMP-NOT: IR Dump

//      OUT: builtin.module {
// OUT-NEXT:   func.func @f(%x: i32) -> i32 attributes {iree.reflection = {f = "I6!S3!t6R6!S3!t6", fv = "1", iree.abi = "{\22a\22:[\22i32\22],\22r\22:[\22i32\22],\22v\22:1}"}} {
// OUT-NOT: IR Dump

//      TIME: ===-------------------------------------------------------------------------===
// TIME-NEXT:                          ... Execution time report ...
// TIME-NEXT: ===-------------------------------------------------------------------------===
// TIME-NEXT:   Total Execution Time: {{[0-9]+\.[0-9][0-9][0-9][0-9]}} seconds
// TIME-EMPTY:
// TIME-NEXT:   ----Wall Time----  ----Name----
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \( *[0-9.]+%\)}}  Parser
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \( *[0-9.]+%\)}}  Verifier
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \( *[0-9.]+%\)}}  flatten-signatures
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \( *[0-9.]+%\)}}  materialize-raw-abi
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \( *[0-9.]+%\)}}  materialize-sip-abi
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \( *[0-9.]+%\)}}  Output
// TIME-NEXT: {{ +[0-9]+\.[0-9][0-9][0-9][0-9] \(100\.0%\)}}  Total

func.func @f(%x: i32) -> i32 {
  return %x : i32
}
