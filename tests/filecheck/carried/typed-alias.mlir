// A top-level typed attribute alias (`#a = #d.attr<…> : !d.type`, as IREE's
// custom-dispatch samples write their device targets) is carried as written, and read
// as text where the module's attributes use it.
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:#x86_64_target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>
// CHECK-NEXT:#cpu_target = #hal.device.target<"local", [#x86_64_target]> : !hal.device
// CHECK-NEXT:builtin.module @example attributes {hal.device.targets = [#hal.device.target<"local", [#x86_64_target]> : !hal.device]} {
// CHECK-NEXT:  func.func @mixed(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,null],[\22ndarray\22,\22f32\22,1,null]],\22r\22:[[\22ndarray\22,\22f32\22,1,null]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = arith.mulf %lhs, %rhs : tensor<?xf32>
// CHECK-NEXT:    return %0 : tensor<?xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:}

#x86_64_target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>
#cpu_target = #hal.device.target<"local", [#x86_64_target]> : !hal.device
module @example attributes {hal.device.targets = [#cpu_target]} {
  func.func @mixed(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %0 = arith.mulf %lhs, %rhs : tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}
