"""`abi_compiler.calling.original_call`: the original call read together with the records —
binding, checks and errors, results rebuilt — without IREE or a framework."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import pytest

from abi_compiler.call_model import (
    Array,
    Constant,
    Container,
    NoneLeaf,
    OriginalCall,
    Symbol,
    Unused,
)
from abi_compiler.calling.leaf_values import leaf_packer
from abi_compiler.calling.original_call import CallPlan
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.errors import AbiError
from abi_compiler.model import leaves

np = pytest.importorskip("numpy")

F32 = '["ndarray","f32",1,2]'
# f(params: {"w", "b"} (w flattens first; the records sort b first), pair: Pair(a, b),
#   steps: 3 (specialized), unused, *, mask) -> (Point(loss, None), [grads, ()])
ABI = (
    f'{{"a":[["sdict",["b",{F32}],["w",{F32}]],["stuple",{F32},{F32}],["named","mask",{F32}]],'
    f'"r":[["stuple",["stuple",{F32}],["slist",{F32}]]],"v":1}}'
)


def arr(index: int) -> Array:
    return Array(index, "float32", (2,))


CALL = OriginalCall(
    positional=(
        Container("dict", (arr(1), arr(0)), ("w", "b")),
        Container("namedtuple", (arr(2), arr(3)), ("a", "b"), "Pair"),
        Constant(3, "int"),
        Unused("float32", (6,)),
    ),
    keywords=(("mask", arr(4)),),
    result=Container(
        "tuple",
        (
            Container("namedtuple", (arr(0), NoneLeaf()), ("x", "y"), "Point"),
            Container("list", (arr(1), Container("tuple", ()))),
        ),
    ),
    labels=("params", None, None, None),
)


def plan(call: OriginalCall = CALL, abi: str = ABI, **options: Any) -> CallPlan:
    signature = decode_json(abi)
    by_index = {leaf.index: leaf for arg in signature.arguments for leaf in leaves(arg.node)}

    def leaf(array: Array) -> Any:
        return leaf_packer(by_index[array.index].type, False)

    return CallPlan(decode_call(encode_call(call)), signature, leaf, **options)


def v(start: float) -> Any:
    return np.array([start, start + 1], np.float32)


Pair = collections.namedtuple("Pair", ["a", "b"])
ARGS = ({"w": v(0), "b": v(2)}, Pair(v(4), v(6)), 3, "anything")


def test_arguments_become_the_packed_roots() -> None:
    packed = plan().arguments(ARGS, {"mask": v(8)})
    assert [
        [list(x) for x in root] if isinstance(root, list) else list(root) for root in packed
    ] == [
        [[2, 3], [0, 1]],  # sdict in sorted key order: b, w
        [[4, 5], [6, 7]],
        [8, 9],
    ]


def test_any_object_with_the_fields_is_taken() -> None:
    """A plain tuple for a namedtuple, or another class with the same fields (a server
    never has the training code's classes)."""

    @dataclasses.dataclass
    class Other:
        a: Any
        b: Any

    for pair in (
        (v(4), v(6)),
        Other(v(4), v(6)),
        collections.namedtuple("Pair", "a b")(v(4), v(6)),
    ):
        packed = plan().arguments((ARGS[0], pair, 3, None), {"mask": v(8)})
        assert list(packed[1][1]) == [6, 7]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (ARGS[:3], {"mask": v(8)}, "argument 3: missing value"),
        (
            (*ARGS, v(8), 7),
            {},
            "argument 5: unexpected positional argument (the function takes 5 positional arguments)",
        ),
        ((*ARGS, v(8)), {"mask": v(8)}, "argument 'mask': given both positionally and by keyword"),
        (
            ARGS,
            {"mask": v(8), "other": 2},
            "argument 'other': unexpected keyword argument (keywords: 'mask')",
        ),
        (ARGS, {}, "argument 'mask': missing value"),
        (
            (ARGS[0], ARGS[1], 4, None),
            {"mask": v(8)},
            "argument 2: expected 3 (the value the program was exported with), got 4",
        ),
        (
            ({"w": v(0)}, *ARGS[1:]),
            {"mask": v(8)},
            "argument params: expected a dict with keys ['b', 'w'], got keys ['w']",
        ),
        # A caller's int too long for Python to print (more than 4300 digits): the
        # message says how long (was `ValueError: Exceeds the limit (4300 digits)`).
        (
            (ARGS[0], ARGS[1], 10**5000, None),
            {"mask": v(8)},
            "argument 2: expected 3 (the value the program was exported with), got "
            "<an integer of 16610 bits>",
        ),
        (
            (ARGS[0], ARGS[1], (-(10**5000),), None),
            {"mask": v(8)},
            "argument 2: expected 3 (the value the program was exported with), got a tuple "
            "(too long to show)",
        ),
        (
            ({"w": v(0), 10**5000: v(2)}, *ARGS[1:]),
            {"mask": v(8)},
            "argument params: expected a dict with keys ['b', 'w'], got keys "
            "[<an integer of 16610 bits>, 'w'] (int)",
        ),
        (
            ({"w": v(0), "b": np.zeros(3, np.float32)}, *ARGS[1:]),
            {"mask": v(8)},
            "argument params['b']: expected float32[2], got float32[3]",
        ),
        (
            (ARGS[0], Pair(v(4), np.zeros(2, np.int32)), *ARGS[2:]),
            {"mask": v(8)},
            "argument 1.b: expected float32[2], got int32[2] (convert=True converts it)",
        ),
        (
            (ARGS[0], object(), *ARGS[2:]),
            {"mask": v(8)},
            "argument 1: expected a Pair with fields ['a', 'b'], got object",
        ),
    ],
)
def test_argument_errors(args: tuple[Any, ...], kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AbiError) as error:
        plan().arguments(args, kwargs)
    assert str(error.value) == message


