"""Lowering preserves meaning (docs/spec.md §8, §10).

Hypothesis generates (`generators.py`) a structured function — nested tuples and dicts
of scalars, small tensors, lists and ND-arrays of references; named arguments; zero, one
or several results, a single structured result — whose body re-nests its inputs' leaves
with `abi.tuple.get` / `abi.dict.get` / `abi.tuple.pack` / `abi.dict.pack` and a few
`arith` ops, optionally through a helper (private or exported) called with structured
arguments whose structured results it takes apart again; and random values for its
arguments. The function runs in xDSL's interpreter three ways:

* the original module, with Python tuples and dicts;
* the module lowered by `-p iree-abi-v1`, through `runtime.pack` / `unpack` and the
  wrapper's `iree.abi`;
* the module lowered by `-p iree-abi-legacy`, through `pack_legacy` / `unpack_legacy`
  and the `f` / `sip` reflection (empty structures vanish from SIP, §8: the legacy caller
  passes and gets the values without them).

All three must give what the generator computed in Python. Each lowered module must also
be free of structured types and unchanged by a second run of its pipeline.

A second property composes the two conventions: `flatten-signatures` then `iree-abi-v1`
(the wrapper built from the paths flatten-signatures wrote) takes the same values. A
third runs functions whose structure comes from index paths (docs/spec.md §3.2) the three ways:
flat functions with `tf_saved_model.index_path` (saved-model, with an exported name) or
`abi.index_path`, in a shuffled flat order, with gaps and named roots.

Examples: 50 per property in the normal run (about 15 s); `ABI_SLOW=1` runs 1000 (about
5 minutes for the four tests on a 2-core machine).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from abi_compiler.errors import AbiError
from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy
from tests.lowering.generators import (
    ARG_NAMES,
    DICT_KEYS,
    LEAF_TYPES,
    LEAF_VALUES,
    DictT,
    FunctionSpec,
    Helper,
    LeafT,
    PackDict,
    PathKey,
    Ref,
    TupleT,
    Type,
    function_specs,
    leaf_count,
    module_text,
    values_of,
)
from tests.lowering.helpers import (
    Lowered,
    as_unpacked,
    assert_same,
    call,
    parse,
    reflection,
    run_passes,
)

EXAMPLES = 1000 if os.environ.get("ABI_SLOW") else 50

PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --------------------------------------------------------------------------------------
# The legacy view: empty structures have no leaves and vanish from SIP (docs/spec.md §8).
# --------------------------------------------------------------------------------------

_VANISHED = object()


def legacy_value(t: Type, value: Any) -> Any:
    """``value`` as the legacy convention carries it: structures without leaves removed
    (a gap, None, inside a sequence; trailing gaps dropped; absent from a dict)."""
    if isinstance(t, LeafT):
        return value
    if leaf_count(t) == 0:
        return _VANISHED
    if isinstance(t, TupleT):
        items = [legacy_value(item, v) for item, v in zip(t.items, value, strict=True)]
        while items and items[-1] is _VANISHED:
            items.pop()
        return tuple(None if item is _VANISHED else item for item in items)
    kept = {key: legacy_value(item, value[key]) for key, item in t.entries}
    return {key: v for key, v in kept.items() if v is not _VANISHED}


def legacy_results(types_: tuple[Type, ...], values: tuple[Any, ...]) -> Any:
    """`unpack_legacy`'s view of the results: a leaf or structure for one result, a tuple
    for several, None when nothing is left."""
    if not types_:
        return None
    if len(types_) == 1:
        viewed = legacy_value(types_[0], values[0])
    else:
        viewed = legacy_value(TupleT(types_), values)
    return None if viewed is _VANISHED else viewed


def legacy_arguments(
    arguments: tuple[tuple[Type, str | None], ...], values: tuple[Any, ...]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Positional and keyword values for `pack_legacy`: a dict root (every argument
    named) binds keywords, a sequence root (names dropped when mixed) positions."""
    if arguments and all(name is not None for _, name in arguments):
        as_dict = DictT(tuple((str(name), t) for t, name in arguments))
        keywords = legacy_value(
            as_dict, {name: v for (_, name), v in zip(arguments, values, strict=True)}
        )
        return (), ({} if keywords is _VANISHED else keywords)
    viewed = legacy_value(TupleT(tuple(t for t, _ in arguments)), values)
    return (() if viewed is _VANISHED else viewed), {}


