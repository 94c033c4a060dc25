func.func @f() {
  %0 = arith.constant dense<[1, 99999999999999999999999]> : tensor<2xindex>
  return
}
