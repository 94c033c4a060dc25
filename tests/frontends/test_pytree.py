"""`abi_compiler.frontends.pytree`: the nodes of a framework's original call → index
paths, the `iree.abi` JSON, and the arrays numbered by the records."""

from __future__ import annotations

import json

import pytest

from abi_compiler.call_model import Array, Constant, Container, NoneLeaf, Unused
from abi_compiler.errors import AbiError
from abi_compiler.frontends.pytree import original_call, structure
from abi_compiler.model import NDArray, Scalar

F32 = NDArray(Scalar("f", 32), (2,))
I32 = NDArray(Scalar("i", 32), (None,))


def array(index: int) -> Array:
    return Array(index, "float32", (2,))


# f(params: dict, pair: tuple, steps: int (specialized), unused: None, *, mask, extra: ())
POSITIONAL = [
    Container("dict", (array(0), array(1)), ("w", "b")),  # insertion order, not sorted
    Container("tuple", (array(2), Container("list", (array(3),)))),
    Constant(3, "int"),
    NoneLeaf(),
]
KEYWORDS = {"mask": array(4), "extra": Container("tuple", ())}
# returns (Point(loss, None), [grads, ()])
RESULT = Container(
    "tuple",
    (
        Container("namedtuple", (array(0), NoneLeaf()), ("x", "y"), "Point"),
        Container("list", (array(1), Container("tuple", ()))),
    ),
)


def test_structure_paths_and_records() -> None:
    found = structure(POSITIONAL, KEYWORDS, RESULT, [F32, F32, I32, I32, F32], [F32, F32])
    # Arrays in the framework's order; the dropped values have no path and later
    # positions close up (no gaps).
    assert found.argument_paths == ((0, "w"), (0, "b"), (1, 0), (1, 1, 0), ("mask",))
    assert found.result_paths == ((0, 0), (1, 0))
    f32, i32 = ["ndarray", "f32", 1, 2], ["ndarray", "i32", 1, None]
    assert json.loads(found.abi) == {
        "a": [
            ["sdict", ["b", f32], ["w", f32]],
            ["stuple", i32, ["slist", i32]],
            ["named", "mask", f32],
        ],
        "r": [["stuple", ["stuple", f32], ["slist", f32]]],
        "v": 1,
    }


def test_arrays_are_numbered_by_the_records() -> None:
    """The records list dict keys sorted: `w` (flatten index 0) is leaf 1 there."""
    found = structure(POSITIONAL, KEYWORDS, RESULT, [F32, F32, I32, I32, F32], [F32, F32])
    call = original_call(POSITIONAL, KEYWORDS, RESULT, found)
    params = call.positional[0]
    assert isinstance(params, Container)
    assert [child.index for child in params.children if isinstance(child, Array)] == [1, 0]
    assert call.keywords[0] == ("mask", array(4)) and call.positional[2] == Constant(3, "int")


def test_structure_of_a_leaf_result_and_of_no_result() -> None:
    leaf_result = structure([array(0)], {}, array(0), [F32], [F32])
    assert leaf_result.result_paths == ((),)
    assert json.loads(leaf_result.abi)["r"] == [["ndarray", "f32", 1, 2]]
    nothing = structure([array(0)], {}, Container("tuple", (NoneLeaf(),)), [F32], [])
    assert nothing.result_paths == ()
    assert json.loads(nothing.abi)["r"] == []


def test_structure_counts_must_match_the_function() -> None:
    with pytest.raises(
        AbiError, match="takes 1 value and returns 2, its program's trees describe 5 and 2"
    ):
        structure(POSITIONAL, KEYWORDS, RESULT, [F32], [F32, F32])


def test_registered_nodes_are_tuples_of_their_children() -> None:
    node = Container("node", (array(0), Unused()), (), "Box")
    found = structure([node], {}, node, [F32], [F32])
    assert found.argument_paths == ((0, 0),)
    assert json.loads(found.abi)["a"] == [["stuple", ["ndarray", "f32", 1, 2]]]
