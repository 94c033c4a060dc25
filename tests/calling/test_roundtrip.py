"""Property tests: packing a value and unpacking the packed form with the same structure
gives the value back (docs/spec.md §10), for random structures and values, V1 and legacy."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.model import (
    Argument,
    Dict,
    FlatSignature,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    Unknown,
    ValueType,
    is_structure,
    leaf_paths,
)
from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy

try:
    import numpy as np
except ImportError:  # numpy is optional: nested lists only
    np = None  # type: ignore[assignment]

PROPERTY = settings(max_examples=500, deadline=None)

# A generated value: (the value passed in, the value unpacking gives back).
Example = tuple[Any, Any]

# --------------------------------------------------------------------------------------
# Leaf types and their values.
# --------------------------------------------------------------------------------------

INT_TYPES = [Scalar(kind, width) for kind in ("i", "si", "ui") for width in (8, 16, 32, 64)]
FLOAT_TYPES = [Scalar("f", 16), Scalar("f", 32), Scalar("f", 64), Scalar("bf", 16)]
ELEMENT_TYPES = [Scalar("i", 32), Scalar("f", 32), Scalar("i", 1)]


def int_values(scalar: Scalar) -> st.SearchStrategy[Example]:
    if scalar.width == 1:
        return st.sampled_from([(True, True), (False, False), (0, False), (1, True)])
    if scalar.kind == "ui":
        low, high = 0, 2**scalar.width - 1
    else:
        low, high = -(2 ** (scalar.width - 1)), 2 ** (scalar.width - 1) - 1
    return st.integers(low, high).map(lambda v: (v, v))


# The largest finite value of each narrower float record (a larger finite value does not
# fit: `pack` refuses it rather than send infinity).
FLOAT_MAX = {
    Scalar("f", 16): 65504.0,
    Scalar("bf", 16): 3.3895313892515355e38,
    Scalar("f", 32): 3.4028234663852886e38,
}


def float_values(scalar: Scalar) -> st.SearchStrategy[Example]:
    largest = FLOAT_MAX.get(scalar)
    if largest is None:
        floats, edge = st.floats(allow_nan=False), 2**53
    else:
        bounded = st.floats(allow_nan=False, min_value=-largest, max_value=largest)
        floats, edge = bounded | st.sampled_from([math.inf, -math.inf]), min(2**53, int(largest))
    ints = st.integers(-edge, edge).map(lambda v: (v, float(v)))
    return floats.map(lambda v: (v, v)) | ints


def scalar_values(scalar: Scalar) -> st.SearchStrategy[Example]:
    if scalar.kind in ("f", "bf"):
        return float_values(scalar)
    return int_values(scalar)


def nested(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    stride = math.prod(shape[1:])
    return [nested(flat[i * stride : (i + 1) * stride], shape[1:]) for i in range(shape[0])]


def concrete_shapes(dims: tuple[int | None, ...] | None) -> st.SearchStrategy[tuple[int, ...]]:
    if dims is None:
        return st.lists(st.integers(0, 3), max_size=3).map(tuple)
    return st.tuples(*(st.integers(0, 3) if d is None else st.just(d) for d in dims))


def array_values(array: NDArray) -> st.SearchStrategy[Example]:
    """Nested lists (or a numpy array) of the array's shape; unpacking returns the very
    same object (arrays pass through)."""
    element = array.element
    assert isinstance(element, Scalar)

    def build(shape: tuple[int, ...]) -> st.SearchStrategy[Example]:
        count = math.prod(shape)
        elements = st.lists(st.integers(-5, 5), min_size=count, max_size=count)
        arrays: list[st.SearchStrategy[Any]] = []
        # Nested lists cannot spell a zero-size dim above the last: `[]` is rank 1.
        if 0 not in shape[:-1]:
            arrays.append(elements.map(lambda flat: nested(flat, shape) if shape else flat[0]))
        if np is not None and shape:
            # of the record's dtype: pack refuses another one unless asked to convert
            dtype = {"i": "int", "si": "int", "ui": "uint", "f": "float"}[element.kind]
            dtype = "bool" if element.width == 1 else f"{dtype}{element.width}"
            arrays.append(elements.map(lambda flat: np.array(flat).astype(dtype).reshape(shape)))
        return st.one_of(arrays).map(lambda value: (value, value))

    return concrete_shapes(array.dims).flatmap(build)


def reference_array_values(array: NDArray) -> st.SearchStrategy[Example]:
    """docs/spec.md §8.3: ranked reference arrays as nested lists of element lists."""
    assert isinstance(array.element, ListRef) and array.dims is not None
    element_values = value_examples(array.element)

    def build(shape: tuple[int, ...]) -> st.SearchStrategy[Example]:
        count = math.prod(shape)
        elements = st.lists(element_values, min_size=count, max_size=count)
        return elements.map(
            lambda pairs: (
                nested([given for given, _ in pairs], shape),
                nested([expected for _, expected in pairs], shape),
            )
        )

    return concrete_shapes(array.dims).flatmap(build)


def list_values(list_ref: ListRef) -> st.SearchStrategy[Example]:
    elements = st.lists(value_examples(list_ref.element), max_size=4)
    container = st.sampled_from([list, tuple])
    return st.tuples(container, elements).map(
        lambda pair: (pair[0](v for v, _ in pair[1]), [e for _, e in pair[1]])
    )


def value_examples(value_type: ValueType | None) -> st.SearchStrategy[Example]:
    if isinstance(value_type, Scalar):
        return scalar_values(value_type)
    if isinstance(value_type, NDArray):
        if isinstance(value_type.element, ListRef):
            return reference_array_values(value_type)
        return array_values(value_type)
    if isinstance(value_type, ListRef):
        return list_values(value_type)
    return st.one_of(st.none(), st.text(max_size=3), st.integers()).map(lambda v: (v, v))


dims_strategy = st.one_of(
    st.none(),
    st.lists(st.one_of(st.none(), st.integers(0, 3)), max_size=3).map(tuple),
)
ranked_dims = st.lists(st.one_of(st.none(), st.integers(0, 2)), max_size=2).map(tuple)


def value_types(*, legacy: bool) -> st.SearchStrategy[ValueType]:
    scalars = st.sampled_from(INT_TYPES + FLOAT_TYPES + [Scalar("i", 1)])
    arrays = st.builds(NDArray, st.sampled_from(ELEMENT_TYPES), dims_strategy)
    if legacy:  # raw signatures carry scalars and buffers; references are opaque
        return scalars | arrays | st.just(Unknown())
    lists = st.builds(ListRef, scalars | st.just(Unknown()))
    reference_arrays = st.builds(NDArray, st.builds(ListRef, scalars), ranked_dims)
    return scalars | arrays | lists | reference_arrays | st.just(Unknown())


# --------------------------------------------------------------------------------------
# Structures and their values.
# --------------------------------------------------------------------------------------


def nodes(*, legacy: bool) -> st.SearchStrategy[Node]:
    leaf = st.builds(Leaf, value_types(legacy=legacy), st.just(0))

    def extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        items = st.lists(st.one_of(children, children, st.none()), max_size=3)
        sequences = st.builds(Sequence, st.sampled_from(["list", "tuple"]), items.map(tuple))
        keys = st.text(max_size=3)
        dicts = st.dictionaries(keys, children, max_size=3).map(
            lambda d: Dict.sorted(list(d.items()))
        )
        return sequences | dicts

    return st.recursive(leaf, extend, max_leaves=6)


def node_examples(node: Node | None, *, legacy: bool = False) -> st.SearchStrategy[Example]:
    """A value for ``node`` and what unpacking gives back: V1 sequences by their kind,
    legacy (results) sequences as tuples (docs/spec.md §3.2); dicts as dicts."""
    if node is None:
        return st.just((None, None))
    if isinstance(node, Leaf):
        return value_examples(node.type)
    if isinstance(node, Sequence):
        tuple_result = legacy or node.kind == "tuple"
        items = st.tuples(*(node_examples(item, legacy=legacy) for item in node.items))
        container = st.sampled_from([list, tuple])
        return st.tuples(container, items).map(
            lambda pair: (
                pair[0](given for given, _ in pair[1]),
                (tuple if tuple_result else list)(expected for _, expected in pair[1]),
            )
        )
    keys = [key for key, _ in node.items]
    values = st.tuples(*(node_examples(child, legacy=legacy) for _, child in node.items))
    return values.map(
        lambda pairs: (
            {key: given for key, (given, _) in zip(keys, pairs, strict=True)},
            {key: expected for key, (_, expected) in zip(keys, pairs, strict=True)},
        )
    )


def same(actual: Any, expected: Any) -> bool:
    """Equal, with the same container types at every level; arrays by identity."""
    if np is not None and isinstance(expected, np.ndarray):
        return actual is expected
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, (list, tuple)):
        return len(actual) == len(expected) and all(
            same(a, e) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(expected, dict):
        return list(actual) == list(expected) and all(
            same(actual[k], expected[k]) for k in expected
        )
    return bool(actual == expected)


# --------------------------------------------------------------------------------------
# V1.
# --------------------------------------------------------------------------------------


def with_examples(
    strategy: st.SearchStrategy[Node], *, legacy: bool = False
) -> st.SearchStrategy[tuple[Node, Example]]:
    return strategy.flatmap(
        lambda node: st.tuples(st.just(node), node_examples(node, legacy=legacy))
    )


@PROPERTY
@given(with_examples(nodes(legacy=False)), st.booleans())
def test_pack_then_unpack_one_value(example: tuple[Node, Example], as_text: bool) -> None:
    node, (given_value, expected) = example
    signature = Signature((Argument(0, node),), (node,))
    abi: Signature | str = encode_json(signature) if as_text else signature
    packed = pack(abi, given_value)
    assert len(packed) == 1
    # An inlined structured result comes back as its items (docs/spec.md §4.2).
    results = packed[0] if is_structure(node) else packed
    assert same(unpack(abi, results), expected)


names = st.lists(st.text(min_size=1, max_size=3), unique=True, max_size=4)


@PROPERTY
@given(st.lists(with_examples(nodes(legacy=False)), min_size=1, max_size=3), names, st.data())
def test_pack_then_unpack_several_values(
    examples: list[tuple[Node, Example]], candidate_names: list[str], data: st.DataObject
) -> None:
    # Named arguments follow the positional ones (docs/spec.md §4.3).
    named_count = data.draw(st.integers(0, min(len(examples), len(candidate_names))))
    first_named = len(examples) - named_count
    arguments = []
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for position, (node, (given_value, _)) in enumerate(examples):
        name = candidate_names[position - first_named] if position >= first_named else None
        arguments.append(Argument(position, node, name))
        if name is None:
            args.append(given_value)
        else:
            kwargs[name] = given_value
    results = tuple(node for node, _ in examples)
    signature = Signature(tuple(arguments), results)
    packed = pack(signature, *args, **kwargs)
    expected = [expected for _, (_, expected) in examples]
    if signature.inlined_result:
        assert same(unpack(signature, packed[0]), expected[0])
    elif len(results) == 1:
        assert same(unpack(signature, packed), expected[0])
    else:
        assert same(unpack(signature, packed), tuple(expected))


# --------------------------------------------------------------------------------------
# Legacy: the same structure on both sides of a raw + SIP pair.
# --------------------------------------------------------------------------------------


def renumber(node: Node | None, next_index: Callable[[], int]) -> Node | None:
    """The node with its leaves numbered in natural order (flat leaf indices)."""
    if node is None:
        return None
    if isinstance(node, Leaf):
        return Leaf(node.type, next_index())
    if isinstance(node, Sequence):
        return Sequence(node.kind, tuple(renumber(item, next_index) for item in node.items))
    return Dict(tuple((key, renumber(child, next_index)) for key, child in node.items))  # type: ignore[misc]


@PROPERTY
@given(st.lists(nodes(legacy=True), max_size=3), st.data())
def test_pack_legacy_then_unpack_legacy(arguments: list[Node], data: st.DataObject) -> None:
    counter = iter(range(10_000))
    root = renumber(Sequence("list", tuple(arguments)), lambda: next(counter))
    assert isinstance(root, Sequence)
    types = tuple(leaf.type for _, leaf in leaf_paths(root))
    flat = FlatSignature(types, types)  # type: ignore[arg-type]
    sip = SipSignature(root if root.items else None, root if root.items else None)
    examples = [data.draw(node_examples(item, legacy=True)) for item in root.items]
    packed = pack_legacy(flat, sip, *(given for given, _ in examples))
    assert len(packed) == len(types)
    result = unpack_legacy(flat, sip, packed)
    if not root.items:
        assert result is None
    else:
        assert same(result, tuple(expected for _, expected in examples))
