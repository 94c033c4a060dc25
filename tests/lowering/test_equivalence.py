"""Lowering preserves meaning (issue 5, item 5; SPEC §8, §10).

Hypothesis generates a structured function (nested tuples and dicts of scalars, small
tensors, lists and ND-arrays of references; named arguments; zero, one or several
results, a single structured result) whose body re-nests its inputs' leaves with
`abi.tuple.get` / `abi.dict.get` / `abi.tuple.pack` / `abi.dict.pack`, optionally through a
helper (private or exported) called with structured arguments, and random values for its
arguments. The function runs in xDSL's interpreter three ways:

* the original module, with Python tuples and dicts;
* the module lowered by `-p iree-abi-v1`, through `runtime.pack` / `unpack` and the
  wrapper's `iree.abi`;
* the module lowered by `-p iree-abi-legacy`, through `pack_legacy` / `unpack_legacy`
  and the `f` / `sip` reflection (empty structures vanish from SIP, §8: the legacy caller
  passes and gets the values without them).

All three must give what the generator computed in Python. Each lowered module must also
be free of structured types and unchanged by a second run of its pipeline.

A second property does the same for functions whose structure comes from index paths
(SPEC §3.2): flat functions with `tf_saved_model.index_path` (saved-model, with an
exported name) or `abi.index_path`, in a shuffled flat order, with gaps and named roots.

Examples: 50 per property in the normal run; `ABI_SLOW=1` runs 1000 (about 5 minutes per
property on a 2-core machine).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy
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
# Types: leaves, tuples and dicts (the generator's own model, independent of the code
# under test).
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeafT:
    mlir: str


@dataclass(frozen=True)
class TupleT:
    items: tuple[Type, ...]


@dataclass(frozen=True)
class DictT:
    """Entries in the order the type text lists them (not necessarily sorted)."""

    entries: tuple[tuple[str, Type], ...]

    def sorted_entries(self) -> list[tuple[str, Type]]:
        return sorted(self.entries, key=lambda entry: entry[0].encode())


Type = LeafT | TupleT | DictT
PathKey = int | str


def mlir_type(t: Type) -> str:
    if isinstance(t, LeafT):
        return t.mlir
    if isinstance(t, TupleT):
        return "tuple<" + ", ".join(mlir_type(item) for item in t.items) + ">"
    return "!abi.dict<" + ", ".join(f'"{k}": {mlir_type(v)}' for k, v in t.entries) + ">"


def leaf_count(t: Type) -> int:
    if isinstance(t, LeafT):
        return 1
    if isinstance(t, TupleT):
        return sum(leaf_count(item) for item in t.items)
    return sum(leaf_count(v) for _, v in t.entries)


def subtrees(t: Type, path: tuple[PathKey, ...] = ()) -> Iterator[tuple[tuple[PathKey, ...], Type]]:
    """Every node of ``t`` (itself included) with its path."""
    yield path, t
    if isinstance(t, TupleT):
        for i, item in enumerate(t.items):
            yield from subtrees(item, (*path, i))
    elif isinstance(t, DictT):
        for key, item in t.entries:
            yield from subtrees(item, (*path, key))


def element_strategy(dtype: Any) -> st.SearchStrategy[Any]:
    if np.issubdtype(dtype, np.floating):
        return st.floats(width=np.dtype(dtype).itemsize * 8, allow_nan=False)
    info = np.iinfo(dtype)
    return st.integers(int(info.min), int(info.max))


def array_strategy(dtype: Any, shape: st.SearchStrategy[tuple[int, ...]]) -> st.SearchStrategy[Any]:
    return hnp.arrays(dtype, shape, elements=element_strategy(dtype))


small = st.integers(0, 3)
int32s = st.integers(-(2**31), 2**31 - 1)
int_lists = st.lists(int32s, max_size=3)

# Leaf types and strategies for their values. Tensors are numpy arrays (the interpreter
# implementations read `.shape`; the runtime checks rank and static dims); an ND-array of
# references is nested Python lists (SPEC §8.3).
LEAF_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "i1": st.booleans(),
    "i32": int32s,
    "i64": st.integers(-(2**63), 2**63 - 1),
    "f32": st.floats(width=32, allow_nan=False),
    "f64": st.floats(allow_nan=False),
    "index": st.integers(0, 2**31),
    "tensor<2x3xf32>": array_strategy(np.float32, st.just((2, 3))),
    "tensor<?x4xi32>": array_strategy(np.int32, st.tuples(small, st.just(4))),
    "tensor<?xf64>": array_strategy(np.float64, st.tuples(small)),
    "tensor<f32>": array_strategy(np.float32, st.just(())),
    "tensor<?x?xi8>": array_strategy(np.int8, st.tuples(small, small)),
    "tensor<3xi64>": array_strategy(np.int64, st.just((3,))),
    "!util.list<i32>": int_lists,
    "tensor<2x!util.list<i32>>": st.lists(int_lists, min_size=2, max_size=2),
    "tensor<?x!util.list<i32>>": st.lists(int_lists, max_size=3),
}
LEAF_TYPES = sorted(LEAF_VALUES)
DICT_KEYS = ["a", "b", "k", "m", "Z", "_x", "key1", "w"]
ARG_NAMES = ["x", "alpha", "Beta", "k", "y_2"]


def types(depth: int = 2) -> st.SearchStrategy[Type]:
    leaves = st.sampled_from(LEAF_TYPES).map(LeafT)
    if depth == 0:
        return leaves
    inner = types(depth - 1)
    tuples = st.lists(inner, max_size=3).map(lambda items: TupleT(tuple(items)))
    dicts = st.lists(st.sampled_from(DICT_KEYS), max_size=3, unique=True).flatmap(
        lambda keys: st.tuples(*[inner for _ in keys]).map(
            lambda values: DictT(tuple(zip(keys, values, strict=True)))
        )
    )
    return st.one_of(leaves, leaves, tuples, dicts)


def values_of(t: Type) -> st.SearchStrategy[Any]:
    """Python values of type ``t``: tuples and dicts (keys in the type's order)."""
    if isinstance(t, LeafT):
        return LEAF_VALUES[t.mlir]
    if isinstance(t, TupleT):
        return st.tuples(*[values_of(item) for item in t.items])
    keys = [key for key, _ in t.entries]
    return st.tuples(*[values_of(v) for _, v in t.entries]).map(
        lambda vs: dict(zip(keys, vs, strict=True))
    )


# --------------------------------------------------------------------------------------
# Expressions: how a body builds each value it passes on or returns.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """The node at ``path`` below the body's ``root``-th argument."""

    root: int
    path: tuple[PathKey, ...]
    type: Type


@dataclass(frozen=True)
class Const:
    type: LeafT
    value: int | float


@dataclass(frozen=True)
class Double:
    """`arith.addi` / `arith.addf` of a leaf with itself: an op that is not an abi op."""

    ref: Ref


@dataclass(frozen=True)
class PackTuple:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class PackDict:
    entries: tuple[tuple[str, Expr], ...]  # type order


Expr = Ref | Const | Double | PackTuple | PackDict

DOUBLABLE = {"i32": 32, "i64": 64, "f64": 0}
CONSTANTS: list[tuple[str, int | float]] = [("i32", 7), ("i64", -3), ("f32", 0.5), ("f64", 2.25)]


def expr_type(e: Expr) -> Type:
    if isinstance(e, Ref):
        return e.type
    if isinstance(e, Const):
        return e.type
    if isinstance(e, Double):
        return e.ref.type
    if isinstance(e, PackTuple):
        return TupleT(tuple(expr_type(item) for item in e.items))
    return DictT(tuple((key, expr_type(item)) for key, item in e.entries))


@st.composite
def exprs(draw: st.DrawFn, env: tuple[Type, ...], depth: int = 2) -> Expr:
    sources = [Ref(root, path, t) for root, arg in enumerate(env) for path, t in subtrees(arg)]
    doublable = [s for s in sources if isinstance(s.type, LeafT) and s.type.mlir in DOUBLABLE]
    kinds = ["const"]
    if sources:
        kinds += ["ref"] * 4
    if doublable:
        kinds.append("double")
    if depth > 0:
        kinds += ["tuple", "tuple", "dict"]
    kind = draw(st.sampled_from(kinds))
    if kind == "ref":
        return draw(st.sampled_from(sources))
    if kind == "const":
        mlir, value = draw(st.sampled_from(CONSTANTS))
        return Const(LeafT(mlir), value)
    if kind == "double":
        return Double(draw(st.sampled_from(doublable)))
    inner = exprs(env, depth - 1)
    if kind == "tuple":
        return PackTuple(tuple(draw(st.lists(inner, max_size=3))))
    keys = draw(st.lists(st.sampled_from(DICT_KEYS), max_size=3, unique=True))
    return PackDict(tuple((key, draw(inner)) for key in keys))


def evaluate(e: Expr, env: tuple[Any, ...]) -> Any:
    """The value ``e`` denotes; dicts built in sorted key order, as the lowering does."""
    if isinstance(e, Ref):
        value = env[e.root]
        for key in e.path:
            value = value[key]
        return value
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Double):
        value = evaluate(e.ref, env)
        assert isinstance(e.ref.type, LeafT)
        bits = DOUBLABLE[e.ref.type.mlir]
        if not bits:
            return value + value
        return (2 * value + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)
    if isinstance(e, PackTuple):
        return tuple(evaluate(item, env) for item in e.items)
    ordered = sorted(e.entries, key=lambda entry: entry[0].encode())
    return {key: evaluate(item, env) for key, item in ordered}


