"""`pack` (docs/spec.md §10): binding call arguments to `iree.abi` root records, every value rule,
every error message."""

from __future__ import annotations

import collections
import dataclasses
import json
from fractions import Fraction
from typing import Any

import pytest

from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.errors import AbiError
from abi_compiler.model import Argument, Leaf, Scalar, Signature
from abi_compiler.runtime import pack
from tests.calling.helpers import abi, error_of

# --------------------------------------------------------------------------------------
# The abi argument: text, bytes, decoded dict or Signature.
# --------------------------------------------------------------------------------------

SPEC_EXAMPLE = (
    '{"a":[["ndarray","f32",2,null,4],"i32"],'
    '"r":[["stuple",["ndarray","f32",1,4],["ndarray","f32",1,4]]],"v":1}'
)


@pytest.mark.parametrize(
    "source",
    [
        SPEC_EXAMPLE,
        SPEC_EXAMPLE.encode(),
        json.loads(SPEC_EXAMPLE),
        decode_json(SPEC_EXAMPLE),
    ],
    ids=["text", "bytes", "dict", "signature"],
)
def test_abi_sources(source: Any) -> None:
    array = [[1.0, 2.0, 3.0, 4.0]]
    assert pack(source, array, 7) == [array, 7]


def test_call_plans_are_cached_for_models() -> None:
    """A decoded signature finds the plan built for an equal one (the plan cache is keyed
    on the frozen model, not on object identity); so do legacy model pairs."""
    from abi_compiler.calling.marshal import _legacy_plan_for, _v1_plan
    from abi_compiler.codecs.raw import decode_raw
    from abi_compiler.codecs.sip import decode_sip

    # decode_json caches its results: the uncached codec gives an equal, distinct model.
    first, second = decode_json(SPEC_EXAMPLE), decode_json.__wrapped__(SPEC_EXAMPLE)
    assert first == second and first is not second
    assert _v1_plan(first) is _v1_plan(second)
    assert _v1_plan(first) is _v1_plan(SPEC_EXAMPLE)
    f, sip = "I11!B3!d4S3!t6R1!", "I12!S9!k0_0k1_1R1!"
    assert _legacy_plan_for(decode_raw(f), decode_sip(sip)) is _legacy_plan_for(
        decode_raw(f), decode_sip(sip)
    )


def test_unhashable_hand_built_model_is_planned_uncached() -> None:
    # Type hints say tuples; a caller who builds the model with lists still gets a result.
    signature = Signature([Argument(0, Leaf(Scalar("i", 32), 0))], [])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        hash(signature)
    assert pack(signature, 7) == [7]
    assert pack(signature, 8) == [8]


def test_abi_source_of_wrong_type() -> None:
    assert error_of(pack, 42) == "expected an iree.abi JSON text, dict or Signature, got int"


def test_malformed_abi_text_is_the_codec_error() -> None:
    with pytest.raises(AbiError) as info:
        pack('{"a":[')
    assert info.value.offset is not None


def test_packs_one_value_per_root_record() -> None:
    assert (
        pack(
            abi([]),
        )
        == []
    )
    assert pack(abi(["i32", "f32", "i64"]), 1, 2.5, 3) == [1, 2.5, 3]


# --------------------------------------------------------------------------------------
# Binding: positional and keyword arguments, each slot filled once.
# --------------------------------------------------------------------------------------

NAMED = abi(["i32", ["named", "x", "f32"], ["named", "y", ["slist", "i32"]]])


def test_keywords_fill_named_slots() -> None:
    assert pack(NAMED, 1, x=2.0, y=[3]) == [1, 2.0, [3]]
    assert pack(NAMED, 1, y=[3], x=2.0) == [1, 2.0, [3]]


