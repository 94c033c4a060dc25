// The hal ops print byte for byte as IREE 3.13 does and round-trip, in the custom and in
// the generic form. Dynamic dims follow the tensor type in braces, one per `?`.
// RUN: abi-opt %s | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt %s --print-op-generic | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt %s --print-op-generic | abi-opt --print-op-generic | filecheck %s --match-full-lines --check-prefix=GENERIC

// CHECK-LABEL: func.func @buffer_view(%bv: !hal.buffer_view) -> !hal.buffer_view {
// CHECK-NEXT:  func.return %bv : !hal.buffer_view
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "buffer_view", function_type = (!hal.buffer_view) -> !hal.buffer_view}> ({
// GENERIC-NEXT:  ^bb0(%bv: !hal.buffer_view):
// GENERIC-NEXT:  "func.return"(%bv) : (!hal.buffer_view) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @buffer_view(%bv: !hal.buffer_view) -> !hal.buffer_view {
  func.return %bv : !hal.buffer_view
}

// CHECK-LABEL: func.func @import(%bv: !hal.buffer_view) {
// CHECK-NEXT:  %static = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32>
// CHECK-NEXT:  %scalar = hal.tensor.import %bv : !hal.buffer_view -> tensor<i32>
// CHECK-NEXT:  %d0 = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index
// CHECK-NEXT:  %d2 = hal.buffer_view.dim<%bv : !hal.buffer_view>[2] : index attributes {tag}
// CHECK-NEXT:  %dynamic = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%d0}
// CHECK-NEXT:  %two = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4x?xi8>{%d0, %d2} {tag}
// CHECK-NEXT:  %attr = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32> {tag}
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "import", function_type = (!hal.buffer_view) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%bv: !hal.buffer_view):
// GENERIC-NEXT:  %static = "hal.tensor.import"(%bv) : (!hal.buffer_view) -> tensor<4xf32>
// GENERIC-NEXT:  %scalar = "hal.tensor.import"(%bv) : (!hal.buffer_view) -> tensor<i32>
// GENERIC-NEXT:  %d0 = "hal.buffer_view.dim"(%bv) <{index = 0 : index}> : (!hal.buffer_view) -> index
// GENERIC-NEXT:  %d2 = "hal.buffer_view.dim"(%bv) <{index = 2 : index}> {tag} : (!hal.buffer_view) -> index
// GENERIC-NEXT:  %dynamic = "hal.tensor.import"(%bv, %d0) : (!hal.buffer_view, index) -> tensor<?x4xf32>
// GENERIC-NEXT:  %two = "hal.tensor.import"(%bv, %d0, %d2) {tag} : (!hal.buffer_view, index, index) -> tensor<?x4x?xi8>
// GENERIC-NEXT:  %attr = "hal.tensor.import"(%bv) {tag} : (!hal.buffer_view) -> tensor<4xf32>
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @import(%bv: !hal.buffer_view) {
  %static = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32>
  %scalar = hal.tensor.import %bv : !hal.buffer_view -> tensor<i32>
  %d0 = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index
  %d2 = hal.buffer_view.dim<%bv : !hal.buffer_view>[2] : index attributes {tag}
  %dynamic = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%d0}
  %two = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4x?xi8>{%d0, %d2} {tag}
  %attr = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32> {tag}
  func.return
}

// CHECK-LABEL: func.func @export(%static: tensor<4xf32>, %dynamic: tensor<?x4x?xi8>, %d0: index, %d2: index) {
// CHECK-NEXT:  %a = hal.tensor.export %static : tensor<4xf32> -> !hal.buffer_view
// CHECK-NEXT:  %b = hal.tensor.export %static : tensor<4xf32> -> !hal.buffer_view {tag}
// CHECK-NEXT:  %c = hal.tensor.export %dynamic : tensor<?x4x?xi8>{%d0, %d2} -> !hal.buffer_view
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "export", function_type = (tensor<4xf32>, tensor<?x4x?xi8>, index, index) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%static: tensor<4xf32>, %dynamic: tensor<?x4x?xi8>, %d0: index, %d2: index):
// GENERIC-NEXT:  %a = "hal.tensor.export"(%static) : (tensor<4xf32>) -> !hal.buffer_view
// GENERIC-NEXT:  %b = "hal.tensor.export"(%static) {tag} : (tensor<4xf32>) -> !hal.buffer_view
// GENERIC-NEXT:  %c = "hal.tensor.export"(%dynamic, %d0, %d2) : (tensor<?x4x?xi8>, index, index) -> !hal.buffer_view
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @export(%static: tensor<4xf32>, %dynamic: tensor<?x4x?xi8>, %d0: index, %d2: index) {
  %a = hal.tensor.export %static : tensor<4xf32> -> !hal.buffer_view
  %b = hal.tensor.export %static : tensor<4xf32> -> !hal.buffer_view {tag}
  %c = hal.tensor.export %dynamic : tensor<?x4x?xi8>{%d0, %d2} -> !hal.buffer_view
  func.return
}

// Unranked tensors import and export without dims (docs/spec.md §8.2 lowers them, with a warning).
// CHECK-LABEL: func.func @unranked(%bv: !hal.buffer_view) -> !hal.buffer_view {
// CHECK-NEXT:  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<*xf32>
// CHECK-NEXT:  %v = hal.tensor.export %t : tensor<*xf32> -> !hal.buffer_view
// CHECK-NEXT:  func.return %v : !hal.buffer_view
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "unranked", function_type = (!hal.buffer_view) -> !hal.buffer_view}> ({
// GENERIC-NEXT:  ^bb0(%bv: !hal.buffer_view):
// GENERIC-NEXT:  %t = "hal.tensor.import"(%bv) : (!hal.buffer_view) -> tensor<*xf32>
// GENERIC-NEXT:  %v = "hal.tensor.export"(%t) : (tensor<*xf32>) -> !hal.buffer_view
// GENERIC-NEXT:  "func.return"(%v) : (!hal.buffer_view) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @unranked(%bv: !hal.buffer_view) -> !hal.buffer_view {
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<*xf32>
  %v = hal.tensor.export %t : tensor<*xf32> -> !hal.buffer_view
  func.return %v : !hal.buffer_view
}
