"""A generated campaign against the checks a function's original call (`abi.call`) makes
before the VM (docs/calling.md#what-the-original-call-checks), without any framework:
original calls whose arrays share dynamic dims (symbols, ``k*s + c`` expressions, static
sizes, bounds) called through `CallPlan` with consistent and mismatched shapes, and integer
arrays of every dtype of a compiled module called with nested lists holding values in and
out of range (skipped without IREE). The oracles are written here, independently of the code
under test:

* dims: a call is refused exactly when no assignment of the symbols within their bounds
  gives every leaf its shape (brute force over small values); a refusal names the path of
  a leaf of the call, and a shared-symbol refusal names two. A static dim of the wrong
  size of an array without symbols is left to the records (which refuse it in their
  words): such a call may pass the plan;
* ints: a call is refused exactly when an element is outside the dtype's range, at the
  first such element in C order.

`ABI_SLOW=1` runs 20 times as many examples (tests/frontends/campaign_jax.py compares a
JAX export's compiled call with JAX itself on generated exports, where JAX is installed).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abi_compiler.call_model import (
    Array,
    CallNode,
    Container,
    Dim,
    NoneLeaf,
    OriginalCall,
    Symbol,
)
from abi_compiler.calling.dims import DimRelations, LeafDims
from abi_compiler.calling.original_call import CallPlan
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.errors import AbiError
from tests.calling.conftest import mlir_string, needs_iree
from tests.calling.helpers import compile_quietly

SLOW = bool(os.environ.get("ABI_SLOW"))
CAMPAIGN = settings(
    max_examples=4000 if SLOW else 200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SYMBOLS = ("a", "b", "c")
# The largest symbol value the oracle tries: sizes stay below 3 * 12 + 2.
LARGEST = 40


@dataclass(frozen=True)
class Shaped:
    """An array as the plan measures it: by its ``.shape``."""

    shape: tuple[int, ...]


# A leaf dim: ("static", n) | ("symbol", s) | ("linear", s, k, c) (k*s + c) | ("free",)
DimSpec = tuple[Any, ...]


def dim_specs() -> st.SearchStrategy[DimSpec]:
    return st.one_of(
        st.tuples(st.just("static"), st.integers(0, 6)),
        st.tuples(st.just("symbol"), st.sampled_from(SYMBOLS)),
        st.tuples(
            st.just("linear"), st.sampled_from(SYMBOLS), st.integers(1, 3), st.integers(0, 2)
        ),
        st.tuples(st.just("free")),
    )


def to_dim(spec: DimSpec) -> Dim:
    if spec[0] == "static":
        return int(spec[1])
    if spec[0] == "symbol":
        return str(spec[1])
    if spec[0] == "linear":
        _, symbol, k, c = spec
        return ((k, (symbol,)), *(((c, ()),) if c else ()))
    return None


def size_of(spec: DimSpec, values: dict[str, int], free: int) -> int:
    if spec[0] == "static":
        return int(spec[1])
    if spec[0] == "symbol":
        return values[spec[1]]
    if spec[0] == "linear":
        _, symbol, k, c = spec
        return int(k) * values[symbol] + int(c)
    return free


@st.composite
def trees(draw: st.DrawFn, leaves: list[Array], depth: int = 0) -> CallNode:
    """A structure over some of ``leaves`` (each drawn leaf is removed from the list)."""
    if depth >= 3 or len(leaves) <= 1 or draw(st.booleans()):
        return leaves.pop(0) if leaves else NoneLeaf()
    kind = draw(st.sampled_from(["dict", "list", "tuple"]))
    count = draw(st.integers(1, min(3, len(leaves))))
    children = tuple(draw(trees(leaves, depth + 1)) for _ in range(count))
    if kind == "dict":
        return Container("dict", children, tuple("pqr"[: len(children)]))
    return Container(kind, children)


@st.composite
def related_calls(draw: st.DrawFn) -> dict[str, Any]:
    leaf_count = draw(st.integers(1, 5))
    specs = [draw(st.lists(dim_specs(), min_size=0, max_size=3)) for _ in range(leaf_count)]
    # Leaf i of the records is array i of the call, in the call's order.
    leaves = [
        Array(index, "float32", tuple(to_dim(spec) for spec in dims))
        for index, dims in enumerate(specs)
    ]
    by_index = dict(enumerate(specs))
    pool = list(leaves)
    roots = []
    while pool:
        roots.append(draw(trees(pool)))
    keyword_count = draw(st.integers(0, len(roots) - 1)) if len(roots) > 1 else 0
    positional = roots[: len(roots) - keyword_count]
    keywords = {f"k{i}": tree for i, tree in enumerate(roots[len(positional) :])}
    bounds = {}
    for symbol in SYMBOLS:
        low = draw(st.integers(0, 3))
        high = draw(st.one_of(st.none(), st.integers(low, low + 10)))
        bounds[symbol] = (low, high)
    values = {
        symbol: draw(st.integers(low, min(high if high is not None else 12, 12)))
        for symbol, (low, high) in bounds.items()
    }
    shapes = {
        index: [size_of(spec, values, draw(st.integers(0, 5))) for spec in by_index[index]]
        for index in by_index
    }
    # A mismatch: one dim of one leaf changed (which may or may not break a relation).
    mutate = draw(st.booleans())
    if mutate:
        candidates = [(key, axis) for key, shape in shapes.items() for axis in range(len(shape))]
        if candidates:
            key, axis = draw(st.sampled_from(candidates))
            shapes[key][axis] = max(0, shapes[key][axis] + draw(st.sampled_from([-2, -1, 1, 3])))
    return {
        "positional": positional,
        "keywords": keywords,
        "bounds": bounds,
        "specs": by_index,
        "shapes": shapes,
        "mutated": mutate,
    }


def consistent(specs: dict[int, list[DimSpec]], shapes: dict[int, list[int]], bounds: Any) -> bool:
    """Whether some assignment of the symbols within their bounds gives every shape (the
    static dims of a leaf without symbols are the records' to check, not the
    plan's)."""
    specs = {
        key: dims
        for key, dims in specs.items()
        if any(spec[0] in ("symbol", "linear") for spec in dims)
    }
    used = sorted(
        {
            spec[1]
            for dims in specs.values()
            for spec in dims
            if len(spec) > 1 and spec[0] != "static"
        }
    )
    ranges = [
        range(bounds[s][0], (bounds[s][1] if bounds[s][1] is not None else LARGEST) + 1)
        for s in used
    ]
    for choice in itertools.product(*ranges):
        values = dict(zip(used, choice, strict=True))
        if all(
            spec[0] == "free" or size_of(spec, values, 0) == size
            for key, dims in specs.items()
            for spec, size in zip(dims, shapes[key], strict=True)
        ):
            return True
    return False


def value_for(node: CallNode, shapes: dict[int, list[int]]) -> Any:
    if isinstance(node, Array):
        return Shaped(tuple(shapes[node.index]))
    if isinstance(node, NoneLeaf):
        return None
    assert isinstance(node, Container)
    items = [value_for(child, shapes) for child in node.children]
    if node.kind == "dict":
        return dict(zip(node.keys, items, strict=True))
    return items if node.kind == "list" else tuple(items)


def leaf_paths(node: CallNode, text: str) -> list[str]:
    if isinstance(node, Array):
        return [text]
    if not isinstance(node, Container):
        return []
    keys: list[Any] = list(node.keys) if node.kind == "dict" else list(range(len(node.children)))
    return [
        path
        for key, child in zip(keys, node.children, strict=True)
        for path in leaf_paths(child, f"{text}[{key!r}]")
    ]


def plan_of(call: OriginalCall, ranks: list[int]) -> CallPlan:
    """``call`` (written and read back as `abi.call` is) over records of one array root
    per leaf (of its rank, every dim dynamic), each leaf taken as it is, and its dims
    related as a loaded module relates them."""
    roots = ",".join(f'["ndarray","f32",{rank}{",null" * rank}]' for rank in ranks)
    signature = decode_json(f'{{"a":[{roots}],"r":[],"v":1}}')

    def relations(found: list[tuple[str, tuple[Dim, ...]]]) -> Any:
        return DimRelations(call.symbols, tuple(LeafDims(path, dims) for path, dims in found)).check

    return CallPlan(
        decode_call(encode_call(call)),
        signature,
        lambda array: lambda value: value,
        relations=relations,
    )


COUNTS = {
    "dims_accepted": 0,
    "dims_refused": 0,
    "dims_left_to_records": 0,
    "ints_accepted": 0,
    "ints_refused": 0,
}


@CAMPAIGN
@given(related_calls())
def test_dims_campaign(call: dict[str, Any]) -> None:
    original = OriginalCall(
        tuple(call["positional"]),
        tuple(call["keywords"].items()),
        Container("tuple", ()),
        symbols=tuple(Symbol(s, low, high) for s, (low, high) in call["bounds"].items()),
    )
    plan = plan_of(original, [len(call["specs"][index]) for index in sorted(call["specs"])])
    args = [value_for(tree, call["shapes"]) for tree in call["positional"]]
    kwargs = {name: value_for(tree, call["shapes"]) for name, tree in call["keywords"].items()}
    expected_ok = consistent(call["specs"], call["shapes"], call["bounds"])
    if not call["mutated"]:
        assert expected_ok
    paths = [
        path
        for root, tree in [*enumerate(call["positional"]), *call["keywords"].items()]
        for path in leaf_paths(tree, f"argument {root!r}")
    ]
    try:
        plan.arguments(tuple(args), kwargs)
    except AbiError as error:
        message = str(error)
        assert not expected_ok, message
        named = [path for path in paths if message.startswith(path + ":")]
        assert named, message
        if "for the same symbol" in message:
            assert any(f"but {path} has" in message for path in paths), message
        COUNTS["dims_refused"] += 1
    else:
        if static_broken(call["specs"], call["shapes"]):
            # A static dim of the wrong size: the records refuse the call (in their own
            # words: `expected float32[?,4], got float32[2,5]`), the plan leaves it.
            COUNTS["dims_left_to_records"] += 1
            return
        assert expected_ok, (call["specs"], call["shapes"], call["bounds"])
        COUNTS["dims_accepted"] += 1


def static_broken(specs: dict[int, list[DimSpec]], shapes: dict[int, list[int]]) -> bool:
    return any(
        spec[0] == "static" and spec[1] != size
        for key, dims in specs.items()
        for spec, size in zip(dims, shapes[key], strict=True)
    )


INT_DTYPES = [f"{sign}int{width}" for sign in ("", "u") for width in (8, 16, 32, 64)]


def int_range(dtype: str) -> tuple[int, int]:
    width = int(dtype.lstrip("u").removeprefix("int"))
    return (
        (0, 2**width - 1) if dtype.startswith("u") else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    )


@st.composite
def int_calls(draw: st.DrawFn) -> tuple[str, Any]:
    dtype = draw(st.sampled_from(INT_DTYPES))
    low, high = int_range(dtype)
    element = st.one_of(
        st.integers(low, high),
        st.sampled_from([low, high, low - 1, high + 1, 0]),
        st.integers(-(2**70), 2**70),
    )
    shape = draw(st.lists(st.integers(1, 3), max_size=3))

    def build(level: int) -> Any:
        if level == len(shape):
            return draw(element)
        return [build(level + 1) for _ in range(shape[level])]

    return dtype, build(0)


def first_outside(
    value: Any, low: int, high: int, index: list[int]
) -> tuple[list[int], int] | None:
    if isinstance(value, list):
        for k, item in enumerate(value):
            found = first_outside(item, low, high, [*index, k])
            if found is not None:
                return found
        return None
    return None if low <= value <= high else (index, value)


def int_module_text() -> str:
    """f_<dtype>_<rank>({"w": x}) -> x for an array x of each integer dtype and rank."""
    parts = []
    for dtype in INT_DTYPES:
        width = int(dtype.lstrip("u").removeprefix("int"))
        for rank in range(4):
            t = f"tensor<{'?x' * rank}i{width}>"
            array = Array(0, dtype, (None,) * rank)
            call = OriginalCall((Container("dict", (array,), ("w",)),), (), array)
            parts.append(
                f'func.func @f_{dtype}_{rank}(%x: {t} {{abi.index_path = [0, "w"]}}) -> '
                f"({t} {{abi.index_path = []}}) attributes "
                f'{{iree.reflection = {{abi.call = "{mlir_string(encode_call(call))}"}}}} {{\n'
                f"  return %x : {t}\n}}\n"
            )
    return "".join(parts)


@pytest.fixture(scope="module")
def int_module() -> Any:
    needs_iree()
    return compile_quietly(int_module_text())


def rank_of(value: Any) -> int:
    return 1 + rank_of(value[0]) if isinstance(value, list) else 0


@CAMPAIGN
@given(call=int_calls())
def test_int_range_campaign(int_module: Any, call: tuple[str, Any]) -> None:
    dtype, value = call
    function = int_module[f"f_{dtype}_{rank_of(value)}"]
    outside = first_outside(value, *int_range(dtype), [])
    try:
        got = function({"w": value})
    except AbiError as error:
        assert outside is not None, str(error)
        index, number = outside
        where = "".join(f"[{k}]" for k in index)
        assert str(error) == f"argument 0['w']{where}: value {number} does not fit in {dtype}"
        COUNTS["ints_refused"] += 1
    else:
        assert outside is None, (dtype, value)
        # The values come back in the framework's dtype, whatever the bits' sign.
        assert got.dtype.name == dtype and got.tolist() == value
        COUNTS["ints_accepted"] += 1


def test_campaign_settings_documented() -> None:
    assert "ABI_SLOW=1" in (__doc__ or "")