def test_named_slots_may_be_filled_positionally() -> None:
    # IREE's Function ABI (docs/formats.md#upstream-documents): named arguments "can be
    # passed positionally or by keyword" (IREE's packer takes them by keyword only:
    # deliberate difference, documented in calling/marshal.py).
    assert pack(NAMED, 1, 2.0, [3]) == [1, 2.0, [3]]
    assert pack(NAMED, 1, 2.0, y=[3]) == [1, 2.0, [3]]


def test_missing_positional_argument() -> None:
    assert error_of(pack, NAMED) == "argument 0: missing value, expected an int (i32)"


def test_missing_named_argument() -> None:
    assert error_of(pack, NAMED, 1, y=[3]) == (
        "argument 'x': missing value, expected a float (f32)"
    )
    sdict = abi([["sdict", ["bias", ["ndarray", "f32", 1, 4]]], ["ndarray", "f32", 2, 2, 4]])
    assert error_of(pack, sdict, {"bias": [0.0] * 4}) == (
        "argument 1: missing value, expected float32[2,4]"
    )
    assert error_of(pack, sdict) == (
        "argument 0: missing value, expected a dict with keys ['bias']"
    )


def test_too_many_positional_arguments() -> None:
    assert error_of(pack, NAMED, 1, 2.0, [3], 4) == (
        "argument 3: unexpected positional argument (the function takes 3 positional arguments)"
    )
    assert error_of(pack, abi(["i32"]), 1, 2) == (
        "argument 1: unexpected positional argument (the function takes 1 positional argument)"
    )


def test_unknown_keyword_argument() -> None:
    assert error_of(pack, NAMED, 1, x=2.0, y=[3], z=4) == (
        "argument 'z': unexpected keyword argument (keywords: 'x', 'y')"
    )


def test_keyword_for_an_unnamed_slot_is_unknown() -> None:
    assert error_of(pack, abi(["i32"]), **{"0": 1}) == (
        "argument '0': unexpected keyword argument (it takes no keywords)"
    )


def test_slot_given_twice() -> None:
    assert error_of(pack, NAMED, 1, 2.0, x=2.0, y=[3]) == (
        "argument 'x': given both positionally and by keyword"
    )


def test_argument_names_do_not_clash_with_the_abi_parameter() -> None:
    text = abi([["named", "abi", "i32"], ["named", "args", "i32"]])
    assert pack(text, abi=1, args=2) == [1, 2]


# --------------------------------------------------------------------------------------
# Structures: slist / stuple / sdict, gaps.
# --------------------------------------------------------------------------------------

SEQUENCES = ["slist", "stuple"]


@pytest.mark.parametrize("kind", SEQUENCES)
@pytest.mark.parametrize(
    "value", [[1, 2], (1, 2), range(1, 3), collections.deque([1, 2])], ids=repr
)
def test_sequence_takes_any_sequence(kind: str, value: Any) -> None:
    assert pack(abi([[kind, "i32", "i32"]]), value) == [[1, 2]]


@pytest.mark.parametrize("kind", SEQUENCES)
@pytest.mark.parametrize(
    "value", ["ab", b"ab", bytearray(b"ab"), {"0": 1, "1": 2}, {1, 2}, 12, None], ids=repr
)
def test_sequence_rejects_non_sequences(kind: str, value: Any) -> None:
    expected = f"argument 0: expected a sequence of 2 values, got {type(value).__name__}"
    if value is None:
        expected = "argument 0: expected a sequence of 2 values, got None"
    assert error_of(pack, abi([[kind, "i32", "i32"]]), value) == expected


@pytest.mark.parametrize("kind", SEQUENCES)
def test_sequence_length_must_match(kind: str) -> None:
    text = abi([[kind, "i32", "i32"]])
    assert error_of(pack, text, [1]) == "argument 0: expected a sequence of 2 values, got 1"
    assert error_of(pack, text, [1, 2, 3]) == "argument 0: expected a sequence of 2 values, got 3"
    single = abi([[kind, "i32"]])
    assert error_of(pack, single, []) == "argument 0: expected a sequence of 1 value, got 0"
    assert pack(abi([[kind]]), ()) == [[]]


