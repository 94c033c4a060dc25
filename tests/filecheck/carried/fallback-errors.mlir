// When the text cannot be read as carried text (here an unbalanced `}` at the end), the
// chunk is parsed whole, as before carried text; an op xDSL cannot parse then says what
// to write, mentioning only the options that were given.
// RUN: not abi-opt %s 2>&1 | filecheck %s --check-prefix=NONE --match-full-lines
// RUN: not abi-opt %s --parse-all 2>&1 | filecheck %s --check-prefix=PARSE-ALL --match-full-lines
// RUN: not abi-opt %s --print-op-generic 2>&1 | filecheck %s --check-prefix=GENERIC --match-full-lines

// NONE: {{.*}}fallback-errors.mlir:14:8: error: Operation stablehlo.add is not registered and its custom syntax cannot be parsed: write it in generic form ("stablehlo.add"(…) : (…) -> (…)) with --allow-unregistered-dialect
// NONE-NOT: error
// PARSE-ALL: {{.*}}fallback-errors.mlir:14:8: error: Operation stablehlo.add is not registered and its custom syntax cannot be parsed: write it in generic form ("stablehlo.add"(…) : (…) -> (…)) with --allow-unregistered-dialect, or leave out --parse-all to carry the body as text
// GENERIC: {{.*}}fallback-errors.mlir:14:8: error: Operation stablehlo.add is not registered and its custom syntax cannot be parsed: write it in generic form ("stablehlo.add"(…) : (…) -> (…)) with --allow-unregistered-dialect, or leave out --print-op-generic to carry the body as text

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
}