# --------------------------------------------------------------------------------------
# Functions.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Helper:
    """`@h`, called by `@f` with ``arguments`` (over f's arguments); returns ``results``
    (over its own parameters). Exported (public) or private."""

    arguments: tuple[Expr, ...]
    results: tuple[Expr, ...]
    public: bool


@dataclass(frozen=True)
class FunctionSpec:
    """`@f(args) -> results`: its results come from ``results`` (over its arguments) or,
    with a helper, are the helper's results."""

    arguments: tuple[tuple[Type, str | None], ...]
    results: tuple[Expr, ...]
    helper: Helper | None

    @property
    def argument_types(self) -> tuple[Type, ...]:
        return tuple(t for t, _ in self.arguments)

    def result_exprs(self) -> tuple[Expr, ...]:
        return self.helper.results if self.helper is not None else self.results

    def result_types(self) -> tuple[Type, ...]:
        return tuple(expr_type(e) for e in self.result_exprs())


@st.composite
def function_specs(draw: st.DrawFn) -> FunctionSpec:
    arg_types = draw(st.lists(types(), max_size=4))
    named = draw(st.integers(0, len(arg_types)))
    names = draw(st.lists(st.sampled_from(ARG_NAMES), min_size=named, max_size=named, unique=True))
    arguments = tuple(
        (t, None if i < len(arg_types) - named else names[i - (len(arg_types) - named)])
        for i, t in enumerate(arg_types)
    )
    env = tuple(arg_types)
    shape = draw(st.sampled_from(["none", "one", "one", "many", "many"]))
    result_count = {"none": 0, "one": 1}.get(shape) or draw(st.integers(2, 3))
    if draw(st.sampled_from([True, True, False])):  # a helper in two of three cases
        mids = tuple(draw(st.lists(exprs(env), min_size=1, max_size=3)))
        mid_env = tuple(expr_type(e) for e in mids)
        results = tuple(draw(exprs(mid_env)) for _ in range(result_count))
        return FunctionSpec(arguments, (), Helper(mids, results, draw(st.booleans())))
    return FunctionSpec(arguments, tuple(draw(exprs(env)) for _ in range(result_count)), None)


