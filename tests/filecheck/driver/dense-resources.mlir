// Every chunk of a split file keeps its `dense_resource` handles as written and prints
// its own `{-# dialect_resources #-}` section (xDSL keeps blobs for the whole process
// and renamed the second chunk's `blob1` to `blob1_0`, printed without its blob).
// RUN: abi-opt --parse-all --split-input-file %s | filecheck %s
// RUN: abi-opt --split-input-file %s -p iree-abi-v1 | filecheck %s

// CHECK:      arith.constant dense_resource<blob1> : tensor<4xf32>
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob1: "0x040000000000803F000000400000404000008040"
func.func @first() -> tensor<4xf32> {
  %0 = arith.constant dense_resource<blob1> : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// CHECK:      arith.constant dense_resource<blob1> : tensor<2xf32>
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob1: "0x040000000000C0FF0000807F"
func.func @second() -> tensor<2xf32> {
  %0 = arith.constant dense_resource<blob1> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000C0FF0000807F"
    }
  }
#-}
