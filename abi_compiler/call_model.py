"""The original call of a framework's function: what a frontend knows beyond the
`iree.abi` records, kept in the compiled module as the `abi.call` reflection entry
(docs/formats.md, "The original call: `abi.call`").

The records say how the compiled function takes its values: positional and named roots,
`stuple`/`slist`/`sdict`, arrays. The framework's function was called differently: with
namedtuples and dataclasses, `None` leaves, arguments the export dropped, constants torch
specialized, dicts in the framework's key order, its own tensor type, and dynamic
dimensions related by shared symbols. An `OriginalCall` describes that call, leaf by
leaf: every array the compiled function takes or returns is an `Array` naming its
position among the records' leaves (flatten order of the `iree.abi` signature), so the
original structure and the records are read together and need not have the same shape.

Pure data: no framework, no xDSL, no numpy. `abi_compiler.codecs.call_json` writes and
reads it; `abi_compiler.calling.original_call` calls with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = [
    "Array",
    "CallNode",
    "Constant",
    "Container",
    "ContainerKind",
    "Dim",
    "DimConstraint",
    "NoneLeaf",
    "OriginalCall",
    "StateGlobal",
    "Symbol",
    "TensorType",
    "Terms",
    "Unused",
    "ValueRange",
]

#: A polynomial of symbols: ``(coefficient, symbols)`` terms, a symbol repeated for a
#: power (``2*b + 1`` is ``((2, ("b",)), (1, ()))``).
Terms: TypeAlias = "tuple[tuple[int, tuple[str, ...]], ...]"

#: A dimension: a static size, a symbol, a polynomial of symbols, or None (dynamic,
#: related to nothing).
Dim: TypeAlias = "int | str | Terms | None"

#: The framework's tensor type, which results are given as.
TensorType = Literal["numpy", "torch", "jax", "tf"]

ContainerKind = Literal["tuple", "list", "dict", "namedtuple", "dataclass", "model_output", "node"]


@dataclass(frozen=True, slots=True)
class ValueRange:
    """The values an integer argument's elements may take: ``low <= value <= high`` (None:
    unbounded on that side), for the elements at the flat (row-major) indices
    ``elements`` (None: every element). A frontend records one where the compiled code
    indexes with the value and nothing checks the index (a KV cache's write position,
    an embedding's token id): a value outside would read or write outside a buffer."""

    low: int | None
    high: int | None
    elements: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Array:
    """An array (or scalar) the compiled function takes or returns: leaf ``index`` of
    the records (arguments: over all roots in order; results: over the result records).
    ``dtype`` is the framework's numpy dtype name (``"float32"``, ``"uint8"``,
    ``"bfloat16"``, ``"complex64"``; None when it has none); ``dims`` its shape (None:
    rank unknown); ``ranges`` the values an argument's elements may take (none: any)."""

    index: int
    dtype: str | None
    dims: tuple[Dim, ...] | None
    ranges: tuple[ValueRange, ...] = ()


@dataclass(frozen=True, slots=True)
class Unused:
    """An argument leaf the export dropped: a value is checked by ``dtype`` and ``dims``
    when they are known (as the framework checks it), and not passed on."""

    dtype: str | None = None
    dims: tuple[Dim, ...] | None = None


@dataclass(frozen=True, slots=True)
class Constant:
    """A value the export specialized (torch: a number, string or bool): a call must pass
    an equal value of the same type, which is not passed on. ``value`` is a JSON scalar;
    a value JSON cannot hold (a NaN, another type) is kept as its ``type`` name and
    ``repr``."""

    value: bool | int | float | str | None
    type: str
    text: str | None = None  # the repr, when ``value`` cannot hold it


@dataclass(frozen=True, slots=True)
class NoneLeaf:
    """A `None` in the structure: a call passes None; a result is None."""


@dataclass(frozen=True, slots=True)
class Container:
    """A structure node.

    * ``"tuple"``, ``"list"``: children by position;
    * ``"dict"``: ``keys`` name the children, in the framework's order (a result is built
      in that order); ``name`` the mapping's class when it is not `dict`;
    * ``"namedtuple"``, ``"dataclass"``: a type ``name`` with its fields, ``keys``;
    * ``"model_output"``: a transformers ``ModelOutput`` of type ``name``: a dict of the
      ``keys`` whose children are not None, in order, that also gives every field as an
      attribute (a None child: an attribute, not a key);
    * ``"node"``: another registered pytree node of type ``name``; ``keys`` its fields
      when its children are attributes, else empty (children by position)."""

    kind: ContainerKind
    children: tuple[CallNode, ...]
    keys: tuple[str | int, ...] = ()
    name: str | None = None
    #: A dataclass's static (meta) fields that are not values of the call (a flax
    #: struct's ``pytree_node=False`` fields), by name, with the value the export had:
    #: only numbers, strings, bools and None are recorded (a function never is).
    static: tuple[tuple[str, Constant], ...] = ()


CallNode: TypeAlias = "Array | Unused | Constant | NoneLeaf | Container"


@dataclass(frozen=True, slots=True)
class Symbol:
    """A symbolic dimension, shared by every dim spelled ``name``: a call's sizes for it
    must agree and lie in ``[low, high]`` (None: unbounded)."""

    name: str
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True, slots=True)
class DimConstraint:
    """A further relation between symbols: ``terms >= 0`` or ``terms == 0``; ``text`` is
    the framework's own spelling (``a >= b``), for messages."""

    terms: Terms
    relation: Literal[">=", "=="]
    text: str


@dataclass(frozen=True, slots=True)
class StateGlobal:
    """One mutable global of the module (its state) a function reads or writes
    (docs/formats.md, "The state a function uses": `abi.state`, and `abi.call`'s
    ``state``)."""

    #: Its symbol name (without `@`).
    name: str
    #: Its MLIR type as written (`tensor<4x8xf32>`).
    type: str
    #: Its element's numpy dtype name (`float32`), None when not known.
    dtype: str | None
    #: Its dims (None: a dynamic one); None when not known.
    shape: tuple[int | None, ...] | None
    reads: bool
    writes: bool


@dataclass(frozen=True, slots=True)
class OriginalCall:
    """``f(*positional, **keywords) -> result`` of the framework's function.

    ``labels`` are the positional parameters' names, for messages (None: by position).
    ``fixed`` are leading record leaves the caller never gives (JAX's platform index): a
    leaf index and the int it always takes. ``state``: the module's mutable globals the
    function reads or writes (its calls change or see what other calls do), in the order
    the module defines them; empty when it uses none, or when nobody recorded it.
    ``updates``: the arguments the function updates in place (a torch program's
    `user_inputs_to_mutate`), each an argument leaf and the result leaf that holds its
    new value (a result leaf ``result`` does not show): the caller writes that value
    into the array it passed. ``by_name``: the positional parameters may also be given
    by keyword, by their labels (a torch program's `forward(self, x, state)`: Python's
    positional-or-keyword parameters). ``keyword_only``: the keyword parameters are
    taken by keyword only (JAX, torch), not positionally after the positional ones."""

    positional: tuple[CallNode, ...]
    keywords: tuple[tuple[str, CallNode], ...]
    result: CallNode
    tensor: TensorType = "numpy"
    labels: tuple[str | None, ...] = ()
    symbols: tuple[Symbol, ...] = ()
    fixed: tuple[tuple[int, int], ...] = ()
    constraints: tuple[DimConstraint, ...] = ()
    state: tuple[StateGlobal, ...] = ()
    updates: tuple[tuple[int, int], ...] = ()
    by_name: bool = False
    keyword_only: bool = False
