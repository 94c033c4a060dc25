"""The V1 `iree.abi` JSON (docs/spec.md §4) and its declaration form (docs/spec.md §9)."""

from __future__ import annotations

import json

import pytest

from abi_compiler.codecs.json_abi import (
    decode_json,
    encode_json,
    format_declaration,
    record_for_node,
    record_for_type,
)
from abi_compiler.model import (
    Argument,
    Dict,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    Unknown,
    ValueType,
)

F32 = Scalar("f", 32)
I32 = Scalar("i", 32)


def compact(document: object) -> str:
    return json.dumps(document, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


@pytest.mark.parametrize(
    ("t", "record", "declared"),
    [
        (Scalar("i", 1), "i1", "i1"),
        (Scalar("i", 8), "i8", "i8"),
        (Scalar("si", 32), "i32", "i32"),  # any signedness
        (Scalar("ui", 64), "i64", "i64"),
        (Scalar("f", 16), "f16", "f16"),
        (F32, "f32", "f32"),
        (Scalar("f", 64), "f64", "f64"),
        (Scalar("bf", 16), "bf16", "bf16"),
        (Unknown(), "unknown", "?"),
        (NDArray(F32, (2, None)), ["ndarray", "f32", 2, 2, None], "tensor<2x?xf32>"),
        (NDArray(F32, ()), ["ndarray", "f32", 0], "tensor<f32>"),
        (NDArray(Scalar("i", 8), None), ["ndarray", "i8", None], "tensor<*xi8>"),
        (ListRef(Unknown()), ["py_homogeneous_list", "unknown"], "list<?>"),
        (ListRef(I32), ["py_homogeneous_list", "i32"], "list<i32>"),
        (
            NDArray(ListRef(I32), (3,)),  # ND-array of reference type, docs/spec.md §8.3
            ["ndarray", ["py_homogeneous_list", "i32"], 1, 3],
            "tensor<3xlist<i32>>",
        ),
    ],
)
def test_records_for_types(t: ValueType, record: object, declared: str) -> None:
    assert record_for_type(t) == record
    sig = Signature((Argument(0, Leaf(t, 0)),), ())
    assert encode_json(sig) == compact({"a": [record], "r": [], "v": 1})
    assert format_declaration(sig) == f"({declared}) -> ()"


def test_untyped_leaf_is_null() -> None:
    # IREE's Function ABI's `null` record: an untyped value, converted dynamically by the runtime
    assert record_for_node(Leaf(None, 0)) is None
    sig = Signature((Argument(0, Leaf(None, 0)),), (Leaf(None, 0),))
    assert encode_json(sig) == '{"a":[null],"r":[null],"v":1}'
    assert decode_json(encode_json(sig)) == sig
    assert format_declaration(sig) == "(None) -> (None)"


def test_spec_4_2_example() -> None:
    # (tensor<?x4xf32>, i32) -> tuple<tensor<4xf32>, tensor<4xf32>>
    text = (
        '{"a":[["ndarray","f32",2,null,4],"i32"],'
        '"r":[["stuple",["ndarray","f32",1,4],["ndarray","f32",1,4]]],"v":1}'
    )
    t4 = NDArray(F32, (4,))
    sig = Signature(
        (Argument(0, Leaf(NDArray(F32, (None, 4)), 0)), Argument(1, Leaf(I32, 1))),
        (Sequence("tuple", (Leaf(t4, 0), Leaf(t4, 1))),),
    )
    assert encode_json(sig) == text
    assert decode_json(text) == sig
    assert sig.inlined_result
    assert format_declaration(sig) == "(tensor<?x4xf32>, i32) -> (tensor<4xf32>, tensor<4xf32>)"


def test_spec_9_example() -> None:
    text = (
        '{"a":[["ndarray","f32",2,null,4],["named","x","i32"]],'
        '"r":[["stuple",["ndarray","f32",1,4],["ndarray","f32",1,4]]],"v":1}'
    )
    sig = decode_json(text)
    assert sig.arguments[1] == Argument(1, Leaf(I32, 1), "x")
    assert encode_json(sig) == text
    assert format_declaration(sig) == "(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>, tensor<4xf32>)"


def test_empty_signature() -> None:
    sig = Signature((), ())
    assert encode_json(sig) == '{"a":[],"r":[],"v":1}'
    assert decode_json('{"a":[],"r":[],"v":1}') == sig
    assert format_declaration(sig) == "() -> ()"


def test_structures_and_leaf_numbering() -> None:
    # Leaves are numbered in natural order, arguments and results separately from 0.
    text = (
        '{"a":[["slist","i32",null,["sdict",["a","f32"],["b",["stuple"]]]],'
        '["named","n",["sdict",["k","i8"]]],"f16"],'
        '"r":["i32",["slist","f32"]],"v":1}'
    )
    sig = decode_json(text)
    assert sig == Signature(
        (
            Argument(
                0,
                Sequence(
                    "list",
                    (
                        Leaf(I32, 0),
                        None,
                        Dict((("a", Leaf(F32, 1)), ("b", Sequence("tuple", ())))),
                    ),
                ),
            ),
            Argument(1, Dict((("k", Leaf(Scalar("i", 8), 2)),)), "n"),
            Argument(2, Leaf(Scalar("f", 16), 3)),
        ),
        (Leaf(I32, 0), Sequence("list", (Leaf(F32, 1),))),
    )
    assert encode_json(sig) == text
    assert not sig.inlined_result
    assert format_declaration(sig) == (
        "(list[i32, None, dict{a: f32, b: tuple[]}], n: dict{k: i8}, f16) -> (i32, list[f32])"
    )


def test_inlined_dict_result_prints_its_items() -> None:
    sig = decode_json('{"a":[],"r":[["sdict",["x","i32"],["y",["slist","f32",null]]]],"v":1}')
    assert format_declaration(sig) == "() -> (x: i32, y: list[f32, None])"


def test_single_list_result_is_not_inlined() -> None:
    sig = decode_json('{"a":[],"r":[["py_homogeneous_list","f32"]],"v":1}')
    assert not sig.inlined_result
    assert format_declaration(sig) == "() -> (list<f32>)"


def test_named_argument_with_structure_keeps_its_name() -> None:
    sig = Signature((Argument(0, Sequence("tuple", (Leaf(I32, 0),)), "t"),), ())
    assert encode_json(sig) == '{"a":[["named","t",["stuple","i32"]]],"r":[],"v":1}'
    assert format_declaration(sig) == "(t: tuple[i32]) -> ()"


def test_strings_are_escaped_to_ascii() -> None:
    # Deliberate difference (docs/spec.md §4.2): Python's escapes keep the attribute ASCII.
    name = 'é"\\\n\t\x01\U0001f600'
    sig = Signature((Argument(0, Leaf(I32, 0), name),), ())
    text = encode_json(sig)
    assert text == (
        '{"a":[["named","\\u00e9\\"\\\\\\n\\t\\u0001\\ud83d\\ude00","i32"]],"r":[],"v":1}'
    )
    assert text.isascii()
    assert decode_json(text) == sig


def test_decode_tolerates_json_whitespace_and_key_order() -> None:
    text = '\n { "v" : 1 , "r" : [ ] ,\t"a" : [ [ "ndarray" , "f32" , 1 , null ] ] }\r\n'
    assert decode_json(text) == Signature((Argument(0, Leaf(NDArray(F32, (None,)), 0)),), ())


def test_decode_accepts_bytes() -> None:
    assert decode_json(b'{"a":["i32"],"r":[],"v":1}') == Signature((Argument(0, Leaf(I32, 0)),), ())


def test_wide_scalars() -> None:
    sig = decode_json('{"a":["i16777215","f128","i3"],"r":[],"v":1}')
    assert [arg.node for arg in sig.arguments] == [
        Leaf(Scalar("i", 16777215), 0),
        Leaf(Scalar("f", 128), 1),
        Leaf(Scalar("i", 3), 2),
    ]


def test_named_arguments_may_come_before_positional_ones() -> None:
    # From index paths named arguments get keys after the largest so far (docs/spec.md §4.3),
    # so a later positional one can follow them.
    sig = decode_json('{"a":[["named","a","i32"],"f32"],"r":[],"v":1}')
    assert [(arg.key, arg.name) for arg in sig.arguments] == [(0, "a"), (1, None)]


@pytest.mark.parametrize(
    ("node", "declared"),
    [
        (Sequence("tuple", (None,)), "tuple[None]"),
        (Dict(()), "dict{}"),
        (Leaf(NDArray(Unknown(), (1,)), 0), "tensor<1x?>"),
        (Leaf(Scalar("bf", 8), 0), "?"),
    ],
)
def test_declaration_details(node: Node, declared: str) -> None:
    sig = Signature((Argument(0, node),), ())
    assert format_declaration(sig) == f"({declared}) -> ()"
