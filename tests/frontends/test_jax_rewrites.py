"""The JAX frontend's rewrites of shape-polymorphic exports for IREE 3.13
(`abi_compiler.frontends.jax_rewrites.mark_nonexpanding_broadcasts`, `rows_as_index_select`,
`merges_as_collapse`, `flatten_dot_generals`, `constant_index_as_slice`; docs/calling.md,
"Shape polymorphism"). Skips without JAX; the compiled cases also without IREE or flax."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from jax import export  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

from abi_compiler.frontends import jax as jax_frontend  # noqa: E402
from abi_compiler.frontends import jax_rewrites  # noqa: E402
from tests.calling.helpers import compile_quietly as _compile  # noqa: E402

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
        refused = jax_rewrites.mark_nonexpanding_broadcasts(module)
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


# Rows of a static table by a dynamic number of indices, as JAX lowers `jnp.take(t, ids,
# axis=0)` for ids of shape (b, 7): IREE 3.13's gather lowering refuses it.
ROWS = """
func.func public @main(%t: tensor<10x4xf32>, %ids: tensor<?x7x1xi32>, %static: tensor<7x1xi32>) -> (tensor<?x7x4xf32>, tensor<7x4xf32>) {
  %0 = "stablehlo.gather"(%t, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<?x7x1xi32>) -> tensor<?x7x4xf32>
  %1 = "stablehlo.gather"(%t, %static) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<7x1xi32>) -> tensor<7x4xf32>
  return %0, %1 : tensor<?x7x4xf32>, tensor<7x4xf32>
}
"""


def test_rows_by_dynamic_indices_become_an_index_select() -> None:
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(ROWS)
        assert jax_rewrites.rows_as_index_select(module) == 1
        text = str(module)
        assert jax_rewrites.rows_as_index_select(module) == 0
    body = [line.strip() for line in text.splitlines()[2:9]]
    assert body == [
        "%c = stablehlo.constant dense<0> : tensor<i32>",
        "%c_0 = stablehlo.constant dense<9> : tensor<i32>",
        "%0 = stablehlo.clamp %c, %arg1, %c_0 : (tensor<i32>, tensor<?x7x1xi32>, tensor<i32>) "
        "-> tensor<?x7x1xi32>",
        "%collapsed = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<?x7x1xi32> into "
        "tensor<?x7xi32>",
        '%1 = "stablehlo.torch_index_select"(%arg0, %collapsed) <{batch_dims = 0 : i64, '
        "dim = 0 : i64}> : (tensor<10x4xf32>, tensor<?x7xi32>) -> tensor<?x7x4xf32>",
        '%2 = "stablehlo.gather"(%arg0, %arg2) <{dimension_numbers = #stablehlo.gather<'
        "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
        "index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, "
        "tensor<7x1xi32>) -> tensor<7x4xf32>",
        "return %1, %2 : tensor<?x7x4xf32>, tensor<7x4xf32>",
    ]


def test_take_by_a_symbolic_number_of_indices_matches_jax() -> None:
    """Out-of-range and negative indices too: JAX's fill mode and wrapping around the
    gather are kept, and the gather's own clamp is the index select's."""
    b = export.symbolic_shape("b")[0]
    exported = export.export(jax.jit(lambda t, ids: (jnp.take(t, ids, axis=0), t[ids])))(
        jax.ShapeDtypeStruct((10, 4), np.float32), jax.ShapeDtypeStruct((b, 7), np.int32)
    )
    compiled = _compile(exported)
    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    for ids in ([[0, 3, 9, 1, 2, 4, 5]], [[0, 3, 9, 12, -2, -11, 5]] * 3):
        indices = np.array(ids, np.int32)
        got = compiled.main(table, indices)
        want = jax.jit(lambda t, i: (jnp.take(t, i, axis=0), t[i]))(table, indices)
        for item, expected in zip(got, want, strict=True):
            np.testing.assert_array_equal(np.asarray(item), np.asarray(expected))


def test_a_shape_polymorphic_embedding_compiles_and_matches_jax() -> None:
    nn = pytest.importorskip("flax.linen")

    class Model(nn.Module):
        @nn.compact
        def __call__(self, ids: Any) -> Any:
            return nn.Dense(8)(nn.Embed(50, 16)(ids).mean(axis=1))

    _assert_token_model_matches_jax(Model())


MERGES = """
func.func public @main(%x: tensor<?x7x16xf32>, %s: tensor<2xi32>, %t: tensor<2xi32>) -> (tensor<?x16xf32>, tensor<?x2xf32>) {
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<?x7x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
  %1 = stablehlo.dynamic_reshape %x, %t : (tensor<?x7x16xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<?x2xf32>
}
"""


def test_a_reshape_that_merges_dimensions_becomes_a_collapse() -> None:
    """(b, 7, 16) → (b*7, 16) is a collapse; (b, 7, 16) → (?, 2) splits 16: left alone."""
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(MERGES)
        assert jax_rewrites.merges_as_collapse(module) == 1
        text = str(module)
    body = [line.strip() for line in text.splitlines()[2:5]]
    assert body == [
        "%collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<?x7x16xf32> into "
        "tensor<?x16xf32>",
        "%0 = stablehlo.dynamic_reshape %arg0, %arg2 : (tensor<?x7x16xf32>, tensor<2xi32>) "
        "-> tensor<?x2xf32>",
        "return %collapsed, %0 : tensor<?x16xf32>, tensor<?x2xf32>",
    ]


@pytest.mark.parametrize(
    ("operand", "result", "groups"),
    [
        ([None, 7, 16], [None, 16], [[0, 1], [2]]),
        ([None, 7, 16], [None], [[0, 1, 2]]),
        ([2, None, 3, 4], [2, None, 4], [[0], [1, 2], [3]]),
        ([None, None, 4], [None, 4], [[0, 1], [2]]),
        ([None, 7, 16, 1], [None, 16], [[0, 1], [2, 3]]),
        ([None, 1, 16], [None, 16], [[0, 1], [2]]),
        # Not a merge of whole dimensions, no merge, or not determined by the sizes.
        ([None, 6], [None, 2], None),
        ([None, 7, 16], [None, 7, 16], None),
        ([None, 7, 16], [None, None], None),
        ([None, 7, 16], [112, None], None),
        ([4, 7, 16], [28, None], None),
    ],
)
def test_collapse_groups(
    operand: list[int | None], result: list[int | None], groups: list[list[int]] | None
) -> None:
    assert jax_rewrites._collapse_groups(operand, result) == groups


def test_a_symbolic_reshape_that_merges_matches_jax() -> None:
    b = export.symbolic_shape("b")[0]

    def f(x: Any) -> Any:
        return x.reshape(-1, 16) * 2, x.reshape(x.shape[0], 112).sum(axis=1)

    exported = export.export(jax.jit(f))(jax.ShapeDtypeStruct((b, 7, 16), np.float32))
    assert "stablehlo.dynamic_reshape" in exported.mlir_module()
    assert "stablehlo.dynamic_reshape" not in jax_frontend.to_mlir(exported)
    compiled = _compile(exported)
    rng = np.random.default_rng(0)
    for batch in (1, 3):
        x = rng.standard_normal((batch, 7, 16), dtype=np.float32)
        for got, want in zip(compiled.main(x), jax.jit(f)(x), strict=True):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)


# Dense layers on an input with a dynamic dimension, as flax writes them: `Dense` on
# (b, 7, 16), `DenseGeneral`'s heads (16, 2, 8) and output projection (2, 8, 16), and a
# product of two matrices (no rewrite).
DENSE = """
func.func public @main(%x: tensor<?x7x16xf32>, %k: tensor<16x8xf32>, %h: tensor<16x2x8xf32>, %o: tensor<2x8x16xf32>, %m: tensor<?x16xf32>) -> (tensor<?x7x8xf32>, tensor<?x7x16xf32>, tensor<?x8xf32>) {
  %0 = stablehlo.dot_general %x, %k, contracting_dims = [2] x [0] : (tensor<?x7x16xf32>, tensor<16x8xf32>) -> tensor<?x7x8xf32>
  %1 = stablehlo.dot_general %x, %h, contracting_dims = [2] x [0] : (tensor<?x7x16xf32>, tensor<16x2x8xf32>) -> tensor<?x7x2x8xf32>
  %2 = stablehlo.dot_general %1, %o, contracting_dims = [2, 3] x [0, 1] : (tensor<?x7x2x8xf32>, tensor<2x8x16xf32>) -> tensor<?x7x16xf32>
  %3 = stablehlo.dot_general %m, %k, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  return %0, %2, %3 : tensor<?x7x8xf32>, tensor<?x7x16xf32>, tensor<?x8xf32>
}
"""


def test_dense_layers_on_a_dynamic_input_become_products_of_matrices() -> None:
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(DENSE)
        assert jax_rewrites.flatten_dot_generals(module) == 3
        text = str(module)
        assert jax_rewrites.flatten_dot_generals(module) == 0
    lines = [line.strip() for line in text.splitlines()]
    assert [line for line in lines if "shape" in line or "dot_general" in line] == [
        "%collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<?x7x16xf32> into "
        "tensor<?x16xf32>",
        "%0 = stablehlo.dot_general %collapsed, %arg1, contracting_dims = [1] x [0] : "
        "(tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>",
        "%expanded = tensor.expand_shape %0 [[0, 1], [2]] output_shape [%dim, 7, 8] : "
        "tensor<?x8xf32> into tensor<?x7x8xf32>",
        "%collapsed_0 = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<?x7x16xf32> into "
        "tensor<?x16xf32>",
        "%1 = stablehlo.reshape %arg2 : (tensor<16x2x8xf32>) -> tensor<16x16xf32>",
        "%2 = stablehlo.dot_general %collapsed_0, %1, contracting_dims = [1] x [0] : "
        "(tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>",
        "%expanded_3 = tensor.expand_shape %2 [[0, 1], [2, 3]] output_shape [%dim_2, 7, 2, 8] "
        ": tensor<?x16xf32> into tensor<?x7x2x8xf32>",
        "%collapsed_4 = tensor.collapse_shape %expanded_3 [[0, 1], [2, 3]] : "
        "tensor<?x7x2x8xf32> into tensor<?x16xf32>",
        "%3 = stablehlo.reshape %arg3 : (tensor<2x8x16xf32>) -> tensor<16x16xf32>",
        "%4 = stablehlo.dot_general %collapsed_4, %3, contracting_dims = [1] x [0] : "
        "(tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>",
        "%expanded_7 = tensor.expand_shape %4 [[0, 1], [2]] output_shape [%dim_6, 7, 16] : "
        "tensor<?x16xf32> into tensor<?x7x16xf32>",
        "%5 = stablehlo.dot_general %arg4, %arg1, contracting_dims = [1] x [0] : "
        "(tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>",
    ]


def test_a_shape_polymorphic_attention_block_compiles_and_matches_jax() -> None:
    """Embedding, self-attention (`DenseGeneral` heads and projection), layer norm and a
    dense head on a batch of symbolic size: every rewrite of this file at once."""
    nn = pytest.importorskip("flax.linen")

    class Model(nn.Module):
        @nn.compact
        def __call__(self, ids: Any) -> Any:
            x = nn.Embed(50, 16)(ids)
            x = nn.LayerNorm()(x + nn.MultiHeadDotProductAttention(num_heads=2)(x))
            return nn.Dense(4)(nn.Dense(8)(x).mean(axis=1))

    _assert_token_model_matches_jax(Model())


def _assert_token_model_matches_jax(model: Any) -> None:
    """``model`` on (b, 7) token ids below 50, exported with a symbolic batch, compiled,
    and called with batches of 1 and 3 as JAX computes them."""
    params = model.init(jax.random.PRNGKey(0), np.ones((2, 7), np.int32))
    b = export.symbolic_shape("b")[0]
    exported = export.export(jax.jit(model.apply))(params, jax.ShapeDtypeStruct((b, 7), np.int32))
    compiled = _compile(exported)
    rng = np.random.default_rng(0)
    for batch in (1, 3):
        ids = rng.integers(0, 50, (batch, 7), dtype=np.int32)
        np.testing.assert_allclose(
            compiled.main(params, ids), model.apply(params, ids), rtol=1e-4, atol=1e-5
        )


# `x[:, 0]` on (b, 8, 32), as JAX writes it: a dynamic gather of one constant index.
FIRST_TOKEN = """
func.func public @main(%x: tensor<?x8x32xf32>, %sizes: tensor<3xi32>, %i: tensor<1xi32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %c = stablehlo.constant dense<9> : tensor<i32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1xi32>
  %1 = "stablehlo.dynamic_gather"(%x, %0, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = true}> : (tensor<?x8x32xf32>, tensor<1xi32>, tensor<3xi32>) -> tensor<?x32xf32>
  %2 = "stablehlo.dynamic_gather"(%x, %i, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = true}> : (tensor<?x8x32xf32>, tensor<1xi32>, tensor<3xi32>) -> tensor<?x32xf32>
  return %1, %2 : tensor<?x32xf32>, tensor<?x32xf32>
}
"""


def test_a_constant_index_of_a_dynamic_input_becomes_a_slice() -> None:
    """The index 9 is clamped to the last of 8, as gather clamps it; an index that is
    not a constant is left to IREE."""
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(FIRST_TOKEN)
        assert jax_rewrites.constant_index_as_slice(module) == 1
        text = str(module)
    lines = [line.strip() for line in text.splitlines()]
    assert [
        line for line in lines if "slice" in line or "gather" in line or "tensor.dim" in line
    ] == [
        "%dim = tensor.dim %arg0, %c0 : tensor<?x8x32xf32>",
        "%extracted_slice = tensor.extract_slice %arg0[0, 7, 0] [%dim, 1, 32] [1, 1, 1] : "
        "tensor<?x8x32xf32> to tensor<?x32xf32>",
        '%1 = "stablehlo.dynamic_gather"(%arg0, %arg2, %arg1) <{dimension_numbers = '
        "#stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [1], start_index_map = "
        "[1]>, indices_are_sorted = true}> : (tensor<?x8x32xf32>, tensor<1xi32>, tensor<3xi32>) "
        "-> tensor<?x32xf32>",
        "return %extracted_slice, %1 : tensor<?x32xf32>, tensor<?x32xf32>",
    ]


# A `fori_loop` counter that starts from the constant the function also returns.
LOOP_FROM_A_RETURNED_CONSTANT = """
func.func public @main(%x: tensor<f32>) -> (tensor<f32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %five = stablehlo.constant dense<5> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %five, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<f32>
    stablehlo.return %n, %w : tensor<i32>, tensor<f32>
  }
  return %r#1, %zero : tensor<f32>, tensor<i32>
}
"""


def test_a_loop_starts_from_its_own_copy_of_a_constant() -> None:
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(LOOP_FROM_A_RETURNED_CONSTANT)
        assert jax_rewrites.loop_constants_behind_barriers(module) == 1
        text = str(module)
    assert text.count("stablehlo.optimization_barrier") == 1
    barrier = re.search(r"(%\S+) = stablehlo.optimization_barrier (%\S+) : tensor<i32>", text)
    assert barrier is not None
    assert f"stablehlo.while(%iterArg = {barrier.group(1)}, %iterArg_1 = %arg0)" in text
    assert f"return %1#1, {barrier.group(2)} : tensor<f32>, tensor<i32>" in text
    compiled = _compile(LOOP_FROM_A_RETURNED_CONSTANT.replace("public @main", "@main"))
    assert [float(v) for v in compiled.main(np.float32(1.5))] == [48.0, 0.0]
