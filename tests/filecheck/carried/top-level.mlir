// Everything a pass does not need is kept as written: alias definitions (types and
// attributes of other dialects), top-level ops of other dialects (`sdy.mesh`,
// `ml_program.global`, `util.global` with a `dense_resource`), module attributes xDSL
// cannot read (the typed `#hal.device.target<…> : !hal.device`, kept as its text in the
// module's attributes), hex and NaN constants, and the `{-# dialect_resources … #-}`
// section.
// RUN: abi-opt %s -p iree-abi-v1 | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 > %t && abi-opt %t -p iree-abi-v1 | diff %t -

//      CHECK:#map = affine_map<(d0) -> (d0)>
// CHECK-NEXT:!token = !stablehlo.token
// CHECK-NEXT:builtin.module @tops attributes {hal.device.targets = [#hal.device.target<"local", {ordinal = 0 : index}> : !hal.device], torch.debug_module_name = "Net"} {
// CHECK-NEXT:  sdy.mesh @mesh = <["x"=2, "y"=4]>
// CHECK-NEXT:  ml_program.global private mutable @state(dense<0.000000e+00> : tensor<4xf32>) : tensor<4xf32>
// CHECK-NEXT:  util.global private @weights = dense_resource<weights_blob> : tensor<4xf32>
// CHECK-NEXT:  func.func @step(%x: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %t: !token) -> (tensor<4xf32>, !token) attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4],\22unknown\22],\22r\22:[[\22ndarray\22,\22f32\22,1,4],\22unknown\22],\22v\22:1}"}} {
// CHECK-NEXT:    %w = util.global.load @weights : tensor<4xf32>
// CHECK-NEXT:    %s = ml_program.global_load @state : tensor<4xf32>
// CHECK-NEXT:    %big = arith.constant dense<"0x0000803F000000400000404000008040"> : tensor<4xf32>
// CHECK-NEXT:    %nan = arith.constant dense<[0x7FC00000, 0xFF800000, -0.000000e+00, 1.0]> : tensor<4xf32>
// CHECK-NEXT:    %0 = stablehlo.add %x, %w : tensor<4xf32>
// CHECK-NEXT:    return %0, %t : tensor<4xf32>, !token
// CHECK-NEXT:  }
// CHECK-NEXT:}
// CHECK-NEXT:{-#
// CHECK-NEXT:  dialect_resources: {
// CHECK-NEXT:    builtin: {
// CHECK-NEXT:      weights_blob: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:#-}

#map = affine_map<(d0) -> (d0)>
!token = !stablehlo.token
module @tops attributes {hal.device.targets = [#hal.device.target<"local", {ordinal = 0 : index}> : !hal.device], torch.debug_module_name = "Net"} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  ml_program.global private mutable @state(dense<0.000000e+00> : tensor<4xf32>) : tensor<4xf32>
  util.global private @weights = dense_resource<weights_blob> : tensor<4xf32>
  func.func @step(%x: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %t: !token) -> (tensor<4xf32>, !token) {
    %w = util.global.load @weights : tensor<4xf32>
    %s = ml_program.global_load @state : tensor<4xf32>
    %big = arith.constant dense<"0x0000803F000000400000404000008040"> : tensor<4xf32>
    %nan = arith.constant dense<[0x7FC00000, 0xFF800000, -0.000000e+00, 1.0]> : tensor<4xf32>
    %0 = stablehlo.add %x, %w : tensor<4xf32>
    return %0, %t : tensor<4xf32>, !token
  }
}

{-#
  dialect_resources: {
    builtin: {
      weights_blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
