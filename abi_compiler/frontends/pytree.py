"""A framework's pytrees ↔ the records of the compiled function (docs/calling.md, "From a
framework's object").

JAX and torch describe what a function takes and returns as pytrees: tuples, lists,
dicts, namedtuples, other registered nodes, `None`, and leaves. A frontend describes each
root as a node of the original call (`abi_compiler.call_model`), children in the
framework's flatten order and each array numbered in that order, and gets from
`structure`

* the index path of every flat argument and result of the exported function (the arrays,
  in flatten order), to write as `abi.index_path`: the V1 wrapper (`wrap-entry-points`)
  is built from them;
* the `iree.abi` JSON of the original structure, to write as the function's `iree.abi`
  attribute, which `materialize-iree-abi` moves into `iree.reflection` as it is: index
  paths alone make every argument sequence a list and every result sequence a tuple, the
  JSON keeps `tuple` → `stuple` and `list` → `slist`.

The mapping: positional parameters are positional roots, keyword parameters `named`
roots after them; `tuple`, namedtuple, dataclass and other registered nodes → `stuple`
(of their children), `list` → `slist`, `dict` with string keys → `sdict`. A `None` leaf,
a leaf the export dropped (an unused argument, a constant torch specialized) and a
structure with no other leaves have no record: sequences are numbered without them (no
gaps, so IREE's own `FunctionInvoker` can call the function too); the original call
(`abi.call`) keeps them.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, replace

from abi_compiler.call_model import (
    Array,
    CallNode,
    Container,
    OriginalCall,
    Symbol,
    TensorType,
)
from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.errors import AbiError
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

__all__ = [
    "Structure",
    "has_record",
    "leaf_count",
    "original_call",
    "record_order",
    "renumber",
    "structure",
]


def has_record(node: CallNode) -> bool:
    """Whether the value has a record: an array, or a structure with one below."""
    if isinstance(node, Array):
        return True
    return isinstance(node, Container) and any(has_record(child) for child in node.children)


def leaf_count(node: CallNode) -> int:
    """How many arrays are below (the flat values this node holds)."""
    if isinstance(node, Array):
        return 1
    if isinstance(node, Container):
        return sum(leaf_count(child) for child in node.children)
    return 0


@dataclass(frozen=True)
class Structure:
    """What a frontend writes on the exported function (`structure`)."""

    #: ``abi.index_path`` of each flat argument, in order.
    argument_paths: tuple[IndexPath, ...]
    #: ``abi.index_path`` of each flat result, in order.
    result_paths: tuple[IndexPath, ...]
    #: The `iree.abi` JSON of the original structure.
    abi: str
    #: Flatten index of each array → its leaf index in the records (which list dict
    #: keys sorted), for arguments and results.
    argument_order: Mapping[int, int]
    result_order: Mapping[int, int]

    def renumber(self, node: CallNode, *, result: bool = False) -> CallNode:
        """``node`` with each array numbered by its leaf index in the records."""
        order = self.result_order if result else self.argument_order
        return renumber(node, order)


def record_order(nodes: SequenceABC[Node]) -> dict[int, int]:
    """The ``index`` of each leaf of ``nodes`` → its position in the records' leaf order
    (depth first, as the `iree.abi` codec numbers leaves)."""
    found: dict[int, int] = {}

    def walk(node: Node | None) -> None:
        if isinstance(node, Leaf):
            found[node.index] = len(found)
        elif isinstance(node, Sequence):
            for item in node.items:
                walk(item)
        elif isinstance(node, Dict):
            for _, child in node.items:
                walk(child)

    for node in nodes:
        walk(node)
    return found


def renumber(node: CallNode, order: Mapping[int, int]) -> CallNode:
    """``node`` with every array's index mapped through ``order``."""
    if isinstance(node, Array):
        return replace(node, index=order[node.index])
    if isinstance(node, Container):
        children = tuple(renumber(child, order) for child in node.children)
        return Container(node.kind, children, node.keys, node.name)
    return node


def structure(
    positional: SequenceABC[CallNode],
    keywords: Mapping[str, CallNode],
    result: CallNode,
    argument_types: SequenceABC[ValueType],
    result_types: SequenceABC[ValueType],
) -> Structure:
    """The index paths and `iree.abi` JSON of a function whose flat arguments are the
    arrays of ``positional`` then ``keywords`` (numbered in that order) and whose flat
    results are those of ``result``; ``argument_types`` / ``result_types`` are the flat
    values' types, read from the exported function. A count that disagrees is an
    `AbiError`."""
    roots = [node for node in positional if has_record(node)]
    named = [(name, node) for name, node in keywords.items() if has_record(node)]
    expected = sum(leaf_count(node) for node in roots) + sum(leaf_count(n) for _, n in named)
    if expected != len(argument_types) or leaf_count(result) != len(result_types):
        raise AbiError(
            f"the exported function takes {_count(len(argument_types), 'value')} and "
            f"returns {len(result_types)}, its program's trees describe {expected} and "
            f"{leaf_count(result)}"
        )
    argument_paths: list[IndexPath] = []
    arguments: list[Argument] = []
    builder = _Records(argument_types, argument_paths)
    for position, node in enumerate(roots):
        arguments.append(Argument(position, builder.node(node, (position,))))
    for offset, (name, node) in enumerate(named):
        arguments.append(Argument(len(roots) + offset, builder.node(node, (name,)), name))
    result_paths: list[IndexPath] = []
    results = (_Records(result_types, result_paths).node(result, ()),) if has_record(result) else ()
    return Structure(
        tuple(argument_paths),
        tuple(result_paths),
        encode_json(Signature(tuple(arguments), results)),
        record_order([argument.node for argument in arguments]),
        record_order(results),
    )


def original_call(
    positional: SequenceABC[CallNode],
    keywords: Mapping[str, CallNode],
    result: CallNode,
    found: Structure,
    tensor: TensorType = "numpy",
    symbols: tuple[Symbol, ...] = (),
) -> OriginalCall:
    """The `OriginalCall` of nodes numbered in flatten order, its arrays numbered by
    the records of ``found``."""
    return OriginalCall(
        tuple(found.renumber(node) for node in positional),
        tuple((name, found.renumber(node)) for name, node in keywords.items()),
        found.renumber(result, result=True),
        tensor,
        symbols=symbols,
    )


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class _Records:
    """Follows the arrays in flatten order and records their paths."""

    def __init__(self, types: SequenceABC[ValueType], paths: list[IndexPath]) -> None:
        self.types = types
        self.paths = paths

    def node(self, node: CallNode, path: IndexPath) -> Node:
        if isinstance(node, Array):
            index = len(self.paths)
            if node.index != index:
                raise AbiError(f"array {node.index} is leaf {index} in flatten order")
            self.paths.append(path)
            return Leaf(self.types[index], index)
        assert isinstance(node, Container)
        kept = [(key, child) for key, child in _keyed_children(node) if has_record(child)]
        if node.kind == "dict" and all(isinstance(key, str) for key in node.keys):
            items = [(str(key), self.node(child, (*path, key))) for key, child in kept]
            return Dict.sorted(items)
        nodes = tuple(self.node(child, (*path, k)) for k, (_, child) in enumerate(kept))
        return Sequence("list" if node.kind == "list" else "tuple", nodes)


def _keyed_children(node: Container) -> list[tuple[IndexPathComponent, CallNode]]:
    if node.kind == "dict":
        return list(zip(node.keys, node.children, strict=True))
    return list(enumerate(node.children))