def test_results_rebuild_the_original_tree() -> None:
    # What the VM's readers give: the inlined result tuple's items, structures as lists.
    result = plan().results([[v(0)], [v(1)]])
    assert type(result) is tuple and type(result[1]) is list and result[1][1] == ()
    point = result[0]
    assert type(point).__name__ == "Point" and point._fields == ("x", "y") and point.y is None
    assert list(point.x) == [0, 1]


def test_results_in_the_callers_own_classes_and_dict_order() -> None:
    Point = collections.namedtuple("Point", ["x", "y"])
    assert type(plan(types=[Point]).results([[v(0)], [v(1)]])[0]) is Point
    assert type(plan(types={"Point": Point}).results([[v(0)], [v(1)]])[0]) is Point
    call = dataclasses.replace(
        CALL,
        result=Container(
            "tuple",
            (
                Container("dict", (arr(0), NoneLeaf()), ("z", "a")),
                Container("dataclass", (arr(1), Container("tuple", ())), ("loss", "aux"), "Out"),
            ),
        ),
    )
    result = plan(call).results([[v(0)], [v(1)]])
    assert list(result[0]) == ["z", "a"] and result[0]["a"] is None
    assert dataclasses.is_dataclass(result[1]) and type(result[1]).__name__ == "Out"
    with pytest.raises(dataclasses.FrozenInstanceError):
        result[1].loss = 0  # type: ignore[misc]


def test_shared_symbols_and_bounds_are_checked_before_the_call() -> None:
    """The plan gives the arrays with symbolic dims and their shapes to the relations
    (`abi_compiler.iree` checks them with `abi_compiler.calling.dims`)."""
    from abi_compiler.calling.dims import DimRelations, LeafDims

    def relations(leaves: list[tuple[str, tuple[Any, ...]]]) -> Any:
        symbols = (Symbol("b", 1, 4),)
        return DimRelations(symbols, tuple(LeafDims(p, d) for p, d in leaves)).check

    abi = '{"a":[["ndarray","f32",1,null],["ndarray","f32",1,null]],"r":[],"v":1}'
    call = OriginalCall(
        (Array(0, "float32", ("b",)), Array(1, "float32", ("b",))),
        (),
        Container("tuple", ()),
        symbols=(Symbol("b", 1, 4),),
    )
    ok = plan(call, abi, relations=relations)
    ok.arguments((np.zeros(3, np.float32), np.zeros(3, np.float32)), {})
    with pytest.raises(AbiError) as error:
        ok.arguments((np.zeros(3, np.float32), np.zeros(2, np.float32)), {})
    assert str(error.value) == (
        "argument 1: dimension 0 is 2, but argument 0 has 3 in dimension 0 for the same symbol 'b'"
    )
    with pytest.raises(AbiError) as error:
        ok.arguments((np.zeros(5, np.float32), np.zeros(5, np.float32)), {})
    assert str(error.value) == "argument 0: dimension 0 is 5, but symbol 'b' is at most 4"


def test_a_call_that_disagrees_with_the_records_is_refused() -> None:
    call = dataclasses.replace(CALL, keywords=())
    with pytest.raises(
        AbiError, match=r"^abi.call: its arrays are leaves \[0, 1, 2, 3\], the records have 5$"
    ):
        plan(call)
