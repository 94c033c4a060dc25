#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0) -> (d0)>
module @module {
  func.func @main(%arg0: tensor<2x4xf32> {abi.index_path = [0, "features"]}, %arg1: tensor<3xf32> {abi.index_path = [1, 0]}, %arg2: tensor<3xi32> {abi.index_path = [1, 1]}, %arg3: tensor<3xi1> {abi.index_path = ["mask"]}, %arg4: tensor<3xi8> {abi.index_path = ["ids"]}) -> (tensor<2x3xf32> {abi.index_path = [0, "y"]}, tensor<3xf32> {abi.index_path = [0, "rest", 0]}, tensor<3xi64> {abi.index_path = [0, "rest", 1, 0]}, tensor<3xi8> {abi.index_path = [0, "rest", 1, 1]}, tensor<3xf32> {abi.index_path = [1, 0]}, tensor<3xi32> {abi.index_path = [1, 1]}) attributes {iree.abi = "{\22a\22:[[\22sdict\22,[\22features\22,[\22ndarray\22,\22f32\22,2,2,4]]],[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22ndarray\22,\22i32\22,1,3]],[\22named\22,\22mask\22,[\22ndarray\22,\22i1\22,1,3]],[\22named\22,\22ids\22,[\22ndarray\22,\22i8\22,1,3]]],\22r\22:[[\22stuple\22,[\22sdict\22,[\22rest\22,[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22slist\22,[\22ndarray\22,\22i64\22,1,3],[\22ndarray\22,\22i8\22,1,3]]]],[\22y\22,[\22ndarray\22,\22f32\22,2,2,3]]],[\22stuple\22,[\22ndarray\22,\22f32\22,1,3],[\22ndarray\22,\22i32\22,1,3]]]],\22v\22:1}", iree.reflection = {abi.call = "{\22args\22:[{\22c\22:[{\22dims\22:[2,4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22}],\22k\22:[\22features\22],\22t\22:\22dict\22},{\22c\22:[{\22dims\22:[3],\22dtype\22:\22float32\22,\22i\22:1,\22t\22:\22array\22},{\22dims\22:[3],\22dtype\22:\22int32\22,\22i\22:2,\22t\22:\22array\22}],\22t\22:\22tuple\22},{\22t\22:\22const\22,\22type\22:\22int\22,\22value\22:2}],\22kwargs\22:[[\22mask\22,{\22dims\22:[3],\22dtype\22:\22bool\22,\22i\22:3,\22t\22:\22array\22}],[\22ids\22,{\22dims\22:[3],\22dtype\22:\22uint8\22,\22i\22:4,\22t\22:\22array\22}]],\22result\22:{\22c\22:[{\22c\22:[{\22dims\22:[2,3],\22dtype\22:\22float32\22,\22i\22:3,\22t\22:\22array\22},{\22c\22:[{\22dims\22:[3],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22},{\22c\22:[{\22dims\22:[3],\22dtype\22:\22int64\22,\22i\22:1,\22t\22:\22array\22},{\22dims\22:[3],\22dtype\22:\22uint8\22,\22i\22:2,\22t\22:\22array\22}],\22t\22:\22list\22}],\22t\22:\22tuple\22}],\22k\22:[\22y\22,\22rest\22],\22t\22:\22dict\22},{\22c\22:[{\22dims\22:[3],\22dtype\22:\22float32\22,\22i\22:4,\22t\22:\22array\22},{\22dims\22:[3],\22dtype\22:\22int32\22,\22i\22:5,\22t\22:\22array\22}],\22k\22:[\22first\22,\22second\22],\22name\22:\22Pair\22,\22t\22:\22namedtuple\22}],\22t\22:\22tuple\22},\22tensor\22:\22torch\22,\22v\22:1}"}} {
    %c1_i8 = arith.constant 1 : i8
    %cst = arith.constant 2.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense_resource<torch_tensor_3_torch.float32_1> : tensor<3xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_3_torch.float32> : tensor<3xf32>
    %cst_4 = arith.constant dense_resource<torch_tensor_3_8_torch.float32> : tensor<3x8xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_8_torch.float32> : tensor<8xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_8_4_torch.float32> : tensor<8x4xf32>
    %0 = tensor.empty() : tensor<4x8xf32>
    %transposed = linalg.transpose ins(%cst_6 : tensor<8x4xf32>) outs(%0 : tensor<4x8xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x8xf32>
    %2 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x8xf32>) outs(%2 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %cst_5 : tensor<2x8xf32>, tensor<8xf32>) outs(%1 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %21 = arith.addf %in, %in_8 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<2x8xf32>) outs(%1 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.cmpf ugt, %in, %cst_0 : f32
      %22 = arith.select %21, %in, %cst_0 : f32
      linalg.yield %22 : f32
    } -> tensor<2x8xf32>
    %6 = tensor.empty() : tensor<8x3xf32>
    %transposed_7 = linalg.transpose ins(%cst_4 : tensor<3x8xf32>) outs(%6 : tensor<8x3xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<2x3xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %9 = linalg.matmul ins(%5, %transposed_7 : tensor<2x8xf32>, tensor<8x3xf32>) outs(%8 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %cst_3 : tensor<2x3xf32>, tensor<3xf32>) outs(%7 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %21 = arith.addf %in, %in_8 : f32
      linalg.yield %21 : f32
    } -> tensor<2x3xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %cst_2 : tensor<2x3xf32>, tensor<3xf32>) outs(%7 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %21 = arith.mulf %in, %in_8 : f32
      linalg.yield %21 : f32
    } -> tensor<2x3xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<2x3xf32>) outs(%7 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.mulf %in, %cst : f32
      linalg.yield %21 : f32
    } -> tensor<2x3xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3, %12, %cst_1 : tensor<3xi1>, tensor<2x3xf32>, tensor<f32>) outs(%7 : tensor<2x3xf32>) {
    ^bb0(%in: i1, %in_8: f32, %in_9: f32, %out: f32):
      %21 = arith.select %in, %in_8, %in_9 : f32
      linalg.yield %21 : f32
    } -> tensor<2x3xf32>
    %14 = tensor.empty() : tensor<3xf32>
    %15 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%arg1, %arg2 : tensor<3xf32>, tensor<3xi32>) outs(%14 : tensor<3xf32>) {
    ^bb0(%in: f32, %in_8: i32, %out: f32):
      %21 = arith.sitofp %in_8 : i32 to f32
      %22 = arith.addf %in, %21 : f32
      linalg.yield %22 : f32
    } -> tensor<3xf32>
    %16 = tensor.empty() : tensor<3xi64>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg2 : tensor<3xi32>) outs(%16 : tensor<3xi64>) {
    ^bb0(%in: i32, %out: i64):
      %21 = arith.extsi %in : i32 to i64
      linalg.yield %21 : i64
    } -> tensor<3xi64>
    %18 = tensor.empty() : tensor<3xi8>
    %19 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg4 : tensor<3xi8>) outs(%18 : tensor<3xi8>) {
    ^bb0(%in: i8, %out: i8):
      %21 = arith.addi %in, %c1_i8 : i8
      linalg.yield %21 : i8
    } -> tensor<3xi8>
    %20 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<3xf32>) outs(%14 : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.mulf %in, %cst : f32
      linalg.yield %21 : f32
    } -> tensor<3xf32>
    return %13, %15, %17, %19, %20, %arg2 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xi8>, tensor<3xf32>, tensor<3xi32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_3_torch.float32_1: "0x04000000000000400000404000008040",
      torch_tensor_3_torch.float32: "0x04000000C5BF463E43C836BDCF2B5D3C",
      torch_tensor_3_8_torch.float32: "0x040000004952983C7B9C39BE6E01753D4D04A9BE68CC82BE4CA43ABE876C643E5D45543EF68F20BEF20251BCB38B673E12F5B33ECBAF0F3EA6A2433DF2BD723E522B55BE70ED863D65588CBE8AEC7ABEF2053BBE10D0233EFD98113E5B7456BEB8BFDA3D",
      torch_tensor_8_torch.float32: "0x040000001AEFA5BEC0B06BBE1ADAB2BE76C2EFBE047095BE9E0EDC3EBC76643E0027783E",
      torch_tensor_8_4_torch.float32: "0x04000000005475BB5E54893E16B3D2BE8066BCBEF43245BEEC4B093E404F22BCCEFACA3E70BF35BD4C7B073EACBB1ABE7048C9BDB891F4BE528BA9BEE80E53BE00BB973C60694A3E189B993E8C8DADBEFCF45EBE98F7393E4E94D43E48BDD2BD5C91BF3E400DA5BD10B5583D4ACDE73ECE7BEDBE6629A1BEE09E01BEDC9347BE282FDD3E"
    }
  }
#-}