class BodyWriter:
    """Writes the ops of one function body; values reached by a get chain are reused."""

    def __init__(self, roots: list[str], env: tuple[Type, ...]) -> None:
        self.lines: list[str] = []
        self.roots = roots
        self.env = env
        self.count = 0
        self.gets: dict[tuple[int, tuple[PathKey, ...]], str] = {}

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def emit(self, text: str) -> str:
        name = self.fresh()
        self.lines.append(f"    {name} = {text}")
        return name

    def ref(self, root: int, path: tuple[PathKey, ...]) -> str:
        if not path:
            return self.roots[root]
        key = (root, path)
        if key not in self.gets:
            parent = self.ref(root, path[:-1])
            parent_type = self.env[root]
            for step in path[:-1]:
                parent_type = item_type(parent_type, step)
            child_type = item_type(parent_type, path[-1])
            op = "abi.tuple.get" if isinstance(parent_type, TupleT) else "abi.dict.get"
            index = path[-1] if isinstance(path[-1], int) else f'"{path[-1]}"'
            self.gets[key] = self.emit(
                f"{op} {parent}[{index}] : {mlir_type(parent_type)} -> {mlir_type(child_type)}"
            )
        return self.gets[key]

    def expr(self, e: Expr) -> str:
        if isinstance(e, Ref):
            return self.ref(e.root, e.path)
        if isinstance(e, Const):
            return self.emit(f"arith.constant {e.value} : {e.type.mlir}")
        if isinstance(e, Double):
            value = self.ref(e.ref.root, e.ref.path)
            assert isinstance(e.ref.type, LeafT)
            op = "arith.addf" if e.ref.type.mlir.startswith("f") else "arith.addi"
            return self.emit(f"{op} {value}, {value} : {e.ref.type.mlir}")
        if isinstance(e, PackTuple):
            operands = [self.expr(item) for item in e.items]
            operand_types = [mlir_type(expr_type(item)) for item in e.items]
            return self.emit(
                f"abi.tuple.pack {', '.join(operands)} : ({', '.join(operand_types)}) -> "
                f"{mlir_type(expr_type(e))}"
            )
        ordered = sorted(e.entries, key=lambda entry: entry[0].encode())
        operands = [self.expr(item) for _, item in ordered]
        operand_types = [mlir_type(expr_type(item)) for _, item in ordered]
        return self.emit(
            f"abi.dict.pack {', '.join(operands)} : ({', '.join(operand_types)}) -> "
            f"{mlir_type(expr_type(e))}"
        )