# --------------------------------------------------------------------------------------
# Running one case.
# --------------------------------------------------------------------------------------


def assert_fully_lowered(lowered: Lowered, pipeline: str) -> None:
    for fragment in ("tuple<", "!abi.dict", "abi.tuple.", "abi.dict."):
        assert fragment not in lowered.text, f"{pipeline} left {fragment!r}:\n{lowered.text}"
    again = run_passes(lowered.text, [pipeline])
    assert again.text == lowered.text, f"a second {pipeline} changed the module"


def check_function(
    original: Any,
    v1: Lowered,
    legacy: Lowered,
    name: str,
    arguments: tuple[tuple[Type, str | None], ...],
    result_types: tuple[Type, ...],
    values: tuple[Any, ...],
    expected: tuple[Any, ...],
) -> None:
    """Call ``@name`` of the three modules with ``values`` and compare with ``expected``."""
    want = as_unpacked(expected)
    assert_same(as_unpacked(call(original, name, values)), want, f"original @{name}")

    positional = [v for (_, arg_name), v in zip(arguments, values, strict=True) if arg_name is None]
    keywords = {arg_name: v for (_, arg_name), v in zip(arguments, values, strict=True) if arg_name}
    abi = reflection(v1.module, name)["iree.abi"]
    packed = pack(abi, *positional, **keywords)
    assert_same(unpack(abi, call(v1.module, name, packed)), want, f"iree-abi-v1 @{name}")

    entries = reflection(legacy.module, name)
    legacy_args, legacy_kwargs = legacy_arguments(arguments, values)
    flat = pack_legacy(entries["f"], entries["sip"], *legacy_args, **legacy_kwargs)
    got = unpack_legacy(entries["f"], entries["sip"], call(legacy.module, name, flat))
    assert_same(got, legacy_results(result_types, expected), f"iree-abi-legacy @{name}")


@PROPERTY_SETTINGS
@given(data=st.data())
def test_lowered_functions_compute_what_the_original_computes(data: st.DataObject) -> None:
    spec = data.draw(function_specs(), label="spec")
    text = module_text(spec)
    values = tuple(
        data.draw(values_of(t), label=f"argument {i}") for i, t in enumerate(spec.argument_types)
    )
    original = parse(text)
    v1 = run_passes(text, ["iree-abi-v1"])
    legacy = run_passes(text, ["iree-abi-legacy"])
    assert_fully_lowered(v1, "iree-abi-v1")
    assert_fully_lowered(legacy, "iree-abi-legacy")

    helper = spec.helper
    if helper is not None and helper.public:
        mids, helper_results = helper.evaluate_call(values)
        check_function(
            original,
            v1,
            legacy,
            "h",
            tuple((t, None) for t in helper.argument_types()),
            helper.result_types(),
            mids,
            helper_results,
        )
    expected = spec.evaluate(values)
    check_function(original, v1, legacy, "f", spec.arguments, spec.result_types(), values, expected)


