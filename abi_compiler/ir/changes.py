"""Which top-level operations a pass changed, so that `abi-opt` re-verifies only those.

MLIR drivers verify the whole module after every pass. On a large module that costs as
much as a pass (xDSL's generic op verifier visits every op), although a lowering pass
usually rewrites a fraction of the functions. A pass that declares
`reports_changes = True` calls `changed(op)` for every top-level operation (a function)
it creates or modifies, in its body, signature or attributes, and `changed_everything()`
when it cannot say (a module-wide rename): the driver then verifies the module op itself
(its symbol table), the reported operations, and everything when asked to. A pass that
does not declare it is verified in full, as before.

Outside a recording (a pass applied by a test, or by another driver) the calls do
nothing.
"""

from __future__ import annotations

from xdsl.ir import Operation


class ChangeSet:
    """The top-level operations a pass reported, in the order first reported."""

    def __init__(self) -> None:
        self.operations: dict[Operation, None] = {}
        self.everything = False


_active: ChangeSet | None = None


def start() -> ChangeSet:
    """Begin recording the changes of one pass (ends the previous recording)."""
    global _active
    _active = ChangeSet()
    return _active


def stop() -> ChangeSet | None:
    """End the recording; the changes recorded, if one was active."""
    global _active
    recorded, _active = _active, None
    return recorded


def changed(op: Operation) -> None:
    """``op``, a top-level operation, was created or modified."""
    if _active is not None:
        _active.operations[op] = None


def changed_everything() -> None:
    """The pass changed more than it can list: verify everything."""
    if _active is not None:
        _active.everything = True
