"""Warnings from passes, collected for the driver (docs/spec.md §11).

Errors are raised as `AbiError` (with ``op`` and ``where`` set); warnings do not stop a
pass, so passes hand them to the active `DiagnosticSink`, and the driver prints them with
their location (or matches them against `expected-warning` annotations).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Diagnostic:
    """One warning: the message, the IR object it is about (an operation), and
    optionally which argument/result of that operation (``("argument", i)``)."""

    message: str
    op: Any
    where: tuple[str, int] | None = None


@dataclass
class DiagnosticSink:
    warnings: list[Diagnostic] = field(default_factory=list)
    # (message, id(op), where) of the warnings `warn_once` gave; the ops are kept alive
    # by `warnings`, so an id is not reused while the sink lives.
    given: set[tuple[str, int, tuple[str, int] | None]] = field(default_factory=set)


_active: ContextVar[DiagnosticSink | None] = ContextVar("abi_diagnostics", default=None)


@contextmanager
def collect() -> Iterator[DiagnosticSink]:
    """Collect the warnings emitted inside the block."""
    sink = DiagnosticSink()
    token = _active.set(sink)
    try:
        yield sink
    finally:
        _active.reset(token)


def warn(message: str, op: Any, where: tuple[str, int] | None = None) -> None:
    """Emit a warning about ``op`` (outside `collect`, warnings are dropped: library use)."""
    _warn(message, op, where, once=False)


def warn_once(message: str, op: Any, where: tuple[str, int] | None = None) -> None:
    """`warn`, unless the same warning about the same value was already given in this
    run: for facts every pass of a pipeline finds again (how a signature is read)."""
    _warn(message, op, where, once=True)


def _warn(message: str, op: Any, where: tuple[str, int] | None, once: bool) -> None:
    sink = _active.get()
    if sink is None:
        return
    if where is not None and where[0] == "argument":
        # Pin the argument now: a later rewrite may replace the function's arguments.
        regions = getattr(op, "regions", ())
        block = regions[0].first_block if regions else None
        if block is not None and 0 <= where[1] < len(block.args):
            op, where = block.args[where[1]], None
    if once:
        key = (message, id(op), where)
        if key in sink.given:
            return
        sink.given.add(key)
    sink.warnings.append(Diagnostic(message, op, where))
