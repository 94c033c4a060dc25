"""`abi_compiler.signatures.signature_diff`: each kind of breaking and compatible change (docs/spec.md §9.1),
on models decoded from V1 `iree.abi` and from legacy `f` + `sip` signatures."""

from __future__ import annotations

import json
from typing import Any

import pytest

from abi_compiler.call_model import Array, Container, OriginalCall, StateGlobal, ValueRange
from abi_compiler.codecs.call_json import constant
from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.codecs.raw import decode_raw, encode_raw
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.model import (
    Dict,
    FlatSignature,
    Leaf,
    NDArray,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    ValueType,
    signature_from_legacy,
)
from abi_compiler.signatures.signature_diff import (
    Finding,
    diff_calls,
    diff_functions,
    diff_modules,
    diff_signatures,
    diff_state,
)


def v1(arguments: list[Any], results: list[Any]) -> Signature:
    return decode_json(json.dumps({"a": arguments, "r": results, "v": 1}))


def legacy(inputs: list[ValueType], results: list[ValueType], sip: SipSignature) -> Signature:
    """The model of the legacy pair of these raw types and SIP roots, through their
    encodings (as `abi-sig show` reads them)."""
    f = encode_raw(FlatSignature(tuple(inputs), tuple(results)))
    return signature_from_legacy(decode_raw(f), decode_sip(encode_sip(sip)))


F32 = Scalar("f", 32)


def lines(old: Signature, new: Signature) -> list[str]:
    return [finding.line() for finding in diff_modules({"main": old}, {"main": new})]


def array(dtype: str, *dims: int | None) -> list[Any]:
    return ["ndarray", dtype, len(dims), *dims]


PARAMS = ["sdict", ["dense", ["sdict", ["bias", array("f32", 3)], ["kernel", array("f32", 4, 3)]]]]


def test_unchanged_signatures_have_no_finding() -> None:
    def signature() -> Signature:
        return v1([PARAMS, ["named", "x", array("f32", None, 4)]], [array("f32", None, 3)])

    assert lines(signature(), signature()) == []
    assert diff_modules({}, {}) == []


def test_function_removed_and_added() -> None:
    old = {"main": v1([], []), "gone": v1(["i32"], [])}
    new = {"main": v1([], []), "fresh": v1([], ["i32"])}
    found = diff_modules(old, new)
    assert [finding.line() for finding in found] == [
        "breaking: gone: function removed",
        "compatible: fresh: function added",
    ]
    assert found[0] == Finding("gone", True, None, (), "removed", None, None)


def test_root_argument_added() -> None:
    assert lines(v1(["i32"], []), v1(["i32", array("f32", 4)], [])) == [
        "breaking: main: argument 1: added tensor<4xf32>"
    ]
    assert lines(v1(["i32"], []), v1(["i32", ["named", "scale", "f32"]], [])) == [
        "breaking: main: argument scale: added f32"
    ]


def test_root_argument_removed() -> None:
    assert lines(v1(["i32", array("f32", 4)], []), v1(["i32"], [])) == [
        "breaking: main: argument 1: removed tensor<4xf32>"
    ]
    assert lines(v1(["i32", ["named", "scale", "f32"]], []), v1(["i32"], [])) == [
        "breaking: main: argument scale: removed f32"
    ]


def test_positional_arguments_reordered_break_by_position() -> None:
    # Positional arguments have no identity but their position.
    assert lines(v1(["i32", "f32"], []), v1(["f32", "i32"], [])) == [
        "breaking: main: argument 0: dtype i32 -> f32",
        "breaking: main: argument 1: dtype f32 -> i32",
    ]


def test_named_arguments_reordered() -> None:
    old = v1(["i32", ["named", "a", "f32"], ["named", "b", "i8"]], [])
    new = v1(["i32", ["named", "b", "i8"], ["named", "a", "f32"]], [])
    assert lines(old, new) == [
        "breaking: main: argument a: position 1 -> 2",
        "breaking: main: argument b: position 2 -> 1",
    ]


