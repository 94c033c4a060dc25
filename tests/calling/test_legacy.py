"""`pack_legacy` / `unpack_legacy` (docs/spec.md §10): the raw `f` + SIP `sip` pair."""

from __future__ import annotations

from typing import Any

import pytest

from abi_compiler.codecs.raw import decode_raw
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.errors import AbiError
from abi_compiler.runtime import pack_legacy, unpack_legacy
from tests.calling.helpers import error_of

# docs/spec.md §9's raw example: (RefObject<?>, Buffer<float32[?x128x64]>, sint32)
#   -> (Buffer<uint64[32x?x64]>), with the trivial structure.
SPEC_F = "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64"
TRIVIAL_SIP = "I17!S13!k0_0k1_1k2_2R3!_0"

# (i32, f32[?x2], f64, ui8) -> (i8, f32)
MIXED_F = "I24!S3!t6B6!d-1d2S3!t2S3!t8R9!S3!t4S1!"
# inputs: [{"a": 1, "b": [0, 2]}, 3]; results: (1, {"x": 0})
NESTED_SIP = "I36!S32!k0D22!K2!a_1K2!bS9!k0_0k1_2k1_3R20!S16!k0_1k1D7!K2!x_0"
# inputs: {"x": 0, "y": [1, 2]}; results: {"out": 0}
DICT_SIP = "I26!D22!K2!x_0K2!yS9!k0_1k1_2R12!D9!K4!out_0"


class Shaped:
    def __init__(self, *shape: int) -> None:
        self.shape = shape


def test_trivial_structure() -> None:
    ref, buffer = object(), Shaped(7, 128, 64)
    assert pack_legacy(SPEC_F, TRIVIAL_SIP, ref, buffer, 5) == [ref, buffer, 5]
    out = Shaped(32, 1, 64)
    assert unpack_legacy(SPEC_F, TRIVIAL_SIP, [out]) is out


def test_model_objects_are_accepted() -> None:
    flat, structure = decode_raw(SPEC_F), decode_sip(TRIVIAL_SIP)
    assert pack_legacy(flat, structure, None, Shaped(1, 128, 64), 5)[2] == 5
    assert pack_legacy(SPEC_F.encode(), TRIVIAL_SIP.encode(), None, Shaped(1, 128, 64), 5)[2] == 5


def test_leaves_go_to_their_raw_index() -> None:
    packed = pack_legacy(MIXED_F, NESTED_SIP, {"b": (7, 2.5), "a": [[1.0, 2.0]]}, 200)
    assert packed == [7, [[1.0, 2.0]], 2.5, 200]


def test_results_rebuild_the_structure() -> None:
    # Several results: a tuple; result sequences are tuples (docs/spec.md §3.2).
    assert unpack_legacy(MIXED_F, NESTED_SIP, [-3, 1.5]) == (1.5, {"x": -3})


def test_dict_root_binds_keywords() -> None:
    f = "I19!S3!t6B6!d-1d2S3!t2R6!B3!d2"  # (i32, f32[?x2], f64) -> (f32[2])
    assert pack_legacy(f, DICT_SIP, y=([[1, 2]], 3), x=4) == [4, [[1, 2]], 3.0]
    assert unpack_legacy(f, DICT_SIP, [[1.0, 2.0]]) == {"out": [1.0, 2.0]}


def test_dict_root_named_arguments_may_be_given_positionally() -> None:
    # The same rule as V1 `named` records: positionally, in the function's argument order
    # (the order of each argument's first raw index), or by keyword.
    f = "I19!S3!t6B6!d-1d2S3!t2R6!B3!d2"
    assert pack_legacy(f, DICT_SIP, 4, ([[1, 2]], 3)) == [4, [[1, 2]], 3.0]
    assert pack_legacy(f, DICT_SIP, 4, y=([[1, 2]], 3)) == [4, [[1, 2]], 3.0]
    # keys sort as a < b, but b holds raw index 0: b is the first positional argument
    backwards = "I17!D13!K2!a_1K2!b_0R1!"
    assert pack_legacy("I11!S3!t6S3!t2R1!", backwards, 7, 0.5) == [7, 0.5]
    assert pack_legacy("I11!S3!t6S3!t2R1!", backwards, 7, a=0.5) == [7, 0.5]


