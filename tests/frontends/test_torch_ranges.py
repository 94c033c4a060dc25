"""The value ranges the torch frontend finds for integer inputs that index a buffer
(`abi_compiler.frontends.torch_ranges`; docs/calling.md, "What the original call
checks"): exported programs of a few lines, analysed without compiling; and one compiled,
refusing an index out of range before the VM runs. Skipped without torch."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from abi_compiler.call_model import ValueRange  # noqa: E402
from abi_compiler.frontends.torch_ranges import value_ranges  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


class CacheWrite(torch.nn.Module):
    """A static KV cache's write, as transformers' `StaticCache` spells it: rows
    ``arange(n) + position[0]`` of a cache of 16, ``n`` the step's length; the token ids
    through an embedding of 10 rows."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 16, 4))
        self.embed = torch.nn.Embedding(10, 4)

    def forward(self, ids: Any, position: Any) -> Any:
        rows = torch.arange(ids.shape[1]) + position[0]
        self.cache.index_copy_(1, rows, self.embed(ids))
        return self.cache.sum(1)


def _ranges(module: Any, *args: Any) -> dict[str, tuple[ValueRange, ...]]:
    exported = torch.export.export(module, args)
    return value_ranges(exported.run_decompositions({}))


def test_a_cache_write_bounds_the_position_by_the_step_length() -> None:
    found = _ranges(CacheWrite(), torch.zeros(1, 3, dtype=torch.long), torch.arange(3))
    # Only position[0] indexes: it may be 0 to 16 - 3; the other positions are free.
    assert found == {
        "ids": (ValueRange(0, 9),),
        "position": (ValueRange(0, 13, (0,)),),
    }
    one = _ranges(CacheWrite(), torch.zeros(1, 1, dtype=torch.long), torch.tensor([0]))
    assert one["position"] == (ValueRange(0, 15),)


class Offsets(torch.nn.Module):
    """Indices through subtraction, reshapes, an int32 conversion, and a product (which
    the analysis does not follow)."""

    def forward(self, table: Any, a: Any, b: Any, c: Any) -> Any:
        first = table[(a - 2).view(-1).to(torch.int32)]
        second = torch.index_select(table, 0, b * 2)
        third = table.gather(0, (c.unsqueeze(1) + 1).expand(-1, 4))
        return first, second, third


def test_offsets_moves_and_conversions_are_followed_and_products_are_not() -> None:
    found = _ranges(
        Offsets(),
        torch.zeros(8, 4),
        torch.tensor([[2, 3]]),
        torch.tensor([0]),
        torch.tensor([1, 2]),
    )
    # `table[i]` takes -8 to 7 (negative from the end, in IREE too); `gather` 0 to 7.
    assert found == {"a": (ValueRange(-6, 9),), "c": (ValueRange(-1, 6),)}


class TwoInputs(torch.nn.Module):
    def forward(self, table: Any, a: Any, b: Any) -> Any:
        return table[a + b]


def test_an_index_from_two_inputs_bounds_neither() -> None:
    found = _ranges(TwoInputs(), torch.zeros(8), torch.tensor([1]), torch.tensor([2]))
    assert found == {}


def test_the_compiled_program_refuses_a_row_past_the_cache() -> None:
    """The ranges reach the compiled module's `abi.call` and its calls."""
    from tests.calling.conftest import needs_iree
    from tests.calling.helpers import compile_quietly

    needs_iree()
    pytest.importorskip("iree.turbine.aot")
    from abi_compiler.errors import AbiError

    exported = torch.export.export(
        CacheWrite(), (torch.zeros(1, 3, dtype=torch.long), torch.arange(3))
    )
    module = compile_quietly(exported)
    module.main(torch.tensor([[1, 2, 3]]), torch.tensor([13, 14, 15]))
    with pytest.raises(AbiError) as caught:
        module.main(torch.tensor([[1, 2, 3]]), torch.tensor([14, 15, 16]))
    assert str(caught.value) == (
        "argument position: value 14 at [0] is outside [0, 13]: the compiled module indexes a "
        "buffer with it"
    )


