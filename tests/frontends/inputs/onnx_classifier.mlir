#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
module {
  func.func @classifier(%arg0: tensor<?x4xf32> {abi.index_path = ["input_ids"]}, %arg1: tensor<?x4xi64> {abi.index_path = ["attention_mask"]}) -> (tensor<?x3xf32> {abi.index_path = ["logits"]}, tensor<f32> {abi.index_path = ["total"]}) attributes {iree.abi = "{\22a\22:[[\22named\22,\22input_ids\22,[\22ndarray\22,\22f32\22,2,null,4]],[\22named\22,\22attention_mask\22,[\22ndarray\22,\22i64\22,2,null,4]]],\22r\22:[[\22sdict\22,[\22logits\22,[\22ndarray\22,\22f32\22,2,null,3]],[\22total\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}", iree.reflection = {abi.call = "{\22args\22:[],\22kwargs\22:[[\22input_ids\22,{\22dims\22:[\22batch\22,4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22}],[\22attention_mask\22,{\22dims\22:[\22batch\22,4],\22dtype\22:\22int64\22,\22i\22:1,\22t\22:\22array\22}]],\22result\22:{\22c\22:[{\22dims\22:[\22batch\22,3],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22}],\22k\22:[\22logits\22,\22total\22],\22t\22:\22dict\22},\22v\22:1}"}} {
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %cst_0 = arith.constant dense<[[-1.500000e+00, -1.250000e+00, -1.000000e+00], [-7.500000e-01, -5.000000e-01, -2.500000e-01], [0.000000e+00, 2.500000e-01, 5.000000e-01], [7.500000e-01, 1.000000e+00, 1.250000e+00]]> : tensor<4x3xf32>
    %dim = tensor.dim %arg1, %c0 : tensor<?x4xi64>
    %0 = tensor.empty(%dim) : tensor<?x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<?x4xi64>) outs(%0 : tensor<?x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %10 = arith.sitofp %in : i64 to f32
      linalg.yield %10 : f32
    } -> tensor<?x4xf32>
    %dim_1 = tensor.dim %arg0, %c0 : tensor<?x4xf32>
    %2 = tensor.empty(%dim_1) : tensor<?x4xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %1 : tensor<?x4xf32>, tensor<?x4xf32>) outs(%2 : tensor<?x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<?x4xf32>
    %4 = tensor.empty(%dim_1) : tensor<?x3xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<?x3xf32>) -> tensor<?x3xf32>
    %6 = linalg.matmul ins(%3, %cst_0 : tensor<?x4xf32>, tensor<4x3xf32>) outs(%5 : tensor<?x3xf32>) -> tensor<?x3xf32>
    %7 = tensor.empty() : tensor<f32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<f32>) -> tensor<f32>
    %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction"]} ins(%6 : tensor<?x3xf32>) outs(%8 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<f32>
    return %6, %9 : tensor<?x3xf32>, tensor<f32>
  }
}
