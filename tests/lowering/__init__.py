"""Tests that the lowering pipelines preserve meaning and that the reflection the passes
write says what the passes built.

* `test_equivalence.py`: hypothesis-generated structured functions run in xDSL's
  interpreter before and after `iree-abi-v1` / `iree-abi-legacy`, called through
  `abi_compiler.runtime` (docs/spec.md §8, §10).
* `test_example.py`: the same for `examples/structured.mlir`.
* `test_iree_e2e.py`: the V1 output compiled by `iree-compile` and called from
  `iree.runtime` (skipped when IREE is not installed; docs/spec.md §8.2).
* `test_reflection_crosscheck.py`: every attribute the passes write on the lit inputs,
  decoded and compared with the model; each pass twice is each pass once (docs/spec.md §7).

`ABI_SLOW=1` raises the hypothesis example counts (50 → 1000 per equivalence property,
2 → 20 IREE modules): about 6 minutes for this directory instead of under a minute.
"""
