"""`abi_compiler.frontends.pytree`: a framework's trees → index paths, the `iree.abi`
JSON, and the adapter between the original call and the compiled function's."""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest

from abi_compiler.errors import AbiError
from abi_compiler.frontends.pytree import Tree, TreeAdapter, structure
from abi_compiler.model import NDArray, Scalar

F32 = NDArray(Scalar("f", 32), (2,))
I32 = NDArray(Scalar("i", 32), (None,))

Point = collections.namedtuple("Point", ["x", "y"])


def leaf(**fields: Any) -> Tree:
    return Tree("leaf", **fields)


class Box:
    """A registered node: its one child is ``content``."""

    def __init__(self, content: Any) -> None:
        self.content = content

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and other.content == self.content

    __hash__ = None  # type: ignore[assignment]


def box(child: Tree) -> Tree:
    return Tree(
        "node",
        (child,),
        cls=Box,
        flatten=lambda value: [value.content],
        unflatten=lambda values: Box(values[0]),
    )


# f(params: dict, pair: tuple, steps: int (specialized), unused: None, *, mask, extra: ())
POSITIONAL = [
    Tree("dict", (leaf(), leaf()), ("w", "b")),  # insertion order, not sorted
    Tree("tuple", (leaf(), Tree("list", (leaf(),)))),
    leaf(kept=False, check=lambda v: None if v == 3 else f"expected 3, got {v!r}"),
    Tree("none"),
]
KEYWORDS = {"mask": leaf(), "extra": Tree("tuple")}
# returns (Point(loss, None), [grads, ()])
RESULT = Tree(
    "tuple",
    (
        Tree("tuple", (leaf(), Tree("none")), cls=Point),
        Tree("list", (leaf(), Tree("tuple"))),
    ),
)


def test_structure_paths_and_records() -> None:
    found = structure(POSITIONAL, KEYWORDS, RESULT, [F32, F32, I32, I32, F32], [F32, F32])
    # Leaves in the framework's order; the dropped ones have no path and later
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


def test_structure_of_a_leaf_result_and_of_no_result() -> None:
    leaf_result = structure([leaf()], {}, leaf(), [F32], [F32])
    assert leaf_result.result_paths == ((),)
    assert json.loads(leaf_result.abi)["r"] == [["ndarray", "f32", 1, 2]]
    nothing = structure([leaf()], {}, Tree("tuple", (Tree("none"),)), [F32], [])
    assert nothing.result_paths == ()
    assert json.loads(nothing.abi)["r"] == []


def test_structure_counts_must_match_the_function() -> None:
    with pytest.raises(
        AbiError, match="takes 1 value and returns 2, its program's trees describe 5 and 2"
    ):
        structure(POSITIONAL, KEYWORDS, RESULT, [F32], [F32, F32])


def test_registered_nodes_are_tuples_of_their_children() -> None:
    found = structure([box(leaf())], {}, box(leaf()), [F32], [F32])
    assert found.argument_paths == ((0, 0),)
    assert json.loads(found.abi)["a"] == [["stuple", ["ndarray", "f32", 1, 2]]]


ADAPTER = TreeAdapter(POSITIONAL, KEYWORDS, RESULT, lambda value, tree: ("leaf", value))


def test_arguments_pass_plain_roots_and_reshape_the_others() -> None:
    params = {"b": 1, "w": 2}
    args, kwargs = ADAPTER.arguments((params, (3, [4]), 3, None), {"mask": 5, "extra": ()})
    assert args[0] is params  # plain: the records check it
    assert args[1] == (3, [4]) and len(args) == 2  # steps and unused dropped
    assert kwargs == {"mask": 5}  # the empty tuple has no record


def test_arguments_reshape_nodes_and_drop_none_leaves() -> None:
    adapter = TreeAdapter(
        [Tree("dict", (leaf(), Tree("none")), ("a", "b")), box(leaf())], {}, leaf()
    )
    args, kwargs = adapter.arguments(({"a": 1, "b": None}, Box(7)), {})
    assert args == ({"a": 1}, [7]) and kwargs == {}


def test_keyword_parameters_may_be_given_positionally() -> None:
    adapter = TreeAdapter([], {"x": leaf(), "y": leaf()}, leaf())
    assert adapter.arguments((1,), {"y": 2}) == ((), {"x": 1, "y": 2})


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (({}, (1, [2]), 3), {"mask": 1, "extra": ()}, "argument 3: missing value"),
        (
            ({}, (1, [2]), 3, None, 5, 6, 7),
            {},
            "argument 6: unexpected positional argument (the function takes 6 positional arguments)",
        ),
        (
            ({}, (1, [2]), 3, None, 5),
            {"mask": 1, "extra": ()},
            "argument 'mask': given both positionally and by keyword",
        ),
        (
            ({}, (1, [2]), 3, None),
            {"mask": 1, "extra": (), "other": 2},
            "argument 'other': unexpected keyword argument (keywords: 'mask', 'extra')",
        ),
        (({}, (1, [2]), 3, None), {"mask": 1}, "argument 'extra': missing value"),
        (({}, (1, [2]), 4, None), {"mask": 1, "extra": ()}, "argument 2: expected 3, got 4"),
        (({}, (1, [2]), 3, 0), {"mask": 1, "extra": ()}, "argument 3: expected None, got int"),
        (
            ({}, (1, [2]), 3, None),
            {"mask": 1, "extra": (1,)},
            "argument 'extra': expected a tuple of 0 values, got 1",
        ),
    ],
)
def test_argument_errors(args: tuple[Any, ...], kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AbiError) as error:
        ADAPTER.arguments(args, kwargs)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"a": 1}, "argument 0: expected a dict with keys ['a', 'b'], got keys ['a']"),
        ([1, None], "argument 0: expected a dict with keys ['a', 'b'], got list"),
        ({"a": 1, "b": 2}, "argument 0['b']: expected None, got int"),
    ],
)
def test_nested_argument_errors_name_the_path(value: Any, message: str) -> None:
    adapter = TreeAdapter([Tree("dict", (leaf(), Tree("none")), ("a", "b"))], {}, leaf())
    with pytest.raises(AbiError) as error:
        adapter.arguments((value,), {})
    assert str(error.value) == message


def test_node_arguments_must_be_instances() -> None:
    adapter = TreeAdapter([box(leaf())], {}, leaf())
    with pytest.raises(AbiError, match=r"^argument 0: expected a Box, got tuple$"):
        adapter.arguments(((7,),), {})


def test_results_rebuild_the_original_tree() -> None:
    # The records' value: the result tuple inlined, namedtuple and list as sequences.
    result = ADAPTER.results(((1.0,), [2.0]))
    assert result == (Point(("leaf", 1.0), None), [("leaf", 2.0), ()])
    assert type(result[0]) is Point and type(result[1]) is list


def test_results_keep_the_framework_dict_order() -> None:
    tree = Tree("dict", (leaf(), leaf(), Tree("none")), ("z", "a", "m"))
    result = TreeAdapter([], {}, tree).results({"a": 1, "z": 2})
    assert list(result.items()) == [("z", 2), ("a", 1), ("m", None)]
    assert TreeAdapter([], {}, box(leaf())).results([5]) == Box(5)