@PROPERTY_SETTINGS
@given(data=st.data())
def test_flattened_functions_wrapped_from_their_index_paths_take_the_same_values(
    data: st.DataObject,
) -> None:
    """`flatten-signatures` then `iree-abi-v1`: the wrapper built from the `abi.index_path`
    attributes flatten-signatures wrote takes the original structured values (minus the
    empty structures, which have no paths; the argument root compresses their gaps, docs/spec.md
    §3.2) and returns the legacy view of the results. A result structure with a gap (an
    empty structure before a leaf) cannot be wrapped (docs/spec.md §8.2): such examples are
    skipped."""
    spec = data.draw(function_specs(), label="spec")
    values = tuple(
        data.draw(values_of(t), label=f"argument {i}") for i, t in enumerate(spec.argument_types)
    )
    try:
        lowered = run_passes(module_text(spec), ["flatten-signatures", "iree-abi-v1"])
    except AbiError as error:
        assume("no value at result path" not in str(error))
        raise
    args, kwargs = legacy_arguments(spec.arguments, values)
    if not kwargs:
        viewed = (legacy_value(t, v) for t, v in zip(spec.argument_types, values, strict=True))
        args = tuple(v for v in viewed if v is not _VANISHED)
    abi = reflection(lowered.module, "f")["iree.abi"]
    got = unpack(abi, call(lowered.module, "f", pack(abi, *args, **kwargs)))
    assert_same(got, legacy_results(spec.result_types(), spec.evaluate(values)), "@f")


def test_generated_module_text_is_what_the_generator_means() -> None:
    """The generator's text for a known spec: a get chain, a dict pack with operands in
    sorted key order, a helper called with structured arguments, a get on its result."""
    pair = TupleT((LeafT("i32"), DictT((("m", LeafT("f32")), ("b", LeafT("i64"))))))
    made = DictT((("z", LeafT("tensor<?xf64>")), ("a", LeafT("i64"))))
    spec = FunctionSpec(
        arguments=((pair, None), (LeafT("tensor<?xf64>"), "x")),
        results=(Ref(2, ("a",), LeafT("i64")), Ref(2, (), made)),
        helper=Helper(
            arguments=(Ref(0, (1,), pair.items[1]), Ref(1, (), LeafT("tensor<?xf64>"))),
            results=(
                PackDict(
                    (("z", Ref(1, (), LeafT("tensor<?xf64>"))), ("a", Ref(0, ("b",), LeafT("i64"))))
                ),
            ),
            public=False,
        ),
    )
    text = module_text(spec)
    assert '%v1 = abi.tuple.get %a0[1] : tuple<i32, !abi.dict<"m": f32, "b": i64>> -> ' in text
    assert "%v2 = func.call @h(%v1, %a1)" in text
    assert '%v3 = abi.dict.get %v2["a"]' in text
    assert "abi.dict.pack %v1, %a1 : (i64, tensor<?xf64>)" in text
    values = ((1, {"m": 0.5, "b": 9}), np.arange(2, dtype=np.float64))
    assert_same(call(parse(text), "f", values), spec.evaluate(values), "@f")
    assert spec.evaluate(values)[1] == {"a": 9, "z": values[1]}


# --------------------------------------------------------------------------------------
# Functions whose structure comes from index paths (docs/spec.md §3.2): flat in the IR, wrapped
# from their paths by wrap-entry-points, flattened in their original order by
# flatten-signatures. Saved-model modules (`tf_saved_model.index_path`, an exported name)
# and plain ones (`abi.index_path`).
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathNode:
    """A structure built from paths: ``children`` keyed by int (a sequence, maybe with
    gaps) or by str (a dict); a leaf has no children and a ``leaf`` id."""

    children: tuple[tuple[PathKey, PathNode], ...] = ()
    leaf: int | None = None


@st.composite
def path_nodes(
    draw: st.DrawFn, depth: int, counter: list[int], gaps: bool, structure: bool = False
) -> PathNode:
    if not structure and (depth == 0 or draw(st.integers(0, 2)) == 0):
        counter[0] += 1
        return PathNode(leaf=counter[0] - 1)
    if draw(st.booleans()):
        if gaps:
            keys: list[PathKey] = sorted(draw(st.sets(st.integers(0, 3), min_size=1, max_size=3)))
        else:
            keys = list(range(draw(st.integers(1, 3))))
    else:
        keys = draw(st.lists(st.sampled_from(DICT_KEYS), min_size=1, max_size=3, unique=True))
    return PathNode(tuple((key, draw(path_nodes(depth - 1, counter, gaps))) for key in keys))