def test_sequence_item_paths() -> None:
    text = abi([["slist", "i32", ["stuple", "f32", "i32"]]])
    assert pack(text, [1, (2, 3)]) == [[1, [2.0, 3]]]
    assert error_of(pack, text, [1, (2, "3")]) == (
        "argument 0[1][1]: expected an int (i32), got str"
    )


def test_gap_takes_none_only() -> None:
    text = abi([["slist", "i32", None, "f32"]])
    assert pack(text, [1, None, 2.0]) == [[1, None, 2.0]]
    assert error_of(pack, text, [1, 0, 2.0]) == (
        "argument 0[1]: expected None (a gap in the structure), got int"
    )
    assert error_of(pack, text, [1, 2.0]) == "argument 0: expected a sequence of 3 values, got 2"


SDICT = abi([["sdict", ["a", "i32"], ["b", ["slist", "f32", "f32"]]]])


def test_sdict_packs_values_in_key_order() -> None:
    assert pack(SDICT, {"b": [1.0, 2.0], "a": 3}) == [[3, [1.0, 2.0]]]
    assert pack(SDICT, collections.OrderedDict(b=(1, 2), a=3)) == [[3, [1.0, 2.0]]]


def test_sdict_rejects_non_mappings() -> None:
    assert error_of(pack, SDICT, [3, [1.0, 2.0]]) == (
        "argument 0: expected a dict with keys ['a', 'b'], got list"
    )
    assert error_of(pack, abi([["sdict"]]), []) == (
        "argument 0: expected a dict with no keys, got list"
    )
    assert pack(abi([["sdict"]]), {}) == [[]]


def test_sdict_keys_must_match_exactly() -> None:
    assert error_of(pack, SDICT, {"a": 3}) == (
        "argument 0: expected a dict with keys ['a', 'b'], got keys ['a']"
    )
    assert (
        error_of(pack, SDICT, {}) == "argument 0: expected a dict with keys ['a', 'b'], got no keys"
    )
    assert error_of(pack, SDICT, {"a": 3, "b": [1, 2], "c": 0}) == (
        "argument 0: expected a dict with keys ['a', 'b'], got keys ['a', 'b', 'c']"
    )
    assert error_of(pack, SDICT, {"a": 3, "b": [1, 2], 7: 0, "d": 1}) == (
        "argument 0: expected a dict with keys ['a', 'b'], got keys ['a', 'b', 7, 'd']"
    )


def test_long_key_lists_are_cut_and_the_difference_named() -> None:
    keys = [f"k{i:02}" for i in range(20)]
    text = abi([["sdict", *([key, "i32"] for key in keys)]])
    given = {key: 1 for key in keys[1:]} | {"z": 1}
    assert error_of(pack, text, given) == (
        "argument 0: expected a dict with keys ['k00', 'k01', 'k02', 'k03', 'k04', 'k05', "
        "'k06', 'k07', 'k08', 'k09', 'k10', 'k11', 'k12', 'k13', 'k14', 'k15', … and 4 more], "
        "got keys ['k01', 'k02', 'k03', 'k04', 'k05', 'k06', 'k07', 'k08', 'k09', 'k10', "
        "'k11', 'k12', 'k13', 'k14', 'k15', 'k16', … and 4 more] (missing ['k00']; "
        "unexpected ['z'])"
    )


Point = collections.namedtuple("Point", ["b", "a"])


@dataclasses.dataclass
class Params:
    a: Any
    b: Any


