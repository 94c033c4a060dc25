"""The ABI model: one structure tree per signature side (docs/spec.md §3).

Everything else speaks this model: the codecs encode and decode it (JSON §4, raw §5,
SIP §6), the passes build it from IR (types §3.1 or index paths §3.2) and lower IR by it
(§8), and the runtime marshals Python values with it (§10). Index paths, the natural leaf
order and flat leaf indices are computed here and nowhere else.

Pure Python: no xDSL imports, so a runtime can vendor this module with the codecs.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from typing import Literal

from abi_compiler.errors import AbiError

# --------------------------------------------------------------------------------------
# Value types: what a leaf is.
# --------------------------------------------------------------------------------------

ScalarKind = Literal["i", "si", "ui", "f", "bf"]


@dataclass(frozen=True, slots=True)
class Scalar:
    """An integer or floating point value: `i32` is ``Scalar("i", 32)``, `si8` is
    ``Scalar("si", 8)``, `ui64` ``Scalar("ui", 64)``, `f16` ``Scalar("f", 16)``, `bf16`
    ``Scalar("bf", 16)``."""

    kind: ScalarKind
    width: int


@dataclass(frozen=True, slots=True)
class NDArray:
    """A tensor: element type and dims (``None`` for a dynamic dim), or unranked when
    ``dims`` is ``None``. An element that is a reference type (``ListRef``) makes an
    ND-array of reference type (docs/spec.md §8.3)."""

    element: ValueType
    dims: tuple[int | None, ...] | None


@dataclass(frozen=True, slots=True)
class ListRef:
    """A homogeneous list reference (`!util.list<T>`); ``Unknown()`` elements for `?`."""

    element: ValueType


@dataclass(frozen=True, slots=True)
class Unknown:
    """Any type the encodings have no name for (`index`, `complex`, opaque types, …)."""


ValueType = Scalar | NDArray | ListRef | Unknown

# The largest dim the raw signature can carry (docs/spec.md §5).
MAX_RAW_DIM = 2**31 - 1

# --------------------------------------------------------------------------------------
# Structure trees.
# --------------------------------------------------------------------------------------

IndexPathComponent = int | str
IndexPath = tuple[IndexPathComponent, ...]


@dataclass(frozen=True, slots=True)
class Leaf:
    """A value of the flat function: its type (``None`` when the encoding it came from
    does not describe types, as SIP) and its flat index (position among the flat
    arguments or results of the lowered function)."""

    type: ValueType | None
    index: int
    #: The value's element type as the module's MLIR spells it (the type itself for a
    #: scalar or an unknown type), where it was read from a function type: a record says
    #: ``f8`` for every 8-bit float and ``"unknown"`` for complex, vector and memref types,
    #: a comparison of two modules (`signature_diff`) tells them apart by this. Not part
    #: of the value's identity: leaves compare by their record.
    element: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Sequence:
    """A sequence node. ``items[k]`` is the child with key ``k``; ``None`` marks a gap.
    ``kind`` tells lists (`slist`) from tuples (`stuple`)."""

    kind: Literal["list", "tuple"]
    items: tuple[Node | None, ...]


@dataclass(frozen=True, slots=True)
class Dict:
    """A dict node; ``items`` are ``(key, child)`` pairs in byte-wise sorted key order."""

    items: tuple[tuple[str, Node], ...]

    @staticmethod
    def sorted(items: SequenceABC[tuple[str, Node]]) -> Dict:
        return Dict(tuple(sorted(items, key=lambda item: dict_key_order(item[0]))))


Node = Leaf | Sequence | Dict


def dict_key_order(key: str) -> bytes:
    """Dict keys are ordered byte-wise on their UTF-8 encoding (docs/spec.md §3.1)."""
    return key.encode("utf-8", "surrogatepass")


def is_structure(node: Node | None) -> bool:
    return isinstance(node, (Sequence, Dict))


def children(node: Node) -> Iterator[tuple[IndexPathComponent, Node]]:
    """The children of a node with their keys, in key order (gaps skipped)."""
    if isinstance(node, Sequence):
        for key, child in enumerate(node.items):
            if child is not None:
                yield key, child
    elif isinstance(node, Dict):
        yield from node.items


def slots(node: Node) -> list[tuple[IndexPathComponent, Node | None]]:
    """The slots of a structure with their keys, as its record lists them and a runtime
    list holds them: a sequence by key with its gaps (``None``), a dict by sorted key; a
    leaf has none. (`children` skips the gaps.)"""
    if isinstance(node, Sequence):
        return list(enumerate(node.items))
    if isinstance(node, Dict):
        return list(node.items)
    return []


def leaf_paths(node: Node, prefix: IndexPath = ()) -> Iterator[tuple[IndexPath, Leaf]]:
    """Every leaf below ``node`` with its index path, in natural order: sequences by
    key, dicts by sorted key, depth first."""
    if isinstance(node, Leaf):
        yield prefix, node
        return
    for key, child in children(node):
        yield from leaf_paths(child, (*prefix, key))


def leaves(node: Node) -> list[Leaf]:
    return [leaf for _, leaf in leaf_paths(node)]


# The deepest value an exported signature may hold (docs/spec.md §3; a project limit, see
# docs/design.md): levels of records in its JSON encoding, as `nesting_depth` counts them.
# The codecs decode one level more (a `named` record or a SIP root around the value), so
# every signature the passes write decodes again.
MAX_STRUCTURE_DEPTH = 100


def nesting_depth(node: Node | None) -> int:
    """How many record levels the value nests: every structure, ND-array and list is one
    level (its JSON record is an array, §4.1); a scalar or unknown leaf and a gap are 0.
    Iterative, so any depth is measured without recursion."""
    deepest = 0
    pending: list[tuple[Node | ValueType | None, int]] = [(node, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Leaf):
            pending.append((item.type, depth))
        elif isinstance(item, Sequence):
            pending.extend((child, depth + 1) for child in item.items)
            deepest = max(deepest, depth + 1)
        elif isinstance(item, Dict):
            pending.extend((child, depth + 1) for _, child in item.items)
            deepest = max(deepest, depth + 1)
        elif isinstance(item, (NDArray, ListRef)):
            pending.append((item.element, depth + 1))
            deepest = max(deepest, depth + 1)
    return deepest


def check_nesting_depth(depth: int, where: tuple[str, int] | None) -> None:
    """`AbiError` about ``where`` when ``depth`` exceeds `MAX_STRUCTURE_DEPTH`."""
    if depth > MAX_STRUCTURE_DEPTH:
        raise AbiError(f"structure nested deeper than {MAX_STRUCTURE_DEPTH} levels", where=where)


def check_signature_depth(signature: Signature) -> None:
    """`check_nesting_depth` for every root argument and result of a signature built from
    types (root argument i is argument i, result i is result i)."""
    for i, argument in enumerate(signature.arguments):
        check_nesting_depth(nesting_depth(argument.node), ("argument", i))
    for i, node in enumerate(signature.results):
        check_nesting_depth(nesting_depth(node), ("result", i))


def format_index_path(path: SequenceABC[IndexPathComponent]) -> str:
    """`[0, 'k']`: how paths appear in diagnostics."""
    parts = (repr(c) if isinstance(c, str) else str(c) for c in path)
    return "[" + ", ".join(parts) + "]"


# --------------------------------------------------------------------------------------
# Signatures.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Argument:
    """A root argument: its key at the argument root, its optional name (a *named*
    argument, docs/spec.md §4.3) and its structure."""

    key: int
    node: Node
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Signature:
    """The structure of a function signature.

    ``arguments`` are the root arguments in key order (one `a` record each).
    ``results`` are the `r` records: one per typed result, or one root node for a
    structure built from index paths (a single structured result is *inlined*, §4.2).
    """

    arguments: tuple[Argument, ...]
    results: tuple[Node, ...]

    def argument_leaves(self) -> list[Leaf]:
        return [leaf for arg in self.arguments for leaf in leaves(arg.node)]

    def result_leaves(self) -> list[Leaf]:
        return [leaf for node in self.results for leaf in leaves(node)]

    @property
    def inlined_result(self) -> bool:
        """A single structured result is returned as its items (§4.2, §8.2)."""
        return len(self.results) == 1 and is_structure(self.results[0])

    def flat(self) -> FlatSignature:
        """The leaf types in flat index order (the lowered function's signature)."""
        return FlatSignature(
            tuple(_types_by_index(self.argument_leaves())),
            tuple(_types_by_index(self.result_leaves())),
        )

    def sip_roots(self) -> SipSignature:
        """The SIP view (§6): all-named arguments form a dict root keyed by name, other
        argument roots a sequence by key; several results a sequence by position."""
        inputs: Node | None = None
        names_dropped = False
        if self.arguments:
            names = [arg.name for arg in self.arguments]
            if all(name is not None for name in names):
                inputs = Dict.sorted([(arg.name or "", arg.node) for arg in self.arguments])
            else:
                names_dropped = any(name is not None for name in names)
                width = max(arg.key for arg in self.arguments) + 1
                items: list[Node | None] = [None] * width
                for arg in self.arguments:
                    items[arg.key] = arg.node
                inputs = Sequence("list", tuple(items))
        results: Node | None
        if not self.results:
            results = None
        elif len(self.results) == 1:
            results = self.results[0]
        else:
            results = Sequence("tuple", self.results)
        return SipSignature(inputs, results, names_dropped=names_dropped)


def _types_by_index(found: list[Leaf]) -> list[ValueType]:
    by_index = sorted(found, key=lambda leaf: leaf.index)
    if [leaf.index for leaf in by_index] != list(range(len(by_index))):
        raise AbiError("leaf indices are not a dense 0..n-1 range")
    return [leaf.type if leaf.type is not None else Unknown() for leaf in by_index]


@dataclass(frozen=True, slots=True)
class FlatSignature:
    """The flat argument and result types: what the raw signature `f` describes."""

    inputs: tuple[ValueType, ...]
    results: tuple[ValueType, ...]


@dataclass(frozen=True, slots=True)
class SipSignature:
    """The input and result roots SIP describes (``None``: empty root)."""

    inputs: Node | None
    results: Node | None
    names_dropped: bool = field(default=False, compare=False)


def signature_from_legacy(flat: FlatSignature, sip: SipSignature) -> Signature:
    """The legacy `f` + `sip` pair as the records V1 would give it (docs/spec.md §9.1), each leaf
    typed by its raw index in ``flat``.

    A sequence input root gives positional root arguments in key order (gaps compressed,
    as at the V1 argument root); a dict root gives named ones, in the function's argument
    order (that of each one's first raw index; an empty structure, which has none, after
    the others by key); a leaf root one positional argument. The result root is the one
    result record (a structure inlined), an empty root no result. Raises `AbiError` when
    the SIP leaves are not exactly the raw values of ``flat``.
    """
    _check_raw_indices("inputs", sip.inputs, len(flat.inputs))
    _check_raw_indices("results", sip.results, len(flat.results))
    roots: list[tuple[IndexPathComponent, Node]]
    if sip.inputs is None:
        roots = []
    elif isinstance(sip.inputs, Leaf):
        roots = [(0, sip.inputs)]
    else:
        roots = list(children(sip.inputs))
    if isinstance(sip.inputs, Dict):
        unplaced = len(flat.inputs)
        roots.sort(key=lambda root: min((leaf.index for leaf in leaves(root[1])), default=unplaced))
    arguments = tuple(
        Argument(
            position,
            _typed(node, flat.inputs),
            str(key) if isinstance(sip.inputs, Dict) else None,
        )
        for position, (key, node) in enumerate(roots)
    )
    results = () if sip.results is None else (_typed(sip.results, flat.results),)
    return Signature(arguments, results)


def _check_raw_indices(side: str, root: Node | None, count: int) -> None:
    found = sorted(leaf.index for leaf in leaves(root)) if root is not None else []
    if found != list(range(count)):
        raise AbiError(f"sip {side} leaf indices {found} do not match the {count} raw {side} of f")


def _typed(node: Node, types: tuple[ValueType, ...]) -> Node:
    if isinstance(node, Leaf):
        return Leaf(types[node.index], node.index)
    if isinstance(node, Sequence):
        return Sequence(
            node.kind, tuple(None if item is None else _typed(item, types) for item in node.items)
        )
    return Dict(tuple((key, _typed(item, types)) for key, item in node.items))


# --------------------------------------------------------------------------------------
# Building a signature from index paths (docs/spec.md §3.2).
# --------------------------------------------------------------------------------------


class _Level:
    """A node under construction: a leaf, or a level keyed by int or str."""

    __slots__ = ("children", "is_dict", "leaf")

    def __init__(self) -> None:
        self.children: dict[IndexPathComponent, _Level] = {}
        self.is_dict: bool | None = None  # None: no child yet
        self.leaf: Leaf | None = None


# docs/spec.md §3.2's message for an index path component that is neither a string nor an
# integer; the dialect attribute verifier and the structure pass use it too.
INDEX_PATH_COMPONENT_MESSAGE = "each index path component must be a string or integer"


# The largest sequence key of an index path (a project limit, docs/design.md). Gaps in a
# sequence are kept (docs/spec.md §3.2): a key is as many items, `null` records in JSON and
# slots in memory, so a few bytes of input could otherwise ask for gigabytes. The SIP
# decoder has the same limit, so everything written decodes again.
MAX_SEQUENCE_KEY = 2**20


def _check_sequence_key(key: int) -> None:
    if key > MAX_SEQUENCE_KEY:
        shown = str(key) if key.bit_length() <= 64 else f"of {key.bit_length()} bits"
        raise AbiError(
            f"sequence key {shown} in structure path is out of range (at most {MAX_SEQUENCE_KEY})"
        )


def check_path_component(component: object) -> IndexPathComponent:
    if isinstance(component, bool) or not isinstance(component, (int, str)):
        raise AbiError(INDEX_PATH_COMPONENT_MESSAGE)
    return component


def _descend(level: _Level, key: IndexPathComponent, path: IndexPath) -> _Level:
    if level.leaf is not None:
        raise AbiError(f"duplicate assignment to structure path {format_index_path(path)}")
    wants_dict = isinstance(key, str)
    if level.is_dict is None:
        level.is_dict = wants_dict
    elif level.is_dict and not wants_dict:
        raise AbiError(
            f"structure path mismatch: dereference a non-sequence with a sequence key {key}"
        )
    elif not level.is_dict and wants_dict:
        raise AbiError(f"structure path mismatch: dereference a non-dict with a dict key '{key}'")
    if isinstance(key, int):
        if key < 0:
            raise AbiError(f"negative sequence key {key} in structure path")
        _check_sequence_key(key)
    child = level.children.get(key)
    if child is None:
        child = level.children[key] = _Level()
    return child


def _assign(level: _Level, leaf: Leaf, path: IndexPath) -> None:
    if level.leaf is not None or level.children:
        raise AbiError(f"duplicate assignment to structure path {format_index_path(path)}")
    level.leaf = leaf


def _freeze(level: _Level, sequence_kind: Literal["list", "tuple"]) -> Node:
    if level.leaf is not None:
        return level.leaf
    if level.is_dict:
        return Dict.sorted(
            [(str(k), _freeze(child, sequence_kind)) for k, child in level.children.items()]
        )
    width = max((int(k) for k in level.children), default=-1) + 1
    items: list[Node | None] = [None] * width
    for key, child in level.children.items():
        items[int(key)] = _freeze(child, sequence_kind)
    return Sequence(sequence_kind, tuple(items))


def signature_from_index_paths(
    arguments: SequenceABC[tuple[SequenceABC[object], ValueType | None]],
    results: SequenceABC[tuple[SequenceABC[object], ValueType | None]],
) -> Signature:
    """Rebuild the structure from one index path per flat argument and result.

    Errors are `AbiError`s whose ``where`` names the offending argument or result.
    Argument sequences are lists, result sequences tuples; a string at the argument
    root names the argument with key 1 + the largest root key so far (as IREE did).
    """
    root_keys: dict[IndexPathComponent, int] = {}  # root component -> argument key
    root_levels: dict[int, _Level] = {}
    names: dict[int, str] = {}
    largest = 0
    for position, (raw_path, value_type) in enumerate(arguments):
        try:
            path = tuple(check_path_component(c) for c in raw_path)
            leaf = Leaf(value_type, position)
            if not path:
                raise AbiError("duplicate assignment to structure path []")
            head = path[0]
            if isinstance(head, int):
                if head < 0:
                    raise AbiError(f"negative sequence key {head} in structure path")
                _check_sequence_key(head)
            key = root_keys.get(head)
            if key is None:
                if isinstance(head, str):
                    key = largest + 1
                    names[key] = head
                else:
                    key = head
                if key in root_levels:
                    raise AbiError(
                        f"duplicate assignment to structure path {format_index_path(path[:1])}"
                    )
                root_keys[head] = key
                root_levels[key] = _Level()
                largest = max(largest, key)
            # The first component picks the root argument; the others are its levels.
            check_nesting_depth(len(path) - 1 + nesting_depth(leaf), ("argument", position))
            level = root_levels[key]
            for depth in range(1, len(path)):
                level = _descend(level, path[depth], path[: depth + 1])
            _assign(level, leaf, path)
        except AbiError as error:
            error.where = ("argument", position)
            raise
    built_arguments = tuple(
        Argument(key, _freeze(root_levels[key], "list"), names.get(key))
        for key in sorted(root_levels)
    )

    root = _Level()
    for position, (raw_path, value_type) in enumerate(results):
        try:
            path = tuple(check_path_component(c) for c in raw_path)
            leaf = Leaf(value_type, position)
            # As for arguments, the first component is the level the codecs allow on top
            # (the result root here, which several typed results have too).
            check_nesting_depth(len(path) - 1 + nesting_depth(leaf), ("result", position))
            level = root
            for depth in range(len(path)):
                level = _descend(level, path[depth], path[: depth + 1])
            _assign(level, leaf, path)
        except AbiError as error:
            error.where = ("result", position)
            raise
    built_results = () if not results else (_freeze(root, "tuple"),)
    return Signature(built_arguments, built_results)
