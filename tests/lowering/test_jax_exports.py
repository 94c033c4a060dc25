"""A JAX export end to end (docs/spec.md §3.3): `examples/jax_train_step.mlir` (a nested `params`
dict of weights, an `x` input, a `{'grads': (…), 'loss': …}` result) through
`iree-abi-v1`, its `iree.abi` read back by `abi-sig json`, marshalled by this project's
runtime and, when IREE is installed, compiled with `iree-compile` and called through
IREE's own `FunctionInvoker` with the same nested Python values; the legacy pipeline's
flat output is called through `pack_legacy` / `unpack_legacy`.

The IREE tests skip when `iree.compiler` or `iree.runtime` is missing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy
from tests.lowering.helpers import Lowered, assert_same, reflection, run_passes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "examples" / "jax_train_step.mlir").read_text(encoding="utf-8")

W = np.arange(8, dtype=np.float32).reshape(4, 2)
B = np.array([0.5, -1.0], dtype=np.float32)
SCALE = np.array(2.0, dtype=np.float32)
X = np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
PARAMS = {"dense": {"w": W, "b": B}, "scale": SCALE}


def expected_results() -> dict[str, Any]:
    """What the stablehlo body computes, in numpy."""
    prediction = X @ W + B
    return {
        "grads": (W * SCALE, prediction.sum(axis=0)),
        "loss": np.float32((prediction * prediction).sum() * SCALE),
    }


DECLARATION = (
    "(dict{dense: dict{b: tensor<2xf32>, w: tensor<4x2xf32>}, scale: tensor<f32>}, "
    "tensor<8x4xf32>) -> (grads: tuple[tensor<4x2xf32>, tensor<2xf32>], loss: tensor<f32>)"
)


@pytest.fixture(scope="module")
def v1() -> Lowered:
    return run_passes(EXAMPLE, ["iree-abi-v1"], allow_unregistered=True)


@pytest.fixture(scope="module")
def legacy() -> Lowered:
    return run_passes(EXAMPLE, ["iree-abi-legacy"], allow_unregistered=True)


def test_abi_sig_json_shows_the_pytree(v1: Lowered) -> None:
    assert v1.warnings == []
    abi = reflection(v1.module, "main")["iree.abi"]
    result = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.sig_main", "json", abi],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == DECLARATION + "\n"


def test_pack_takes_the_traced_values(v1: Lowered) -> None:
    """The wrapper's arguments are the pytree's root values: `params` one list (its dicts
    in sorted key order), `x` a tensor."""
    abi = reflection(v1.module, "main")["iree.abi"]
    packed = pack(abi, PARAMS, X)
    assert len(packed) == 2
    assert_same(packed[0], [[B, W], SCALE], "params")
    gw, gb, loss = W * 2, B * 3, np.float32(5.0)
    # The result root is one inlined sdict: its items come back as separate values.
    assert_same(unpack(abi, [(gw, gb), loss]), {"grads": (gw, gb), "loss": loss}, "results")


def test_legacy_sip_binds_the_same_values(legacy: Lowered) -> None:
    entries = reflection(legacy.module, "main")
    flat = pack_legacy(entries["f"], entries["sip"], PARAMS, X)
    assert_same(flat, [B, W, SCALE, X], "flat leaves in JAX's order")


def _compile_and_load(text: str, tmp: Path) -> Any:
    pytest.importorskip("iree.compiler")
    rt = pytest.importorskip("iree.runtime")
    from iree.compiler.tools import binaries

    source, output = tmp / "in.mlir", tmp / "out.vmfb"
    source.write_text(text, encoding="utf-8")
    compiled = subprocess.run(
        [
            binaries.find_tool("iree-compile"),
            "--iree-hal-target-device=local",
            "--iree-hal-local-target-device-backends=llvm-cpu",
            "--iree-llvmcpu-target-cpu=host",
            str(source),
            "-o",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compiled.returncode == 0, compiled.stderr
    context = rt.SystemContext(config=rt.Config("local-sync"))
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, output.read_bytes()))
    return context.modules.jit_train_step


def _to_host(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_to_host(item) for item in value)
    if isinstance(value, dict):
        return {key: _to_host(item) for key, item in value.items()}
    return value.to_host() if hasattr(value, "to_host") else value


def _assert_close(got: Any, expected: Any, what: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(expected), what
        for key in expected:
            _assert_close(got[key], expected[key], f"{what}[{key!r}]")
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            _assert_close(g, e, f"{what}[{i}]")
    else:
        got = np.asarray(got)
        assert got.dtype == np.float32 and got.shape == np.shape(expected), what
        np.testing.assert_allclose(got, expected, rtol=1e-5, err_msg=what)


def test_iree_calls_the_export_with_the_traced_pytrees(v1: Lowered, tmp_path: Path) -> None:
    module = _compile_and_load(v1.text, tmp_path)
    assert (
        module.main.vm_function.reflection["iree.abi"] == reflection(v1.module, "main")["iree.abi"]
    )
    got = _to_host(module.main(PARAMS, X))
    _assert_close(got, expected_results(), "main")


def test_iree_calls_the_legacy_flat_export(legacy: Lowered, tmp_path: Path) -> None:
    module = _compile_and_load(legacy.text, tmp_path)
    entries = reflection(legacy.module, "main")
    flat = pack_legacy(entries["f"], entries["sip"], PARAMS, X)
    got = unpack_legacy(entries["f"], entries["sip"], list(_to_host(module.main(*flat))))
    _assert_close(got, expected_results(), "legacy main")


SHAPE_POLYMORPHIC = """
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i64> {jax.global_constant = "b"},
                         %arg1: tensor<?x4xf32> {jax.arg_info = "x"})
      -> (tensor<?x4xf32> {jax.result_info = ""}) {
    return %arg1 : tensor<?x4xf32>
  }
}
"""


@pytest.mark.parametrize(
    "passes",
    [
        ["iree-abi-v1"],
        ["iree-abi-legacy"],
        ["wrap-entry-points"],
        ["materialize-iree-abi", "materialize-sip-abi", "wrap-entry-points"],
    ],
)
def test_the_flat_fallback_warns_once(passes: list[str]) -> None:
    """The passes that read the structure warn (once per run); a second run finds the
    reflection written and is silent."""
    message = (
        "argument 0 has no name (neither jax.arg_info nor a name location): "
        "the function keeps its flat signature"
    )
    first = run_passes(SHAPE_POLYMORPHIC, passes, allow_unregistered=True)
    assert first.warnings == [message]
    again = run_passes(first.text, passes, allow_unregistered=True)
    assert again.warnings == []
    assert again.text == first.text
