// The bundled example prints, reparses and prints again to the same text, in custom and
// in generic form.
// RUN: abi-opt --parse-all %examples/structured.mlir > %t.custom
// RUN: abi-opt --parse-all %t.custom | diff %t.custom -
// RUN: abi-opt --parse-all --print-op-generic %examples/structured.mlir > %t.generic
// RUN: abi-opt --parse-all --print-op-generic %t.generic | diff %t.generic -
// RUN: abi-opt --parse-all %t.generic | diff %t.custom -
// RUN: filecheck %s < %t.custom
// RUN: filecheck %s --check-prefix=GENERIC < %t.generic

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @predict(%image: tensor<?x224x224x3xf32>, %scale: f32) -> tensor<?x1000xf32> {
// CHECK-NEXT:     %logits = func.call @classifier(%image) : (tensor<?x224x224x3xf32>) -> tensor<?x1000xf32>
// CHECK:        func.func @swap(%pair: tuple<tensor<4xf32>, tensor<?xi32>>) -> tuple<tensor<?xi32>, tensor<4xf32>> {
// CHECK-NEXT:     %a = abi.tuple.get %pair[0] : tuple<tensor<4xf32>, tensor<?xi32>> -> tensor<4xf32>
// CHECK:        func.func @update(%state: !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>, %steps: i64, %extras: !util.list<?>) -> (!abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>, i64) {
// CHECK:          %new = abi.dict.pack %b, %w : (tensor<16xf32>, tensor<16x16xf32>) -> !abi.dict<"weights": tensor<16x16xf32>, "bias": tensor<16xf32>>
// CHECK:        func.func @generate(%prompt: tensor<?xi32>, %temperature: f32 {abi.name = "temperature"}, %top_k: i32 {abi.name = "top_k"}) -> tensor<?xi32> {
// CHECK:        func.func private @classifier(

// GENERIC:      "builtin.module"() ({
// GENERIC-NEXT:   "func.func"() <{sym_name = "predict", function_type = (tensor<?x224x224x3xf32>, f32) -> tensor<?x1000xf32>}> ({
// GENERIC:        "abi.tuple.get"(%{{.*}}) <{index = 0 : index}> : (tuple<tensor<4xf32>, tensor<?xi32>>) -> tensor<4xf32>
