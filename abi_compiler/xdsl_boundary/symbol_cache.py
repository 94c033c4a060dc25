"""Linear-time symbol lookups while verifying.

xDSL's `SymbolTable.lookup_symbol` scans the symbol table's block on every call, and
`func.call`'s verifier calls it once per call: verifying a module with n functions and
n calls is O(n²) (a module of 10 000 functions spends most of its verification time
there). `cached_symbol_lookups()` makes each lookup a dictionary access, with the
dictionary of a symbol table built on its first lookup. The IR must not change while it
is active (verification only reads it); results are those of xDSL's lookup (the first
symbol of a name wins), and anything unusual (a malformed `sym_name`, a table without
exactly one block) falls back to xDSL's own lookup, errors included.

Lookups start, as MLIR's, from the nearest symbol table that is not an op of an unknown
dialect (`xdsl_compat.nearest_symbol_table`, which `xdsl_compat.install` makes xDSL's own
lookup use too); the lookup is swapped in through `xdsl_compat.symbol_lookup_replaced`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from abi_compiler.xdsl_boundary.xdsl_compat import (
    SymbolLookup,
    nearest_symbol_table,
    symbol_lookup_replaced,
)


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


@contextmanager
def cached_symbol_lookups() -> Iterator[None]:
    """Within the block, `SymbolTable.lookup_symbol` answers from a per-table dictionary."""
    original: SymbolLookup = SymbolTable.lookup_symbol
    tables: dict[Operation, dict[str, Operation] | None] = {}

    def lookup(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
        anchor = nearest_symbol_table(op)
        if anchor is None:
            return original(op, name)
        if anchor in tables:
            symbols = tables[anchor]
        else:
            symbols = tables[anchor] = _symbols(anchor)
        if symbols is None:
            return original(op, name)
        reference = SymbolRefAttr(name) if isinstance(name, str | StringAttr) else name
        found = symbols.get(reference.root_reference.data)
        if found is None or not reference.nested_references.data:
            return found
        nested_root, *nested = reference.nested_references.data
        return SymbolTable.lookup_symbol(found, SymbolRefAttr(nested_root, nested))

    with symbol_lookup_replaced(lookup):
        yield
