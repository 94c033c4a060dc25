"""Constants compute the same after `abi-opt` (docs/design.md#constants): a module full of
infinities, NaNs with payloads and -0.0, compiled by `iree-compile` as written and after
`abi-opt -p iree-abi-v1`, returns the same bits from both. And `iree-opt` prints the
constants of `tests/filecheck/driver/constants.mlir` as its CHECK lines say, so that
file pins MLIR's own text.

Skipped when `iree.compiler` or `iree.runtime` (the optional `iree` extra) is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.lowering.test_iree_e2e import compile_module, load, to_host

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")
from iree.compiler.tools import binaries

ROOT = Path(__file__).resolve().parents[2]

MODULE = """
func.func @constants() -> (tensor<4xf32>, tensor<2xf16>, tensor<f64>, tensor<3xf32>, f32) {
  %a = arith.constant dense<[0xFF800000, 0x7F800000, 0x7FC00001, -0.0]> : tensor<4xf32>
  %b = arith.constant dense<[0xFC00, 0x7E01]> : tensor<2xf16>
  %c = arith.constant dense<0xFFF8000000000123> : tensor<f64>
  %d = arith.constant dense<0xFF800000> : tensor<3xf32>
  %e = arith.constant 0xFF800000 : f32
  func.return %a, %b, %c, %d, %e : tensor<4xf32>, tensor<2xf16>, tensor<f64>, tensor<3xf32>, f32
}

func.func @masked_max(%x: tensor<3xf32>) -> tensor<3xf32> {
  %floor = arith.constant dense<[0xFF800000, 0.0, -0.0]> : tensor<3xf32>
  %m = arith.maximumf %x, %floor : tensor<3xf32>
  func.return %m : tensor<3xf32>
}
"""


def _abi_opt(text: str, tmp: Path) -> str:
    source = tmp / "constants.mlir"
    source.write_text(text)
    # `--parse-all`: every body is parsed and printed by xDSL (by default the bodies of
    # the wrapped public functions are; others are carried as text).
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "abi_compiler.commands.opt_main",
            str(source),
            "--parse-all",
            "-p",
            "iree-abi-v1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _bits(value: Any) -> Any:
    """Results as raw bits, so that NaN payloads and -0.0 compare exactly."""
    if isinstance(value, tuple | list):
        return [_bits(item) for item in value]
    array = np.asarray(value)
    return (array.dtype.str, array.view(f"u{array.dtype.itemsize}").tolist())


def test_constants_compute_the_same_after_the_pipeline(tmp_path: Path) -> None:
    lowered = _abi_opt(MODULE, tmp_path)
    original_dir, lowered_dir = tmp_path / "original", tmp_path / "lowered"
    original_dir.mkdir()
    lowered_dir.mkdir()
    original = load(compile_module(MODULE, original_dir, "--iree-input-demote-f64-to-f32=false"))
    after = load(compile_module(lowered, lowered_dir, "--iree-input-demote-f64-to-f32=false"))
    results = [to_host(original.constants()), to_host(after.constants())]
    assert _bits(results[0]) == _bits(results[1])
    # The bits written in the source, not the integers xDSL used to read them as.
    assert np.asarray(results[1][0]).view(np.uint32).tolist() == [
        0xFF800000,
        0x7F800000,
        0x7FC00001,
        0x80000000,
    ]
    assert np.asarray(results[1][1]).view(np.uint16).tolist() == [0xFC00, 0x7E01]
    assert np.asarray(results[1][2]).view(np.uint64).tolist() == 0xFFF8000000000123
    x = np.array([-5.0, -1.0, 2.0], dtype=np.float32)
    assert _bits(to_host(original.masked_max(x))) == _bits(to_host(after.masked_max(x)))


def test_iree_opt_prints_what_the_lit_file_checks(tmp_path: Path) -> None:
    lit_file = ROOT / "tests" / "filecheck" / "driver" / "constants.mlir"
    printed = subprocess.run(
        [binaries.find_tool("iree-opt"), str(lit_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = subprocess.run(
        [os.path.join(sysconfig.get_path("scripts"), "filecheck"), str(lit_file)],
        input=printed,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
