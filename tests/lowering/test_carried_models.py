"""Real-looking exported models through both pipelines with their bodies carried as text:
the body text comes out byte for byte, the output parses with IREE's `iree-opt`, compiles
with `iree-compile`, and a compiled call gives the same numbers as the original module
compiled directly. Modules written for this project in the forms JAX/StableHLO, TOSA and
TensorFlow exports take (custom op syntax, location aliases after the module, location
ranges, -inf/NaN hex constants, a multi-megabyte hex constant). Skipped without IREE."""

from __future__ import annotations

import functools
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
rt = pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

IREE_OPT = shutil.which("iree-opt") or str(Path(sys.executable).parent / "iree-opt")
IREE_COMPILE = shutil.which("iree-compile") or str(Path(sys.executable).parent / "iree-compile")
FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-input-demote-f64-to-f32=false",
]

JAX = """\
#loc1 = loc("x")
module @jit_model attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc(#loc1), %arg1: tensor<f32> loc(#loc2)) -> (tensor<4xf32> {mhlo.layout_mode = "default"}, tensor<f32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32> loc(#loc)
    %nan = stablehlo.constant dense<[0x7FC00000, 1.000000e+00, -0.000000e+00, 2.500000e-01]> : tensor<4xf32> loc(#loc)
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32> loc(#loc4)
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32> loc(#loc4)
    %2 = stablehlo.subtract %arg0, %1 : tensor<4xf32> loc(#loc5)
    %3 = stablehlo.exponential %2 : tensor<4xf32> loc(#loc5)
    %4 = call @scale(%3, %arg1) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc(#loc6)
    %5 = stablehlo.maximum %4, %nan : tensor<4xf32> loc(#loc5)
    return %5, %0 : tensor<4xf32>, tensor<f32> loc(#loc)
  } loc(#loc)
  func.func private @scale(%arg0: tensor<4xf32> loc(#loc3), %arg1: tensor<f32> loc(#loc3)) -> tensor<4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32> loc(#loc6)
    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32> loc(#loc6)
    return %1 : tensor<4xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("scale")
#loc3 = loc("/work/model.py":7:11 to :30)
#loc4 = loc("jit(model)/jit(main)/reduce_max"(#loc3))
#loc5 = loc("jit(model)/jit(main)/sub"(#loc3))
#loc6 = loc("jit(model)/jit(main)/pjit[name=scale]"(#loc3))
"""

TOSA = """\
module {
  func.func @forward(%input: tensor<1x4xf32>, %bias: tensor<1x4xf32>) -> tensor<1x4xf32> {
    %0 = tosa.add %input, %bias : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %1 = tosa.clamp %0 min_val(0.000000e+00 : f32) max_val(6.000000e+00 : f32) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = tosa.tanh %1 : (tensor<1x4xf32>) -> tensor<1x4xf32>
    return %2 : tensor<1x4xf32>
  }
}
"""

# Index paths (as TensorFlow's importer writes them): wrap-entry-points wraps @predict,
# @twice calls it from inside a `stablehlo.while` region, in carried text.
INDEX_PATHS = """\
module {
  func.func @predict(%x: tensor<4xf32> {tf_saved_model.index_path = ["x"]}, %y: tensor<4xf32> {tf_saved_model.index_path = ["y"]}) -> (tensor<4xf32> {tf_saved_model.index_path = ["sum"]}) {
    %0 = stablehlo.add %x, %y : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
     cond {
      %c2 = stablehlo.constant dense<2> : tensor<i32>
      %1 = stablehlo.compare  LT, %i, %c2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @predict(%acc, %acc) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<4xf32>
    }
    return %0#1 : tensor<4xf32>
  }
}
"""


def _weights_module(elements: int) -> str:
    rng = random.Random(7)
    values = np.array([rng.uniform(-1, 1) for _ in range(elements)], dtype=np.float32)
    hex_text = values.tobytes().hex().upper()
    return (
        "module {\n"
        f"  func.func @dense(%x: tensor<{elements}xf32>) -> tensor<{elements}xf32> {{\n"
        f'    %w = stablehlo.constant dense<"0x{hex_text}"> : tensor<{elements}xf32>\n'
        f"    %0 = stablehlo.multiply %x, %w : tensor<{elements}xf32>\n"
        f"    return %0 : tensor<{elements}xf32>\n"
        "  }\n"
        "}\n"
    )