def test_sdict_takes_namedtuples_and_dataclasses_with_its_keys() -> None:
    """docs/spec.md §10: a namedtuple or dataclass instance whose fields are exactly the record's
    keys, in any order (JAX's `.field` paths come from such objects)."""
    assert pack(SDICT, Point(b=[1.0, 2.0], a=3)) == [[3, [1.0, 2.0]]]
    assert pack(SDICT, Params(a=3, b=(1, 2))) == [[3, [1.0, 2.0]]]
    assert error_of(pack, SDICT, Params(a=3, b=[1])) == (
        "argument 0['b']: expected a sequence of 2 values, got 1"
    )
    Other = collections.namedtuple("Other", ["a", "c"])
    assert error_of(pack, SDICT, Other(1, 2)) == (
        "argument 0: expected a dict with keys ['a', 'b'], got Other with fields ['a', 'c']"
    )
    # The class itself is not an instance; a plain tuple has no fields.
    assert error_of(pack, SDICT, Params) == (
        "argument 0: expected a dict with keys ['a', 'b'], got type"
    )
    assert error_of(pack, SDICT, (3, [1.0, 2.0])) == (
        "argument 0: expected a dict with keys ['a', 'b'], got tuple"
    )


def test_spec_example_error() -> None:
    # docs/spec.md §10's example message, exactly.
    text = abi([["named", "x", ["slist", ["sdict", ["b", ["slist", "i32", "i32"]]]]]])
    assert error_of(pack, text, x=[{"b": [1, 2, 3]}]) == (
        "argument 'x'[0]['b']: expected a sequence of 2 values, got 3"
    )


def test_dict_key_paths_use_python_repr() -> None:
    text = abi([["sdict", ["it's", "i32"]]])
    assert error_of(pack, text, {"it's": "no"}) == (
        'argument 0["it\'s"]: expected an int (i32), got str'
    )


# --------------------------------------------------------------------------------------
# Scalars.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "value", "packed"),
    [
        ("i32", 5, 5),
        ("i8", -128, -128),
        ("i8", 255, 255),  # signless: either interpretation fits
        ("i64", 2**64 - 1, 2**64 - 1),
        ("i64", -(2**63), -(2**63)),
        ("i1", True, True),
        ("i1", 0, False),
        ("i1", 1, True),
        ("f32", 2.5, 2.5),
        ("f32", 3, 3.0),
        ("f64", Fraction(1, 2), 0.5),
        ("f16", 1, 1.0),
        ("bf16", 1.5, 1.5),
    ],
)
def test_scalars(record: str, value: Any, packed: Any) -> None:
    result = pack(abi([record]), value)
    assert result == [packed]
    assert type(result[0]) is type(packed)


@pytest.mark.parametrize(
    ("record", "value", "message"),
    [
        ("i32", 2.0, "expected an int (i32), got float"),
        ("i32", "1", "expected an int (i32), got str"),
        ("i32", None, "expected an int (i32), got None"),
        ("i8", 256, "value 256 does not fit in i8"),
        ("i8", -129, "value -129 does not fit in i8"),
        ("i64", 2**64, "value 18446744073709551616 does not fit in i64"),
        ("i1", 2, "value 2 does not fit in i1"),
        ("i1", -1, "value -1 does not fit in i1"),
        ("i1", 1.0, "expected a bool (i1), got float"),
        ("f32", "1.0", "expected a float (f32), got str"),
        ("f32", None, "expected a float (f32), got None"),
        ("f32", 1j, "expected a float (f32), got complex"),
        ("bf16", [1.0], "expected a float (bf16), got list"),
        ("f64", 10**400, f"value {10**400} does not fit in f64"),
        # A finite value beyond a narrower float type would become infinity there.
        ("f32", 1e300, "value 1e+300 does not fit in f32"),
        ("f32", -3.5e38, "value -3.5e+38 does not fit in f32"),
        ("f32", 10**40, f"value {10**40} does not fit in f32"),
        ("f16", 65520.0, "value 65520.0 does not fit in f16"),
        ("f16", 70000, "value 70000 does not fit in f16"),
        ("bf16", 3.4e38, "value 3.4e+38 does not fit in bf16"),
    ],
)
def test_scalar_errors(record: str, value: Any, message: str) -> None:
    assert error_of(pack, abi([record]), value) == f"argument 0: {message}"