class HugeOffset(torch.nn.Module):
    """An index past any buffer's size but for a constant that would wrap int64 when
    added twice: not followed, rather than bounded by a wrapped sum."""

    def forward(self, table: Any, a: Any) -> Any:
        return table[(a + 2**62) + 2**62], table[a - 1]


def test_offsets_too_large_to_add_are_not_followed() -> None:
    found = _ranges(HugeOffset(), torch.zeros(8), torch.tensor([1]))
    assert found == {"a": (ValueRange(-7, 8),)}


class Lookups(torch.nn.Module):
    """Rows read by `index_select` and `table[i]`, and one written by `index_put`."""

    def forward(self, table: Any, i: Any, j: Any, k: Any) -> Any:
        written = table.index_put((k,), torch.ones(1))
        return torch.index_select(table, 0, i), table[j], written


def test_compiled_lookups_refuse_what_iree_would_read_or_write_past_the_table() -> None:
    """`index_select` of -1 crashed the calling process (SIGSEGV), `index_put` at -1
    wrote nothing (eager torch writes the last row): both refused. `table[j]` takes -1
    as eager torch does (the last row), and refuses -9."""
    from tests.calling.conftest import needs_iree
    from tests.calling.helpers import compile_quietly

    needs_iree()
    pytest.importorskip("iree.turbine.aot")
    from abi_compiler.errors import AbiError

    table = torch.arange(8, dtype=torch.float32) * 10
    one = torch.tensor([1])
    args = (table, torch.tensor([1]), torch.tensor([2]), torch.tensor([3]))
    module = compile_quietly(torch.export.export(Lookups(), args))
    _, row, _ = module.main(table, one, torch.tensor([-1]), one)
    assert row.tolist() == [70.0]
    for i, j, k, message in [
        (-1, 0, 0, "argument i: value -1 at [0] is outside [0, 7]"),
        (8, 0, 0, "argument i: value 8 at [0] is outside [0, 7]"),
        (0, -9, 0, "argument j: value -9 at [0] is outside [-8, 7]"),
        (0, 0, -1, "argument k: value -1 at [0] is outside [0, 7]"),
    ]:
        with pytest.raises(AbiError) as caught:
            module.main(table, torch.tensor([i]), torch.tensor([j]), torch.tensor([k]))
        assert str(caught.value).startswith(message + ":")


class PromptWrite(torch.nn.Module):
    """The cache write of a prompt of any length, as transformers' `StaticCache` writes it
    with a dynamic sequence length: rows ``position`` (one per token) of a cache of 16,
    the token ids through an embedding of 10 rows; ``shift`` indexes with ``shift - 1``
    and ``shift[1:]`` (a part of it: not a bound of every element)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 16, 4))
        self.embed = torch.nn.Embedding(10, 4)

    def forward(self, ids: Any, position: Any, shift: Any, part: Any) -> Any:
        self.cache.index_copy_(1, position.view(-1).to(torch.int32), self.embed(ids))
        shifted = self.cache[0, shift - 1]
        some = self.cache[0, part[1:]]
        return self.cache.sum(1), shifted, some


def test_an_input_of_dynamic_shape_is_bounded_as_a_whole() -> None:
    seq = torch.export.Dim("seq", min=3, max=16)
    module = PromptWrite()
    args = (
        torch.zeros(1, 3, dtype=torch.long),
        torch.arange(3),
        torch.ones(3, dtype=torch.long),
        torch.arange(3),
    )
    exported = torch.export.export(
        module,
        args,
        dynamic_shapes=({1: seq}, {0: seq}, {0: seq}, {0: seq}),
    )
    found = value_ranges(exported.run_decompositions({}))
    # Every element of ids and position indexes; shift - 1 indexes from the end too
    # (`table[i]`: [-16, 15] + 1); only a part of `part` indexes: unbounded.
    assert found == {
        "ids": (ValueRange(0, 9),),
        "position": (ValueRange(0, 15),),
        "shift": (ValueRange(-15, 16),),
    }
