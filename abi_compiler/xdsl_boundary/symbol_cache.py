"""Linear-time symbol lookups while verifying (a speed-up: docs/xdsl-fixes.md,
"Symbol lookups while verifying").

xDSL's `SymbolTable.lookup_symbol` scans the symbol table's block on every call, and
`func.call`'s verifier calls it once per call: verifying a module with n functions and
n calls is O(n²) (a module of 10 000 functions spends most of its verification time
there). Within `cached_symbol_lookups()`, a run's lookups (`mlir_compat.lookup_symbol`,
which is xDSL's lookup in a run's thread) are dictionary accesses, the dictionary of a
symbol table built on its first lookup. Nothing of xDSL is replaced here: the tables
belong to the current thread. The IR must not change while it is active (verification
only reads it); results are those of xDSL's lookup (the first symbol of a name wins), and
anything unusual (a malformed `sym_name`, a table without exactly one block) falls back
to xDSL's own lookup, errors included.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from abi_compiler.xdsl_boundary.xdsl_compat import SymbolLookup


def _symbols(table_op: Operation) -> dict[str, Operation] | None:
    """Name -> first symbol of that name in ``table_op``; None when xDSL's lookup should
    decide (it may raise)."""
    if len(table_op.regions) != 1 or len(table_op.regions[0].blocks) != 1:
        return None
    symbols: dict[str, Operation] = {}
    for op in table_op.regions[0].block.ops:
        interface = op.get_trait(SymbolOpInterface)
        if interface is None:
            continue
        try:
            name = interface.get_sym_attr_name(op)
        except VerifyException:
            return None
        if name is not None:
            symbols.setdefault(name.data, op)
    return symbols


#: The symbol tables of the verification in progress in this thread, by table op.
_TABLES: ContextVar[dict[Operation, dict[str, Operation] | None] | None] = ContextVar(
    "abi_compiler_symbol_tables", default=None
)


@contextmanager
def cached_symbol_lookups() -> Iterator[None]:
    """Within the block, a run's symbol lookups in this thread answer from a per-table
    dictionary."""
    token = _TABLES.set({})
    try:
        yield
    finally:
        _TABLES.reset(token)


def lookup(
    anchor: Operation, name: str | StringAttr | SymbolRefAttr, original: SymbolLookup
) -> Operation | None:
    """``name`` looked up in the symbol table ``anchor``: from its dictionary within
    `cached_symbol_lookups`, else by ``original`` (xDSL's lookup)."""
    tables = _TABLES.get()
    if tables is None:
        return original(anchor, name)
    if anchor in tables:
        symbols = tables[anchor]
    else:
        symbols = tables[anchor] = _symbols(anchor)
    if symbols is None:
        return original(anchor, name)
    reference = SymbolRefAttr(name) if isinstance(name, str | StringAttr) else name
    found = symbols.get(reference.root_reference.data)
    if found is None or not reference.nested_references.data:
        return found
    nested_root, *nested = reference.nested_references.data
    return SymbolTable.lookup_symbol(found, SymbolRefAttr(nested_root, nested))