def test_dict_root_errors() -> None:
    f = "I19!S3!t6B6!d-1d2S3!t2R6!B3!d2"
    assert (
        error_of(pack_legacy, f, DICT_SIP, 4)
        == "argument 'y': missing value, expected a sequence of 2 values"
    )
    assert error_of(pack_legacy, f, DICT_SIP, 4, ([[1, 2]], 3), 5) == (
        "argument 2: unexpected positional argument (the function takes 2 positional arguments)"
    )
    assert error_of(pack_legacy, f, DICT_SIP, 4, x=4) == (
        "argument 'x': given both positionally and by keyword"
    )
    assert (
        error_of(pack_legacy, f, DICT_SIP, x=4)
        == "argument 'y': missing value, expected a sequence of 2 values"
    )
    assert error_of(pack_legacy, f, DICT_SIP, x=4, y=[[[1, 2]], 3], z=1) == (
        "argument 'z': unexpected keyword argument (keywords: 'x', 'y')"
    )
    assert error_of(pack_legacy, f, DICT_SIP, x=4, y=[[[1, 2, 3]], 3]) == (
        "argument 'y'[0]: expected float32[?,2], got lists of shape [1,3]"
    )
    assert error_of(unpack_legacy, f, DICT_SIP, [[1.0]]) == (
        "result 'out': expected float32[2], got lists of shape [1]"
    )


def test_sequence_root_errors() -> None:
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (7, 2.5)}) == (
        "argument 1: missing value, expected an int (ui8)"
    )
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {}, 1, 2) == (
        "argument 2: unexpected positional argument (the function takes 2 positional arguments)"
    )
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {"a": [[1, 2]]}, 1) == (
        "argument 0: expected a dict with keys ['a', 'b'], got keys ['a']"
    )
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (7.5, 2.5)}, 1) == (
        "argument 0['b'][0]: expected an int (i32), got float"
    )
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (7, 2.5)}, 256) == (
        "argument 1: value 256 does not fit in ui8"
    )
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (7, 2.5)}, x=1) == (
        "argument 'x': unexpected keyword argument (it takes no keywords)"
    )
    assert error_of(unpack_legacy, MIXED_F, NESTED_SIP, [-3, "x"]) == (
        "result 0: expected a float (f32), got str"
    )
    assert error_of(unpack_legacy, MIXED_F, NESTED_SIP, [300, 1.0]) == (
        "result 1['x']: value 300 does not fit in i8"
    )


def test_root_gap_takes_none() -> None:
    f = "I11!S3!t6S3!t6R1!"
    sip = "I12!S9!k0_0k2_1R1!"
    assert pack_legacy(f, sip, 1, None, 2) == [1, 2]
    assert error_of(pack_legacy, f, sip, 1, 5, 2) == (
        "argument 1: expected None (a gap in the structure), got int"
    )
    assert unpack_legacy(f, sip, []) is None


def test_empty_signature() -> None:
    assert pack_legacy("I1!R1!", "I1!R1!") == []
    assert unpack_legacy("I1!R1!", "I1!R1!", []) is None
    assert error_of(unpack_legacy, "I1!R1!", "I1!R1!", [1]) == "expected 0 results, got 1"


def test_result_count_must_match() -> None:
    assert error_of(unpack_legacy, MIXED_F, NESTED_SIP, [1]) == "expected 2 results, got 1"
    assert error_of(unpack_legacy, MIXED_F, NESTED_SIP, None) == (
        "expected a sequence of results, got None"
    )


def test_references_and_unknown_types_are_opaque() -> None:
    f = "I7!O1!U1!R1!"
    sip = "I12!S9!k0_0k1_1R1!"
    assert pack_legacy(f, sip, "anything", {"at": "all"}) == ["anything", {"at": "all"}]


@pytest.mark.parametrize(
    ("f", "sip", "message"),
    [
        (
            "I11!S3!t6S3!t6R1!",
            "I8!S5!k0_0R1!",
            "sip inputs leaf indices [0] do not match the 2 raw inputs of f",
        ),
        (
            "I11!S3!t6S3!t6R1!",
            "I12!S9!k0_0k1_2R1!",
            "sip inputs leaf indices [0, 2] do not match the 2 raw inputs of f",
        ),
        (
            "I1!R6!S3!t6",
            "I1!R3!_1",
            "sip results leaf indices [1] do not match the 1 raw results of f",
        ),
    ],
)
def test_signatures_must_agree(f: str, sip: str, message: str) -> None:
    assert error_of(pack_legacy, f, sip) == message


def test_malformed_signatures_are_codec_errors() -> None:
    with pytest.raises(AbiError) as info:
        pack_legacy("I5!", TRIVIAL_SIP)
    assert info.value.offset is not None
    with pytest.raises(AbiError) as info:
        pack_legacy(SPEC_F, "I3!k")
    assert info.value.offset is not None


def test_packed_values_are_normalized() -> None:
    # int → float for float scalars (as IREE's packer); bool → int only when converting.
    value: Any = pack_legacy(MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (1, 2)}, 3)
    assert value == [1, [[1, 2]], 2.0, 3]
    assert type(value[0]) is int and type(value[2]) is float
    assert error_of(pack_legacy, MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (True, 2)}, 3) == (
        "argument 0['b'][0]: expected an int (i32), got bool (convert=True converts it)"
    )
    value = pack_legacy(MIXED_F, NESTED_SIP, {"a": [[1, 2]], "b": (True, 2)}, 3, convert=True)
    assert value == [1, [[1, 2]], 2.0, 3] and type(value[0]) is int