def test_named_argument_renamed() -> None:
    old = v1([["named", "temperature", "f32"]], [])
    new = v1([["named", "temp", "f64"]], [])
    assert lines(old, new) == [
        "breaking: main: argument temperature: name temperature -> temp",
        "breaking: main: argument temperature: dtype f32 -> f64",
    ]


def test_positional_argument_made_named_and_back() -> None:
    assert lines(v1(["i32"], []), v1([["named", "n", "i32"]], [])) == [
        "breaking: main: argument 0: name (positional) -> n"
    ]
    assert lines(v1([["named", "n", "i32"]], []), v1(["i32"], [])) == [
        "breaking: main: argument n: name n -> (positional)"
    ]


def test_named_argument_moved_where_a_new_one_is() -> None:
    # `b` was at 1 and is gone; `c` takes its place: a rename, not a removal.
    old = v1([["named", "a", "i32"], ["named", "b", "i32"]], [])
    new = v1([["named", "a", "i32"], ["named", "c", "i32"], ["named", "d", "i32"]], [])
    assert lines(old, new) == [
        "breaking: main: argument b: name b -> c",
        "breaking: main: argument d: added i32",
    ]


def test_structure_kind_changed() -> None:
    assert lines(v1([["slist", "i32"]], []), v1([["stuple", "i32"]], [])) == [
        "breaking: main: argument 0: kind list -> tuple"
    ]
    assert lines(v1([["sdict", ["k", "i32"]]], []), v1([array("i32", 1)], [])) == [
        "breaking: main: argument 0: kind dict -> tensor<1xi32>"
    ]
    assert lines(
        v1([["stuple", "i32", ["slist", "f32"]]], []), v1([["stuple", "i32", "f32"]], [])
    ) == ["breaking: main: argument 0[1]: kind list -> f32"]


def test_structure_arity_changed() -> None:
    assert lines(v1([["stuple", "i32", "i8"]], []), v1([["stuple", "i32", "i16", "f32"]], [])) == [
        "breaking: main: argument 0: arity 2 -> 3",
        "breaking: main: argument 0[1]: dtype i8 -> i16",
    ]


def test_gap_filled() -> None:
    assert lines(v1([["slist", None, "i8"]], []), v1([["slist", "i8", "i8"]], [])) == [
        "breaking: main: argument 0[0]: kind None -> i8"
    ]


def test_dict_keys_changed() -> None:
    old = v1([PARAMS], [])
    bigger = [
        "sdict",
        [
            "dense",
            ["sdict", ["bias", array("f32", 3)], ["kernel", array("f32", 4, 3)], ["scale", "f32"]],
        ],
    ]
    assert lines(old, v1([bigger], [])) == [
        "breaking: main: argument 0['dense']: keys ['bias', 'kernel'] -> ['bias', 'kernel', 'scale']"
    ]
    renamed = [
        "sdict",
        ["dense", ["sdict", ["b", array("f32", 3)], ["kernel", array("f32", 4, 5)]]],
    ]
    assert lines(old, v1([renamed], [])) == [
        "breaking: main: argument 0['dense']: keys ['bias', 'kernel'] -> ['b', 'kernel']",
        "breaking: main: argument 0['dense']['kernel']: shape 4x3 -> 4x5",
    ]


def test_dtype_changed() -> None:
    assert lines(v1([array("f32", 4)], []), v1([array("f16", 4)], [])) == [
        "breaking: main: argument 0: dtype f32 -> f16"
    ]
    assert lines(v1(["i32"], []), v1(["i64"], [])) == [
        "breaking: main: argument 0: dtype i32 -> i64"
    ]
    assert lines(v1([array("bf16", 2)], []), v1([array("f16", None)], [])) == [
        "breaking: main: argument 0: dtype bf16 -> f16",
        "compatible: main: argument 0: shape 2 -> ?",
    ]


def test_rank_changed() -> None:
    assert lines(v1([array("f32", 4, 3)], []), v1([array("f32", 4, 3, 1)], [])) == [
        "breaking: main: argument 0: rank 2 -> 3"
    ]
    assert lines(v1([array("f32", 4)], []), v1([["ndarray", "f32", None]], [])) == [
        "breaking: main: argument 0: rank 1 -> *"
    ]


