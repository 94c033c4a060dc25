// A function in generic form has no header apart from its body: it is parsed whole, so it
// gets its reflection like any other function; a declaration that ends a line shared with
// the next function is an item of its own.
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @predict(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
// CHECK-NEXT:    func.return %arg0 : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @d(i32) -> i32
// CHECK-NEXT:  func.func @f(%x: i32) -> i32 attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[\22i32\22],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = call @d(%x) : (i32) -> i32
// CHECK-NEXT:    return %0 : i32
// CHECK-NEXT:  }
// CHECK-NEXT:}

"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "predict"}> ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()
func.func private @d(i32) -> i32  func.func @f(%x: i32) -> i32 {
  %0 = call @d(%x) : (i32) -> i32
  return %0 : i32
}