@pytest.mark.parametrize(
    ("record", "value"),
    [
        ("f32", 3.4028234663852886e38),  # the largest f32
        ("f32", 3.4028235677973362e38),  # rounds down to it
        ("f32", float("inf")),
        ("f32", float("-inf")),
        ("f16", 65519.0),
        ("f16", -65504),
        ("bf16", 3.3895313892515355e38),
        ("f64", 1e300),
    ],
)
def test_float_scalars_at_the_edge_of_their_range(record: str, value: Any) -> None:
    assert pack(abi([record]), value) == [float(value)]


def test_float_nan_passes() -> None:
    (packed,) = pack(abi(["f16"]), float("nan"))
    assert packed != packed


def test_numpy_scalars() -> None:
    np = pytest.importorskip("numpy")
    assert pack(abi(["i32", "f32"]), np.int64(3), np.float32(1.5)) == [3, 1.5]
    assert type(pack(abi(["i32"]), np.int16(3))[0]) is int
    assert error_of(pack, abi(["i32"]), np.float32(1)) == (
        "argument 0: expected an int (i32), got float32"
    )
    assert pack(abi(["i1", "i8"]), np.True_, np.int8(0)) == [True, 0]
    assert error_of(pack, abi(["i8"]), np.False_) == (
        "argument 0: expected an int (i8), got bool (convert=True converts it)"
    )
    assert pack(abi(["i8"]), np.False_, convert=True) == [0]
    assert pack(abi(["i32"]), np.array(7)) == [7]
    assert error_of(pack, abi(["i1"]), np.array([True, False])) == (
        "argument 0: expected a bool (i1), got ndarray"
    )


def test_unknown_accepts_anything() -> None:
    marker = object()
    assert pack(abi(["unknown", "unknown"]), marker, None) == [marker, None]


# --------------------------------------------------------------------------------------
# ND-arrays.
# --------------------------------------------------------------------------------------


class Shaped:
    """An array-like that is not numpy: only ``.shape`` counts."""

    def __init__(self, *shape: int) -> None:
        self.shape = shape


def test_ndarray_nested_lists_pass_through() -> None:
    value = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]
    packed = pack(abi([["ndarray", "f32", 2, None, 4]]), value)
    assert packed[0] is value


@pytest.mark.parametrize(
    ("record", "value"),
    [
        (["ndarray", "f32", 0], 1.5),
        (["ndarray", "i32", 0], 3),
        (["ndarray", "f32", 1, 0], []),
        (["ndarray", "f32", 2, 2, 0], [[], []]),
        (["ndarray", "f32", 1, 3], (1, 2, 3)),
        (["ndarray", "f32", None], [[[1]]]),
        (["ndarray", "f32", None], 1.0),
        (["ndarray", "f32", 3, None, 2, None], Shaped(5, 2, 7)),
        (["ndarray", "unknown", 1, 2], [object(), object()]),
    ],
)
def test_ndarray_accepted(record: list[Any], value: Any) -> None:
    assert pack(abi([record]), value)[0] is value