def _abi_opt(source: Path, pipeline: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.opt_main", str(source), "-p", pipeline],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@functools.cache
def _compile_text(text: str) -> bytes:
    result = subprocess.run(
        [IREE_COMPILE, *FLAGS, "-", "-o", "-"],
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


def _compile(path: Path) -> bytes:
    return _compile_text(path.read_text())


def _load(vmfb: bytes) -> object:
    config = rt.Config("local-sync")
    context = rt.SystemContext(config=config)
    module = rt.VmModule.copy_buffer(context.instance, vmfb)
    context.add_vm_module(module)
    return context.modules[module.name]


def _call(module: object, function: str, *args: object, **kwargs: object) -> object:
    return module[function](*args, **kwargs)  # type: ignore[index]


def _body_lines(text: str) -> list[str]:
    """The lines of a module that belong to function bodies (indented past the header)."""
    return [line for line in text.splitlines() if line.startswith("    ")]


def _outputs(value: object) -> list[object]:
    if isinstance(value, dict):
        return [np.asarray(value[k]) for k in sorted(value)]
    if isinstance(value, tuple | list):
        return [np.asarray(v) for v in value]
    return [np.asarray(value)]


CASES = {
    "jax": (
        JAX,
        "main",
        lambda: ([np.array([1, -3, 2, 0.5], np.float32), np.array(2, np.float32)], {}),
    ),
    "tosa": (
        TOSA,
        "forward",
        lambda: ([np.array([[1, -2, 7, 0.1]], np.float32), np.full((1, 4), 0.5, np.float32)], {}),
    ),
    "weights": (
        _weights_module(1 << 20),  # a 4 MB constant
        "dense",
        lambda: ([np.linspace(-1, 1, 1 << 20, dtype=np.float32)], {}),
    ),
}


@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_model_compiles_and_computes_as_before(case: str, pipeline: str, tmp_path: Path) -> None:
    text, function, arguments = CASES[case]
    source = tmp_path / "model.mlir"
    source.write_text(text)
    lowered = _abi_opt(source, pipeline)
    assert _body_lines(lowered) == _body_lines(text)  # carried byte for byte
    output = tmp_path / "lowered.mlir"
    output.write_text(lowered)
    parsed = subprocess.run(
        [IREE_OPT, str(output), "-o", "/dev/null"], capture_output=True, text=True, check=False
    )
    assert parsed.returncode == 0, parsed.stderr
    args, kwargs = arguments()
    expected = _outputs(_call(_load(_compile(source)), function, *args, **kwargs))
    got = _outputs(_call(_load(_compile(output)), function, *args, **kwargs))
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()  # bit for bit


def test_wrapped_index_path_export_and_its_carried_caller(tmp_path: Path) -> None:
    """wrap-entry-points wraps @predict (index paths) without parsing a body; @twice's call
    inside a carried `stablehlo.while` region is redirected to the implementation."""
    source = tmp_path / "model.mlir"
    source.write_text(INDEX_PATHS)
    lowered = _abi_opt(source, "iree-abi-v1")
    assert "      %1 = func.call @_predict(%acc, %acc) : (tensor<4xf32>, tensor<4xf32>)" in lowered
    output = tmp_path / "lowered.mlir"
    output.write_text(lowered)
    context = _load(_compile(output))
    original = _load(_compile(source))
    x = np.array([1, 2, 3, 4], np.float32)
    y = np.array([0.5, -1, 8, 0], np.float32)
    result = _call(context, "predict", x=x, y=y)
    assert sorted(result) == ["sum"]
    np.testing.assert_array_equal(result["sum"], np.asarray(_call(original, "predict", x, y)))
    np.testing.assert_array_equal(
        np.asarray(_call(context, "twice", x)), np.asarray(_call(original, "twice", x))
    )
