// The legacy iree types (docs/formats.md#upstream-documents) round-trip, in the custom
// and in the generic form.
// RUN: abi-opt --parse-all %s | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt --print-op-generic | filecheck %s --match-full-lines --check-prefix=GENERIC

// `!iree.list<T>` means `!util.list<T>`; `!iree.tuple<…>` is the legacy composite, e.g.
// the runtime form of an ND-array of references (docs/spec.md §8.3).
// CHECK-LABEL: func.func @types(%variant: !iree.list<?>, %typed: !iree.list<f32>, %spelled: !iree.list<?>, %nested: !iree.list<!iree.list<i8>>, %ref_array: !iree.tuple<!util.list<i32>, !util.list<index>>, %one: !iree.tuple<i32>, %empty: !iree.tuple<>) {
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "types", function_type = (!iree.list<?>, !iree.list<f32>, !iree.list<?>, !iree.list<!iree.list<i8>>, !iree.tuple<!util.list<i32>, !util.list<index>>, !iree.tuple<i32>, !iree.tuple<>) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%variant: !iree.list<?>, %typed: !iree.list<f32>, %spelled: !iree.list<?>, %nested: !iree.list<!iree.list<i8>>, %ref_array: !iree.tuple<!util.list<i32>, !util.list<index>>, %one: !iree.tuple<i32>, %empty: !iree.tuple<>):
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @types(%variant: !iree.list<?>, %typed: !iree.list<f32>,
                 %spelled: !iree.list<!util.variant>, %nested: !iree.list<!iree.list<i8>>,
                 %ref_array: !iree.tuple<!util.list<i32>, !util.list<index>>,
                 %one: !iree.tuple<i32>, %empty: !iree.tuple<>) {
  func.return
}