@pytest.mark.parametrize(
    ("record", "value", "message"),
    [
        (
            ["ndarray", "f32", 2, None, 4],
            [1.0, 2.0, 3.0, 4.0],
            "expected float32[?,4], got lists of shape [4]",
        ),
        (
            ["ndarray", "f32", 2, None, 4],
            [[1.0, 2.0, 3.0]],
            "expected float32[?,4], got lists of shape [1,3]",
        ),
        (["ndarray", "f32", 1, 2], [[1], [2, 3]], "expected float32[2], got ragged nested lists"),
        (["ndarray", "f32", 1, 2], [1, [2]], "expected float32[2], got ragged nested lists"),
        (["ndarray", "f32", 0], [1.0], "expected float32[], got lists of shape [1]"),
        (["ndarray", "f32", 1, 3], Shaped(3, 1), "expected float32[3], got Shaped of shape [3,1]"),
        (["ndarray", "f32", 1, 3], Shaped(4), "expected float32[3], got Shaped of shape [4]"),
        (["ndarray", "f32", 1, 3], "abc", "expected float32[3], got str"),
        (["ndarray", "f32", None], None, "expected a float32 array of any rank, got None"),
        (["ndarray", "f32", None], {"a": 1}, "expected a float32 array of any rank, got dict"),
        (["ndarray", "i8", 2, 2, None], 7, "expected int8[2,?], got int"),
        (
            ["ndarray", "unknown", 1, 2],
            [1],
            "expected an array of shape [2], got lists of shape [1]",
        ),
    ],
)
def test_ndarray_errors(record: list[Any], value: Any, message: str) -> None:
    assert error_of(pack, abi([record]), value) == f"argument 0: {message}"


def test_ndarray_numpy() -> None:
    np = pytest.importorskip("numpy")
    array = np.zeros((3, 4), np.float32)
    assert pack(abi([["ndarray", "f32", 2, None, 4]]), array)[0] is array
    assert pack(abi([["ndarray", "f32", 2, None, 4]]), array, convert=True)[0] is array
    assert error_of(pack, abi([["ndarray", "f32", 2, 4, 4]]), array) == (
        "argument 0: expected float32[4,4], got float32[3,4]"
    )
    assert error_of(pack, abi([["ndarray", "f32", 1, 12]]), array) == (
        "argument 0: expected float32[12], got float32[3,4]"
    )


def test_ndarray_dtype_must_match_unless_converting() -> None:
    np = pytest.importorskip("numpy")
    ints = np.arange(4, dtype=np.int32)
    assert error_of(pack, abi([["ndarray", "f32", 1, 4]]), ints) == (
        "argument 0: expected float32[4], got int32[4] (convert=True converts it)"
    )
    converted = pack(abi([["ndarray", "f32", 1, 4]]), ints, convert=True)[0]
    assert converted.dtype == np.float32 and converted.tolist() == [0.0, 1.0, 2.0, 3.0]
    text = abi([["named", "x", ["slist", ["ndarray", "i32", 1, None]]]])
    assert error_of(pack, text, x=[np.zeros(2, np.float64)]) == (
        "argument 'x'[0]: expected int32[?], got float64[2] (convert=True converts it)"
    )
    # signless integers take either signedness; i1 is bool; sizes must agree
    assert pack(abi([["ndarray", "i8", 1, 2]]), np.zeros(2, np.uint8))[0].dtype == np.uint8
    assert pack(abi([["ndarray", "i1", 1, 2]]), np.zeros(2, np.bool_))[0].dtype == np.bool_
    assert error_of(pack, abi([["ndarray", "i1", 1, 2]]), np.zeros(2, np.int8)) == (
        "argument 0: expected bool[2], got int8[2] (convert=True converts it)"
    )
    assert error_of(pack, abi([["ndarray", "i64", 1, 2]]), np.zeros(2, np.int32)) == (
        "argument 0: expected int64[2], got int32[2] (convert=True converts it)"
    )
    # bf16 exists in numpy only with ml_dtypes; without it, converting is an error
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        assert error_of(pack, abi([["ndarray", "bf16", 1, 2]]), ints[:2], convert=True).startswith(
            "argument 0: cannot convert an array of dtype int32 to bfloat16: "
        )
    else:
        bf16 = pack(abi([["ndarray", "bf16", 1, 2]]), ints[:2], convert=True)[0]
        assert bf16.dtype.name == "bfloat16" and bf16.tolist() == [0.0, 1.0]
        # bfloat16 (numpy's kind "V") is numbers too: named, and converted like the others
        assert error_of(pack, abi([["ndarray", "f32", 1, 2]]), bf16) == (
            "argument 0: expected float32[2], got bfloat16[2] (convert=True converts it)"
        )
        f32 = pack(abi([["ndarray", "f32", 1, 2]]), bf16, convert=True)[0]
        assert f32.dtype == np.float32 and f32.tolist() == [0.0, 1.0]
    # nested lists have no dtype: IREE converts them
    assert pack(abi([["ndarray", "f32", 1, 2]]), [1, 2]) == [[1, 2]]


