// RUN: abi-opt %s --allow-unregistered-dialect --parse-all | filecheck %s --check-prefix=PARSE
// RUN: abi-opt %s --allow-unregistered-dialect --parse-all -p iree-abi-v1 | filecheck %s --check-prefix=V1
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-v1 | filecheck %s --check-prefix=V1
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY
// A func.call inside the region of an op of an unknown dialect (a JAX stablehlo.while
// body) finds its callee in the module: as in MLIR, an unregistered op is not a symbol
// table (xDSL lets it claim every trait). Calls to a wrapped export are redirected.

func.func private @body(%x: tensor<i32>) -> tensor<i32> {
  func.return %x : tensor<i32>
}

func.func @pair(%p: tuple<tensor<i32>, tensor<i32>>) -> tensor<i32> {
  %a = abi.tuple.get %p[0] : tuple<tensor<i32>, tensor<i32>> -> tensor<i32>
  func.return %a : tensor<i32>
}

func.func @main(%a: tensor<i32>) -> tensor<i32> {
  %r = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i32>):
    %y = func.call @body(%x) : (tensor<i32>) -> tensor<i32>
    %t = abi.tuple.pack %y, %y : (tensor<i32>, tensor<i32>) -> tuple<tensor<i32>, tensor<i32>>
    %z = func.call @pair(%t) : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
    "stablehlo.return"(%z) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  func.return %r : tensor<i32>
}

// PARSE: %y = func.call @body(%x) : (tensor<i32>) -> tensor<i32>
// PARSE: %z = func.call @pair(%t) : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>

// V1-LABEL: func.func @main(%a: tensor<i32>)
// V1: %r = "stablehlo.while"(%a) ({
// V1-NEXT: ^bb0(%x: tensor<i32>):
// V1-NEXT: %y = func.call @body(%x) : (tensor<i32>) -> tensor<i32>
// V1-NEXT: %z = func.call @_pair(%y, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
// V1-NEXT: "stablehlo.return"(%z) : (tensor<i32>) -> ()

// LEGACY-LABEL: func.func @main(%a: tensor<i32>
// LEGACY: %r = "stablehlo.while"(%a) ({
// LEGACY-NEXT: ^bb0(%x: tensor<i32>):
// LEGACY-NEXT: %y = func.call @body(%x) : (tensor<i32>) -> tensor<i32>
// LEGACY-NEXT: %z = func.call @pair(%y, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
// LEGACY-NEXT: "stablehlo.return"(%z) : (tensor<i32>) -> ()