def test_static_dim_changed() -> None:
    assert lines(v1([array("f32", 4, 3)], []), v1([array("f32", 4, 5)], [])) == [
        "breaking: main: argument 0: shape 4x3 -> 4x5"
    ]


def test_dynamic_dim_made_static_breaks() -> None:
    assert lines(v1([array("f32", None, 3)], []), v1([array("f32", 8, 3)], [])) == [
        "breaking: main: argument 0: shape ?x3 -> 8x3"
    ]


def test_static_dim_made_dynamic_on_an_argument_is_compatible() -> None:
    found = diff_signatures(
        "main", v1([array("f32", 8, 3)], []), v1([array("f32", None, None)], [])
    )
    assert found == [Finding("main", False, "argument", (0,), "shape", "8x3", "?x?")]
    assert found[0].line() == "compatible: main: argument 0: shape 8x3 -> ?x?"


def test_one_shape_line_breaks_when_any_dim_breaks() -> None:
    assert lines(v1([array("f32", 8, 3)], []), v1([array("f32", None, 5)], [])) == [
        "breaking: main: argument 0: shape 8x3 -> ?x5"
    ]


def test_any_result_change_breaks() -> None:
    # A static dim made dynamic is compatible for an argument only.
    assert lines(v1([], [array("f32", 8, 3)]), v1([], [array("f32", None, 3)])) == [
        "breaking: main: result: shape 8x3 -> ?x3"
    ]
    assert lines(v1([], [array("f32", 8)]), v1([], [array("i32", 8)])) == [
        "breaking: main: result: dtype f32 -> i32"
    ]
    assert lines(v1([], []), v1([], ["i32"])) == ["breaking: main: result: added i32"]
    assert lines(v1([], ["i32"]), v1([], [])) == ["breaking: main: result: removed i32"]
    assert lines(v1([], ["i32"]), v1([], ["i32", "i32"])) == [
        "breaking: main: result: kind i32 -> tuple"
    ]
    old = v1([], [["sdict", ["logits", array("f32", 4)], ["loss", array("f32")]]])
    new = v1([], [["sdict", ["logits", array("f32", 4)]]])
    assert lines(old, new) == ["breaking: main: result: keys ['logits', 'loss'] -> ['logits']"]
    assert lines(v1([], ["i32", "f32"]), v1([], ["i32", "f16"])) == [
        "breaking: main: result[1]: dtype f32 -> f16"
    ]


def test_results_compare_as_the_caller_receives_them() -> None:
    # Several records and one inlined tuple both return a tuple.
    assert lines(v1([], ["i32", "f32"]), v1([], [["stuple", "i32", "f32"]])) == []
    # One record is the value; a tuple of one is a tuple.
    assert lines(v1([], ["i32"]), v1([], [["stuple", "i32"]])) == [
        "breaking: main: result: kind i32 -> tuple"
    ]


def test_leaves_compare_by_record() -> None:
    # docs/spec.md §4.1: an integer record has no signedness; flat indices do not matter.
    unsigned = legacy([Scalar("ui", 8)], [], SipSignature(Sequence("list", (Leaf(None, 0),)), None))
    assert unsigned.arguments[0].node == Leaf(Scalar("ui", 8), 0)
    assert lines(unsigned, v1(["i8"], [])) == []
    assert lines(v1([["stuple", "i32", "i8"]], []), v1([["stuple", "i32", "i8"]], [])) == []
    assert lines(v1([], ["i8"]), Signature((), (Leaf(Scalar("i", 8), 7),))) == []


def test_unknown_and_untyped_values() -> None:
    assert lines(v1(["unknown"], []), v1([None], [])) == [
        "breaking: main: argument 0: type ? -> None"
    ]
    assert lines(
        v1([["py_homogeneous_list", "i32"]], []), v1([["py_homogeneous_list", "f32"]], [])
    ) == ["breaking: main: argument 0: type list<i32> -> list<f32>"]
    assert lines(v1([array("f32", 4)], []), v1(["f32"], [])) == [
        "breaking: main: argument 0: type tensor<4xf32> -> f32"
    ]