class ArrayLike:
    """An array only through `__array__` (no `.shape`), as docs/calling.md accepts."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self.array


def test_objects_with_dunder_array_are_arrays() -> None:
    np = pytest.importorskip("numpy")
    array = np.zeros((2, 3), np.float32)
    assert pack(abi([["ndarray", "f32", 2, None, 3]]), ArrayLike(array))[0] is array
    assert pack(abi([["ndarray", "f32", None]]), ArrayLike(array))[0] is array
    assert error_of(pack, abi([["ndarray", "f32", 1, 3]]), ArrayLike(array)) == (
        "argument 0: expected float32[3], got float32[2,3]"
    )
    assert error_of(pack, abi([["ndarray", "f32", 2, 2, 3]]), ArrayLike(array.astype("f8"))) == (
        "argument 0: expected float32[2,3], got float64[2,3] (convert=True converts it)"
    )


def test_dunder_array_that_raises() -> None:
    class Broken:
        def __array__(self) -> Any:
            raise RuntimeError("no data")

    assert error_of(pack, abi([["ndarray", "f32", 1, 3]]), Broken()) == (
        "argument 0: expected float32[3], Broken.__array__() raised RuntimeError: no data"
    )


def test_a_dtype_that_is_no_dtype() -> None:
    """The message names the type, not the dtype object's repr (its address)."""

    class Odd:
        dtype, shape = object(), (4,)

    assert error_of(pack, abi([["ndarray", "f32", 1, 3]]), Odd()) == (
        "argument 0: expected float32[3], got Odd of shape [4]"
    )


def test_memoryviews_have_an_element_type() -> None:
    """A memoryview's struct format is its dtype: checked like a numpy array's (with
    convert=True its values are taken as numbers, without a dtype)."""
    np = pytest.importorskip("numpy")
    floats = memoryview(np.array([1.0, 2.0], np.float32))
    assert pack(abi([["ndarray", "f32", 1, 2]]), floats)[0] is floats
    doubles = memoryview(np.array([1.0, 2.0]))
    assert error_of(pack, abi([["ndarray", "f32", 1, 2]]), doubles) == (
        "argument 0: expected float32[2], got float64[2] (convert=True converts it)"
    )
    assert pack(abi([["ndarray", "f32", 1, 2]]), doubles, convert=True) == [[1.0, 2.0]]
    halves = memoryview(np.array([[1.5, -2.0]], np.float16))  # (`tolist` has no halves)
    assert pack(abi([["ndarray", "f32", 2, 1, 2]]), halves, convert=True) == [[[1.5, -2.0]]]
    assert pack(abi([["ndarray", "f32", 0]]), memoryview(np.float16(3)), convert=True) == [3.0]
    assert pack(abi([["ndarray", "i8", 1, 3]]), memoryview(b"abc"))[0].tobytes() == b"abc"
    assert error_of(pack, abi([["ndarray", "i1", 1, 2]]), memoryview(b"ab")) == (
        "argument 0: expected bool[2], got uint8[2] (convert=True converts it)"
    )
    assert error_of(pack, abi([["ndarray", "f32", 1, 2]]), memoryview(b"ab").cast("c")) == (
        "argument 0: expected float32[2], got a memoryview of format 'c' and shape [2]"
    )


