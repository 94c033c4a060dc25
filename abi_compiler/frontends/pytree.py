"""A framework's pytrees ↔ the records of the compiled function (docs/spec.md §3.4).

JAX and torch describe what a function takes and returns as pytrees: tuples, lists,
dicts, namedtuples, other registered nodes, `None`, and leaves. A frontend describes each
root as a `Tree`, children in the framework's flatten order, and gets from `structure`

* the index path of every flat argument and result of the exported function (the leaves
  that have a record, in flatten order), to write as `abi.index_path` (docs/spec.md §3.2): the
  V1 wrapper (`wrap-entry-points`) is built from them;
* the `iree.abi` JSON of the original structure, to write as the function's `iree.abi`
  attribute, which `materialize-iree-abi` moves into `iree.reflection` as it is (docs/spec.md §7):
  index paths alone make every argument sequence a list and every result sequence a
  tuple, the JSON keeps `tuple` → `stuple` and `list` → `slist`;

and a `TreeAdapter` (`abi_compiler.frontends.CallAdapter`) that puts the original call in
front of the compiled function.

The mapping (docs/spec.md §3.4): positional parameters are positional roots, keyword parameters
`named` roots after them; `tuple` and namedtuple → `stuple`, `list` → `slist`, `dict` →
`sdict`, other registered nodes → `stuple` of their children. A `None` leaf, a leaf the
export dropped (an unused argument, a constant torch specialized) and a structure with no
other leaves have no record: sequences are numbered without them (no gaps, so IREE's own
`FunctionInvoker` can call the function too) and the adapter drops their values, after
checking them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from typing import Any, Literal

from abi_compiler.calling.marshal import (
    dtype_int_range,
    int_misfit,
    torch_array,
    unexpected_keyword,
    value_shape,
)
from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.errors import AbiError
from abi_compiler.frontends.dims import Constraint, Dim, DimExpr, DimRelations, LeafDims
from abi_compiler.model import (
    Argument,
    Dict,
    IndexPath,
    IndexPathComponent,
    Leaf,
    Node,
    Sequence,
    Signature,
    ValueType,
)

__all__ = ["Structure", "Tree", "TreeAdapter", "structure"]

TreeKind = Literal["leaf", "none", "tuple", "list", "dict", "node"]


@dataclass(frozen=True, eq=False)
class Tree:
    """One node of a framework's pytree.

    * ``"leaf"``: a value of the flat function (``kept``), or one the export dropped
      (``kept=False``: no record; ``check`` says whether a value is acceptable);
    * ``"none"``: a `None` leaf (no record);
    * ``"tuple"`` / ``"list"``: a sequence; ``cls`` is a namedtuple class to rebuild
      (None: a plain tuple);
    * ``"dict"``: ``keys`` name the children, in the framework's order (a result is
      rebuilt in that order);
    * ``"node"``: another registered node of class ``cls``: ``flatten`` gives an
      instance's children, ``unflatten`` builds one from them.

    ``meta`` is the frontend's own information about a leaf (a torch dtype), handed to
    the adapter's leaf converter; ``check`` (leaves) returns what is wrong with a value,
    or None. ``dtype`` is the numpy name of a kept leaf's element type in the framework
    (``"uint8"``: the records say only `i8`), ``dims`` its dims as
    `abi_compiler.frontends.dims` relates them (None: static, as the records say)."""

    kind: TreeKind
    children: tuple[Tree, ...] = ()
    keys: tuple[str, ...] = ()
    cls: type | None = None
    flatten: Callable[[Any], SequenceABC[Any]] | None = None
    unflatten: Callable[[list[Any]], Any] | None = None
    kept: bool = True
    meta: Any = None
    check: Callable[[Any], str | None] | None = None
    dtype: str | None = None
    dims: tuple[Dim, ...] | None = None

    @functools.cached_property
    def checked(self) -> bool:
        """Whether a kept leaf's value is checked beyond its record: an integer dtype
        (its signedness and range) or dims related to others."""
        return self.kind == "leaf" and (
            (self.dtype is not None and dtype_int_range(self.dtype) is not None)
            or _relates(self.dims)
        )

    @functools.cached_property
    def has_record(self) -> bool:
        """Whether the value has a record: a kept leaf, or a structure with one below."""
        if self.kind == "leaf":
            return self.kept
        return any(child.has_record for child in self.children)

    @functools.cached_property
    def plain(self) -> bool:
        """Whether a caller's value can go to the compiled function as it is, the records
        checking it (`abi_compiler.runtime.pack`): every leaf has a record and no check,
        and every structure is a sequence or dict."""
        if self.kind == "leaf":
            return self.kept and self.check is None and not self.checked
        if self.kind not in ("tuple", "list", "dict"):
            return False
        return bool(self.children) and all(child.plain for child in self.children)

    @functools.cached_property
    def leaf_count(self) -> int:
        """How many leaves with a record are below (the flat values this tree holds)."""
        if self.kind == "leaf":
            return int(self.kept)
        return sum(child.leaf_count for child in self.children)

    def describe(self) -> str:
        if self.kind == "dict":
            return f"a dict with keys {sorted(self.keys)}"
        if self.kind in ("tuple", "list"):
            name = self.cls.__name__ if self.cls is not None else self.kind
            return f"a {name} of {len(self.children)} values"
        if self.kind == "node":
            return f"a {self.cls.__name__ if self.cls else 'node'}"
        return "None" if self.kind == "none" else "a value"


@dataclass(frozen=True)
class Structure:
    """What a frontend writes on the exported function (`structure`)."""

    #: ``abi.index_path`` of each flat argument, in order.
    argument_paths: tuple[IndexPath, ...]
    #: ``abi.index_path`` of each flat result, in order.
    result_paths: tuple[IndexPath, ...]
    #: The `iree.abi` JSON of the original structure.
    abi: str


def structure(
    positional: SequenceABC[Tree],
    keywords: Mapping[str, Tree],
    result: Tree,
    argument_types: SequenceABC[ValueType],
    result_types: SequenceABC[ValueType],
) -> Structure:
    """The index paths and `iree.abi` JSON of a function whose flat arguments are the
    kept leaves of ``positional`` then ``keywords`` (in order) and whose flat results are
    those of ``result``; ``argument_types`` / ``result_types`` are the flat values' types,
    read from the exported function. A count that disagrees is an `AbiError`."""
    roots = [tree for tree in positional if tree.has_record]
    named = [(name, tree) for name, tree in keywords.items() if tree.has_record]
    expected = sum(tree.leaf_count for tree in roots) + sum(t.leaf_count for _, t in named)
    if expected != len(argument_types) or result.leaf_count != len(result_types):
        raise AbiError(
            f"the exported function takes {_count(len(argument_types), 'value')} and "
            f"returns {len(result_types)}, its program's trees describe {expected} and "
            f"{result.leaf_count}"
        )
    argument_paths: list[IndexPath] = []
    arguments: list[Argument] = []
    builder = _Records(argument_types, argument_paths)
    for position, tree in enumerate(roots):
        arguments.append(Argument(position, builder.node(tree, (position,))))
    for offset, (name, tree) in enumerate(named):
        arguments.append(Argument(len(roots) + offset, builder.node(tree, (name,)), name))
    result_paths: list[IndexPath] = []
    results = (_Records(result_types, result_paths).node(result, ()),) if result.has_record else ()
    return Structure(
        tuple(argument_paths),
        tuple(result_paths),
        encode_json(Signature(tuple(arguments), results)),
    )


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class _Records:
    """Numbers the kept leaves in flatten order and records their paths."""

    def __init__(self, types: SequenceABC[ValueType], paths: list[IndexPath]) -> None:
        self.types = types
        self.paths = paths

    def node(self, tree: Tree, path: IndexPath) -> Node:
        if tree.kind == "leaf":
            index = len(self.paths)
            self.paths.append(path)
            return Leaf(self.types[index], index)
        kept = [(key, child) for key, child in _keyed_children(tree) if child.has_record]
        if tree.kind == "dict":
            items = [(str(key), self.node(child, (*path, key))) for key, child in kept]
            return Dict.sorted(items)
        nodes = tuple(self.node(child, (*path, k)) for k, (_, child) in enumerate(kept))
        return Sequence("list" if tree.kind == "list" else "tuple", nodes)


def _keyed_children(tree: Tree) -> list[tuple[IndexPathComponent, Tree]]:
    if tree.kind == "dict":
        return list(zip(tree.keys, tree.children, strict=True))
    return list(enumerate(tree.children))


# --------------------------------------------------------------------------------------
# The adapter: the original call ↔ the compiled function's.
# --------------------------------------------------------------------------------------


class _Misfit(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.reversed_path: list[IndexPathComponent] = []


def _path_text(root: IndexPathComponent, path: SequenceABC[IndexPathComponent]) -> str:
    """`argument 'x'[0]['b']`, as `abi_compiler.runtime` names values."""
    text = f"argument {root!r}" if isinstance(root, str) else f"argument {root}"
    return text + "".join(f"[{key!r}]" if isinstance(key, str) else f"[{key}]" for key in path)


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


class TreeAdapter:
    """The original call of a framework's function in front of the compiled one.

    ``arguments`` binds ``f(*args, **kwargs)`` to the trees: a value whose tree is
    `Tree.plain` goes as it is (the records check it), any other one is checked against
    its tree and rebuilt in the shape of its records (values without a record dropped).
    ``results`` rebuilds the result tree from the records' value: the original containers
    (namedtuples and other nodes rebuilt, dicts in the framework's key order), `None`
    leaves, and each leaf through ``leaf_result(value, tree)`` (the framework's tensor).

    A kept leaf with an integer ``dtype`` takes an array of exactly that dtype's
    signedness (the records are signless: a uint32 array would reach an int32 input as
    the same bits; ``convert=True`` casts it) and Python ints in its range; the leaves
    with ``dims`` are checked together against ``symbols`` (``(name, low, high)``) and
    ``constraints``: `relations`, an `abi_compiler.frontends.dims.DimRelations`."""

    def __init__(
        self,
        positional: SequenceABC[Tree],
        keywords: Mapping[str, Tree],
        result: Tree,
        leaf_result: Callable[[Any, Tree], Any] | None = None,
        symbols: SequenceABC[tuple[str, int, int | None]] = (),
        constraints: SequenceABC[Constraint] = (),
    ) -> None:
        self.positional = tuple(positional)
        self.keywords = dict(keywords)
        self.result = result
        self.leaf_result = leaf_result
        leaves: list[LeafDims] = []
        self._slots: dict[Tree, int] = {}
        roots: list[tuple[IndexPathComponent, Tree]] = [*enumerate(self.positional)]
        for root, tree in [*roots, *self.keywords.items()]:
            for leaf, path in _related_leaves(tree, ()):
                assert leaf.dims is not None
                self._slots[leaf] = len(leaves)
                leaves.append(LeafDims(_path_text(root, path), leaf.dims))
        self.relations = DimRelations(tuple(symbols), tuple(leaves), tuple(constraints))

    def arguments(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], *, convert: bool = False
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        for name in kwargs:
            if name not in self.keywords:
                raise unexpected_keyword(name, list(self.keywords))
        count = len(self.positional)
        if len(args) > count:
            # Keyword parameters may be given positionally too, in their order (as
            # `abi_compiler.runtime.pack` binds `named` records).
            names = list(self.keywords)
            extra = args[count:]
            if len(extra) > len(names):
                position = count + len(names)
                raise AbiError(
                    f"{_path_text(position, ())}: unexpected positional argument (the "
                    f"function takes {position} positional argument{'' if position == 1 else 's'})"
                )
            for name in names[: len(extra)]:
                if name in kwargs:
                    raise AbiError(
                        f"{_path_text(name, ())}: given both positionally and by keyword"
                    )
            kwargs = {**dict(zip(names, extra, strict=False)), **kwargs}
            args = args[:count]
        if len(args) < count:
            raise AbiError(f"{_path_text(len(args), ())}: missing value")
        call = _Call(convert, self._slots)
        out_args = []
        for position, (tree, value) in enumerate(zip(self.positional, args, strict=True)):
            shaped = _root(tree, value, position, call)
            if shaped is not _DROPPED:
                out_args.append(shaped)
        out_kwargs: dict[str, Any] = {}
        for name, tree in self.keywords.items():
            if name not in kwargs:
                raise AbiError(f"{_path_text(name, ())}: missing value")
            value = _root(tree, kwargs[name], name, call)
            if value is not _DROPPED:
                out_kwargs[name] = value
        if self._slots and len(call.shapes) == len(self._slots):
            # (A value without a shape, of another rank or static dim, is one the records
            # refuse.)
            self.relations.check([call.shapes[slot] for slot in range(len(self._slots))])
        return tuple(out_args), out_kwargs

    def results(self, value: Any) -> Any:
        return self._rebuild(self.result, value)

    def _rebuild(self, tree: Tree, value: Any) -> Any:
        kind = tree.kind
        if kind == "leaf":
            return self.leaf_result(value, tree) if self.leaf_result is not None else value
        if not tree.has_record:
            return _empty(tree)
        if kind == "dict":
            return {
                key: self._rebuild(child, value[key]) if child.has_record else _empty(child)
                for key, child in zip(tree.keys, tree.children, strict=True)
            }
        items = iter(value)
        children = [
            self._rebuild(child, next(items)) if child.has_record else _empty(child)
            for child in tree.children
        ]
        return _build(tree, children)


_DROPPED = object()


def _relates(dims: tuple[Dim, ...] | None) -> bool:
    """Whether a leaf's dims hold a symbol (or an expression of symbols)."""
    return dims is not None and any(isinstance(dim, (str, DimExpr)) for dim in dims)


@dataclass
class _Call:
    """What checking one call's values needs: the module's ``convert``, the slot of each
    leaf with related dims, and the shapes found for them."""

    convert: bool
    slots: Mapping[Tree, int]
    shapes: dict[int, tuple[int, ...]] = field(default_factory=dict)


def _related_leaves(tree: Tree, path: IndexPath) -> list[tuple[Tree, IndexPath]]:
    """The kept leaves below ``tree`` with dims related to others, with their paths."""
    if tree.kind == "leaf":
        return [(tree, path)] if tree.kept and _relates(tree.dims) else []
    return [
        found
        for key, child in _keyed_children(tree)
        for found in _related_leaves(child, (*path, key))
    ]


def _root(tree: Tree, value: Any, root: IndexPathComponent, call: _Call) -> Any:
    """The value a root argument passes to the compiled function, or `_DROPPED`."""
    if tree.plain:
        return value
    try:
        shaped = _shape(tree, value, call)
    except _Misfit as misfit:
        raise AbiError(
            f"{_path_text(root, misfit.reversed_path[::-1])}: {misfit.message}"
        ) from None
    return shaped if tree.has_record else _DROPPED


def _shape(tree: Tree, value: Any, call: _Call) -> Any:
    """``value`` checked against ``tree``, in the shape of its records."""
    kind = tree.kind
    if kind == "leaf":
        if tree.check is not None and (problem := tree.check(value)) is not None:
            raise _Misfit(problem)
        return _checked_leaf(tree, value, call) if tree.kept and tree.checked else value
    if kind == "none":
        if value is not None:
            raise _Misfit(f"expected None, got {_type_name(value)}")
        return None
    if kind == "dict":
        if not isinstance(value, Mapping) or set(value) != set(tree.keys):
            got = (
                f"keys {sorted(map(str, value))}"
                if isinstance(value, Mapping)
                else _type_name(value)
            )
            raise _Misfit(f"expected {tree.describe()}, got {got}")
        shaped_dict: dict[str, Any] = {}
        for key, child in zip(tree.keys, tree.children, strict=True):
            item = _child(child, value[key], key, call)
            if child.has_record:
                shaped_dict[key] = item
        return shaped_dict
    if kind == "node":
        assert tree.cls is not None and tree.flatten is not None
        if not isinstance(value, tree.cls):
            raise _Misfit(f"expected {tree.describe()}, got {_type_name(value)}")
        items = list(tree.flatten(value))
    else:
        if isinstance(value, (str, bytes, bytearray, memoryview)) or not isinstance(
            value, SequenceABC
        ):
            raise _Misfit(f"expected {tree.describe()}, got {_type_name(value)}")
        items = list(value)
        if len(items) != len(tree.children):
            raise _Misfit(f"expected {tree.describe()}, got {len(items)}")
    shaped: list[Any] = []
    for position, (child, item) in enumerate(zip(tree.children, items, strict=True)):
        checked = _child(child, item, position, call)
        if child.has_record:
            shaped.append(checked)
    return shaped


def _child(tree: Tree, value: Any, key: IndexPathComponent, call: _Call) -> Any:
    try:
        return value if tree.plain else _shape(tree, value, call)
    except _Misfit as misfit:
        misfit.reversed_path.append(key)
        raise


def _checked_leaf(tree: Tree, value: Any, call: _Call) -> Any:
    """A kept leaf's value against the framework's ``dtype`` (the sign and range of an
    integer one) and its shape recorded for the dims relations."""
    dtype = tree.dtype
    if dtype is not None and dtype_int_range(dtype) is not None:
        found = _dtype_name(getattr(value, "dtype", None))
        if found is None:
            misfit = int_misfit(value, dtype)
            if misfit is not None:
                index, message = misfit
                error = _Misfit(message)
                error.reversed_path.extend(reversed(index))
                raise error
        elif found != dtype and found.lstrip("u") == dtype.lstrip("u"):
            # The other signedness (a different width the records refuse themselves).
            if not call.convert:
                dims = ",".join(str(int(d)) for d in getattr(value, "shape", ()))
                raise _Misfit(
                    f"expected an array of {dtype}, got {found}[{dims}] (convert=True converts it)"
                )
            value = _as_numpy(value).astype(dtype)
    slot = call.slots.get(tree)
    if slot is not None and tree.dims is not None:
        shape = value_shape(value)
        # A wrong rank or static dim is the records' to refuse (in their words).
        if shape is not None and len(shape) == len(tree.dims):
            static = zip(tree.dims, shape, strict=True)
            if all(not isinstance(dim, int) or dim == size for dim, size in static):
                call.shapes[slot] = shape
    return value


def _dtype_name(dtype: Any) -> str | None:
    """A numpy or torch dtype's numpy name (``torch.int8`` → ``"int8"``); None for none."""
    if dtype is None:
        return None
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype).removeprefix("torch.")


def _as_numpy(value: Any) -> Any:
    array = torch_array(value)
    return value if array is None else array


def _empty(tree: Tree) -> Any:
    """The value of a result subtree without records: `None` leaves, empty structures."""
    if tree.kind in ("none", "leaf"):
        return None
    if tree.kind == "dict":
        return {key: _empty(child) for key, child in zip(tree.keys, tree.children, strict=True)}
    return _build(tree, [_empty(child) for child in tree.children])


def _build(tree: Tree, children: list[Any]) -> Any:
    if tree.unflatten is not None:
        return tree.unflatten(children)
    if tree.kind == "list":
        return children
    if tree.cls is not None:  # a namedtuple
        return tree.cls(*children)
    return tuple(children)
