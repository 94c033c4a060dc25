// RUN: abi-opt %s -p wrap-entry-points | filecheck %s
// RUN: abi-opt %s -p wrap-entry-points | abi-opt -p wrap-entry-points | filecheck %s
// RUN: abi-opt %s -p 'wrap-entry-points{ir-wrappers=true}' | filecheck %s
// An argument whose buffer takes a result (`iree.abi.output = <result>`, as the torch
// frontend marks an input the program updates in place): the wrapper takes it as a
// !hal.buffer_view (at the root) or reads its view from a list, imports it, and stores
// the result into that view with hal.tensor.alias before returning it; the attribute
// leaves the implementation.

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[CV:[a-z0-9_]+]]: !hal.buffer_view, %[[L:[a-z0-9_]+]]: !util.list<?>, %[[D:[a-z0-9_]+]]: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<2xf32>)
// CHECK-NEXT: %[[CD:[0-9]+]] = hal.buffer_view.dim<%[[CV]] : !hal.buffer_view>[0] : index
// CHECK-NEXT: %[[C:[0-9]+]] = hal.tensor.import %[[CV]] : !hal.buffer_view -> tensor<?x3xf32>{%[[CD]]}
// CHECK-NEXT: %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[SV:[0-9]+]] = util.list.get %[[L]][%[[C0]]] : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: %[[S:[0-9]+]] = hal.tensor.import %[[SV]] : !hal.buffer_view -> tensor<2xf32>
// CHECK-NEXT: %[[T:[0-9]+]], %[[N:[0-9]+]], %[[S2:[0-9]+]] = func.call @_step(%[[C]], %[[S]], %[[D]])
// CHECK-NEXT: %[[ND:[0-9]+]] = tensor.dim %[[N]], %[[C0]] : tensor<?x3xf32>
// CHECK-NEXT: %[[NA:[0-9]+]] = hal.tensor.alias %[[N]] : tensor<?x3xf32>{%[[ND]]} to %[[CV]] : !hal.buffer_view
// CHECK-NEXT: %[[SA:[0-9]+]] = hal.tensor.alias %[[S2]] : tensor<2xf32> to %[[SV]] : !hal.buffer_view
// CHECK-NEXT: func.return %[[T]], %[[NA]], %[[SA]] : tensor<?x3xf32>, tensor<?x3xf32>, tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @_step(%cache: tensor<?x3xf32>, %s: tensor<2xf32>, %delta: tensor<?x3xf32>)
func.func @step(%cache: tensor<?x3xf32> {abi.index_path = [0], iree.abi.output = 1 : index},
                %s: tensor<2xf32> {abi.index_path = [1, "k"], iree.abi.output = 2 : index},
                %delta: tensor<?x3xf32> {abi.index_path = [2]})
    -> (tensor<?x3xf32> {abi.index_path = [0]}, tensor<?x3xf32> {abi.index_path = [1]},
        tensor<2xf32> {abi.index_path = [2]}) {
  %new = arith.addf %cache, %delta : tensor<?x3xf32>
  %twice = arith.addf %new, %new : tensor<?x3xf32>
  %s2 = arith.addf %s, %s : tensor<2xf32>
  return %twice, %new, %s2 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<2xf32>
}