def test_legacy_signatures() -> None:
    # flatten-signatures' layout for `(params: dict{bias: 3, kernel: 4x3}, x: 8x4) -> 8x3`,
    # then with a 4x5 kernel, bias 5, any batch size.
    params = Dict((("bias", Leaf(None, 0)), ("kernel", Leaf(None, 1))))
    sip = SipSignature(Sequence("list", (params, Leaf(None, 2))), Leaf(None, 0))
    old = legacy(
        [NDArray(F32, (3,)), NDArray(F32, (4, 3)), NDArray(F32, (8, 4))],
        [NDArray(F32, (8, 3))],
        sip,
    )
    new = legacy(
        [NDArray(F32, (5,)), NDArray(F32, (4, 5)), NDArray(F32, (None, 4))],
        [NDArray(F32, (None, 5))],
        sip,
    )
    assert lines(old, new) == [
        "breaking: main: argument 0['bias']: shape 3 -> 5",
        "breaking: main: argument 0['kernel']: shape 4x3 -> 4x5",
        "breaking: main: result: shape 8x3 -> ?x5",
        "compatible: main: argument 1: shape 8x4 -> ?x4",
    ]


def test_legacy_named_arguments() -> None:
    # A dict SIP root: named arguments in argument order (that of their raw indices).
    types: list[ValueType] = [Scalar("i", 32), Scalar("f", 64)]
    old = legacy(
        types, [], SipSignature(Dict((("lr", Leaf(None, 1)), ("steps", Leaf(None, 0)))), None)
    )
    new = legacy(
        types[::-1], [], SipSignature(Dict((("lr", Leaf(None, 0)), ("steps", Leaf(None, 1)))), None)
    )
    assert [argument.name for argument in old.arguments] == ["steps", "lr"]
    assert lines(old, new) == [
        "breaking: main: argument steps: position 0 -> 1",
        "breaking: main: argument lr: position 1 -> 0",
    ]


def test_breaking_findings_come_first_in_function_order() -> None:
    old = {"a": v1([array("f32", 8)], []), "b": v1(["i32"], [])}
    new = {"a": v1([array("f32", None)], []), "b": v1(["i64"], []), "c": v1([], [])}
    assert [finding.line() for finding in diff_modules(old, new)] == [
        "breaking: b: argument 0: dtype i32 -> i64",
        "compatible: a: argument 0: shape 8 -> ?",
        "compatible: c: function added",
    ]


@pytest.mark.parametrize(
    ("finding", "line"),
    [
        (
            Finding("f", True, "argument", ("my param", "k"), "dtype", "f32", "f16"),
            "breaking: f: argument 'my param'['k']: dtype f32 -> f16",
        ),
        (
            Finding("f", True, "result", (0, "k"), "rank", "1", "2"),
            "breaking: f: result[0]['k']: rank 1 -> 2",
        ),
        (
            Finding("f", True, "argument", (3,), "removed", "i32", None),
            "breaking: f: argument 3: removed i32",
        ),
    ],
)
def test_line_forms(finding: Finding, line: str) -> None:
    assert finding.line() == line


def test_a_key_added_to_a_result_dict_is_compatible_unless_strict() -> None:
    old = v1([], [["sdict", ["logits", array("f32", 4)]]])
    new = v1([], [["sdict", ["logits", array("f32", 4)], ["loss", array("f32")]]])
    assert lines(old, new) == ["compatible: main: result: keys ['logits'] -> ['logits', 'loss']"]
    findings = diff_modules({"main": old}, {"main": new}, strict=True)
    assert [f.line() for f in findings] == [
        "breaking: main: result: keys ['logits'] -> ['logits', 'loss']"
    ]
    # Below the root too; a key added and another removed breaks, strict or not.
    nested_old = v1([], [["stuple", "i32", ["sdict", ["a", "i32"]]]])
    nested_new = v1([], [["stuple", "i32", ["sdict", ["a", "i32"], ["b", "i32"]]]])
    assert lines(nested_old, nested_new) == [
        "compatible: main: result[1]: keys ['a'] -> ['a', 'b']"
    ]
    swapped = v1([], [["sdict", ["loss", array("f32")]]])
    assert lines(old, swapped) == ["breaking: main: result: keys ['logits'] -> ['loss']"]
    # An argument's dict must get every key: an added one breaks.
    assert lines(
        v1([["sdict", ["a", "i32"]]], []), v1([["sdict", ["a", "i32"], ["b", "i32"]]], [])
    ) == ["breaking: main: argument 0: keys ['a'] -> ['a', 'b']"]


