"""The torch frontend's rewrites of what iree-turbine imports, before IREE's torch
lowering (`abi_compiler.frontends.torch_rewrites`; docs/calling.md,
"What the torch frontend rewrites"). Skipped without torch and iree-turbine."""

from __future__ import annotations

from typing import Any

import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()
torch = pytest.importorskip("torch")
aot = pytest.importorskip("iree.turbine.aot")

from abi_compiler.frontends import torch_rewrites  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),  # torch's own pytree API
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # numpy 2 __array__ in turbine
]


class Operators(torch.nn.Module):
    """Python's bitwise operators on tensors, with broadcasting, and the `&` with a
    `torch.tensor(True)` literal that transformers' attention-mask code writes."""

    def forward(self, a: Any, b: Any) -> Any:
        return a & b, a ^ b, b & a, torch.tensor(True) & b, a | b


class Shifts(torch.nn.Module):
    """`<<` and `>>` of two tensors (amounts in range: past the width, IREE's `shli` and
    `shrsi` are undefined)."""

    def forward(self, a: Any, b: Any) -> Any:
        return a << b, a >> b, b << 1


class WithNumbers(torch.nn.Module):
    """The operators with a Python number, and shifts by constants out of range (torch:
    0, or the sign)."""

    def forward(self, a: Any) -> Any:
        return a | 6, a ^ 3, a & 5, a ^ -1, a | 300, a << 40, a >> 40, a >> 3, a << 2, a >> -1


class BoolNumbers(torch.nn.Module):
    def forward(self, m: Any) -> Any:
        return m | True, m ^ True, m & False


def _program(dtype: Any) -> tuple[Any, tuple[Any, Any]]:
    a = torch.tensor([True, False, True, True]).to(dtype)
    b = torch.tensor([[True], [False], [True]]).to(dtype)
    if dtype != torch.bool:
        a = torch.tensor([5, -3, 7, 0], dtype=dtype)
        b = torch.tensor([[6], [-1], [0]], dtype=dtype)
    return torch.export.export(Operators(), (a, b)), (a, b)


def test_the_operators_are_renamed_to_their_aten_ops() -> None:
    program, _ = _program(torch.bool)
    module = aot.export(program).mlir_module
    before = str(module)
    assert "torch.aten.__and__.Tensor" in before and '"torch.aten.__xor__.Tensor"' in before
    assert torch_rewrites.spell_operators_as_bitwise(module) == 4
    after = str(module)
    assert "__and__" not in after and "__xor__" not in after
    assert after.count("torch.aten.bitwise_and.Tensor") == 3
    assert after.count("torch.aten.bitwise_xor.Tensor") == 1
    # The or was already spelled so upstream; nothing else changed.
    assert after.count("torch.aten.__or__.Tensor") == before.count("torch.aten.__or__.Tensor")
    assert torch_rewrites.spell_operators_as_bitwise(module) == 0


@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.int64])
def test_compiled_operators_return_eager_values(dtype: Any) -> None:
    program, args = _program(dtype)
    _assert_eager(program, Operators(), args)


def test_numbers_become_0d_tensors_of_the_tensors_type() -> None:
    a = torch.tensor([1, -2, 3], dtype=torch.int8)
    module = aot.export(torch.export.export(WithNumbers(), (a,))).mlir_module
    assert torch_rewrites.spell_operators_as_bitwise(module) == 8
    after = str(module)
    for operator in ("__or__", "__xor__", "__and__"):
        assert operator not in after
    # In range: as it was; out of range, `a << 40` is `a & 0` and `a >> 40` and `a >> -1`
    # are `a >> 7`.
    assert after.count("torch.aten.__lshift__.Scalar") == 1
    assert after.count("torch.aten.__rshift__.Scalar") == 1
    assert after.count("torch.aten.bitwise_right_shift.Tensor") == 2
    for literal in ("6", "3", "5", "-1", "44", "0", "7"):
        assert f"torch.vtensor.literal(dense<{literal}> : tensor<si8>)" in after


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64])
def test_operators_with_numbers_return_eager_values(dtype: Any) -> None:
    a = torch.tensor([1, 8, 3, 5, 100], dtype=dtype)
    if dtype != torch.uint8:
        a = a * torch.tensor([1, -1, 1, -1, 1], dtype=dtype)
    _assert_eager(torch.export.export(WithNumbers(), (a,)), WithNumbers(), (a,))


def test_bool_operators_with_numbers_return_eager_values() -> None:
    m = torch.tensor([True, False, True])
    _assert_eager(torch.export.export(BoolNumbers(), (m,)), BoolNumbers(), (m,))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int32, torch.int64])
