"""Relations between the dynamic dimensions of a call's values (docs/calling.md).

A framework's function may declare that several values share a dynamic size: a JAX
export made with ``jax.export.symbolic_shape("b, …")`` on two arguments, a torch program
with one ``torch.export.Dim`` on two inputs. The compiled code trusts that relation (it
reads both buffers with one size), so a call that breaks it must be refused before
anything reaches the VM, as the framework refuses it. The records (`iree.abi`) only say
``?`` for such a dim; the relation is in the original call (`abi_compiler.call_model`:
its `Symbol`s, each `Array`'s `Dim`s, its `DimConstraint`s), which the frontends read
from the framework's object (`abi_compiler.frontends.jax`, `abi_compiler.frontends.torch`)
and a loaded module's call checks on every call with `DimRelations`.

A dimension is the one `abi_compiler.call_model.Dim`: an ``int`` (a static size), a
``str`` (exactly that symbol), `Terms` (a polynomial of symbols with integer
coefficients, such as ``2*b + 1``, written by `abi_compiler.codecs.call_json.format_terms`),
or None (dynamic, related to nothing). `DimRelations` is plain data — no framework, no
numpy, no xDSL — so that a process without the framework checks it the same way:

* ``symbols``: each symbol's name and bounds (a `Symbol`; no lower bound: at least 0);
* ``leaves``: per array value its path as errors name it (``argument x[0]``) and its dims;
* ``constraints``: further relations, each ``terms >= 0`` or ``terms == 0`` (JAX's
  ``constraints=["a >= b"]``), with the framework's text of it.

`DimRelations.check(shapes)` takes the shape of each leaf, in order, and raises an
`AbiError` for the first relation the call breaks. Symbols are bound in leaf order, by
the first dimension that is exactly the symbol, else by solving a dimension that is
linear in one unbound symbol (``2*b`` of size 6: ``b`` is 3). The messages (each begins
with the path of the value whose dimension breaks the relation, and names the value the
symbol was bound by):

* ``argument y[0]: dimension 0 is 5, but argument x has 3 in dimension 0 for the same
  symbol 'b'``;
* ``argument y: dimension 0 is 7, but 2*b is 6 (b is 3 from dimension 0 of argument x)``;
* ``argument y: dimension 0 is 5, which is 2*b for no whole b``;
* ``argument x: dimension 0 is 11, but symbol 'b' is at most 10`` (``at least 2``);
  ``argument z: dimension 0 is 22, so b is 11, but symbol 'b' is at most 10``;
* ``argument y: symbol 'b' is 5 from dimension 0, which breaks the constraint 'a >= b'
  (a is 3 from dimension 0 of argument x)``;
* ``argument x: dimension 1 is 5, expected 4`` (a static size; the adapters check those
  with the value's dtype first, so this one is for callers of `check` alone).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass

from abi_compiler.call_model import Dim, DimConstraint, Symbol, Terms
from abi_compiler.codecs.call_json import format_terms
from abi_compiler.errors import AbiError

__all__ = ["DimRelations", "LeafDims", "evaluate", "solve", "symbols_of"]


def symbols_of(terms: Terms) -> frozenset[str]:
    """The symbols a polynomial names."""
    return frozenset(symbol for _, symbols in terms for symbol in symbols)


def evaluate(terms: Terms, values: Mapping[str, int]) -> int:
    """The polynomial's value: the sum of ``coefficient * product(symbols)`` over its
    terms (a symbol repeated is a power; no symbols: a constant term)."""
    total = 0
    for coefficient, symbols in terms:
        product = coefficient
        for symbol in symbols:
            product *= values[symbol]
        total += product
    return total


def solve(terms: Terms, size: int, values: Mapping[str, int]) -> tuple[str, int | None] | None:
    """When the polynomial is linear in exactly one symbol not in ``values``: that symbol
    and the whole value that makes the polynomial ``size`` (None: no whole value does).
    None otherwise."""
    unknown = symbols_of(terms) - values.keys()
    if len(unknown) != 1:
        return None
    (symbol,) = unknown
    slope = rest = 0
    for coefficient, symbols in terms:
        count = symbols.count(symbol)
        if count > 1:
            return None
        product = coefficient
        for other in symbols:
            if other != symbol:
                product *= values[other]
        if count:
            slope += product
        else:
            rest += product
    if slope == 0:
        return None
    value, remainder = divmod(size - rest, slope)
    return symbol, (None if remainder else value)


@dataclass(frozen=True)
class LeafDims:
    """An array value of the call: ``path`` as errors name it, one `Dim` per axis."""

    path: str
    dims: tuple[Dim, ...]


@dataclass(frozen=True)
class DimRelations:
    """The relations between the dynamic dimensions of a call (see the module's
    documentation): the ``symbols`` with their bounds, ``leaves`` in the order `check`
    takes their shapes, ``constraints`` beyond the bounds."""

    symbols: tuple[Symbol, ...] = ()
    leaves: tuple[LeafDims, ...] = ()
    constraints: tuple[DimConstraint, ...] = ()

    @property
    def relates(self) -> bool:
        """Whether there is anything to check beyond the static sizes."""
        return any(
            not isinstance(dim, int) and dim is not None
            for leaf in self.leaves
            for dim in leaf.dims
        )

    def check(self, shapes: SequenceABC[SequenceABC[int]]) -> None:
        """Raise `AbiError` for the first relation the leaves' ``shapes`` (one per leaf,
        in order) break."""
        if len(shapes) != len(self.leaves):
            raise AbiError(
                f"the dimension relations describe {len(self.leaves)} values, got "
                f"{len(shapes)} shapes"
            )
        bounds = {s.name: (s.low if s.low is not None else 0, s.high) for s in self.symbols}
        values: dict[str, int] = {}
        # Where each symbol got its value: (leaf path, axis).
        source: dict[str, tuple[str, int]] = {}
        pending: list[tuple[str, int, int, Terms]] = []
        for leaf, shape in zip(self.leaves, shapes, strict=True):
            if len(shape) != len(leaf.dims):
                raise AbiError(
                    f"{leaf.path}: expected {len(leaf.dims)} dimensions, got {len(shape)}"
                )
            for axis, (dim, size) in enumerate(zip(leaf.dims, shape, strict=True)):
                at = f"{leaf.path}: dimension {axis} is {size}"
                if dim is None:
                    continue
                if isinstance(dim, int):
                    if size != dim:
                        raise AbiError(f"{at}, expected {dim}")
                elif isinstance(dim, str):
                    if dim in values:
                        if values[dim] != size:
                            path, where = source[dim]
                            raise AbiError(
                                f"{at}, but {path} has {values[dim]} in dimension {where} "
                                f"for the same symbol {dim!r}"
                            )
                    else:
                        _bind(bounds, dim, size, at, values)
                        source[dim] = (leaf.path, axis)
                else:
                    pending.append((leaf.path, axis, size, dim))
        _solve(bounds, pending, values, source)
        for constraint in self.constraints:
            _check_constraint(constraint, values, source)


def _bind(
    bounds: Mapping[str, tuple[int, int | None]],
    symbol: str,
    value: int,
    at: str,
    values: dict[str, int],
) -> None:
    low, high = bounds.get(symbol, (0, None))
    if value < low:
        raise AbiError(f"{at}, but symbol {symbol!r} is at least {low}")
    if high is not None and value > high:
        raise AbiError(f"{at}, but symbol {symbol!r} is at most {high}")
    values[symbol] = value


def _solve(
    bounds: Mapping[str, tuple[int, int | None]],
    pending: list[tuple[str, int, int, Terms]],
    values: dict[str, int],
    source: dict[str, tuple[str, int]],
) -> None:
    """Bind the symbols the expressions determine, then check every expression whose
    symbols are all bound (one with a symbol no value determines is left alone: the
    framework's export refuses such a function).

    Expressions are solved in passes over ``pending`` in order, as long as one binds a
    symbol; each expression is tried once, when a single symbol of it is left unbound
    (the work is linear in the expressions' size: an expression's unbound symbols are
    counted down as symbols are bound)."""
    unbound = [set(symbols_of(expr) - values.keys()) for _, _, _, expr in pending]
    having: dict[str, list[int]] = {}
    for position, symbols in enumerate(unbound):
        for symbol in symbols:
            having.setdefault(symbol, []).append(position)
    # The expressions to try in this pass (after the one tried last) and in the next.
    this_pass = [position for position, symbols in enumerate(unbound) if len(symbols) == 1]
    next_pass: list[int] = []
    while this_pass:
        heapq.heapify(this_pass)
        while this_pass:
            position = heapq.heappop(this_pass)
            path, axis, size, expr = pending[position]
            solved = solve(expr, size, values)
            if solved is None:
                continue
            symbol, value = solved
            at = f"{path}: dimension {axis} is {size}"
            if value is None:
                raise AbiError(f"{at}, which is {format_terms(expr)} for no whole {symbol}")
            _bind(bounds, symbol, value, f"{at}, so {symbol} is {value}", values)
            source[symbol] = (path, axis)
            for other in having.pop(symbol, ()):
                unbound[other].discard(symbol)
                if len(unbound[other]) != 1:
                    continue
                if other > position:
                    heapq.heappush(this_pass, other)
                else:
                    next_pass.append(other)
        this_pass, next_pass = next_pass, []
    for path, axis, size, expr in pending:
        if not symbols_of(expr) <= values.keys():
            continue
        expected = evaluate(expr, values)
        if expected != size:
            bound = ", ".join(
                f"{symbol} is {values[symbol]} from dimension {source[symbol][1]} of "
                f"{source[symbol][0]}"
                for symbol in sorted(symbols_of(expr))
            )
            raise AbiError(
                f"{path}: dimension {axis} is {size}, but {format_terms(expr)} is {expected} "
                f"({bound})"
            )


def _check_constraint(
    constraint: DimConstraint, values: dict[str, int], source: dict[str, tuple[str, int]]
) -> None:
    symbols = symbols_of(constraint.terms)
    if not symbols <= values.keys():
        return  # a symbol of no value of the call: the framework's own rule
    value = evaluate(constraint.terms, values)
    if (value >= 0) if constraint.relation == ">=" else (value == 0):
        return
    # Located at the symbol bound last (the one that broke it), the others named.
    order = {symbol: position for position, symbol in enumerate(source)}
    last = max(symbols, key=order.__getitem__)
    path, axis = source[last]
    others = ", ".join(
        f"{symbol} is {values[symbol]} from dimension {source[symbol][1]} of {source[symbol][0]}"
        for symbol in sorted(symbols - {last})
    )
    raise AbiError(
        f"{path}: symbol {last!r} is {values[last]} from dimension {axis}, which breaks "
        f"the constraint {constraint.text!r}" + (f" ({others})" if others else "")
    )
