"""Where each IR object was written, and the one thing passes do with it.

`LocationTable` maps parsed operations and block arguments to offsets into the input
file; the driver's parser (`abi_compiler.pipeline.locating_parser.LocatingParser`) fills it and the
driver turns offsets into `file:line:col` when it prints a diagnostic. An object without
an offset (created by a pass) is located at its nearest ancestor that has one.

Pass-facing: a pass that replaces an object can keep its position with
`inherit_location(new, old)`, which writes into the table the driver made active with
`tracking` around the passes (outside the driver it does nothing). This module imports
nothing of the driver's parser, so passes may import it, like `changes` and
`diagnostics`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from weakref import WeakKeyDictionary

from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from abi_compiler.ir.argument_names import ArgumentNames, ArgumentNameTable


class LocationTable:
    """Maps parsed IR objects (operations, block arguments) to offsets into the input file
    (`abi_compiler.pipeline.run_diagnostics.SourceFile`)."""

    def __init__(self) -> None:
        # Weak keys: an operation a pass erases (and nothing else refers to) is freed
        # with its entry, instead of being kept alive by the table until the end.
        self._offsets: WeakKeyDictionary[Any, int] = WeakKeyDictionary()
        #: The name location of each function argument (`name_locations`).
        self.argument_names = ArgumentNameTable()

    def record(self, node: Operation | SSAValue, offset: int) -> None:
        self._offsets[node] = offset

    def offset_of(self, node: Operation | SSAValue) -> int | None:
        """The recorded offset of exactly this object, if any."""
        return self._offsets.get(node)

    def locate(
        self, node: Operation | SSAValue | Block | None, where: tuple[str, int] | None = None
    ) -> int | None:
        """Offset for a diagnostic about ``node``.

        ``where = ("argument", i)`` on an operation with a body (a `func.func`) points at
        that entry-block argument; ``("result", i)`` and everything else point at the
        operation. Objects without an offset fall back to their nearest located ancestor.
        """
        if isinstance(node, Operation) and where is not None and where[0] == "argument":
            argument = _entry_argument(node, where[1])
            if argument is not None and (offset := self._offsets.get(argument)) is not None:
                return offset
        current: Any = node
        while current is not None:
            offset = self._offsets.get(current)
            if offset is not None:
                return offset
            current = _parent(current)
        return None


def _entry_argument(op: Operation, index: int) -> BlockArgument | None:
    entry = op.regions[0].first_block if op.regions else None
    if entry is None or not 0 <= index < len(entry.args):
        return None
    return entry.args[index]


def _parent(node: Any) -> Any:
    if isinstance(node, Operation | Block):
        return node.parent_op()
    if isinstance(node, BlockArgument):
        return node.owner.parent_op()
    if isinstance(node, OpResult):
        return node.owner
    return None


_active_table: ContextVar[LocationTable | None] = ContextVar("abi_locations", default=None)


@contextmanager
def tracking(table: LocationTable) -> Iterator[LocationTable]:
    """Make ``table`` the one `inherit_location` writes to (the driver wraps passes in it)."""
    token = _active_table.set(table)
    try:
        yield table
    finally:
        _active_table.reset(token)


def inherit_location(new: Operation | SSAValue, old: Operation | SSAValue) -> None:
    """Give ``new`` (created by a pass) the source position of ``old``, so diagnostics about
    ``new`` point where ``old`` was written. Does nothing outside the driver."""
    table = _active_table.get()
    if table is not None and (offset := table.locate(old)) is not None:
        table.record(new, offset)


def argument_names(func: FuncOp) -> ArgumentNames:
    """The name location of each argument of ``func`` (None where it has none), as the
    pipeline recorded it for the IR the passes are running on (`name_locations`)."""
    count = len(func.function_type.inputs.data)
    table = _active_table.get()
    found = None if table is None else table.argument_names.names(func)
    if found is None or len(found) != count:
        return (None,) * count
    return found
