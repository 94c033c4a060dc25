// The util dialect's types and ops print in IREE 3.13's form and round-trip, in the custom
// and in the generic form.
// RUN: abi-opt --parse-all %s | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt --print-op-generic | filecheck %s --match-full-lines --check-prefix=GENERIC

// `!util.list<!util.variant>` is `!util.list<?>`.
// CHECK-LABEL: func.func @types(%variant: !util.list<?>, %typed: !util.list<i32>, %nested: !util.list<!util.list<?>>, %tensors: !util.list<tensor<?x4xf32>>, %spelled: !util.list<?>, %alone: !util.variant) {
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "types", function_type = (!util.list<?>, !util.list<i32>, !util.list<!util.list<?>>, !util.list<tensor<?x4xf32>>, !util.list<?>, !util.variant) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%variant: !util.list<?>, %typed: !util.list<i32>, %nested: !util.list<!util.list<?>>, %tensors: !util.list<tensor<?x4xf32>>, %spelled: !util.list<?>, %alone: !util.variant):
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @types(%variant: !util.list<?>, %typed: !util.list<i32>,
                 %nested: !util.list<!util.list<?>>, %tensors: !util.list<tensor<?x4xf32>>,
                 %spelled: !util.list<!util.variant>, %alone: !util.variant) {
  func.return
}

// CHECK-LABEL: func.func @create_size_resize(%n: index) {
// CHECK-NEXT:  %empty = util.list.create : !util.list<?>
// CHECK-NEXT:  %sized = util.list.create %n : !util.list<i32>
// CHECK-NEXT:  %size = util.list.size %empty : !util.list<?>
// CHECK-NEXT:  util.list.resize %empty, %n : !util.list<?>
// CHECK-NEXT:  util.list.resize %sized, %size {tag} : !util.list<i32>
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "create_size_resize", function_type = (index) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%n: index):
// GENERIC-NEXT:  %empty = "util.list.create"() : () -> !util.list<?>
// GENERIC-NEXT:  %sized = "util.list.create"(%n) : (index) -> !util.list<i32>
// GENERIC-NEXT:  %size = "util.list.size"(%empty) : (!util.list<?>) -> index
// GENERIC-NEXT:  "util.list.resize"(%empty, %n) : (!util.list<?>, index) -> ()
// GENERIC-NEXT:  "util.list.resize"(%sized, %size) {tag} : (!util.list<i32>, index) -> ()
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @create_size_resize(%n: index) {
  %empty = util.list.create : !util.list<?>
  %sized = util.list.create %n : !util.list<i32>
  %size = util.list.size %empty : !util.list<?>
  util.list.resize %empty, %n : !util.list<?>
  util.list.resize %sized, %size {tag} : !util.list<i32>
  func.return
}

// On a typed list the element type is implied (the explicit form parses and prints
// short); on a variant list it is spelled out.
// CHECK-LABEL: func.func @get_set(%typed: !util.list<i32>, %variant: !util.list<?>, %i: index, %x: i32) {
// CHECK-NEXT:  %a = util.list.get %typed[%i] : !util.list<i32>
// CHECK-NEXT:  %b = util.list.get %typed[%i] : !util.list<i32>
// CHECK-NEXT:  %c = util.list.get %variant[%i] : !util.list<?> -> i32
// CHECK-NEXT:  %bv = util.list.get %variant[%i] {tag} : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT:  util.list.set %typed[%i], %x : !util.list<i32>
// CHECK-NEXT:  util.list.set %typed[%i], %x : !util.list<i32>
// CHECK-NEXT:  util.list.set %variant[%i], %x : i32 -> !util.list<?>
// CHECK-NEXT:  util.list.set %variant[%i], %bv {tag} : !hal.buffer_view -> !util.list<?>
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "get_set", function_type = (!util.list<i32>, !util.list<?>, index, i32) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%typed: !util.list<i32>, %variant: !util.list<?>, %i: index, %x: i32):
// GENERIC-NEXT:  %a = "util.list.get"(%typed, %i) : (!util.list<i32>, index) -> i32
// GENERIC-NEXT:  %b = "util.list.get"(%typed, %i) : (!util.list<i32>, index) -> i32
// GENERIC-NEXT:  %c = "util.list.get"(%variant, %i) : (!util.list<?>, index) -> i32
// GENERIC-NEXT:  %bv = "util.list.get"(%variant, %i) {tag} : (!util.list<?>, index) -> !hal.buffer_view
// GENERIC-NEXT:  "util.list.set"(%typed, %i, %x) : (!util.list<i32>, index, i32) -> ()
// GENERIC-NEXT:  "util.list.set"(%typed, %i, %x) : (!util.list<i32>, index, i32) -> ()
// GENERIC-NEXT:  "util.list.set"(%variant, %i, %x) : (!util.list<?>, index, i32) -> ()
// GENERIC-NEXT:  "util.list.set"(%variant, %i, %bv) {tag} : (!util.list<?>, index, !hal.buffer_view) -> ()
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @get_set(%typed: !util.list<i32>, %variant: !util.list<?>, %i: index, %x: i32) {
  %a = util.list.get %typed[%i] : !util.list<i32>
  %b = util.list.get %typed[%i] : !util.list<i32> -> i32
  %c = util.list.get %variant[%i] : !util.list<?> -> i32
  %bv = util.list.get %variant[%i] {tag} : !util.list<?> -> !hal.buffer_view
  util.list.set %typed[%i], %x : !util.list<i32>
  util.list.set %typed[%i], %x : i32 -> !util.list<i32>
  util.list.set %variant[%i], %x : i32 -> !util.list<?>
  util.list.set %variant[%i], %bv {tag} : !hal.buffer_view -> !util.list<?>
  func.return
}
