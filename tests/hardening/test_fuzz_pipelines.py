"""Fuzzing both pipelines (docs/design.md#hostile-input) with random modules, in-process.

Random exported functions with random structured signatures go through `iree-abi-v1` and
`iree-abi-legacy`:

* from types: tensors (static, dynamic, huge and unranked dims; elements of many types),
  scalars (signless, signed, unsigned, odd widths, floats, `index`, `complex`), lists,
  ND-arrays of references, nested tuples and `!abi.dict`s whose keys are any Unicode text
  (written raw or as MLIR `\\XX` escapes), named arguments, zero to three results;
* from index paths: `abi.index_path` or saved-model `tf_saved_model.index_path` functions,
  whose flat arguments and results are a random permutation of a random tree's leaves
  (sequence gaps, named roots, exported names);
* from random paths: arbitrary short paths, valid or not;
* mutated files: the lit inputs with random insertions, deletions and copies, through the
  `abi-opt` driver: a diagnostic or an output that a second run leaves unchanged, never
  an internal error.

For each module: the output verifies, re-parses and prints the same; running the pipeline
again changes nothing; the reflection is exactly what this file computes from the tree it
generated (docs/spec.md §4–§6; the JSON and SIP decode, with the codecs, to the same model as
that expectation); warnings are only the documented ones; and nothing raises except
`AbiError` (random paths may be invalid; generated trees never are).

Example counts are modest so that the file stays well under a minute. `ABI_SLOW=1`
raises them (`ABI_SLOW=1 python -m pytest tests/hardening/test_fuzz_pipelines.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.codecs.raw import decode_raw
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.dialects import verify_dialect_attributes
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics
from abi_compiler.passes.registry import pipeline_pass
from tests.lowering import helpers

SLOW = bool(os.environ.get("ABI_SLOW"))
FUZZ = settings(
    max_examples=1000 if SLOW else 50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

PIPELINES = ("iree-abi-v1", "iree-abi-legacy")
KNOWN_WARNINGS = (
    "is not a recognized public ABI type and the function may not be invokable by standard tools",
    "argument names dropped: a SIP root cannot mix positional and named arguments",
    "is not supported by IREE's native ABI",
    'is recorded as "unknown" in iree.abi: the function may not be callable with that value',
    "functions in a nested module get no ABI",
)

# --------------------------------------------------------------------------------------
# The generator's model: leaves with their expected encodings, tuples, dicts.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """A leaf type: its MLIR text, JSON record (docs/spec.md §4.1) and raw component (§5)."""

    mlir: str
    record: Any
    raw: str


@dataclass(frozen=True)
class Tup:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Dct:
    entries: tuple[tuple[str, Node], ...]  # in the order the type text lists them

    def sorted_entries(self) -> list[tuple[str, Node]]:
        return sorted(self.entries, key=lambda entry: entry[0].encode())


Node = Leaf | Tup | Dct

# name, JSON record, raw code (None: not in the raw code table)
_SCALARS: list[tuple[str, str, int | None]] = [
    ("i1", "i1", 4),
    ("i8", "i8", 4),
    ("i16", "i16", 5),
    ("i32", "i32", 6),
    ("i64", "i64", 7),
    ("si8", "i8", 4),
    ("si32", "i32", 6),
    ("si64", "i64", 7),
    ("ui8", "i8", 8),
    ("ui16", "i16", 9),
    ("ui32", "i32", 10),
    ("ui64", "i64", 11),
    ("i3", "i3", None),
    ("f16", "f16", 1),
    ("f32", "f32", 0),
    ("f64", "f64", 2),
    ("bf16", "bf16", 3),
    ("index", "unknown", None),
    ("complex<f32>", "unknown", None),
]
MAX_RAW_DIM = 2**31 - 1


def _span(tag: str, body: str) -> str:
    return f"{tag}{len(body.encode()) + 1}!{body}"


def _scalar_raw(code: int | None) -> str:
    if code is None:
        return "U1!"
    return _span("S", "" if code == 0 else f"t{code}")


scalars = st.sampled_from(_SCALARS).map(lambda s: Leaf(s[0], s[1], _scalar_raw(s[2])))
dims = st.one_of(st.integers(0, 5), st.none(), st.sampled_from([2**31 - 1, 2**31, 2**40]))


@st.composite
def tensors(draw: st.DrawFn) -> Leaf:
    name, element, code = draw(st.sampled_from(_SCALARS))
    if draw(st.integers(0, 9)) == 0:
        return Leaf(f"tensor<*x{name}>", ["ndarray", element, None], "U1!")
    shape = draw(st.lists(dims, max_size=3))
    text = "".join(f"{'?' if d is None else d}x" for d in shape)
    recognized = code is not None and all(d is None or d <= MAX_RAW_DIM for d in shape)
    body = ("" if code == 0 else f"t{code}") + "".join(f"d{-1 if d is None else d}" for d in shape)
    return Leaf(
        f"tensor<{text}{name}>",
        ["ndarray", element, len(shape), *shape],
        _span("B", body) if recognized else "U1!",
    )


_LISTS = [
    Leaf("!util.list<i32>", ["py_homogeneous_list", "i32"], "O1!"),
    Leaf("!util.list<?>", ["py_homogeneous_list", "unknown"], "O1!"),
    Leaf("!iree.list<f32>", ["py_homogeneous_list", "f32"], "O1!"),
    Leaf(
        "!util.list<tensor<?xf32>>",
        ["py_homogeneous_list", ["ndarray", "f32", 1, None]],
        "O1!",
    ),
    Leaf(
        "!util.list<!util.list<i8>>", ["py_homogeneous_list", ["py_homogeneous_list", "i8"]], "O1!"
    ),
    Leaf("tensor<2x!util.list<i32>>", ["ndarray", ["py_homogeneous_list", "i32"], 1, 2], "O1!"),
]

leaves = st.one_of(scalars, tensors(), st.sampled_from(_LISTS))
# Any Unicode text but surrogates (not UTF-8); control characters, quotes, backslashes.
keys = st.text(st.characters(exclude_categories=["Cs"]), max_size=5)


def nodes(leaf: st.SearchStrategy[Leaf] = leaves) -> st.SearchStrategy[Node]:
    return st.recursive(
        leaf,
        lambda children: st.one_of(
            st.lists(children, max_size=3).map(lambda items: Tup(tuple(items))),
            st.lists(st.tuples(keys, children), max_size=3, unique_by=lambda e: e[0]).map(
                lambda entries: Dct(tuple(entries))
            ),
        ),
        max_leaves=8,
    )


# --------------------------------------------------------------------------------------
# MLIR text.
# --------------------------------------------------------------------------------------


def string_literal(text: str, escape_all: bool) -> str:
    """``text`` as an MLIR string literal: raw UTF-8 with only the characters that must be
    escaped escaped, or every non-printable-ASCII byte as `\\XX` (as the printer does)."""
    out = []
    for char in text:
        if char == '"':
            out.append("\\22" if escape_all else '\\"')
        elif char == "\\":
            out.append("\\\\")
        elif ord(char) < 0x20 or ord(char) == 0x7F or (escape_all and ord(char) > 0x7E):
            out.append("".join(f"\\{b:02X}" for b in char.encode()))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def mlir_type(node: Node, escape_all: bool) -> str:
    if isinstance(node, Leaf):
        return node.mlir
    if isinstance(node, Tup):
        return "tuple<" + ", ".join(mlir_type(item, escape_all) for item in node.items) + ">"
    entries = (
        f"{string_literal(key, escape_all)}: {mlir_type(value, escape_all)}"
        for key, value in node.entries
    )
    return "!abi.dict<" + ", ".join(entries) + ">"


class Body:
    """Builds a function body: leaves come from an unregistered op, structures are packed
    with the `abi` ops."""

    def __init__(self, escape_all: bool) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.escape_all = escape_all

    def value(self, node: Node) -> str:
        name = f"%v{self.count}"
        self.count += 1
        text = mlir_type(node, self.escape_all)
        if isinstance(node, Leaf):
            self.lines.append(f'  {name} = "test.value"() : () -> {text}')
            return name
        items = list(node.items) if isinstance(node, Tup) else [v for _, v in node.sorted_entries()]
        operands = [self.value(item) for item in items]
        op = "abi.tuple.pack" if isinstance(node, Tup) else "abi.dict.pack"
        types = ", ".join(mlir_type(item, self.escape_all) for item in items)
        self.lines.append(f"  {name} = {op} {', '.join(operands)} : ({types}) -> {text}")
        return name


# --------------------------------------------------------------------------------------
# Expectations computed from the generated tree.
# --------------------------------------------------------------------------------------


def json_record(node: Node) -> Any:
    if isinstance(node, Leaf):
        return node.record
    if isinstance(node, Tup):
        return ["stuple", *[json_record(item) for item in node.items]]
    return ["sdict", *[[key, json_record(value)] for key, value in node.sorted_entries()]]


def json_text(arguments: list[Any], results: list[Any]) -> str:
    document = {"a": arguments, "r": results, "v": 1}
    return json.dumps(document, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


def natural_leaves(node: Node) -> list[Leaf]:
    if isinstance(node, Leaf):
        return [node]
    items = node.items if isinstance(node, Tup) else [v for _, v in node.sorted_entries()]
    return [leaf for item in items for leaf in natural_leaves(item)]


def raw_text(arguments: list[Leaf], results: list[Leaf]) -> str:
    return _span("I", "".join(leaf.raw for leaf in arguments)) + _span(
        "R", "".join(leaf.raw for leaf in results)
    )


# A SIP tree: a flat index, or ("S" | "D", {key: tree}) with leafless children dropped.
SipTree = int | tuple[str, dict[Any, Any]]


def sip_tree(node: Node, counter: list[int]) -> SipTree | None:
    if isinstance(node, Leaf):
        counter[0] += 1
        return counter[0] - 1
    if isinstance(node, Tup):
        items: list[tuple[Any, Node]] = list(enumerate(node.items))
        kind = "S"
    else:
        items = list(node.sorted_entries())
        kind = "D"
    children = {key: sip_tree(child, counter) for key, child in items}
    kept = {key: tree for key, tree in children.items() if tree is not None}
    return (kind, kept) if kept else None


def sip_encode(tree: SipTree | None) -> str:
    if tree is None:
        return ""
    if isinstance(tree, int):
        return f"_{tree}"
    kind, children = tree
    if kind == "S":
        body = "".join(f"k{key}{sip_encode(child)}" for key, child in sorted(children.items()))
    else:
        ordered = sorted(children.items(), key=lambda item: item[0].encode())
        body = "".join(_span("K", key) + sip_encode(child) for key, child in ordered)
    return _span(kind, body)


def sip_text(inputs: SipTree | None, results: SipTree | None) -> str:
    return _span("I", sip_encode(inputs)) + _span("R", sip_encode(results))


# --------------------------------------------------------------------------------------
# Running a pipeline in-process.
# --------------------------------------------------------------------------------------


def parse(text: str) -> ModuleOp:
    return helpers.parse(text, allow_unregistered=True)


def run(text: str, pipeline: str) -> tuple[str, list[str]]:
    """Parse, run ``pipeline``, verify and print; the warnings emitted. Only `AbiError`
    may escape."""
    module = parse(text)
    with diagnostics.collect() as sink:
        pipeline_pass(pipeline)().apply(helpers.context(allow_unregistered=True), module)
    module.verify()
    verify_dialect_attributes(module)
    return helpers.print_module(module), [warning.message for warning in sink.warnings]


def check_stable(text: str, pipeline: str) -> str:
    """Run ``pipeline``; its output prints back the same and a second run changes
    nothing. Returns the output."""
    output, warnings = run(text, pipeline)
    for warning in warnings:
        assert any(known in warning for known in KNOWN_WARNINGS), warning
    assert helpers.print_module(parse(output)) == output
    again, _ = run(output, pipeline)
    assert again == output
    return output


UNRANKED_IN_LIST = "inside a structure cannot be passed through IREE's native ABI"


def _unranked(leaf: Leaf) -> bool:
    return leaf.mlir.startswith("tensor<*")


def _typed_leaves(node: Node) -> list[Leaf]:
    if isinstance(node, Leaf):
        return [node]
    children = node.items if isinstance(node, Tup) else tuple(child for _, child in node.entries)
    return [leaf for child in children for leaf in _typed_leaves(child)]


def unranked_in_a_list(function: TypedFunction) -> bool:
    """Whether the V1 wrapper of ``function`` would carry an unranked tensor in a list
    (inside a structure argument or result; a single structured result's items are
    returned one by one): the located error of `wrap-entry-points`."""
    roots: list[Node] = [node for node, _ in function.arguments]
    results = list(function.results)
    if len(results) == 1 and not isinstance(results[0], Leaf):
        only = results[0]
        results = list(only.items) if isinstance(only, Tup) else [c for _, c in only.entries]
    roots += results
    return function.exported and any(
        _unranked(leaf)
        for root in roots
        if not isinstance(root, Leaf)
        for leaf in _typed_leaves(root)
    )


def check_refused_by_v1(text: str) -> None:
    """V1 refuses an unranked tensor in a list with the located error, and nothing else."""
    with pytest.raises(AbiError, match=UNRANKED_IN_LIST):
        run(text, "iree-abi-v1")


def reflection(output: str, function: str) -> dict[str, str]:
    """The `iree.reflection` entries of ``@function`` in printed output (via the parser)."""
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr
    from xdsl.dialects.func import FuncOp

    module = parse(output)
    for op in module.body.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == function:
            attr = op.attributes.get("iree.reflection")
            assert isinstance(attr, DictionaryAttr)
            entries = {}
            for key, value in attr.data.items():
                assert isinstance(value, StringAttr)
                entries[key] = value.data
            return entries
    raise AssertionError(f"no function @{function} in the output")


def reflection_text(output: str, function: str) -> str:
    """The printed line that declares ``@function``."""
    return next(line for line in output.splitlines() if f" @{function}(" in line)


def check_reflection(
    output_v1: str,
    output_legacy: str,
    function: str,
    expected_json: str,
    expected_raw: str,
    expected_sip: str,
) -> None:
    abi = reflection(output_v1, function)["iree.abi"]
    assert abi == expected_json
    assert decode_json(abi) == decode_json(expected_json)
    legacy = reflection(output_legacy, function)
    assert (legacy["fv"], legacy["abi"], legacy["sipv"]) == ("1", "sip", "1")
    assert legacy["f"] == expected_raw
    assert decode_raw(legacy["f"]) == decode_raw(expected_raw)
    assert legacy["sip"] == expected_sip
    assert decode_sip(legacy["sip"]) == decode_sip(expected_sip)


# --------------------------------------------------------------------------------------
# Functions from types.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TypedFunction:
    """``export``: `public`, `module-export` (private with `iree.module.export`), `none`
    (public with `iree.abi.none`: no reflection) or `private` (not exported)."""

    arguments: tuple[tuple[Node, str | None], ...]
    results: tuple[Node, ...]
    escape_all: bool
    export: str = "public"

    @property
    def exported(self) -> bool:
        return self.export in ("public", "module-export")

    def text(self, name: str) -> str:
        args = []
        for i, (node, arg_name) in enumerate(self.arguments):
            attrs = (
                ""
                if arg_name is None
                else f" {{abi.name = {string_literal(arg_name, self.escape_all)}}}"
            )
            args.append(f"%a{i}: {mlir_type(node, self.escape_all)}{attrs}")
        body = Body(self.escape_all)
        returned = [body.value(node) for node in self.results]
        types = ", ".join(mlir_type(node, self.escape_all) for node in self.results)
        ret = f"  func.return {', '.join(returned)} : {types}" if returned else "  func.return"
        visibility = " private" if self.export in ("private", "module-export") else ""
        attributes = {
            "public": "",
            "private": "",
            "module-export": " attributes {iree.module.export}",
            "none": " attributes {iree.abi.none}",
        }[self.export]
        return (
            f"func.func{visibility} @{name}({', '.join(args)}) -> ({types}){attributes} {{\n"
            + "".join(line + "\n" for line in body.lines)
            + ret
            + "\n}\n"
        )

    def expected_json(self) -> str:
        arguments = [
            json_record(node) if name is None else ["named", name, json_record(node)]
            for node, name in self.arguments
        ]
        return json_text(arguments, [json_record(node) for node in self.results])

    def expected_raw(self) -> str:
        return raw_text(
            [leaf for node, _ in self.arguments for leaf in natural_leaves(node)],
            [leaf for node in self.results for leaf in natural_leaves(node)],
        )

    def expected_sip(self) -> str:
        counter = [0]
        all_named = bool(self.arguments) and all(name is not None for _, name in self.arguments)
        children = {
            (name if all_named else i): sip_tree(node, counter)
            for i, (node, name) in enumerate(self.arguments)
        }
        kept = {key: tree for key, tree in children.items() if tree is not None}
        inputs: SipTree | None = (("D" if all_named else "S"), kept) if kept else None
        counter = [0]
        results: SipTree | None
        if len(self.results) == 1:
            results = sip_tree(self.results[0], counter)
        else:
            trees = {i: sip_tree(node, counter) for i, node in enumerate(self.results)}
            kept = {key: tree for key, tree in trees.items() if tree is not None}
            results = ("S", kept) if kept else None
        return sip_text(inputs, results)


@st.composite
def typed_functions(draw: st.DrawFn) -> TypedFunction:
    positional = draw(st.lists(nodes(), max_size=3))
    named_nodes = draw(st.lists(nodes(), max_size=2))
    names = draw(st.lists(keys, min_size=len(named_nodes), max_size=len(named_nodes), unique=True))
    arguments = [(node, None) for node in positional] + list(zip(named_nodes, names, strict=True))
    results = draw(st.lists(nodes(), max_size=3))
    export = draw(st.sampled_from(["public", "public", "module-export", "none", "private"]))
    return TypedFunction(tuple(arguments), tuple(results), draw(st.booleans()), export)


def flat_types(function: TypedFunction) -> tuple[list[str], list[str]]:
    """The lowered signature of a function that is not wrapped: leaves in natural order."""
    return (
        [leaf.mlir for node, _ in function.arguments for leaf in natural_leaves(node)],
        [leaf.mlir for node in function.results for leaf in natural_leaves(node)],
    )


def function_types(output: str, function: str) -> tuple[list[str], list[str]]:
    """The argument and result types of ``@function`` in printed output."""
    from xdsl.dialects.func import FuncOp

    from abi_compiler.passes.structure import type_text

    for op in parse(output).body.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == function:
            return (
                [type_text(t) for t in op.function_type.inputs.data],
                [type_text(t) for t in op.function_type.outputs.data],
            )
    raise AssertionError(f"no function @{function} in the output")


@FUZZ
@given(st.lists(typed_functions(), min_size=1, max_size=3))
def test_typed_functions(functions: list[TypedFunction]) -> None:
    text = "".join(function.text(f"f{i}") for i, function in enumerate(functions))
    if any(unranked_in_a_list(function) for function in functions):
        check_refused_by_v1(text)
        check_stable(text, "iree-abi-legacy")
        return
    v1 = check_stable(text, "iree-abi-v1")
    legacy = check_stable(text, "iree-abi-legacy")
    for i, function in enumerate(functions):
        if function.exported:
            check_reflection(
                v1,
                legacy,
                f"f{i}",
                function.expected_json(),
                function.expected_raw(),
                function.expected_sip(),
            )
            continue
        # Not exported: no reflection, no wrapper, but decomposed all the same (docs/spec.md §2, §8).
        for output in (v1, legacy):
            assert "iree.reflection" not in reflection_text(output, f"f{i}")
            leaf_types = flat_types(function)
            assert function_types(output, f"f{i}") == tuple(
                [t.replace("!iree.list", "!util.list") if output is v1 else t for t in side]
                for side in leaf_types
            )


# --------------------------------------------------------------------------------------
# Functions from index paths.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seq:
    """A sequence node of an index-path tree: key -> child (gaps are missing keys)."""

    items: tuple[tuple[int, PathNode], ...]


@dataclass(frozen=True)
class Map:
    items: tuple[tuple[str, PathNode], ...]


PathNode = Leaf | Seq | Map


def path_nodes(gaps: bool) -> st.SearchStrategy[PathNode]:
    """Index-path trees; ``gaps``: sequences may skip keys (a V1 wrapper cannot return a
    result structure with a gap, docs/spec.md §8.2, so result trees have none)."""

    def sequence(children: st.SearchStrategy[PathNode]) -> st.SearchStrategy[PathNode]:
        if gaps:
            items = st.lists(
                st.tuples(st.integers(0, 4), children),
                min_size=1,
                max_size=3,
                unique_by=lambda e: e[0],
            )
            return items.map(lambda items: Seq(tuple(items)))
        dense = st.lists(children, min_size=1, max_size=3)
        return dense.map(lambda items: Seq(tuple(enumerate(items))))

    def mapping(children: st.SearchStrategy[PathNode]) -> st.SearchStrategy[PathNode]:
        items = st.lists(
            st.tuples(keys, children), min_size=1, max_size=3, unique_by=lambda e: e[0]
        )
        return items.map(lambda items: Map(tuple(items)))

    return st.recursive(
        leaves, lambda children: st.one_of(sequence(children), mapping(children)), max_leaves=6
    )


def leaf_paths(node: PathNode, prefix: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Leaf]]:
    if isinstance(node, Leaf):
        return [(prefix, node)]
    return [pair for key, child in node.items for pair in leaf_paths(child, (*prefix, key))]


def path_record(node: PathNode, sequence: str) -> Any:
    if isinstance(node, Leaf):
        return node.record
    if isinstance(node, Map):
        ordered = sorted(node.items, key=lambda item: item[0].encode())
        return ["sdict", *[[key, path_record(child, sequence)] for key, child in ordered]]
    by_key = dict(node.items)
    width = max(by_key) + 1
    return [
        sequence,
        *[path_record(by_key[k], sequence) if k in by_key else None for k in range(width)],
    ]


def path_sip(node: PathNode, flat_index: list[int], counter: list[int]) -> SipTree:
    """The SIP tree of ``node``; its leaves in natural order are numbered by
    ``flat_index`` (natural position -> flat position)."""
    if isinstance(node, Leaf):
        counter[0] += 1
        return flat_index[counter[0] - 1]
    kind = "S" if isinstance(node, Seq) else "D"
    return (kind, {key: path_sip(child, flat_index, counter) for key, child in node.items})


@dataclass(frozen=True)
class PathFunction:
    """Root arguments (int or str key -> tree), a result tree (or none), and the flat order
    of the argument and result leaves (permutations of the natural order)."""

    arguments: tuple[tuple[int | str, PathNode], ...]
    result: PathNode | None
    argument_order: tuple[int, ...]
    result_order: tuple[int, ...]
    saved_model: bool
    escape_all: bool

    def flat(self) -> tuple[list[tuple[tuple[Any, ...], Leaf]], list[tuple[tuple[Any, ...], Leaf]]]:
        arguments = [pair for key, node in self.arguments for pair in leaf_paths(node, (key,))]
        results = leaf_paths(self.result, ()) if self.result is not None else []
        return (
            [arguments[i] for i in self.argument_order],
            [results[i] for i in self.result_order],
        )

    def path_attr(self, path: tuple[Any, ...]) -> str:
        parts = [string_literal(c, self.escape_all) if isinstance(c, str) else str(c) for c in path]
        attribute = "tf_saved_model.index_path" if self.saved_model else "abi.index_path"
        return f"{{{attribute} = [{', '.join(parts)}]}}"

    def text(self, name: str) -> str:
        arguments, results = self.flat()
        args = ", ".join(
            f"%a{i}: {leaf.mlir} {self.path_attr(path)}" for i, (path, leaf) in enumerate(arguments)
        )
        types = ", ".join(f"{leaf.mlir} {self.path_attr(path)}" for path, leaf in results)
        body = Body(self.escape_all)
        values = [body.value(leaf) for _, leaf in results]
        ret = (
            f"  func.return {', '.join(values)} : {', '.join(leaf.mlir for _, leaf in results)}"
            if values
            else "  func.return"
        )
        exported = (
            f' attributes {{tf_saved_model.exported_names = ["{name}"]}}'
            if self.saved_model
            else ""
        )
        symbol = f"{name}_impl" if self.saved_model else name  # the export renames it
        return (
            f"  func.func @{symbol}({args}) -> ({types}){exported} {{\n"
            + "".join("  " + line + "\n" for line in body.lines)
            + "  "
            + ret
            + "\n  }\n"
        )

    def root_keys(self) -> dict[int | str, int]:
        """docs/spec.md §4.3: a named root child's key is 1 + the largest key created before it,
        in flat argument order."""
        arguments, _ = self.flat()
        keys: dict[int | str, int] = {}
        largest = 0
        for path, _ in arguments:
            head = path[0]
            if head in keys:
                continue
            keys[head] = largest + 1 if isinstance(head, str) else head
            largest = max(largest, keys[head])
        return keys

    def valid(self) -> bool:
        keys = list(self.root_keys().values())
        return len(keys) == len(set(keys))

    def expected_json(self) -> str:
        keys = self.root_keys()
        by_key = sorted(self.arguments, key=lambda item: keys[item[0]])
        arguments = [
            ["named", head, path_record(node, "slist")]
            if isinstance(head, str)
            else path_record(node, "slist")
            for head, node in by_key
        ]
        results = [] if self.result is None else [path_record(self.result, "stuple")]
        return json_text(arguments, results)

    def expected_raw(self) -> str:
        arguments, results = self.flat()
        return raw_text([leaf for _, leaf in arguments], [leaf for _, leaf in results])

    def expected_sip(self) -> str:
        argument_index = _inverse(self.argument_order)
        keys = self.root_keys()
        all_named = all(isinstance(head, str) for head, _ in self.arguments)
        counter = [0]
        children = {
            (head if all_named else keys[head]): path_sip(node, argument_index, counter)
            for head, node in self.arguments
        }
        inputs: SipTree | None = ("D" if all_named else "S", children) if children else None
        output = (
            None if self.result is None else path_sip(self.result, _inverse(self.result_order), [0])
        )
        return sip_text(inputs, output)


def _inverse(order: tuple[int, ...]) -> list[int]:
    """Flat position i holds natural leaf order[i]: natural position -> flat position."""
    inverse = [0] * len(order)
    for flat, natural in enumerate(order):
        inverse[natural] = flat
    return inverse


@st.composite
def path_functions(draw: st.DrawFn) -> PathFunction:
    heads = draw(st.lists(st.one_of(st.integers(0, 4), keys), min_size=1, max_size=3, unique=True))
    arguments = tuple((head, draw(path_nodes(gaps=True))) for head in heads)
    result = draw(st.none() | path_nodes(gaps=False))
    n_arguments = sum(len(leaf_paths(node, ())) for _, node in arguments)
    n_results = 0 if result is None else len(leaf_paths(result, ()))
    return PathFunction(
        arguments,
        result,
        tuple(draw(st.permutations(range(n_arguments)))),
        tuple(draw(st.permutations(range(n_results)))),
        draw(st.booleans()),
        draw(st.booleans()),
    )


@FUZZ
@given(path_functions())
def test_index_path_functions(function: PathFunction) -> None:
    assume(function.valid())
    body = function.text("fn")
    if function.saved_model:
        # A public function without exported names becomes private (docs/spec.md §6).
        helper = "  func.func @helper() {\n    func.return\n  }\n"
        text = "module attributes {tf_saved_model.semantics} {\n" + body + helper + "}\n"
    else:
        text = "builtin.module {\n" + body + "}\n"
    arguments, results = function.flat()
    if any(len(path) > 1 and _unranked(leaf) for path, leaf in arguments) or any(
        len(path) > 1 and _unranked(leaf) for path, leaf in results
    ):
        check_refused_by_v1(text)
        check_stable(text, "iree-abi-legacy")
        return
    v1 = check_stable(text, "iree-abi-v1")
    legacy = check_stable(text, "iree-abi-legacy")
    for output in (v1, legacy):
        assert "tf_saved_model" not in output
        assert ("func.func private @helper()" in output) == function.saved_model
    check_reflection(
        v1,
        legacy,
        "fn",
        function.expected_json(),
        function.expected_raw(),
        function.expected_sip(),
    )


# --------------------------------------------------------------------------------------
# Random paths: valid or not, only AbiError.
# --------------------------------------------------------------------------------------

components = st.one_of(st.integers(-1, 2), st.sampled_from(["a", "b", "é"]))
random_paths = st.lists(components, max_size=3)


@FUZZ
@given(
    st.lists(random_paths, min_size=1, max_size=4),
    st.lists(random_paths, max_size=2),
    st.sampled_from(PIPELINES),
)
def test_random_index_paths(
    argument_paths: list[list[int | str]], result_paths: list[list[int | str]], pipeline: str
) -> None:
    def attr(path: list[int | str]) -> str:
        parts = [string_literal(c, False) if isinstance(c, str) else str(c) for c in path]
        return f"{{abi.index_path = [{', '.join(parts)}]}}"

    args = ", ".join(f"%a{i}: i32 {attr(p)}" for i, p in enumerate(argument_paths))
    results = ", ".join(f"i32 {attr(p)}" for p in result_paths)
    values = ", ".join("%a0" for _ in result_paths)
    ret = (
        f"func.return {values} : {', '.join('i32' for _ in result_paths)}"
        if values
        else "func.return"
    )
    text = f"func.func @fn({args}) -> ({results}) {{\n  {ret}\n}}\n"
    try:
        output, _ = run(text, pipeline)
    except AbiError:
        return
    assert helpers.print_module(parse(output)) == output
    again, _ = run(output, pipeline)
    assert again == output


# --------------------------------------------------------------------------------------
# Mutated inputs through the driver: a diagnostic or a stable output, never a crash.
# --------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
SEED_FILES = [
    *sorted(p for p in (ROOT / "tests" / "filecheck").rglob("*.mlir") if "Output" not in p.parts),
    ROOT / "examples" / "structured.mlir",
]
FRAGMENTS = [
    "<",
    ">",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"',
    "%",
    "@",
    "!",
    "\\",
    "\n",
    "tuple<",
    '!abi.dict<"k": ',
    "i32",
    "tensor<?x",
    "!util.list<?>",
    "abi.index_path = [",
    'abi.name = "',
    "-1",
    "0",
    "é",
    "func.return",
    "// -----\n",
    "iree.abi = ",
]
mutations = st.lists(
    st.tuples(
        st.floats(0, 1),
        st.sampled_from(["insert", "delete", "copy"]),
        st.sampled_from(FRAGMENTS),
        st.integers(1, 20),
        st.floats(0, 1),
    ),
    min_size=1,
    max_size=4,
)


def mutate(text: str, edits: list[tuple[float, str, str, int, float]]) -> str:
    for where, kind, fragment, size, source in edits:
        i = int(where * len(text))
        if kind == "insert":
            text = text[:i] + fragment + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + size :]
        else:
            j = int(source * len(text))
            text = text[:i] + text[j : j + size] + text[i:]
    return text


def _drive(path: Path, args: list[str]) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = AbiOptMain.main([str(path), *args, "--allow-unregistered-dialect"])
    return status, out.getvalue(), err.getvalue()


@settings(FUZZ, max_examples=2000 if SLOW else 100)
@given(st.sampled_from(SEED_FILES), mutations, st.sampled_from(PIPELINES), st.booleans())
def test_mutated_inputs(seed: Path, edits: list[Any], pipeline: str, split: bool) -> None:
    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "in.mlir"
        source.write_text(mutate(seed.read_text(encoding="utf-8"), edits), encoding="utf-8")
        args = ["-p", pipeline, *(["--split-input-file"] if split else [])]
        status, output, errors = _drive(source, args)
        assert "internal error" not in errors and "Traceback" not in errors, errors
        assert status in (0, 1)
        if status == 0:
            source.write_text(output, encoding="utf-8")
            again, printed, warnings = _drive(source, args)
            assert (again, printed) == (0, output)
            # Only warnings that stay true of the output (a nested module's functions).
            assert all(
                "functions in a nested module get no ABI" in line for line in warnings.splitlines()
            ), warnings


def test_fuzz_settings_documented() -> None:
    assert "ABI_SLOW=1" in (__doc__ or "")
