"""Linear-time symbol lookups while verifying.

xDSL's `SymbolTable.lookup_symbol` scans the symbol table's block on every call, and
`func.call`'s verifier calls it once per call: verifying a module with n functions and
n calls is O(n²) (a module of 10 000 functions spends most of its verification time
there). `cached_symbol_lookups()` makes each lookup a dictionary access, with the
dictionary of a symbol table built on its first lookup. The IR must not change while it
is active (verification only reads it); results are those of xDSL's lookup (the first
symbol of a name wins), and anything unusual (a malformed `sym_name`, a table without
exactly one block) falls back to xDSL's own lookup, errors included.

`nearest_symbol_table` fixes one xDSL difference from MLIR for every lookup: an op of an
unknown dialect claims every trait in xDSL (`UnregisteredOp.has_trait` is True), so a
`func.call` inside a `"stablehlo.while"` region was looked up in that region and not
found. As in MLIR, an unregistered op is not a symbol table; `install_lookup_fix`
(called by `xdsl_compat.install`) makes xDSL's own lookup skip it too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

_Lookup = Callable[[Operation, str | StringAttr | SymbolRefAttr], Operation | None]


def nearest_symbol_table(op: Operation) -> Operation | None:
    """``op`` or its closest ancestor that is a symbol table; ops of unknown dialects are
    not (as in MLIR)."""
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable, value_if_unregistered=False):
        anchor = anchor.parent_op()
    return anchor


_xdsl_lookup: _Lookup = SymbolTable.lookup_symbol


def lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
    """xDSL's `SymbolTable.lookup_symbol`, from the nearest registered symbol table."""
    anchor = nearest_symbol_table(op)
    return _xdsl_lookup(op if anchor is None else anchor, name)


def install_lookup_fix() -> None:
    SymbolTable.lookup_symbol = staticmethod(lookup_symbol)  # type: ignore[method-assign]


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
    original: _Lookup = SymbolTable.lookup_symbol
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

    SymbolTable.lookup_symbol = staticmethod(lookup)  # type: ignore[method-assign]
    try:
        yield
    finally:
        SymbolTable.lookup_symbol = staticmethod(original)  # type: ignore[method-assign, assignment]
