"""Output is deterministic (docs/spec.md §7): `abi-opt` in fresh processes with different
`PYTHONHASHSEED`s (string hashing, so set and dict-of-set iteration order, changes with
it) gives byte-identical output and diagnostics for a module that exercises every pass:
typed structures with dict keys listed unsorted and non-ASCII, named arguments, lists in
both spellings, ND-arrays of references, index paths with gaps and named roots, a
saved-model module with exports to adopt and private functions, symbol renames, calls
through flattened functions, and warnings.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MODULE = """\
func.func @typed(%s: !abi.dict<"zeta": tensor<?x4xf32>, "alpha": tuple<i32, !util.list<?>>, "é": f16>,
                 %l: !iree.list<i8>, %r: tensor<2x!util.list<i32>>, %n: ui8 {abi.name = "n"},
                 %k: tensor<*xf32> {abi.name = "ключ"}) -> (tuple<tensor<?x4xf32>, !abi.dict<"b": i32, "a": f16>>, i64) {
  %t = abi.dict.get %s["zeta"] : !abi.dict<"zeta": tensor<?x4xf32>, "alpha": tuple<i32, !util.list<?>>, "é": f16> -> tensor<?x4xf32>
  %h = abi.dict.get %s["é"] : !abi.dict<"zeta": tensor<?x4xf32>, "alpha": tuple<i32, !util.list<?>>, "é": f16> -> f16
  %p = abi.dict.get %s["alpha"] : !abi.dict<"zeta": tensor<?x4xf32>, "alpha": tuple<i32, !util.list<?>>, "é": f16> -> tuple<i32, !util.list<?>>
  %i = abi.tuple.get %p[0] : tuple<i32, !util.list<?>> -> i32
  %d = abi.dict.pack %h, %i : (f16, i32) -> !abi.dict<"b": i32, "a": f16>
  %o = abi.tuple.pack %t, %d : (tensor<?x4xf32>, !abi.dict<"b": i32, "a": f16>) -> tuple<tensor<?x4xf32>, !abi.dict<"b": i32, "a": f16>>
  %c = func.call @helper(%o) : (tuple<tensor<?x4xf32>, !abi.dict<"b": i32, "a": f16>>) -> i64
  func.return %o, %c : tuple<tensor<?x4xf32>, !abi.dict<"b": i32, "a": f16>>, i64
}

func.func private @helper(%o: tuple<tensor<?x4xf32>, !abi.dict<"b": i32, "a": f16>>) -> i64 {
  %c = arith.constant 7 : i64
  func.return %c : i64
}

func.func @paths(%a: tensor<3xf32> {abi.index_path = ["x", 2]}, %b: i32 {abi.index_path = [0]},
                 %c: f64 {abi.index_path = ["x", 0]}, %d: i8 {abi.index_path = ["w", "k"]})
    -> (i32 {abi.index_path = ["q", 1]}, i32 {abi.index_path = ["q", 0]}) {
  func.return %b, %b : i32, i32
}

func.func @plain(%x: i32, %y: f32) -> i32 attributes {iree.abi = "{\\22a\\22:[\\22i32\\22,\\22f32\\22],\\22r\\22:[\\22i32\\22],\\22v\\22:1}"} {
  %z = func.call @typed_user(%x) : (i32) -> i32
  func.return %z : i32
}

func.func private @typed_user(%x: i32) -> i32 {
  func.return %x : i32
}

// -----

module attributes {tf_saved_model.semantics} {
  func.func @__inference_serve(%v: tensor<?xf32> {tf_saved_model.index_path = [0, "values"]},
                               %m: tensor<?xi1> {tf_saved_model.index_path = [0, "mask"]},
                               %s: tensor<f32> {tf_saved_model.index_path = ["scale"]})
      -> (tensor<?xf32> {tf_saved_model.index_path = ["out"]}, tensor<i32> {tf_saved_model.index_path = ["count"]})
      attributes {tf_saved_model.exported_names = ["serve"]} {
    %n = func.call @__inference_count(%m) : (tensor<?xi1>) -> tensor<i32>
    func.return %v, %n : tensor<?xf32>, tensor<i32>
  }
  func.func @__inference_count(%m: tensor<?xi1>) -> tensor<i32> {
    %c = arith.constant dense<0> : tensor<i32>
    func.return %c : tensor<i32>
  }
}
"""

SEEDS = ("0", "1", "42", "4294967295")


def _run(source: Path, pipeline: str, seed: str) -> tuple[bytes, bytes]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    command = [sys.executable, "-m", "abi_compiler.commands.opt_main", str(source)]
    result = subprocess.run(
        [*command, "--split-input-file", "-p", pipeline],
        capture_output=True,
        env=env,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout, result.stderr


@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
def test_same_output_under_every_hash_seed(pipeline: str, tmp_path: Path) -> None:
    source = tmp_path / "module.mlir"
    source.write_text(MODULE, encoding="utf-8")

    runs = {seed: _run(source, pipeline, seed) for seed in SEEDS}

    first_output, first_diagnostics = runs[SEEDS[0]]
    assert b"func.func" in first_output
    for seed, (output, diagnostics) in runs.items():
        assert output == first_output, f"PYTHONHASHSEED={seed} changed the output"
        assert diagnostics == first_diagnostics, f"PYTHONHASHSEED={seed} changed the warnings"
    # The same process state twice: no dependence on anything but the input.
    assert _run(source, pipeline, SEEDS[1]) == runs[SEEDS[1]]