def item_type(t: Type, key: PathKey) -> Type:
    if isinstance(t, TupleT):
        assert isinstance(key, int)
        return t.items[key]
    assert isinstance(t, DictT)
    return dict(t.entries)[str(key)]


def result_list(types_: tuple[Type, ...]) -> str:
    texts = [mlir_type(t) for t in types_]
    if len(texts) == 1:
        return texts[0]
    return "(" + ", ".join(texts) + ")"


def return_op(values: list[str], types_: tuple[Type, ...]) -> str:
    if not values:
        return "    func.return"
    return f"    func.return {', '.join(values)} : {', '.join(mlir_type(t) for t in types_)}"


def function_text(
    name: str,
    arguments: tuple[tuple[Type, str | None], ...],
    results: tuple[Type, ...],
    body: list[str],
    private: bool = False,
) -> str:
    params = []
    for i, (t, arg_name) in enumerate(arguments):
        attrs = f' {{abi.name = "{arg_name}"}}' if arg_name is not None else ""
        params.append(f"%a{i}: {mlir_type(t)}{attrs}")
    signature = f"@{name}({', '.join(params)})"
    if results:
        signature += f" -> {result_list(results)}"
    visibility = "private " if private else ""
    return "\n".join([f"  func.func {visibility}{signature} {{", *body, "  }"])


def module_text(spec: FunctionSpec) -> str:
    roots = [f"%a{i}" for i in range(len(spec.arguments))]
    writer = BodyWriter(roots, spec.argument_types)
    result_types = spec.result_types()
    functions = []
    if spec.helper is None:
        values = [writer.expr(e) for e in spec.results]
        writer.lines.append(return_op(values, result_types))
    else:
        helper = spec.helper
        operands = [writer.expr(e) for e in helper.arguments]
        mid_types = tuple(expr_type(e) for e in helper.arguments)
        callee = (
            f"func.call @h({', '.join(operands)}) : "
            f"({', '.join(mlir_type(t) for t in mid_types)}) -> "
            + ("(" + ", ".join(mlir_type(t) for t in result_types) + ")")
        )
        if result_types:
            returned = [writer.fresh() for _ in result_types]
            writer.lines.append(f"    {', '.join(returned)} = {callee}")
        else:
            returned = []
            writer.lines.append(f"    {callee}")
        writer.lines.append(return_op(returned, result_types))
        helper_writer = BodyWriter([f"%a{i}" for i in range(len(mid_types))], mid_types)
        helper_values = [helper_writer.expr(e) for e in helper.results]
        helper_writer.lines.append(return_op(helper_values, result_types))
        functions.append(
            function_text(
                "h",
                tuple((t, None) for t in mid_types),
                result_types,
                helper_writer.lines,
                private=not helper.public,
            )
        )
    functions.insert(0, function_text("f", spec.arguments, result_types, writer.lines))
    return "builtin.module {\n" + "\n".join(functions) + "\n}\n"


# --------------------------------------------------------------------------------------
# The legacy view: empty structures have no leaves and vanish from SIP (SPEC §8).
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
    if helper is None:
        expected = tuple(evaluate(e, values) for e in spec.results)
    else:
        mids = tuple(evaluate(e, values) for e in helper.arguments)
        expected = tuple(evaluate(e, mids) for e in helper.results)
        if helper.public:
            mid_types = tuple(expr_type(e) for e in helper.arguments)
            check_function(
                original,
                v1,
                legacy,
                "h",
                tuple((t, None) for t in mid_types),
                spec.result_types(),
                mids,
                expected,
            )
    check_function(original, v1, legacy, "f", spec.arguments, spec.result_types(), values, expected)


def test_generated_module_text_is_what_the_generator_means() -> None:
    """The generator's text for a known spec: a get chain, a dict pack with operands in
    sorted key order, a helper called with structured arguments."""
    pair = TupleT((LeafT("i32"), DictT((("m", LeafT("f32")), ("b", LeafT("i64"))))))
    spec = FunctionSpec(
        arguments=((pair, None), (LeafT("tensor<?xf64>"), "x")),
        results=(),
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
    assert "func.call @h(%v1, %a1)" in text
    assert "abi.dict.pack %v1, %a1 : (i64, tensor<?xf64>)" in text
    module = parse(text)
    values = ((1, {"m": 0.5, "b": 9}), np.arange(2, dtype=np.float64))
    (result,) = call(module, "f", values)
    assert result["a"] == 9 and result["z"] is values[1]
    assert math.isclose(evaluate(spec.helper.arguments[0], values)["m"], 0.5)  # type: ignore[union-attr]


# --------------------------------------------------------------------------------------
# Functions whose structure comes from index paths (SPEC §3.2): flat in the IR, wrapped
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
        """SPEC §4.3: the key of each root component, in flat order a name takes 1 + the
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
