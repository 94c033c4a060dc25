module {
  ml_program.global public @vars.Variable(dense<[[0.000000e+00, 2.500000e-01, 5.000000e-01], [7.500000e-01, 1.000000e+00, 1.250000e+00], [1.500000e+00, 1.750000e+00, 2.000000e+00], [2.250000e+00, 2.500000e+00, 2.750000e+00]]> : tensor<4x3xf32>) : tensor<4x3xf32>
  func.func @session_initializer() {
    return
  }
  func.func @serving_default(%arg0: tensor<2x4xi32> {abi.index_path = ["attention_mask"]}, %arg1: tensor<2x4xf32> {abi.index_path = ["input_ids"]}) -> (tensor<f32> {abi.index_path = ["total"]}, tensor<2x3xf32> {abi.index_path = ["logits"]}) attributes {iree.reflection = {abi.call = "{\22args\22:[],\22kwargs\22:[[\22attention_mask\22,{\22dims\22:[2,4],\22dtype\22:\22int32\22,\22i\22:0,\22t\22:\22array\22}],[\22input_ids\22,{\22dims\22:[2,4],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}]],\22result\22:{\22c\22:[{\22dims\22:[2,3],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}],\22k\22:[\22logits\22,\22total\22],\22t\22:\22dict\22},\22tensor\22:\22tf\22,\22v\22:1}"}} {
    %cst = stablehlo.constant dense<-0.000000e+00> : tensor<f32>
    %0 = stablehlo.convert %arg0 : (tensor<2x4xi32>) -> tensor<2x4xf32>
    %1 = stablehlo.multiply %arg1, %0 : tensor<2x4xf32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<f32>
    %vars.Variable = ml_program.global_load @vars.Variable : tensor<4x3xf32>
    %3 = stablehlo.dot %1, %vars.Variable, precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    return %2, %3 : tensor<f32>, tensor<2x3xf32>
  }
}