def test_shifts_of_two_tensors_return_eager_values(dtype: Any) -> None:
    a = torch.tensor([1, 8, 3, 5, 100], dtype=dtype)
    b = torch.tensor([0, 1, 2, 3, 4], dtype=dtype)
    _assert_eager(torch.export.export(Shifts(), (a, b)), Shifts(), (a, b))


def _assert_eager(program: Any, model: Any, args: tuple[Any, ...]) -> None:
    compiled = compile_quietly(program)
    got = compiled.main(*args)
    expected = model(*args)
    assert len(got) == len(expected)
    for item, want in zip(got, expected, strict=True):
        assert item.dtype == want.dtype
        assert torch.equal(item, want), (item, want)


class IndexCopy(torch.nn.Module):
    """`index_copy` into a buffer the forward updates (transformers' `StaticCache` writes a
    step's keys so), at dim 2 and at dim -1, returning the updated buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 2, 6, 3))
        self.register_buffer("last", torch.zeros(2, 5))

    def forward(self, position: Any, key: Any, row: Any) -> Any:
        self.cache.index_copy_(2, position, key)
        self.last.index_copy_(-1, position, row)
        return self.cache * 1, self.last + 0


def test_index_copy_becomes_index_put() -> None:
    position = torch.tensor([4, 1])
    program = torch.export.export(
        IndexCopy(), (position, torch.ones(1, 2, 2, 3), torch.ones(2, 2))
    ).run_decompositions({})
    module = aot.export(program).mlir_module
    assert str(module).count('"torch.aten.index_copy"') == 2
    assert torch_rewrites.index_copy_as_index_put(module) == 2
    after = str(module)
    assert "index_copy" not in after
    assert after.count("torch.aten.index_put") == 2
    assert torch_rewrites.index_copy_as_index_put(module) == 0


def test_compiled_index_copy_updates_the_buffers_as_eager() -> None:
    """Three calls on one compiled module: each writes into what the last left (the
    buffers are the module's state), as eager torch does."""
    args = (torch.tensor([4, 1]), torch.arange(12.0).reshape(1, 2, 2, 3), torch.ones(2, 2))
    compiled = compile_quietly(torch.export.export(IndexCopy(), args))
    eager = IndexCopy()
    for step in range(3):
        position = torch.tensor([step, 5 - step])
        key = torch.arange(12.0).reshape(1, 2, 2, 3) * (step + 1)
        row = torch.full((2, 2), float(step + 7))
        row[1, 0] = -1.0
        got = compiled.main(position[:2].clamp(max=4), key, row)
        want = eager(position[:2].clamp(max=4), key, row)
        for item, expected in zip(got, want, strict=True):
            assert torch.equal(item, expected), (step, item, expected)


class GroupedAttention(torch.nn.Module):
    """One query row for each of 4 heads against 2 key and value heads of 6 positions,
    repeated for their groups as transformers' `repeat_kv` writes it (``groups=False``:
    4 key and value heads, no repeat)."""

    def __init__(self, scale: float | None = None, groups: bool = True) -> None:
        super().__init__()
        self.scale, self.groups = scale, groups

    def forward(self, q: Any, k: Any, v: Any, mask: Any = None) -> Any:
        if self.groups:
            k = k[:, :, None, :, :].expand(1, 2, 2, 6, 8).reshape(1, 4, 6, 8)
            v = v[:, :, None, :, :].expand(1, 2, 2, 6, 8).reshape(1, 4, 6, 8)
        return torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, scale=self.scale
        )


def _attention_args(mask: Any, groups: bool = True) -> tuple[Any, ...]:
    generator = torch.Generator().manual_seed(0)
    heads = 2 if groups else 4
    q, k, v = (
        torch.randn(shape, generator=generator)
        for shape in ((1, 4, 1, 8), (1, heads, 6, 8), (1, heads, 6, 8))
    )
    return (q, k, v) if mask is None else (q, k, v, mask)


def _masks() -> dict[str, Any]:
    """Masks of one query row: a static cache's (keys past position 3 hidden), one row
    per head (the last head allowed no key: torch gives 0 there), an additive one."""
    cache = torch.arange(6) <= 3
    per_head = torch.ones(1, 4, 1, 6, dtype=torch.bool)
    per_head[0, 1, 0, 2:] = False
    per_head[0, 3] = False
    additive = torch.zeros(1, 1, 1, 6)
    additive[..., 4:] = float("-inf")
    additive[..., 0] = -1.5
    return {
        "cache": cache.reshape(1, 1, 1, 6),
        "per_head": per_head,
        "additive": additive,
        "none": None,
    }


