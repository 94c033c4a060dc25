"""Warnings from passes, collected for the driver (SPEC §11).

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


def warn_once(message: str, op: Any) -> None:
    """`warn`, unless this warning about ``op`` was already emitted in this collection
    (a fact of the input several passes of a pipeline notice)."""
    sink = _active.get()
    if sink is None:
        return
    if any(w.message == message and w.op is op for w in sink.warnings):
        return
    warn(message, op)


def warn(message: str, op: Any, where: tuple[str, int] | None = None) -> None:
    """Emit a warning about ``op`` (outside `collect`, warnings are dropped: library use)."""
    sink = _active.get()
    if sink is None:
        return
    if where is not None and where[0] == "argument":
        # Pin the argument now: a later rewrite may replace the function's arguments.
        regions = getattr(op, "regions", ())
        block = regions[0].first_block if regions else None
        if block is not None and 0 <= where[1] < len(block.args):
            op, where = block.args[where[1]], None
    sink.warnings.append(Diagnostic(message, op, where))
