"""What a pass of this project states to the driver, in one place (`AbiPass`).

`abi-opt` runs any xDSL `ModulePass`; a pass derived from `AbiPass` also says

* ``preserves_validity``: it only adds reflection entries, which no verifier reads, so the
  driver does not verify the module again after it;
* ``reports_changes``: it reports every top-level op it creates or modifies through
  `abi_compiler.ir.changes`, so the driver re-verifies only those (and the module op);
* ``body_access``: which function bodies it reads or rewrites (`BodyAccess`); the driver
  parses only those and carries every other body as text (docs/carried-text.md);
* ``prepare(ctx, module)``: the pass, run as the last of a pipeline. By default it applies
  the whole pass and returns None. A pass whose output includes top-level ops that
  nothing else refers to (`wrap-entry-points`' wrappers) may instead do everything else
  and return an `OpsBefore`: given a top-level op of the module, the new op that goes
  right before it (None if none). The driver then builds, verifies, prints and drops
  those ops one at a time while printing the module, so a large module never holds all
  of them. Building one may raise a located `AbiError` but must not warn (warnings are
  collected while passes run, not while printing). The module printed must be the one
  `apply` gives. Its ``shape(top)`` may say that the op before ``top`` is a function
  calling one callee that prints exactly like every other op of the same shape key but
  for its own name and that callee's: ``(key, name, callee)``; the driver then builds,
  verifies and prints one op per key and prints the others from that text. Its
  ``text(top, printer, indent)`` may give the op before ``top`` as the text ``printer``
  would print for it at ``indent`` (from its name to its end, types and attributes
  printed by ``printer``) without building it; the driver then prints that text as
  it is (None: build the op).

The driver reads these only through `contract_of`, which gives a pass that does not
derive from `AbiPass` the safe answers: it preserves nothing, reports nothing, needs
every body and is applied whole. Warnings go through `abi_compiler.ir.diagnostics`,
errors are raised as `AbiError`s (see `abi_compiler.commands.opt_main`), a pass that
replaces an op can keep its source position with
`abi_compiler.ir.location_table.inherit_location`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable
from typing import ClassVar, NamedTuple, Protocol

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.printer import Printer

__all__ = ["AbiPass", "BodyAccess", "Contract", "OpsBefore", "contract_of"]


class BodyAccess(enum.Enum):
    """What a pass reads and rewrites of function bodies (a pass states it as its
    `body_access`; a pass that does not is taken to need `ALL`)."""

    #: Signatures and attributes only (the reflection passes).
    SIGNATURES = "signatures"
    #: The bodies of functions whose signature holds structured values, of their callers,
    #: and of functions that work with structured values (the lowering passes).
    STRUCTURED = "structured"
    #: Every body.
    ALL = "all"


class OpsBefore(Protocol):
    """Given a top-level op, the op a pass puts right before it, or None
    (`AbiPass.prepare`); ``shape`` and ``text`` as in the module docstring (None: build
    it)."""

    def __call__(self, top: Operation) -> Operation | None: ...

    def shape(self, top: Operation) -> tuple[Hashable, str, str] | None: ...

    def text(self, top: Operation, printer: Printer, indent: str) -> str | None: ...


class AbiPass(ModulePass):
    """A module pass with the driver-facing declarations above (defaults: the safe ones)."""

    preserves_validity: ClassVar[bool] = False
    reports_changes: ClassVar[bool] = False
    body_access: ClassVar[BodyAccess] = BodyAccess.ALL

    def prepare(self, ctx: Context, op: ModuleOp) -> OpsBefore | None:
        """The pass as the last of a pipeline (see the module docstring): by default
        `apply`, and None (nothing deferred)."""
        self.apply(ctx, op)
        return None


class Contract(NamedTuple):
    """What the driver may rely on about one pass (`contract_of`)."""

    preserves_validity: bool
    reports_changes: bool
    body_access: BodyAccess
    prepare: Callable[[Context, ModuleOp], OpsBefore | None]


def contract_of(module_pass: ModulePass) -> Contract:
    """The contract of any pass; a pass not derived from `AbiPass` preserves nothing,
    reports nothing, needs every body and is applied whole."""
    if isinstance(module_pass, AbiPass):
        return Contract(
            module_pass.preserves_validity,
            module_pass.reports_changes,
            module_pass.body_access,
            module_pass.prepare,
        )
    return Contract(False, False, BodyAccess.ALL, _applied_whole(module_pass))


def _applied_whole(module_pass: ModulePass) -> Callable[[Context, ModuleOp], None]:
    def prepare(ctx: Context, op: ModuleOp) -> None:
        module_pass.apply(ctx, op)

    return prepare