def test_single_query_attention_becomes_its_math_on_the_kv_heads() -> None:
    mask = _masks()["cache"]
    program = torch.export.export(GroupedAttention(), _attention_args(mask))
    module = aot.export(program).mlir_module
    assert str(module).count("torch.aten.scaled_dot_product_attention") == 1
    assert torch_rewrites.single_query_attention(module) == 1
    after = str(module)
    assert "scaled_dot_product_attention" not in after
    # The group's 2 query heads are the rows of the key's head's query; the keys are cut
    # after the last one the mask allows (a length the products take at run time).
    assert "-> !torch.vtensor<[1,2,2,8],f32>" in after
    assert "-> !torch.vtensor<[1,2,2,?],f32>" in after
    assert after.count("torch.aten.slice.Tensor") == 3
    assert torch_rewrites.single_query_attention(module) == 0


class Prefill(torch.nn.Module):
    def forward(self, q: Any, k: Any, v: Any) -> Any:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_attention_of_several_causal_query_rows_stays() -> None:
    q = torch.ones(1, 4, 3, 8)
    program = torch.export.export(Prefill(), (q, q, q))
    module = aot.export(program).mlir_module
    assert torch_rewrites.single_query_attention(module) == 0
    assert torch_rewrites.prompt_attention(module) == 0  # is_causal: not taken
    assert "torch.aten.scaled_dot_product_attention" in str(module)


@pytest.mark.parametrize("mask", list(_masks()))
@pytest.mark.parametrize("scale", [None, 0.3])
def test_compiled_single_query_attention_returns_eager_values(
    mask: str, scale: float | None
) -> None:
    args = _attention_args(_masks()[mask])
    model = GroupedAttention(scale)
    compiled = compile_quietly(torch.export.export(model, args))
    torch.testing.assert_close(compiled.main(*args), model(*args), rtol=1e-5, atol=1e-6)


def test_compiled_attention_without_repeated_heads_returns_eager_values() -> None:
    args = _attention_args(_masks()["per_head"], groups=False)
    model = GroupedAttention(groups=False)
    compiled = compile_quietly(torch.export.export(model, args))
    got = compiled.main(*args)
    torch.testing.assert_close(got, model(*args), rtol=1e-5, atol=1e-6)
    assert torch.equal(got[0, 3], torch.zeros(1, 8))  # a head that allows no key


class Diffs(torch.nn.Module):
    """`torch.diff` as transformers' packed-sequence check writes it (`prepend`, at -1),
    of a higher order with `append`, at dim 0, of bools, and past its length (empty)."""

    def forward(self, ids: Any, x: Any, flags: Any) -> Any:
        return (
            torch.diff(ids, prepend=ids[:, :1] - 1, dim=-1),
            torch.diff(x, n=2, dim=0, append=x[:1] * 3),
            torch.diff(x, dim=1),
            torch.diff(flags),
            torch.diff(ids, n=9),
        )


def _diff_args() -> tuple[Any, ...]:
    ids = torch.tensor([[0, 1, 2, 0, 1, 7]])
    x = torch.tensor([[1.5, -2.0, 4.0], [0.25, 8.0, -1.0], [3.0, 3.0, 9.5]])
    return ids, x, torch.tensor([True, False, False, True, True])


def test_diff_becomes_subtractions_of_slices() -> None:
    module = aot.export(torch.export.export(Diffs(), _diff_args())).mlir_module
    assert str(module).count('"torch.aten.diff"') == 5
    assert torch_rewrites.diff_as_subtractions(module) == 5
    after = str(module)
    assert "torch.aten.diff" not in after
    # One sub per order (1 + 2 + 1; n=9 on 6 ids stops at the 7th, which is empty).
    assert after.count("torch.aten.sub.Tensor") == 1 + 2 + 1 + 7
    assert after.count("torch.aten.logical_xor") == 1
    assert after.count("torch.aten.cat") == 2
    assert torch_rewrites.diff_as_subtractions(module) == 0


def test_compiled_diff_returns_eager_values() -> None:
    args = _diff_args()
    _assert_eager(torch.export.export(Diffs(), args), Diffs(), args)


