// RUN: abi-opt %s -p materialize-iree-abi | filecheck %s
// RUN: abi-opt %s -p materialize-iree-abi | abi-opt -p materialize-iree-abi | filecheck %s
// Merging into iree.reflection (docs/spec.md §7): unrelated keys are kept and the dictionary is
// written in sorted key order; an existing iree.abi is validated, never replaced; a
// frontend's bare iree.abi is moved into iree.reflection. Idempotent (second RUN line).

// CHECK-LABEL: func.func @merge
// CHECK-SAME: iree.reflection = {aaa = "first", iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}", zzz = 7 : i64}
func.func @merge(%a: i32) attributes {iree.reflection = {zzz = 7 : i64, aaa = "first"}} {
  func.return
}

// Kept as written, even though it is not what this tool would compute.
// CHECK-LABEL: func.func @existing
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[\22i64\22],\22r\22:[],\22v\22:1}"}
func.func @existing(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i64\22],\22r\22:[],\22v\22:1}"}} {
  func.return
}

// CHECK-LABEL: func.func @bare
// CHECK-SAME: attributes {iree.reflection = {iree.abi = "{\22a\22:[\22f32\22],\22r\22:[],\22v\22:1}"}}
func.func @bare(%a: i32) attributes {iree.abi = "{\22a\22:[\22f32\22],\22r\22:[],\22v\22:1}"} {
  func.return
}

// Not exported: private, declarations, opted out. iree.module.export exports a private function.
// CHECK: func.func private @private_fn(%a: i32) {
func.func private @private_fn(%a: i32) {
  func.return
}
// CHECK: func.func private @declaration(i32)
func.func private @declaration(i32)
// CHECK: func.func @declared_public(i32)
func.func @declared_public(i32)
// CHECK: func.func @opted_out(%a: index) attributes {iree.abi.none} {
func.func @opted_out(%a: index) attributes {iree.abi.none} {
  func.return
}
// CHECK-LABEL: func.func private @legacy_export
// CHECK-SAME: attributes {iree.module.export, iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}}
func.func private @legacy_export() attributes {iree.module.export} {
  func.return
}
