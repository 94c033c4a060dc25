"""Random structured functions for the lowering tests: hypothesis strategies for
signatures (nested tuples and dicts of leaves, named arguments, zero, one or several
results), bodies that re-nest the arguments' leaves with the `abi` ops (optionally through
a helper called with structured arguments), the MLIR text of such a function, and the
values it computes (`evaluate`), independently of the code under test.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

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
# references is nested Python lists (docs/spec.md §8.3).
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
    "!iree.list<i64>": st.lists(st.integers(-(2**63), 2**63 - 1), max_size=2),
    "tensor<2x!util.list<i32>>": st.lists(int_lists, min_size=2, max_size=2),
    "tensor<?x!util.list<i32>>": st.lists(int_lists, max_size=3),
}
LEAF_TYPES = sorted(LEAF_VALUES)
# What IREE's native ABI and `iree-compile` take (docs/spec.md §8.2's promise): ranked int/float
# tensors and signless int/float scalars; its runtime rejects `i1` and `index` scalars
# and lists in arguments.
IREE_LEAF_TYPES = [t for t in LEAF_TYPES if t not in ("i1", "index") and "list" not in t]
DICT_KEYS = ["a", "b", "k", "m", "Z", "_x", "key1", "w"]
ARG_NAMES = ["x", "alpha", "Beta", "k", "y_2"]


def types(depth: int = 2, leaf_types: Sequence[str] = LEAF_TYPES) -> st.SearchStrategy[Type]:
    leaves = st.sampled_from(list(leaf_types)).map(LeafT)
    if depth == 0:
        return leaves
    inner = types(depth - 1, leaf_types)
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

    def argument_types(self) -> tuple[Type, ...]:
        return tuple(expr_type(e) for e in self.arguments)

    def result_types(self) -> tuple[Type, ...]:
        return tuple(expr_type(e) for e in self.results)

    def evaluate_call(self, values: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The helper's arguments when `@f` gets ``values``, and its results."""
        arguments = tuple(evaluate(e, values) for e in self.arguments)
        return arguments, tuple(evaluate(e, arguments) for e in self.results)


@dataclass(frozen=True)
class FunctionSpec:
    """`@f(args) -> results`. Without a helper, ``results`` are over f's arguments; with
    one, f calls it and ``results`` are over f's arguments followed by the helper's
    results (so they take call results apart, re-nest them, or drop some)."""

    arguments: tuple[tuple[Type, str | None], ...]
    results: tuple[Expr, ...]
    helper: Helper | None

    @property
    def argument_types(self) -> tuple[Type, ...]:
        return tuple(t for t, _ in self.arguments)

    def result_types(self) -> tuple[Type, ...]:
        return tuple(expr_type(e) for e in self.results)

    def evaluate(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """The results of `@f` on ``values``."""
        env = values
        if self.helper is not None:
            env = (*values, *self.helper.evaluate_call(values)[1])
        return tuple(evaluate(e, env) for e in self.results)


@st.composite
def function_specs(draw: st.DrawFn, leaf_types: Sequence[str] = LEAF_TYPES) -> FunctionSpec:
    arg_types = draw(st.lists(types(leaf_types=leaf_types), max_size=4))
    named = draw(st.integers(0, len(arg_types)))
    names = draw(st.lists(st.sampled_from(ARG_NAMES), min_size=named, max_size=named, unique=True))
    arguments = tuple(
        (t, None if i < len(arg_types) - named else names[i - (len(arg_types) - named)])
        for i, t in enumerate(arg_types)
    )
    env = tuple(arg_types)
    shape = draw(st.sampled_from(["none", "one", "one", "many", "many"]))
    result_count = {"none": 0, "one": 1}.get(shape) or draw(st.integers(2, 3))
    helper = None
    if draw(st.sampled_from([True, True, False])):  # a helper in two of three cases
        mids = tuple(draw(st.lists(exprs(env), min_size=1, max_size=3)))
        mid_env = tuple(expr_type(e) for e in mids)
        helper_results = tuple(draw(st.lists(exprs(mid_env), max_size=3)))
        helper = Helper(mids, helper_results, draw(st.booleans()))
        env = (*env, *helper.result_types())
    return FunctionSpec(arguments, tuple(draw(exprs(env)) for _ in range(result_count)), helper)


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
    """A module holding `@f` (and its helper `@h`)."""
    return "builtin.module {\n" + "\n".join(function_texts(spec)) + "\n}\n"


def function_texts(spec: FunctionSpec, name: str = "f", helper_name: str = "h") -> list[str]:
    """The text of `@<name>` and, if it has one, of its helper `@<helper_name>`."""
    roots = [f"%a{i}" for i in range(len(spec.arguments))]
    writer = BodyWriter(roots, spec.argument_types)
    result_types = spec.result_types()
    functions = []
    helper = spec.helper
    if helper is not None:
        operands = [writer.expr(e) for e in helper.arguments]
        mid_types = helper.argument_types()
        helper_types = helper.result_types()
        callee = (
            f"func.call @{helper_name}({', '.join(operands)}) : "
            f"({', '.join(mlir_type(t) for t in mid_types)}) -> "
            + ("(" + ", ".join(mlir_type(t) for t in helper_types) + ")")
        )
        called = [writer.fresh() for _ in helper_types]
        writer.lines.append(f"    {', '.join(called)} = {callee}" if called else f"    {callee}")
        writer.roots = [*writer.roots, *called]
        writer.env = (*writer.env, *helper_types)
        helper_writer = BodyWriter([f"%a{i}" for i in range(len(mid_types))], mid_types)
        helper_values = [helper_writer.expr(e) for e in helper.results]
        helper_writer.lines.append(return_op(helper_values, helper_types))
        functions.append(
            function_text(
                helper_name,
                tuple((t, None) for t in mid_types),
                helper_types,
                helper_writer.lines,
                private=not helper.public,
            )
        )
    values = [writer.expr(e) for e in spec.results]
    writer.lines.append(return_op(values, result_types))
    functions.insert(0, function_text(name, spec.arguments, result_types, writer.lines))
    return functions