# -- the state a function uses, a dataclass's static fields --------------------------------


def test_state_changes_each_break() -> None:
    cache = StateGlobal("cache", "tensor<4x8xf32>", "float32", (4, 8), True, False)
    handle = StateGlobal("h", "!util.list<?>", None, None, True, True)
    wider = StateGlobal("cache", "tensor<4x?xf32>", "float32", (4, None), True, True)
    lines = [f.line() for f in diff_state("step", [cache, handle], [wider])]
    assert lines == [
        "breaking: step: state @cache: shape 4x8 -> 4x?",
        "breaking: step: state @cache: access reads -> reads, writes",
        "breaking: step: state @h: removed !util.list<?> (reads, writes)",
    ]
    assert diff_state("step", [cache], [cache]) == []
    # Only for a function both modules have (added and removed functions say it all), and
    # a function no state mapping names uses none.
    signature = v1([], [])
    module = {"step": signature, "gone": signature}
    found = diff_functions(module, {"step": signature}, {}, {}, new_state={"step": [cache]})
    assert [f.line() for f in found] == [
        "breaking: gone: function removed",
        "breaking: step: state @cache: added float32[4,8] (reads)",
    ]


def test_value_ranges_narrowed_break_and_widened_do_not() -> None:
    """An argument's value ranges (`abi.call`'s ``ranges``): a value the old function took
    and the new refuses breaks; results have none."""

    def call(*ranges: ValueRange) -> OriginalCall:
        return OriginalCall((), (("pos", Array(0, "int64", (3,), ranges)),), Array(0, "f32", ()))

    def line(old: OriginalCall, new: OriginalCall) -> list[str]:
        return [f.line() for f in diff_calls("main", old, new)]

    wide, narrow = call(ValueRange(0, 63)), call(ValueRange(0, 31))
    assert line(wide, narrow) == ["breaking: main: argument pos: values [0, 63] -> [0, 31]"]
    assert line(narrow, wide) == ["compatible: main: argument pos: values [0, 31] -> [0, 63]"]
    assert line(narrow, call()) == ["compatible: main: argument pos: values [0, 31] -> any"]
    assert line(call(), narrow) == ["breaking: main: argument pos: values any -> [0, 31]"]
    first = call(ValueRange(0, 29, (0,)))
    # The first element narrowed breaks; the first alone bounds no other element.
    assert line(narrow, first) == ["breaking: main: argument pos: values [0, 31] -> [0, 29] at 0"]
    assert line(first, narrow) == ["breaking: main: argument pos: values [0, 29] at 0 -> [0, 31]"]
    both = call(ValueRange(0, 31), ValueRange(0, 20, (0,)))
    assert line(both, first) == [
        "compatible: main: argument pos: values [0, 31], [0, 20] at 0 -> [0, 29] at 0"
    ]
    assert line(narrow, narrow) == []


def test_static_fields_of_a_dataclass() -> None:
    def call(*static: tuple[str, Any]) -> OriginalCall:
        fields = tuple((name, constant(value)) for name, value in static)
        node = Container("dataclass", (Array(0, "float32", (4,)),), ("w",), "C", fields)
        return OriginalCall((node,), (), node)

    old, new = call(("n", 2), ("mode", "a")), call(("n", 2.0), ("extra", None))
    assert [f.line() for f in diff_calls("f", old, new)] == [
        "breaking: f: argument 0['n']: static 2 -> 2.0",
        "breaking: f: argument 0['mode']: removed static 'a'",
        "breaking: f: argument 0['extra']: added static None",
        "breaking: f: result['n']: static 2 -> 2.0",
        "breaking: f: result['mode']: removed static 'a'",
        "breaking: f: result['extra']: added static None",
    ]
    assert diff_calls("f", old, old) == []


