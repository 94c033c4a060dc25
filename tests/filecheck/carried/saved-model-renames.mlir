// Saved-model adoption and V1 wrappers around functions whose bodies are carried as text:
// the implementations keep their bodies byte for byte; every reference to a renamed
// function inside carried text (a call in a `stablehlo.while` region, the
// session initializer's symbol list) follows the rename, while a string that spells the
// name and a function whose name only shares a prefix are left alone.
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  "tf_saved_model.session_initializer"() {initializers = [@init]} : () -> ()
// CHECK-NEXT:  util.global private @counter = dense<0> : tensor<i32>
// CHECK-NEXT:  func.func @init() attributes {iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}} {
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @predict(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22named\22,\22x\22,[\22ndarray\22,\22f32\22,1,4]],[\22named\22,\22y\22,[\22ndarray\22,\22f32\22,1,4]]],\22r\22:[[\22sdict\22,[\22sum\22,[\22ndarray\22,\22f32\22,1,4]]]],\22v\22:1}"}} {
// CHECK-NEXT:    %0 = func.call @_predict(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %0 : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @_predict(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.add %x, %y : tensor<4xf32>
// CHECK-NEXT:    return %0 : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @twice(%0: tensor<4xf32>) -> tensor<4xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
// CHECK-NEXT:    %1 = func.call @_twice(%0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %1 : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %c0 = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %0:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
// CHECK-NEXT:     cond {
// CHECK-NEXT:      %c2 = stablehlo.constant dense<2> : tensor<i32>
// CHECK-NEXT:      %1 = stablehlo.compare  LT, %i, %c2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %1 : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:      %1 = func.call @_predict(%acc, %acc) {note = "calls @__inference_predict_120"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %c1 = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT:      %2 = stablehlo.add %i, %c1 : tensor<i32>
// CHECK-NEXT:      stablehlo.return %2, %1 : tensor<i32>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0#1 : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @__inference_predict_1200(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    return %x : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:}

module attributes {tf_saved_model.semantics} {
  "tf_saved_model.session_initializer"() {initializers = [@__inference_init_10]} : () -> ()
  util.global private @counter = dense<0> : tensor<i32>
  func.func @__inference_init_10() attributes {tf_saved_model.exported_names = ["init"]} {
    return
  }
  func.func @__inference_predict_120(%x: tensor<4xf32> {tf_saved_model.index_path = ["x"]}, %y: tensor<4xf32> {tf_saved_model.index_path = ["y"]}) -> (tensor<4xf32> {tf_saved_model.index_path = ["sum"]}) attributes {tf_saved_model.exported_names = ["predict"]} {
    %0 = stablehlo.add %x, %y : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @__inference_twice_130(%x: tensor<4xf32> {tf_saved_model.index_path = [0]}) -> (tensor<4xf32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["twice"]} {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
     cond {
      %c2 = stablehlo.constant dense<2> : tensor<i32>
      %1 = stablehlo.compare  LT, %i, %c2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @__inference_predict_120(%acc, %acc) {note = "calls @__inference_predict_120"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<4xf32>
    }
    return %0#1 : tensor<4xf32>
  }
  func.func private @__inference_predict_1200(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