def test_compiled_diff_of_a_dynamic_length_returns_eager_values() -> None:
    class PackedCheck(torch.nn.Module):
        def forward(self, ids: Any) -> Any:
            return torch.diff(ids, prepend=ids[:, :1] - 1, dim=-1) != 1

    ids = torch.tensor([[0, 1, 2, 0, 1, 7]])
    length = torch.export.Dim("length", max=64)
    program = torch.export.export(PackedCheck(), (ids,), dynamic_shapes=({1: length},))
    compiled = compile_quietly(program)
    for row in ([[4, 5, 6]], [[0, 1, 2, 0, 1, 7, 8, 0]]):
        value = torch.tensor(row)
        assert torch.equal(torch.as_tensor(compiled.main(value)), PackedCheck()(value))


class GroupedPrompt(torch.nn.Module):
    """A prompt's attention: ``L`` query rows (dynamic in the export) for each of 4 heads
    against 2 key and value heads of 6 positions, repeated as `repeat_kv` writes it."""

    def forward(self, q: Any, k: Any, v: Any, mask: Any) -> Any:
        k = k[:, :, None, :, :].expand(1, 2, 2, 6, 8).reshape(1, 4, 6, 8)
        v = v[:, :, None, :, :].expand(1, 2, 2, 6, 8).reshape(1, 4, 6, 8)
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _prompt_masks(rows: int) -> dict[str, Any]:
    """Masks of ``rows`` query rows at positions 1..rows of a 6-key cache: causal (the
    keys past the last row's position hidden from all), one per head (a row of head 3
    allows no key: torch gives 0 there), additive."""
    causal = torch.arange(6)[None, :] <= torch.arange(1, rows + 1)[:, None]
    per_head = causal.expand(4, rows, 6).clone()
    per_head[3, 0] = False
    additive = torch.where(causal, -0.5 * torch.arange(6.0), float("-inf"))
    return {
        "causal": causal.reshape(1, 1, rows, 6),
        "per_head": per_head.reshape(1, 4, rows, 6),
        "additive": additive.reshape(1, 1, rows, 6),
    }


def _prompt_args(mask: str, rows: int) -> tuple[Any, ...]:
    generator = torch.Generator().manual_seed(1)
    q, k, v = (
        torch.randn(shape, generator=generator)
        for shape in ((1, 4, rows, 8), (1, 2, 6, 8), (1, 2, 6, 8))
    )
    return q, k, v, _prompt_masks(rows)[mask]


def _prompt_program(mask: str) -> Any:
    rows = torch.export.Dim("rows", min=2, max=5)
    shapes = {"q": {2: rows}, "k": None, "v": None, "mask": {2: rows}}
    return torch.export.export(GroupedPrompt(), _prompt_args(mask, 3), dynamic_shapes=shapes)


def test_prompt_attention_becomes_its_math_on_the_kv_heads() -> None:
    module = aot.export(_prompt_program("causal")).mlir_module
    assert torch_rewrites.single_query_attention(module) == 0
    assert torch_rewrites.prompt_attention(module) == 1
    after = str(module)
    assert "scaled_dot_product_attention" not in after
    # The 2 query heads of a group, each with its rows, are the rows of the key head's
    # query; the mask's rows repeated for them; the keys cut after the last one allowed.
    assert "-> !torch.vtensor<[1,2,?,8],f32>" in after
    assert "-> !torch.vtensor<[1,1,2,?,6],i1>" in after
    assert after.count("torch.aten.slice.Tensor") == 3
    # The softmax written out (IREE's `linalg.softmax` of dynamic rows and keys is slow).
    assert "_safe_softmax" not in after
    assert after.count("torch.aten.exp ") == 1 and after.count("torch.aten.amax ") == 1
    assert after.count("torch.aten.masked_fill.Scalar ") == 2
    assert torch_rewrites.prompt_attention(module) == 0


def test_an_additive_mask_keeps_the_softmax_op() -> None:
    """With an additive mask the keys are not cut (their number static): the softmax
    stays IREE's op, which IREE 3.13 compiles to the right values there (the written-out
    form gave a key head's rows 0)."""
    module = aot.export(_prompt_program("additive")).mlir_module
    assert torch_rewrites.prompt_attention(module) == 1
    after = str(module)
    assert after.count("torch.aten._safe_softmax ") == 1 and "torch.aten.amax " not in after


@pytest.mark.parametrize("mask", ["causal", "per_head", "additive"])
def test_compiled_prompt_attention_returns_eager_values(mask: str) -> None:
    compiled = compile_quietly(_prompt_program(mask))
    for rows in (2, 3, 5):
        args = _prompt_args(mask, rows)
        got = compiled.main(*args)
        torch.testing.assert_close(got, GroupedPrompt()(*args), rtol=1e-5, atol=1e-6)
    if mask == "per_head":
        assert torch.equal(got[0, 3, 0], torch.zeros(8))  # a row that allows no key
