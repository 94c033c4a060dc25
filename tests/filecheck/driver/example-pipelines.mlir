// The bundled example through both named pipelines (the README's quick start; docs/cli.md,
// "What `abi-opt` writes"): the output parses again, and running a pipeline on its own
// output changes nothing (docs/spec.md §7).
// RUN: abi-opt %examples/structured.mlir -p iree-abi-v1 > %t.v1
// RUN: abi-opt %t.v1 | abi-opt -p iree-abi-v1 | diff %t.v1 -
// RUN: filecheck %s --check-prefix=V1 < %t.v1
// RUN: abi-opt %examples/structured.mlir -p iree-abi-legacy > %t.legacy 2> %t.warnings
// RUN: abi-opt %t.legacy | abi-opt -p iree-abi-legacy | diff %t.legacy -
// RUN: filecheck %s --check-prefix=LEGACY < %t.legacy
// RUN: filecheck %s --check-prefix=WARN < %t.warnings

// V1-LABEL: func.func @predict(
// V1-SAME:    iree.abi
// V1-LABEL: func.func @swap(%{{[^:]*}}: !util.list<?>)
// V1-SAME:    iree.abi.stub
// V1-LABEL: func.func private @_swap(
// V1-LABEL: func.func @update(%{{[^:]*}}: !util.list<?>, %{{[^:]*}}: i64, %{{[^:]*}}: !util.list<?>) -> (!util.list<?>, i64)
// V1-LABEL: func.func private @_update(
// V1-LABEL: func.func @generate(
// V1:         \22named\22,\22temperature\22
// V1-LABEL: func.func private @classifier(
// V1-NOT:     iree.reflection

// LEGACY-LABEL: func.func @predict(
// LEGACY-SAME:    fv = "1"
// LEGACY-LABEL: func.func @swap(%{{[^:]*}}: tensor<4xf32> {abi.index_path = [0 : i64, 0 : i64]}
// LEGACY-LABEL: func.func @update(
// LEGACY-SAME:    sip = "
// LEGACY-LABEL: func.func @generate(
// LEGACY-LABEL: func.func private @classifier(
// LEGACY-NOT:     iree.reflection

// The example mixes positional and named arguments, which SIP cannot express (docs/spec.md §6).
// WARN: structured.mlir:{{[0-9]+}}:1: warning: argument names dropped: a SIP root cannot mix positional and named arguments
