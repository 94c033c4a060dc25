// External resources (`mlir_reproducer`) are kept as written when the file is carried
// as text; read whole (`--parse-all`), xDSL reads only dialect resources: a located
// error, no output (was: an internal error).
// RUN: abi-opt %s | filecheck %s --check-prefix=CARRIED --match-full-lines --strict-whitespace
// RUN: not abi-opt %s --parse-all 2>&1 | filecheck %s --check-prefix=PARSE-ALL --match-full-lines

//      CARRIED:builtin.module {
// CARRIED-NEXT:  func.func @f() {
// CARRIED-NEXT:    return
// CARRIED-NEXT:  }
// CARRIED-NEXT:}
// CARRIED-NEXT:{-#
// CARRIED-NEXT:  external_resources: {
// CARRIED-NEXT:    mlir_reproducer: {
// CARRIED-NEXT:      pipeline: "builtin.module(canonicalize)"
// CARRIED-NEXT:    }
// CARRIED-NEXT:  }
// CARRIED-NEXT:#-}

//      PARSE-ALL:{{.*}}external-resources-parsed.mlir:28:23: error: external_resources cannot be read here: --parse-all parses the file whole, and xDSL reads only dialect resources
//  PARSE-ALL-NOT:{{.}}

func.func @f() {
  return
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(canonicalize)"
    }
  }
#-}