def test_bool_is_not_a_number_unless_converting() -> None:
    assert error_of(pack, abi(["i32"]), True) == (
        "argument 0: expected an int (i32), got bool (convert=True converts it)"
    )
    assert error_of(pack, abi([["sdict", ["k", "f32"]]]), {"k": False}) == (
        "argument 0['k']: expected a float (f32), got bool (convert=True converts it)"
    )
    assert pack(abi(["i32", "f32"]), True, False, convert=True) == [1, 0.0]
    assert type(pack(abi(["i32"]), True, convert=True)[0]) is int


def test_convert_is_a_keyword_of_pack_not_a_named_argument() -> None:
    # A named argument called `convert` is given positionally (named arguments may be).
    text = abi([["named", "convert", "i32"]])
    assert pack(text, 5) == [5]
    assert error_of(pack, text, convert=True) == (
        "argument 'convert': missing value, expected an int (i32)"
    )


def test_ndarray_inside_structures() -> None:
    text = abi([["sdict", ["w", ["ndarray", "f32", 1, 2]]]])
    assert error_of(pack, text, {"w": [1.0, 2.0, 3.0]}) == (
        "argument 0['w']: expected float32[2], got lists of shape [3]"
    )


# --------------------------------------------------------------------------------------
# py_homogeneous_list and ND-arrays of reference type (docs/spec.md §8.3).
# --------------------------------------------------------------------------------------

LIST_I8 = ["py_homogeneous_list", "i8"]


def test_homogeneous_list_checks_every_element() -> None:
    text = abi([LIST_I8])
    assert pack(text, []) == [[]]
    assert pack(text, (1, 2, 3)) == [[1, 2, 3]]
    assert error_of(pack, text, [1, 2, 300]) == "argument 0[2]: value 300 does not fit in i8"
    assert error_of(pack, text, "abc") == "argument 0: expected a sequence, got str"
    assert error_of(pack, text, {1: 2}) == "argument 0: expected a sequence, got dict"


def test_homogeneous_list_of_structures_and_unknown() -> None:
    nested = abi([["py_homogeneous_list", ["py_homogeneous_list", "f32"]]])
    assert pack(nested, [[1], [], [2, 3]]) == [[[1.0], [], [2.0, 3.0]]]
    assert error_of(pack, nested, [[1], ["x"]]) == (
        "argument 0[1][0]: expected a float (f32), got str"
    )
    assert pack(abi([["py_homogeneous_list", "unknown"]]), ["a", 1]) == [["a", 1]]


REF_ARRAY = ["ndarray", LIST_I8, 2, 2, None]


def test_reference_array_packs_values_and_dims() -> None:
    value = [[[1], [2, 3], []], [[4], [5], [6]]]
    assert pack(abi([REF_ARRAY]), value) == [
        [[[1], [2, 3], [], [4], [5], [6]], [2, 3]],
    ]
    assert pack(abi([["ndarray", LIST_I8, 0]]), [7]) == [[[[7]], []]]


def test_reference_array_errors() -> None:
    text = abi([REF_ARRAY])
    assert error_of(pack, text, [[[1], [2]], [[3], [400]]]) == (
        "argument 0[1][1][0]: value 400 does not fit in i8"
    )
    assert error_of(pack, text, [[[1], [2]]]) == (
        "argument 0: expected a reference array of shape [2,?], got lists of shape [1,2]"
    )
    assert error_of(pack, text, [[1], [2]]) == "argument 0[0][0]: expected a sequence, got int"
    assert error_of(pack, text, [1, 2]) == (
        "argument 0: expected a reference array of shape [2,?], got lists of shape [2]"
    )
    assert error_of(pack, abi([["ndarray", LIST_I8, None]]), [[1]]) == (
        "argument 0: expected an array with a shape (an unranked reference array cannot "
        "be nested lists), got list"
    )


def test_reference_array_numpy_object_array() -> None:
    np = pytest.importorskip("numpy")
    array = np.empty((2,), dtype=object)
    array[0], array[1] = [1, 2], [3]
    assert pack(abi([["ndarray", LIST_I8, None]]), array) == [[[[1, 2], [3]], [2]]]
