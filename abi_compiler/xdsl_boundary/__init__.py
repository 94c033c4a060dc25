"""Everything the project does with xDSL beyond its public API: public names for its
internals (`xdsl_compat`); the fixes of xDSL, one module per kind (docs/xdsl-fixes.md) —
`defects` (xDSL wrong by its own terms), `mlir_compat` (xDSL reads what MLIR accepts
differently), `speedups` and `symbol_cache` (the same results, faster) — with what they
share, `bit_patterns` (float bits and their text) and `dense_elements` (dense
attributes as stored bytes); and `xdsl_fixes`, which puts the fixes together for a run
(`FixedLexer`, `FixedParser`, `FixedPrinter`, `applied()`)."""