def test_an_argument_updated_in_place_or_no_longer() -> None:
    """`abi.call`'s ``updates``: an argument the call now writes back into, or no longer
    does, breaks its callers either way (docs/formats.md, "Comparing two versions")."""
    cache = Container("dict", (Array(1, "float32", (4,)),), ("k",))
    result = Array(0, "float32", (4,))

    def call(*updates: tuple[int, int]) -> OriginalCall:
        return OriginalCall(
            (Array(0, "float32", (4,)),), (("cache", cache),), result, updates=updates
        )

    def line(old: OriginalCall, new: OriginalCall) -> list[str]:
        return [f.line() for f in diff_calls("step", old, new)]

    assert line(call(), call((1, 1))) == ["breaking: step: argument cache['k']: updates no -> yes"]
    assert line(call((1, 1)), call()) == ["breaking: step: argument cache['k']: updates yes -> no"]
    assert line(call((1, 1)), call((1, 1))) == []


# step(cache, delta) -> cache + delta: updating cache in place (its new value is the
# function's second result, which the call writes into the caller's array), or pure.
STEP = v1([array("f32", 4), array("f32", 4)], [array("f32", 4), array("f32", 4)])
PURE_STEP = v1([array("f32", 4), array("f32", 4)], [array("f32", 4)])


def step_call(*updates: tuple[int, int]) -> OriginalCall:
    arrays = (Array(0, "float32", (4,)), Array(1, "float32", (4,)))
    return OriginalCall(
        arrays, (), Array(0, "float32", (4,)), labels=("cache", "delta"), updates=updates
    )


def test_in_place_and_pure_versions_differ_by_the_update_alone() -> None:
    """The caller of the original call receives the program's result alone (the new
    value of ``cache`` goes into its array): the records' second result is no change to
    that result (was also `breaking: step: result: kind tuple -> tensor`)."""

    def lines(old: tuple[Signature, OriginalCall], new: tuple[Signature, OriginalCall]) -> Any:
        found = diff_functions(
            {"step": old[0]}, {"step": new[0]}, {"step": old[1]}, {"step": new[1]}
        )
        return [f.line() for f in found]

    in_place, pure = (STEP, step_call((0, 1))), (PURE_STEP, step_call())
    assert lines(in_place, pure) == ["breaking: step: argument 0: updates yes -> no"]
    assert lines(pure, in_place) == ["breaking: step: argument 0: updates no -> yes"]
    assert lines(in_place, in_place) == []


def test_a_function_that_lost_its_original_call_breaks() -> None:
    """The same module without its `abi.call`: the framework's call (the result's
    structure, the update in place, the value checks) is gone, and the caller receives
    the records' results (was: identical)."""
    found = diff_functions({"step": STEP}, {"step": STEP}, {"step": step_call((0, 1))}, {})
    assert [f.line() for f in found] == [
        "breaking: step: result: kind tensor<4xf32> -> tuple",
        "breaking: step: original call removed (cache: float32[4], delta: float32[4]) -> "
        "float32[4], updating cache in place",
    ]
    pure = diff_functions({"step": PURE_STEP}, {"step": PURE_STEP}, {"step": step_call()}, {})
    assert [f.line() for f in pure] == [
        "breaking: step: original call removed (cache: float32[4], delta: float32[4]) -> float32[4]"
    ]
    assert [(f.side, f.what, f.new) for f in pure] == [(None, "call", None)]
    # A function removed is one finding, whatever it had.
    gone = diff_functions({"step": STEP}, {}, {"step": step_call((0, 1))}, {})
    assert [f.line() for f in gone] == ["breaking: step: function removed"]
