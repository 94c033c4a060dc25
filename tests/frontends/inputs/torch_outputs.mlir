#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> ()>
module @module {
  func.func @main(%arg0: tensor<?x4xf32> {abi.index_path = [0]}) -> (tensor<?x4xf32> {abi.index_path = [0, 0]}, tensor<f32> {abi.index_path = [0, 1]}, tensor<?x4xf32> {abi.index_path = [1, 0]}, tensor<?x4xf32> {abi.index_path = [1, 1, 0]}, tensor<?x4xf32> {abi.index_path = [1, 1, 1]}) attributes {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,null,4]],\22r\22:[[\22stuple\22,[\22stuple\22,[\22ndarray\22,\22f32\22,2,null,4],[\22ndarray\22,\22f32\22,0]],[\22stuple\22,[\22ndarray\22,\22f32\22,2,null,4],[\22stuple\22,[\22ndarray\22,\22f32\22,2,null,4],[\22ndarray\22,\22f32\22,2,null,4]]]]],\22v\22:1}", iree.reflection = {abi.call = "{\22args\22:[{\22dims\22:[\22seqlen\22,4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22}],\22kwargs\22:[],\22result\22:{\22c\22:[{\22c\22:[{\22dims\22:[\22seqlen\22,4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22dims\22:[],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22},{\22t\22:\22none\22}],\22k\22:[\22logits\22,\22total\22,\22note\22],\22name\22:\22Scores\22,\22t\22:\22dataclass\22},{\22c\22:[{\22dims\22:[\22seqlen\22,4],\22dtype\22:\22float32\22,\22i\22:2,\22t\22:\22array\22},{\22c\22:[{\22dims\22:[\22seqlen\22,4],\22dtype\22:\22float32\22,\22i\22:3,\22t\22:\22array\22},{\22dims\22:[\22seqlen\22,4],\22dtype\22:\22float32\22,\22i\22:4,\22t\22:\22array\22}],\22t\22:\22tuple\22},{\22t\22:\22none\22},{\22t\22:\22none\22}],\22k\22:[\22last_hidden_state\22,\22hidden_states\22,\22pooler_output\22,\22attentions\22],\22name\22:\22BaseModelOutputWithPooling\22,\22t\22:\22model_output\22}],\22t\22:\22tuple\22},\22symbols\22:[[\22seqlen\22,0,16]],\22tensor\22:\22torch\22,\22v\22:1}"}} {
    %cst = arith.constant 2.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %cst_2 = arith.constant dense_resource<torch_tensor_4_torch.float32> : tensor<4xf32>
    %dim = tensor.dim %arg0, %c0 : tensor<?x4xf32>
    %0 = tensor.empty(%dim) : tensor<?x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %cst_2 : tensor<?x4xf32>, tensor<4xf32>) outs(%0 : tensor<?x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %7 = arith.mulf %in, %in_3 : f32
      linalg.yield %7 : f32
    } -> tensor<?x4xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<?x4xf32>) outs(%0 : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %cst_0 : f32
      linalg.yield %7 : f32
    } -> tensor<?x4xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<?x4xf32>) outs(%0 : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.mulf %in, %cst : f32
      linalg.yield %7 : f32
    } -> tensor<?x4xf32>
    %4 = tensor.empty() : tensor<f32>
    %5 = linalg.fill ins(%cst_1 : f32) outs(%4 : tensor<f32>) -> tensor<f32>
    %6 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["reduction", "reduction"]} ins(%2 : tensor<?x4xf32>) outs(%5 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %out : f32
      linalg.yield %7 : f32
    } -> tensor<f32>
    return %2, %6, %2, %arg0, %3 : tensor<?x4xf32>, tensor<f32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.float32: "0x040000000000803F000000C00000003F00004040"
    }
  }
#-}