def path_leaves(
    node: PathNode, prefix: tuple[PathKey, ...] = ()
) -> Iterator[tuple[tuple[PathKey, ...], int]]:
    if node.leaf is not None:
        yield prefix, node.leaf
    for key, child in node.children:
        yield from path_leaves(child, (*prefix, key))


def path_value(node: PathNode, leaves_: dict[int, Any], sequence: type) -> Any:
    """The Python value of a structure: sequences as ``sequence`` (gaps None), dicts."""
    if node.leaf is not None:
        return leaves_[node.leaf]
    if node.children and isinstance(node.children[0][0], str):
        return {str(key): path_value(child, leaves_, sequence) for key, child in node.children}
    width = max(int(key) for key, _ in node.children) + 1
    items: list[Any] = [None] * width
    for key, child in node.children:
        items[int(key)] = path_value(child, leaves_, sequence)
    return sequence(items)


@dataclass(frozen=True)
class PathFunction:
    saved_model: bool
    roots: tuple[tuple[PathKey, PathNode], ...]  # argument root components and structures
    arg_types: tuple[str, ...]  # by leaf id
    arg_order: tuple[int, ...]  # leaf ids in flat argument order
    result_root: PathNode  # a leaf at [] or a gap-free structure
    sources: tuple[int, ...]  # by result leaf id: the argument leaf id it returns
    result_order: tuple[int, ...]  # result leaf ids in flat result order

    def root_keys(self) -> dict[PathKey, int] | None:
        """docs/spec.md §4.3: the key of each root component, in flat order a name takes 1 + the
        largest key so far; None when a later integer key collides with a name's key."""
        heads = {leaf: path[0] for path, leaf in self.argument_paths()}
        keys: dict[PathKey, int] = {}
        largest = 0
        for leaf in self.arg_order:
            head = heads[leaf]
            if head in keys:
                continue
            key = largest + 1 if isinstance(head, str) else head
            if key in keys.values():
                return None
            keys[head] = key
            largest = max(largest, key)
        return keys

    def argument_paths(self) -> list[tuple[tuple[PathKey, ...], int]]:
        return [
            (path, leaf) for head, node in self.roots for path, leaf in path_leaves(node, (head,))
        ]


@st.composite
def path_functions(draw: st.DrawFn) -> PathFunction:
    counter = [0]
    heads: list[PathKey] = [
        *draw(st.sets(st.integers(0, 3), max_size=3)),
        *draw(st.lists(st.sampled_from(ARG_NAMES), max_size=2, unique=True)),
    ]
    if not heads:
        heads = [0]  # results need an argument leaf to return
    roots = tuple((head, draw(path_nodes(2, counter, gaps=True))) for head in heads)
    arg_types = tuple(draw(st.sampled_from(LEAF_TYPES)) for _ in range(counter[0]))
    arg_order = tuple(draw(st.permutations(range(counter[0]))))
    result_counter = [0]
    if draw(st.booleans()):
        result_root = PathNode(leaf=0)
        result_counter[0] = 1
    else:
        result_root = draw(path_nodes(2, result_counter, gaps=False, structure=True))
    sources = tuple(draw(st.integers(0, counter[0] - 1)) for _ in range(result_counter[0]))
    result_order = tuple(draw(st.permutations(range(result_counter[0]))))
    return PathFunction(
        draw(st.booleans()), roots, arg_types, arg_order, result_root, sources, result_order
    )


def path_attr(path: tuple[PathKey, ...]) -> str:
    return "[" + ", ".join(f'"{c}"' if isinstance(c, str) else str(c) for c in path) + "]"


