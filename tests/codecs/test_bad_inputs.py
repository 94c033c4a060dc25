"""Malformed input for every codec: each error message, with the byte offset it names
(docs/spec.md §9: never a hang, never a silent truncation)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from abi_compiler.codecs.json_abi import MAX_JSON_DEPTH, decode_json
from abi_compiler.codecs.raw import decode_raw
from abi_compiler.codecs.sip import MAX_SIP_DEPTH, decode_sip
from abi_compiler.errors import AbiError
from abi_compiler.model import MAX_STRUCTURE_DEPTH

# fmt: off
RAW_ERRORS: list[tuple[str | bytes, str, int]] = [
    ('', "unexpected end of signature, expected the inputs span 'I'", 0),
    ('R1!', "expected the inputs span 'I', got span component 'R'", 0),
    ('I1!', "unexpected end of signature, expected the results span 'R'", 3),
    ('I1!d1', "expected the results span 'R', got integer component 'd'", 3),
    ('I1!R1!U1!', 'unexpected trailing text after the results span', 6),
    ('I1!R1!\n', 'unexpected trailing text after the results span', 6),
    ('I3!d1R1!', "expected a type span ('B', 'S', 'O' or 'U'), got integer component 'd'", 3),
    ('I4!X1!R1!', "expected a type span ('B', 'S', 'O' or 'U'), got span component 'X'", 3),
    ('I1!R6!O3!d1', "a reference object span 'O' must be empty", 9),
    ('I6!U3!d1R1!', "an unrecognized type span 'U' must be empty", 6),
    ('I7!S4!t12R1!', 'unknown scalar type code 12 (expected 0..11)', 7),
    ('I7!B4!t-1R1!', 'unknown scalar type code -1 (expected 0..11)', 7),
    ('I7!B4!d-2R1!', 'invalid dim -2 (expected -1 or 0..2147483647)', 7),
    ('I16!B12!d2147483648R1!', 'invalid dim 2147483648 (expected -1 or 0..2147483647)', 9),
    ('I6!B3!k1R1!', "expected an element type 't' or a dim 'd' in a buffer span, got integer component 'k'", 6),
    ('I9!B6!d1t1R1!', "expected a dim 'd' in a buffer span, got integer component 't'", 8),
    ('I9!B6!d1S1!R1!', "expected a dim 'd' in a buffer span, got span component 'S'", 8),
    ('I6!S3!d1R1!', "expected an element type 't' in a scalar span, got integer component 'd'", 6),
    ('I9!S6!t1t2R1!', "unexpected trailing text after the scalar's element type", 8),
    ('I5!B3!tR1!', 'span length 3 runs past the end of the enclosing text (2 bytes left)', 4),
    ('I4!B2xR1!', "expected '!' after the span length", 5),
    ('I 1!R1!', "expected a span length after span tag 'I'", 1),
]
SIP_ERRORS: list[tuple[str | bytes, str, int]] = [
    ('', "unexpected end of signature, expected the inputs span 'I'", 0),
    ('I1!', "unexpected end of signature, expected the results span 'R'", 3),
    ('I1!R1!_0', 'unexpected trailing text after the results span', 6),
    ('I3!k0R1!', "expected a structured value ('_' index, 'S' or 'D' span), got integer component 'k'", 3),
    ('I4!B1!R1!', "expected a structured value ('_' index, 'S' or 'D' span), got span component 'B'", 3),
    ('I4!_-1R1!', 'negative raw index -1', 4),
    ('I1!R12!S9!k0_0k1_0', 'duplicate raw index 0', 17),
    ('I5!_0_1R1!', 'unexpected trailing text after the structured value of the inputs span', 5),
    ('I1!R5!_0_1', 'unexpected trailing text after the structured value of the results span', 8),
    ('I6!S3!k0R1!', 'unexpected end of span, expected the structured value of a key', 8),
    ('I6!S3!_0R1!', "expected a sequence key 'k', got integer component '_'", 6),
    ('I15!S11!k1048577_0R1!', 'sequence key 1048577 out of range (expected 0..1048576)', 9),
    ('I9!S6!k-1_0R1!', 'sequence key -1 out of range (expected 0..1048576)', 7),
    ('I12!S9!k0_0k0_1R1!', 'duplicate sequence key 0', 12),
    ('I6!D3!k0R1!', "expected a dict key span 'K', got integer component 'k'", 6),
    (b'I10!D7!K2!\xe9_0R1!', 'dict key is not valid UTF-8', 10),
    ('I17!D13!K2!a_0K2!a_1R1!', "duplicate dict key 'a'", 14),
    ('I7!D4!K1!R1!', 'unexpected end of span, expected the structured value of a key', 9),
]
JSON_ERRORS: list[tuple[str | bytes, str, int]] = [
    ('', 'invalid JSON: Expecting value', 0),
    ('{', 'invalid JSON: Expecting property name enclosed in double quotes', 1),
    ('{"a":[],"r":[],"v":1} x', 'invalid JSON: Extra data', 22),
    ('{"a":[],"r":[],"v":1}{}', 'invalid JSON: Extra data', 21),
    ('[1, 2]', 'expected a JSON object {"a": [...], "r": [...], "v": 1}, got an array', 0),
    ('{"a":[],"r":[],"v":1,"a":[]}', 'duplicate key "a"', 25),
    ('{"a":[],"r":[],"v":1,"x":0}', 'unexpected key "x" (expected "a", "r" and "v")', 25),
    ('{"a":[],"r":[]}', 'missing key "v"', 0),
    ('{"a":[],"v":1}', 'missing key "r"', 0),
    ('{"a":[],"r":[],"v":2}', 'unsupported version 2 (expected 1)', 19),
    ('{"a":[],"r":[],"v":1.0}', 'expected version 1, got a number', 19),
    ('{"a":[],"r":[],"v":true}', 'expected version 1, got a boolean', 19),
    ('{"a":[],"r":[],"v":"1"}', 'expected version 1, got the string "1"', 19),
    ('{"a":{},"r":[],"v":1}', 'expected an array of records for "a", got an object', 5),
    ('{"a":[],"r":null,"v":1}', 'expected an array of records for "r", got null', 12),
    ('{"a":[],"r":[["named","x","i32"]],"v":1}', 'a named record is only allowed at the root of "a"', 13),
    ('{"a":[["named","x",["named","y","i32"]]],"r":[],"v":1}', 'a named record is only allowed at the root of "a"', 19),
    ('{"a":[["named","x"]],"r":[],"v":1}', 'a named record is ["named", "<name>", <record>]', 6),
    ('{"a":[["named",1,"i32"]],"r":[],"v":1}', 'a named record is ["named", "<name>", <record>]', 6),
    ('{"a":[["named","x","i32"],["named","x","f32"]],"r":[],"v":1}', 'duplicate argument name "x"', 35),
    ('{"a":["i032"],"r":[],"v":1}', 'unknown type record "i032" (expected i<bits>, f<bits>, bf16 or "unknown")', 6),
    ('{"a":["i0"],"r":[],"v":1}', 'unknown type record "i0" (expected i<bits>, f<bits>, bf16 or "unknown")', 6),
    ('{"a":["bf32"],"r":[],"v":1}', 'unknown type record "bf32" (expected i<bits>, f<bits>, bf16 or "unknown")', 6),
    ('{"a":["I32"],"r":[],"v":1}', 'unknown type record "I32" (expected i<bits>, f<bits>, bf16 or "unknown")', 6),
    ('{"a":["i\\u0663"],"r":[],"v":1}', 'unknown type record "i\\u0663" (expected i<bits>, f<bits>, bf16 or "unknown")', 6),
    ('{"a":["i16777216"],"r":[],"v":1}', 'bit width of "i16777216" out of range (at most 16777215)', 6),
    ('{"a":["f99999999999999999999"],"r":[],"v":1}', 'bit width of "f99999999999999999999" out of range (at most 16777215)', 6),
    ('{"a":[32],"r":[],"v":1}', 'expected a type record (a string or an array), got a number', 6),
    ('{"a":[],"r":[false],"v":1}', 'expected a type record (a string or an array), got a boolean', 13),
    ('{"a":[{"k":1}],"r":[],"v":1}', 'expected a type record (a string or an array), got an object', 6),
    ('{"a":[[]],"r":[],"v":1}', 'empty record array (expected a record kind first)', 6),
    ('{"a":[[1,"i32"]],"r":[],"v":1}', 'expected a record kind string, got a number', 7),
    ('{"a":[["struct","i32"]],"r":[],"v":1}', 'unknown record kind "struct"', 7),
    ('{"a":[["sdict","k"]],"r":[],"v":1}', 'expected an sdict entry ["<key>", <record>]', 15),
    ('{"a":[["sdict",["k"]]],"r":[],"v":1}', 'expected an sdict entry ["<key>", <record>]', 15),
    ('{"a":[["sdict",[1,"i32"]]],"r":[],"v":1}', 'expected an sdict entry ["<key>", <record>]', 15),
    ('{"a":[["sdict",["k","i32","x"]]],"r":[],"v":1}', 'expected an sdict entry ["<key>", <record>]', 15),
    ('{"a":[["sdict",["k","i32"],["k","f32"]]],"r":[],"v":1}', 'duplicate sdict key "k"', 28),
    ('{"a":[["sdict",["b","i32"],["a","f32"]]],"r":[],"v":1}', 'sdict keys must be sorted: "a" is out of order', 28),
    ('{"a":[["sdict",["\\u00e9","i32"],["z","f32"]]],"r":[],"v":1}', 'sdict keys must be sorted: "z" is out of order', 33),
    ('{"a":[["ndarray","f32"]],"r":[],"v":1}', 'an ndarray record needs an element type and a rank', 6),
    ('{"a":[["ndarray","f32",null,4]],"r":[],"v":1}', 'an unranked ndarray (rank null) has no dims', 28),
    ('{"a":[["ndarray","f32",-1]],"r":[],"v":1}', 'expected an ndarray rank (a non-negative integer or null), got a number', 23),
    ('{"a":[["ndarray","f32",1.0,4]],"r":[],"v":1}', 'expected an ndarray rank (a non-negative integer or null), got a number', 23),
    ('{"a":[["ndarray","f32",true,4]],"r":[],"v":1}', 'expected an ndarray rank (a non-negative integer or null), got a boolean', 23),
    ('{"a":[["ndarray","f32",2,4]],"r":[],"v":1}', 'ndarray rank 2 does not match its 1 dims', 6),
    ('{"a":[["ndarray","f32",0,4]],"r":[],"v":1}', 'ndarray rank 0 does not match its 1 dims', 6),
    ('{"a":[["ndarray","f32",2,4,-1]],"r":[],"v":1}', 'expected an ndarray dim (a non-negative integer or null), got a number', 27),
    ('{"a":[["ndarray","f32",1,"4"]],"r":[],"v":1}', 'expected an ndarray dim (a non-negative integer or null), got the string "4"', 25),
    ('{"a":[["ndarray","f32",1,false]],"r":[],"v":1}', 'expected an ndarray dim (a non-negative integer or null), got a boolean', 25),
    ('{"a":[["ndarray","f32",1,NaN]],"r":[],"v":1}', 'expected an ndarray dim (a non-negative integer or null), got a number', 25),
    ('{"a":[["ndarray",["slist"],0]],"r":[],"v":1}', 'expected a value type record (i<bits>, f<bits>, bf16, "unknown", ndarray or py_homogeneous_list), got "slist"', 17),
    ('{"a":[["ndarray",null,0]],"r":[],"v":1}', 'expected a value type record (i<bits>, f<bits>, bf16, "unknown", ndarray or py_homogeneous_list), got null', 17),
    ('{"a":[["ndarray",[],0]],"r":[],"v":1}', 'expected a value type record (i<bits>, f<bits>, bf16, "unknown", ndarray or py_homogeneous_list), got an array', 17),
    ('{"a":[["ndarray",["tensor"],0]],"r":[],"v":1}', 'unknown record kind "tensor"', 18),
    ('{"a":[["ndarray","x8",0]],"r":[],"v":1}', 'unknown type record "x8" (expected i<bits>, f<bits>, bf16 or "unknown")', 17),
    ('{"a":[["py_homogeneous_list"]],"r":[],"v":1}', 'a py_homogeneous_list record has exactly one element type', 6),
    ('{"a":[["py_homogeneous_list","i32","i32"]],"r":[],"v":1}', 'a py_homogeneous_list record has exactly one element type', 6),
    ('{"a":[["py_homogeneous_list",["named","x","i32"]]],"r":[],"v":1}', 'expected a value type record (i<bits>, f<bits>, bf16, "unknown", ndarray or py_homogeneous_list), got "named"', 29),
    ('{"a":[["stuple",["slist",["sdict",["k",["stuple",1]]]]]],"r":[],"v":1}', 'expected a type record (a string or an array), got a number', 49),
]
# fmt: on


def check(
    decoder: Callable[[str | bytes], object], text: str | bytes, message: str, offset: int
) -> None:
    with pytest.raises(AbiError) as caught:
        decoder(text)
    assert caught.value.message == message
    assert caught.value.offset == offset
    assert str(caught.value) == f"{message} (at offset {offset})"


@pytest.mark.parametrize(("text", "message", "offset"), RAW_ERRORS)
def test_raw_errors(text: str | bytes, message: str, offset: int) -> None:
    check(decode_raw, text, message, offset)


@pytest.mark.parametrize(("text", "message", "offset"), SIP_ERRORS)
def test_sip_errors(text: str | bytes, message: str, offset: int) -> None:
    check(decode_sip, text, message, offset)


@pytest.mark.parametrize(("text", "message", "offset"), JSON_ERRORS)
def test_json_errors(text: str | bytes, message: str, offset: int) -> None:
    check(decode_json, text, message, offset)


def nested_sip(depth: int) -> str:
    body = "_0"
    for _ in range(depth):
        inner = "k0" + body
        body = f"S{len(inner) + 1}!{inner}"
    return f"I{len(body) + 1}!{body}R1!"


def test_sip_depth_limit() -> None:
    assert decode_sip(nested_sip(MAX_SIP_DEPTH)).inputs is not None
    text = nested_sip(MAX_SIP_DEPTH + 1)
    with pytest.raises(AbiError) as caught:
        decode_sip(text)
    assert caught.value.message == f"structure nested deeper than {MAX_SIP_DEPTH} levels"
    # The innermost sequence, the one at depth MAX_SIP_DEPTH + 1.
    assert text[caught.value.offset :].startswith("S5!k0_0R1!")


def nested_json(depth: int) -> str:
    return '{"a":[' + '["stuple",' * depth + '"i32"' + "]" * depth + '],"r":[],"v":1}'


def test_json_depth_limit_in_validation() -> None:
    assert decode_json(nested_json(MAX_JSON_DEPTH)).arguments
    text = nested_json(MAX_JSON_DEPTH + 1)
    with pytest.raises(AbiError) as caught:
        decode_json(text)
    assert caught.value.message == f"records nested deeper than {MAX_JSON_DEPTH} levels"
    assert caught.value.offset == len('{"a":[') + len('["stuple",') * MAX_JSON_DEPTH


def test_json_depth_beyond_the_recursion_limit() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(AbiError) as caught:
        decode_json(text)
    assert caught.value.message == f"records nested deeper than {MAX_JSON_DEPTH} levels"
    assert caught.value.offset == MAX_JSON_DEPTH


def test_json_number_beyond_the_digit_limit() -> None:
    text = '{"a":[["ndarray","f32",1,' + "9" * 5000 + ']],"r":[],"v":1}'
    with pytest.raises(AbiError) as caught:
        decode_json(text)
    assert caught.value.message.startswith("invalid JSON: ")
    assert caught.value.offset == text.index("9")


def test_json_invalid_utf8() -> None:
    check(decode_json, b'{"a":["\xff"],"r":[],"v":1}', "invalid UTF-8", 7)


def test_json_offsets_are_utf8_byte_offsets() -> None:
    text = '{"a":[["sdict",["\u00e9","i32"],["\u00e9","f32"]]],"r":[],"v":1}'
    check(
        decode_json, text, 'duplicate sdict key "\\u00e9"', text.encode().index(b'"\xc3\xa9","f32"')
    )
    check(decode_json, '["\u00e9" x', "invalid JSON: Expecting ',' delimiter", 6)


def test_raw_offsets_are_utf8_byte_offsets() -> None:
    check(
        decode_raw, "I4!\u00e9R1!", "expected a component tag ('_', a-z or A-Z), got byte 0xc3", 3
    )
    check(decode_raw, "I1!R1!\u00e9", "unexpected trailing text after the results span", 6)


def test_json_bad_dim_offset_is_the_bad_dim_not_an_equal_one() -> None:
    # 1.0 == 1 and true == 1 in Python: the offset must still be the bad value's.
    text = '{"a":[["ndarray","f32",3,1,true,1.0]],"r":[],"v":1}'
    check(
        decode_json,
        text,
        "expected an ndarray dim (a non-negative integer or null), got a boolean",
        text.index("true"),
    )


def test_json_named_wrapper_is_the_extra_level() -> None:
    # model.MAX_STRUCTURE_DEPTH levels inside a `named` record decode: the codecs accept
    # one level more than the passes write (MAX_JSON_DEPTH = MAX_STRUCTURE_DEPTH + 1).
    inner = '["stuple",' * MAX_STRUCTURE_DEPTH + '"i32"' + "]" * MAX_STRUCTURE_DEPTH
    assert decode_json(f'{{"a":[["named","x",{inner}]],"r":[],"v":1}}').arguments[0].name == "x"
    deeper = '["stuple",' + inner + "]"
    with pytest.raises(AbiError, match="records nested deeper than"):
        decode_json(f'{{"a":[["named","x",{deeper}]],"r":[],"v":1}}')
