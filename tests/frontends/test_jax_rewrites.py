"""The JAX frontend's rewrite of shape-polymorphic exports for IREE 3.13
(`abi_compiler.frontends.jax.mark_nonexpanding_broadcasts`; docs/calling.md, "Shape
polymorphism"). Skips without JAX; the compiled cases also without IREE or flax."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from jax import export  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

from abi_compiler.frontends import jax as jax_frontend  # noqa: E402

# A normalization as JAX lowers it for `symbolic_shape("b, 4")`: the mean is broadcast
# to (b, 1), then to (b, 4) — a chain IREE's canonicalization would compose, dropping
# the marks.
CHAIN = """
func.func public @main(%x: tensor<?x4xf32>, %shape1: tensor<2xi32>, %shape4: tensor<2xi32>,
                       %v: tensor<?xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %v, %shape1, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x1xf32> loc("norm.py":3:5)
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %shape4, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x4xf32> loc("norm.py":4:7)
  %2 = stablehlo.dynamic_broadcast_in_dim %x, %shape4, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32> loc("norm.py":5:9)
  %3 = stablehlo.subtract %2, %1 : tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}
"""

# A dynamic operand dimension broadcast to a static one: it expands if the operand's
# size is 1 at run time. JAX's lowering never writes this.
TO_STATIC = """
func.func public @main(%v: tensor<?xf32> {jax.arg_info = "v"}) -> (tensor<4xf32> {jax.result_info = "result"}) {
  %shape = stablehlo.constant dense<4> : tensor<1xi32>
  %0 = stablehlo.dynamic_broadcast_in_dim %v, %shape, dims = [0] : (tensor<?xf32>, tensor<1xi32>) -> tensor<4xf32> loc(callsite("model.py":12:3 at "main.py":1:1))
  return %0 : tensor<4xf32>
}
"""


def _rewritten(text: str) -> tuple[str, list[str]]:
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        refused = jax_frontend.mark_nonexpanding_broadcasts(module)
        return str(module), refused


def test_dynamic_dimensions_are_marked_and_chains_composed() -> None:
    text, refused = _rewritten(CHAIN)
    assert refused == []
    ops = [line.strip() for line in text.splitlines() if "dynamic_broadcast_in_dim" in line]
    assert ops == [
        "%0 = stablehlo.dynamic_broadcast_in_dim %arg3, %arg1, dims = [0] "
        "{known_nonexpanding_dimensions = array<i64: 0>} "
        ": (tensor<?xf32>, tensor<2xi32>) -> tensor<?x1xf32>",
        "%1 = stablehlo.dynamic_broadcast_in_dim %arg3, %arg2, dims = [0] "
        "{known_nonexpanding_dimensions = array<i64: 0>} "
        ": (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>",
        "%2 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg2, dims = [0, 1] "
        "{known_nonexpanding_dimensions = array<i64: 0>} "
        ": (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>",
    ]
    # Marking again changes nothing.
    assert _rewritten(text) == (text, [])


def test_a_dynamic_dimension_broadcast_to_a_static_one_is_refused() -> None:
    text, refused = _rewritten(TO_STATIC)
    assert "known_nonexpanding_dimensions" not in text
    assert refused == [
        "model.py:12:3: error: stablehlo.dynamic_broadcast_in_dim broadcasts dimension 0 of "
        "tensor<?xf32>, dynamic, to dimension 0 of tensor<4xf32>, static: it expands when "
        "the operand's size is 1 at run time, and IREE 3.13 lowers the op only when it knows "
        "whether each dynamic dimension expands (JAX's own lowering never writes this); "
        "export with static shapes (no jax.export.symbolic_shape) to compile it"
    ]


def _compile(exported: Any) -> Any:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from abi_compiler import iree as abi_iree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        return abi_iree.compile(exported)


def test_a_refused_broadcast_is_a_compile_error_naming_the_op() -> None:
    pytest.importorskip("iree.runtime")
    from abi_compiler.iree import CompileError

    b = export.symbolic_shape("b")[0]
    exported = export.export(jax.jit(lambda v: v[:1] * jnp.ones(4)))(
        jax.ShapeDtypeStruct((b,), np.float32)
    )
    with jax_mlir.make_ir_context():
        serialized = jax_mlir.module_to_bytecode(ir.Module.parse(TO_STATIC))
    broken = dataclasses.replace(exported, mlir_module_serialized=serialized)
    with pytest.raises(CompileError) as caught:
        _compile(broken)
    assert caught.value.stage == "frontend"
    assert caught.value.diagnostics.startswith(
        "model.py:12:3: error: stablehlo.dynamic_broadcast_in_dim broadcasts dimension 0"
    )
    # The text alone is still written, without the mark.
    assert "known_nonexpanding_dimensions" not in jax_frontend.to_mlir(broken)


def test_a_shape_polymorphic_layer_norm_compiles_and_matches_jax() -> None:
    nn = pytest.importorskip("flax.linen")

    class Model(nn.Module):
        @nn.compact
        def __call__(self, x: Any) -> Any:
            return nn.LayerNorm()(nn.Dense(16)(x))

    model = Model()
    params = model.init(jax.random.PRNGKey(0), np.ones((2, 16), np.float32))
    b = export.symbolic_shape("b")[0]
    exported = export.export(jax.jit(model.apply))(
        params, jax.ShapeDtypeStruct((b, 16), np.float32)
    )
    assert "known_nonexpanding_dimensions" in jax_frontend.to_mlir(exported)
    compiled = _compile(exported)
    rng = np.random.default_rng(0)
    for batch in (1, 3, 5):
        x = rng.standard_normal((batch, 16), dtype=np.float32)
        np.testing.assert_allclose(
            compiled.main(params, x), model.apply(params, x), rtol=1e-4, atol=1e-5
        )
