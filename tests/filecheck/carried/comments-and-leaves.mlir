// A comment in a body that ends in `<` (as the FileCheck lines of real test files that
// quote the start of an attribute do) opens no dialect body, and a tensor of
// another dialect's type (`!quant.uniform<…>`) is a leaf, not a tensor of references:
// both bodies stay carried (their ops are in no dialect abi-opt knows; comments dropped,
// as MLIR's printer drops them).
// RUN: abi-opt %s -p iree-abi-v1 2>/dev/null | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 2>&1 >/dev/null | filecheck %s --check-prefix=WARN --match-full-lines

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @f() -> tensor<i1> attributes {iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[[\22ndarray\22,\22i1\22,0]],\22v\22:1}"}} {
// CHECK-NEXT:    %c = stablehlo.constant dense<true> : tensor<i1>
// CHECK-NEXT:    return %c : tensor<i1>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @q(%a: tensor<2x!quant.uniform<i8:f32, 1.0:17>>) -> tensor<2x!quant.uniform<i8:f32, 1.0:17>> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22unknown\22,1,2]],\22r\22:[[\22ndarray\22,\22unknown\22,1,2]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = stablehlo.add %a, %a : tensor<2x!quant.uniform<i8:f32, 1.0:17>>
// CHECK-NEXT:    return %0 : tensor<2x!quant.uniform<i8:f32, 1.0:17>>
// CHECK-NEXT:  }
// CHECK-NEXT:}
//      WARN:{{.*}}comments-and-leaves.mlir:27:14: warning: Argument #0 of function q is recorded as "unknown" in iree.abi: the function may not be callable with that value
// WARN-NEXT:{{.*}}comments-and-leaves.mlir:27:1: warning: Result #0 of function q is recorded as "unknown" in iree.abi: the function may not be callable with that value

func.func @f() -> tensor<i1> {
  // expected: #vhlo.output_operand_alias_v1<
  %c = stablehlo.constant dense<true> : tensor<i1>
  return %c : tensor<i1>
}
func.func @q(%a: tensor<2x!quant.uniform<i8:f32, 1.0:17>>) -> tensor<2x!quant.uniform<i8:f32, 1.0:17>> {
  %0 = stablehlo.add %a, %a : tensor<2x!quant.uniform<i8:f32, 1.0:17>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 1.0:17>>
}
