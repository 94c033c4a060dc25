"""One signature with many leaves is linear in both lowering passes (bench/RESULTS.md): the
entry block's arguments are rebuilt once per function, not once per leaf (each of xDSL's
`Block.insert_arg`/`erase_arg` renumbers every argument after it: quadratic). Timing
lives in bench/bench_many_leaves.py; here the number of argument-list rebuilds is
counted."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from xdsl.ir import Block

from tests.lowering import helpers

LEAVES = 300


def module_text(leaves: int) -> str:
    inner = "tuple<" + ", ".join(["i32"] * (leaves // 2)) + ">"
    return (
        f'func.func @f(%p: {inner}, %x: f32, %q: tuple<{inner}, !abi.dict<"k": i8>>) '
        f"-> f32 {{\n  func.return %x : f32\n}}\n"
    )


@contextmanager
def counting_argument_edits() -> Iterator[list[str]]:
    calls: list[str] = []
    originals = {name: getattr(Block, name) for name in ("insert_arg", "erase_arg")}

    def counted(name: str) -> Any:
        def call(self: Block, *args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return originals[name](self, *args, **kwargs)

        return call

    for name in originals:
        setattr(Block, name, counted(name))
    try:
        yield calls
    finally:
        for name, original in originals.items():
            setattr(Block, name, original)


@pytest.mark.parametrize("pipeline", ["flatten-signatures", "wrap-entry-points"])
def test_no_per_leaf_argument_edits(pipeline: str) -> None:
    module = helpers.parse(module_text(LEAVES))
    with counting_argument_edits() as calls:
        helpers.apply_passes(module, [pipeline])
    assert calls == []
    func = helpers.function(module, "f" if pipeline == "flatten-signatures" else "_f")
    assert len(func.body.blocks.first.args) == 2 * (LEAVES // 2) + 2
    assert [arg.index for arg in func.body.blocks.first.args] == list(range(2 * (LEAVES // 2) + 2))
