// --help lists every pass and named pipeline with its one-line summary.
// RUN: abi-opt --help | filecheck %s

// CHECK: usage: abi-opt
// CHECK: --split-input-file
// CHECK: --verify-diagnostics
// CHECK: passes:
// CHECK-DAG: materialize-iree-abi {{.*}}iree.abi
// CHECK-DAG: materialize-raw-abi {{.*}}fv
// CHECK-DAG: materialize-sip-abi {{.*}}sip
// CHECK-DAG: flatten-signatures {{.*}}index_path
// CHECK-DAG: wrap-entry-points {{.*}}util.list
// CHECK: pipelines:
// CHECK-DAG: iree-abi-v1 {{.*}}materialize-iree-abi,wrap-entry-points
// CHECK-DAG: iree-abi-legacy {{.*}}flatten-signatures,materialize-raw-abi,materialize-sip-abi
// CHECK: Each pass is described in docs/passes/<pass>.md of abi-compiler's repository (what it
// CHECK-NEXT: reads and writes, its diagnostics, an example); the ABI formats in docs/formats.md.
// CHECK-NOT: SPEC
