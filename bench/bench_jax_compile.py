"""Compile time of a flax model: `abi_compiler.iree.compile(exported)` against
`iree-compile` alone on the same export, in the same run.

The model is a flax `linen` MLP (``--layers`` Dense layers of ``--width``, ReLU between,
batch 8) exported with `jax.export` for the CPU. Per round, alternating:

* ``iree-compile alone``: `exported.mlir_module()` through iree-compile with the flags
  `abi_compiler.iree` uses (`compile_vmfb(text, pipeline=None)`): the module keeps JAX's
  flat signature;
* ``abi_compiler.iree.compile``: the whole call — `abi_compiler.frontends.jax.program`
  (`to_mlir`: the structure written with jaxlib's MLIR bindings), `abi-opt -p iree-abi-v1`
  in-process, iree-compile, loading the module — of which the frontend and abi-opt are
  also timed alone.

Each figure is the median of the rounds; the ratio is against iree-compile alone.

    python bench/bench_jax_compile.py [--layers 8] [--width 256] [--rounds 5]

Needs JAX, flax and IREE's compiler and runtime. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from flax import linen as nn
from jax import export

from abi_compiler import iree as abi_iree
from abi_compiler.frontends import jax as jax_frontend


def _export(layers: int, width: int) -> Any:
    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            for _ in range(layers - 1):
                x = nn.relu(nn.Dense(width)(x))
            return nn.Dense(10)(x)

    model = MLP()
    x = jnp.ones((8, width), jnp.float32)
    variables = model.init(jax.random.PRNGKey(0), x)
    return export.export(jax.jit(model.apply))(variables, x)


def _timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    warnings.simplefilter("ignore", abi_iree.CompileWarning)
    exported = _export(options.layers, options.width)
    text = exported.mlir_module()
    lowered = jax_frontend.to_mlir(exported)
    times: dict[str, list[float]] = {
        "iree-compile alone": [],
        "abi_compiler.iree.compile": [],
        "  of which frontend (to_mlir)": [],
        "  of which abi-opt -p iree-abi-v1": [],
    }
    for _ in range(options.rounds):
        times["iree-compile alone"].append(
            _timed(lambda: abi_iree.compile_vmfb(text, pipeline=None))
        )
        times["abi_compiler.iree.compile"].append(_timed(lambda: abi_iree.compile(exported)))
        times["  of which frontend (to_mlir)"].append(
            _timed(lambda: jax_frontend.program(exported))
        )
        times["  of which abi-opt -p iree-abi-v1"].append(
            _timed(lambda: abi_iree.lower(lowered, "iree-abi-v1"))
        )
    base = statistics.median(times["iree-compile alone"])
    params = sum(leaf.size for leaf in jax.tree_util.tree_leaves(exported.in_avals))
    print(
        f"flax MLP, {options.layers} Dense layers of {options.width} ({params} input values), "
        f"{len(text)} bytes of MLIR; JAX {jax.__version__}; {platform.machine()}, "
        f"{options.rounds} rounds (median)"
    )
    print(f"{'':36} {'seconds':>8} {'ratio':>7}")
    for name, found in times.items():
        median = statistics.median(found)
        print(f"{name:36} {median:8.3f} {median / base:7.3f}")


if __name__ == "__main__":
    main()