def path_module_text(spec: PathFunction) -> str:
    attr = "tf_saved_model.index_path" if spec.saved_model else "abi.index_path"
    arg_paths = {leaf: path for path, leaf in spec.argument_paths()}
    position = {leaf: i for i, leaf in enumerate(spec.arg_order)}
    params = [
        f"%a{i}: {spec.arg_types[leaf]} {{{attr} = {path_attr(arg_paths[leaf])}}}"
        for i, leaf in enumerate(spec.arg_order)
    ]
    result_paths = {leaf: path for path, leaf in path_leaves(spec.result_root)}
    result_types = [spec.arg_types[spec.sources[leaf]] for leaf in spec.result_order]
    results = [
        f"{t} {{{attr} = {path_attr(result_paths[leaf])}}}"
        for t, leaf in zip(result_types, spec.result_order, strict=True)
    ]
    returned = [f"%a{position[spec.sources[leaf]]}" for leaf in spec.result_order]
    exported = ' attributes {tf_saved_model.exported_names = ["serve"]}' if spec.saved_model else ""
    name = "__inference_f" if spec.saved_model else "f"
    body = f"    func.return {', '.join(returned)} : {', '.join(result_types)}"
    module_attrs = " attributes {tf_saved_model.semantics}" if spec.saved_model else ""
    return (
        f"builtin.module{module_attrs} {{\n"
        f"  func.func @{name}({', '.join(params)}) -> ({', '.join(results)}){exported} {{\n"
        f"{body}\n  }}\n}}\n"
    )


@PROPERTY_SETTINGS
@given(spec=path_functions(), data=st.data())
def test_index_path_functions_are_called_by_their_structure(
    spec: PathFunction, data: st.DataObject
) -> None:
    keys = spec.root_keys()
    assume(keys is not None)
    assert keys is not None
    text = path_module_text(spec)
    leaf_values = {
        leaf: data.draw(LEAF_VALUES[t], label=f"leaf {leaf}")
        for leaf, t in enumerate(spec.arg_types)
    }
    flat_args = [leaf_values[leaf] for leaf in spec.arg_order]
    result_leaves = {leaf: leaf_values[spec.sources[leaf]] for leaf in range(len(spec.sources))}
    expected_flat = tuple(result_leaves[leaf] for leaf in spec.result_order)

    original = parse(text)
    name = "__inference_f" if spec.saved_model else "f"
    exported = "serve" if spec.saved_model else "f"
    assert_same(call(original, name, flat_args), expected_flat, "original")

    v1 = run_passes(text, ["iree-abi-v1"])
    legacy = run_passes(text, ["iree-abi-legacy"])
    assert_fully_lowered(v1, "iree-abi-v1")
    assert_fully_lowered(legacy, "iree-abi-legacy")

    # Root arguments in key order: positional by position, named by keyword (all
    # positional when a name comes before a positional argument).
    ordered = sorted(spec.roots, key=lambda root: keys[root[0]])
    values = [(head, path_value(node, leaf_values, list)) for head, node in ordered]
    names_last = all(
        isinstance(head, str)
        for head, _ in values[len([h for h, _ in values if isinstance(h, int)]) :]
    )
    if names_last:
        positional = [v for head, v in values if isinstance(head, int)]
        keywords = {str(head): v for head, v in values if isinstance(head, str)}
    else:
        positional, keywords = [v for _, v in values], {}
    expected = path_value(spec.result_root, result_leaves, tuple)

    abi = reflection(v1.module, exported)["iree.abi"]
    got = unpack(abi, call(v1.module, exported, pack(abi, *positional, **keywords)))
    assert_same(got, expected, "iree-abi-v1")

    entries = reflection(legacy.module, exported)
    if all(isinstance(head, str) for head, _ in spec.roots):
        legacy_args: list[Any] = []
        legacy_kwargs = {str(head): v for head, v in values}
    else:
        by_key = {keys[head]: v for head, v in values}
        legacy_args = [by_key.get(key) for key in range(max(by_key) + 1)]
        legacy_kwargs = {}
    flat = pack_legacy(entries["f"], entries["sip"], *legacy_args, **legacy_kwargs)
    assert_same(flat, flat_args, "pack_legacy puts each leaf at its original position")
    got = unpack_legacy(entries["f"], entries["sip"], call(legacy.module, exported, flat))
    assert_same(got, expected, "iree-abi-legacy")
