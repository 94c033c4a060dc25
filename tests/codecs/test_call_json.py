"""`abi_compiler.codecs.call_json`: the `abi.call` entry, written byte for byte and read
back, and what a malformed one is told."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import pytest

from abi_compiler.call_model import (
    Array,
    Constant,
    Container,
    DimConstraint,
    NoneLeaf,
    OriginalCall,
    StateGlobal,
    Symbol,
    Unused,
    ValueRange,
)
from abi_compiler.codecs.call_json import (
    constant,
    decode_call,
    encode_call,
    format_call,
    format_updates,
)
from abi_compiler.errors import AbiError

CALL = OriginalCall(
    positional=(
        Container(
            "dataclass",
            (Array(0, "int32", ()), Container("dict", (Array(1, "float32", ("b", 4)),), ("w",))),
            ("step", "params"),
            "TrainState",
        ),
        Container("namedtuple", (), (), "EmptyState"),
        Unused("float32", (3,)),
        constant(2),
        NoneLeaf(),
    ),
    keywords=(("mask", Array(2, "bool", (None,))), ("node", Container("node", (), (), "Box"))),
    result=Container("list", (Array(0, "bfloat16", None), constant(math.nan))),
    tensor="torch",
    labels=("state", None, None, None, None),
    symbols=(Symbol("b", 1, None),),
    fixed=((3, 0),),
)

TEXT = (
    '{"args":[{"c":[{"dims":[],"dtype":"int32","i":0,"t":"array"},{"c":[{"dims":["b",4],'
    '"dtype":"float32","i":1,"t":"array"}],"k":["w"],"t":"dict"}],"k":["step","params"],'
    '"name":"TrainState","t":"dataclass"},{"c":[],"k":[],"name":"EmptyState",'
    '"t":"namedtuple"},{"dims":[3],"dtype":"float32","t":"unused"},{"t":"const",'
    '"type":"int","value":2},{"t":"none"}],"fixed":[[3,0]],"kwargs":[["mask",{"dims":[null],'
    '"dtype":"bool","i":2,"t":"array"}],["node",{"c":[],"name":"Box","t":"node"}]],'
    '"labels":["state",null,null,null,null],"result":{"c":[{"dims":null,"dtype":"bfloat16",'
    '"i":0,"t":"array"},{"repr":"nan","t":"const","type":"float"}],"t":"list"},'
    '"symbols":[["b",1,null]],"tensor":"torch","v":1}'
)


def test_encoding_is_exact_and_round_trips() -> None:
    assert encode_call(CALL) == TEXT
    assert decode_call(TEXT) == CALL
    assert decode_call(TEXT.encode()) == CALL


def test_a_plain_call_writes_only_what_it_needs() -> None:
    call = OriginalCall((Array(0, "float32", (2,)),), (), Array(0, "float32", (2,)))
    text = encode_call(call)
    assert text == (
        '{"args":[{"dims":[2],"dtype":"float32","i":0,"t":"array"}],"kwargs":[],'
        '"result":{"dims":[2],"dtype":"float32","i":0,"t":"array"},"v":1}'
    )
    assert decode_call(text) == call


def test_the_state_the_function_uses() -> None:
    # The globals are `abi.state`'s (docs/formats.md), their members sorted as every
    # object of `abi.call`; a call that records none writes no member (as above).
    state = (
        StateGlobal("cache", "tensor<?x8xf32>", "float32", (None, 8), True, True),
        StateGlobal("h", "!util.list<?>", None, None, False, True),
    )
    call = OriginalCall((), (), NoneLeaf(), state=state)
    text = encode_call(call)
    assert text == (
        '{"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"access":"rw",'
        '"dtype":"float32","name":"cache","shape":[null,8],"type":"tensor<?x8xf32>"},'
        '{"access":"w","dtype":null,"name":"h","shape":null,"type":"!util.list<?>"}],"v":1}'
    )
    assert decode_call(text) == call


def test_the_arguments_the_call_updates() -> None:
    """``updates``: [argument leaf, result leaf] per argument the call writes in place (a
    torch program's mutated input); a call that updates none writes no member, so every
    other call's text is as before. `format_updates` names them by their paths."""
    call = OriginalCall(
        (Array(0, "float32", (2, 8)), Container("dict", (Array(1, "int64", ()),), ("n",))),
        (("key", Array(2, "float32", (2,))),),
        Array(0, "float32", (2,)),
        labels=("cache", None),
        updates=((0, 1), (2, 2)),
    )
    text = encode_call(call)
    assert text.endswith(',"updates":[[0,1],[2,2]],"v":1}')
    assert decode_call(text) == call
    assert format_updates(call) == "cache, key"
    assert format_updates(dataclasses.replace(call, labels=(), updates=((1, 1),))) == (
        "args[1]['n']"
    )
    assert '"updates"' not in encode_call(dataclasses.replace(call, updates=()))
    assert format_updates(dataclasses.replace(call, updates=())) == ""


def test_decoding_imports_nothing() -> None:
    """The codec needs neither numpy nor a framework, and a name in the file is data."""
    code = (
        "import sys\n"
        "from abi_compiler.codecs.call_json import decode_call\n"
        'decode_call(\'{"args":[{"c":[],"k":[],"name":"os.system","t":"namedtuple"}],'
        '"kwargs":[],"result":{"t":"none"},"v":1}\')\n'
        "print(sorted(m for m in ('numpy', 'torch', 'jax', 'xdsl') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[", "abi.call: not JSON: "),
        ("[]", "abi.call: expected a JSON object, got list"),
        ('{"v":2}', "abi.call: unsupported version 2 (this reader knows 1)"),
        ('{"v":1,"args":[]}', "abi.call: missing member 'kwargs'"),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"x":1}',
            "abi.call: unknown member 'x'",
        ),
        (
            '{"v":1,"args":[{"t":"what"}],"kwargs":[],"result":{"t":"none"}}',
            "abi.call: unknown node kind 'what'",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":-1}],"kwargs":[],"result":{"t":"none"}}',
            "abi.call: array: 'i' is a leaf index",
        ),
        (
            '{"v":1,"args":[{"t":"dict","c":[{"t":"none"}],"k":[]}],"kwargs":[],"result":{"t":"none"}}',
            "abi.call: dict: one distinct key per child",
        ),
        (
            '{"v":1,"args":[{"t":"namedtuple","c":[{"t":"none"}]}],"kwargs":[],"result":{"t":"none"}}',
            "abi.call: namedtuple: one distinct key per child",
        ),
        (
            '{"v":1,"args":[{"t":"namedtuple","c":[],"k":[]}],"kwargs":[],"result":{"t":"none"}}',
            "abi.call: namedtuple: a type name is required",
        ),
        (
            '{"v":1,"args":[],"kwargs":[["a",{"t":"none"}],["a",{"t":"none"}]],"result":{"t":"none"}}',
            "abi.call: kwargs: a name is repeated",
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"tensor":"mx"}',
            "abi.call: unknown tensor type 'mx'",
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"array","i":0,"dims":[1.5]}}',
            "abi.call: dims: a dim is an int, a symbol, terms or null",
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":{}}',
            'abi.call: "state": expected a list',
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":{}}',
            "abi.call: updates: expected a list, got dict",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[0]]}',
            "abi.call: updates[0]: expected [argument leaf, result leaf]",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[0,true]]}',
            "abi.call: updates[0]: expected [argument leaf, result leaf]",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[2,1]]}',
            "abi.call: updates[0]: argument leaf 2 is not an array of the call's arguments",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[0,0]]}',
            "abi.call: updates[0]: result leaf 0 is not one the call's result leaves out",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[0,-1]]}',
            "abi.call: updates[0]: result leaf -1 is not one the call's result leaves out",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[0,1],[0,2]]}',
            "abi.call: updates[1]: argument leaf 0 is updated twice",
        ),
        (
            '{"v":1,"args":[{"t":"array","i":0},{"t":"array","i":1}],"kwargs":[],"result":{"t":"array","i":0},"updates":[[0,1],[1,1]]}',
            "abi.call: updates[1]: result leaf 1 updates two arguments",
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":[1]}',
            "abi.call: state[0]: expected an object",
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"name":"c"}]}',
            'abi.call: state[0]: expected a "name" and a "type" (strings)',
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"name":"c",'
            '"type":"i32","dtype":1,"access":"r"}]}',
            'abi.call: state[0]: "dtype": expected a string or null',
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"name":"c",'
            '"type":"i32","shape":[true],"access":"r"}]}',
            'abi.call: state[0]: "shape": expected a list of sizes (or null)',
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"name":"c",'
            '"type":"i32","access":"read"}]}',
            'abi.call: state[0]: "access": expected "r", "w" or "rw"',
        ),
        (
            '{"v":1,"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"name":"c",'
            '"type":"i32","access":"r"},{"name":"c","type":"i32","access":"w"}]}',
            "abi.call: state[1]: the global 'c' is listed twice",
        ),
    ],
)
def test_malformed_entries(text: str, message: str) -> None:
    with pytest.raises(AbiError) as error:
        decode_call(text)
    assert str(error.value).startswith(message)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    text = (
        '{"v":1,"args":['
        + '{"t":"tuple","c":[' * 300
        + "]}" * 300
        + '],"kwargs":[],"result":{"t":"none"}}'
    )
    with pytest.raises(AbiError, match="nested deeper than 256 levels"):
        decode_call(text)


def test_polynomial_dims_and_constraints() -> None:
    call = OriginalCall(
        (Array(0, "float32", (((2, ("b",)), (1, ())), "a")),),
        (),
        NoneLeaf(),
        constraints=(DimConstraint(((1, ("a",)), (-1, ("b",))), ">=", "a >= b"),),
    )
    text = encode_call(call)
    assert '"dims":[[[2,["b"]],[1,[]]],"a"]' in text
    assert '"constraints":[[[[1,["a"]],[-1,["b"]]],">=","a >= b"]]' in text
    assert decode_call(text) == call


def test_value_ranges_round_trip_and_are_absent_when_none() -> None:
    """An array's ``ranges`` (docs/formats.md): written only when there are some."""
    call = OriginalCall(
        (),
        (
            ("input_ids", Array(0, "int64", (1, 3), (ValueRange(0, 96),))),
            (
                "cache_position",
                Array(1, "int64", (3,), (ValueRange(0, 29, (0,)), ValueRange(None, 5, (1, 2)))),
            ),
        ),
        Array(0, "float32", (1, 3, 97)),
    )
    text = encode_call(call)
    assert text == (
        '{"args":[],"kwargs":[["input_ids",{"dims":[1,3],"dtype":"int64","i":0,'
        '"ranges":[[0,96,null]],"t":"array"}],["cache_position",{"dims":[3],'
        '"dtype":"int64","i":1,"ranges":[[0,29,[0]],[null,5,[1,2]]],"t":"array"}]],'
        '"result":{"dims":[1,3,97],"dtype":"float32","i":0,"t":"array"},"v":1}'
    )
    assert decode_call(text) == call
    assert format_call(call) == (
        "(*, input_ids: int64[1,3] in [0, 96], "
        "cache_position: int64[3] in [0, 29] at 0, (-inf, 5] at 1,2) -> float32[1,3,97]"
    )
    assert '"ranges"' not in encode_call(OriginalCall((), (), Array(0, "int64", (3,))))


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        ("[]", "abi.call: ranges: expected at least one range"),
        ("{}", "abi.call: ranges: expected a list, got dict"),
        ("[[0,1]]", "abi.call: ranges: expected [low, high, elements or null] triples"),
        ("[[0,1.5,null]]", "abi.call: ranges: expected [low, high, elements or null] triples"),
        ("[[0,1,[-1]]]", "abi.call: ranges: elements are flat indices"),
        ("[[0,1,[0,0]]]", "abi.call: ranges: elements are distinct, and at least one"),
        ("[[0,1,[]]]", "abi.call: ranges: elements are distinct, and at least one"),
        (f"[[0,{2**63},null]]", "abi.call: ranges: an int of 19 digits (at most 2**63 - 1)"),
    ],
)
def test_malformed_value_ranges(ranges: str, message: str) -> None:
    text = (
        '{"v":1,"args":[{"t":"array","i":0,"dtype":"int64","dims":[1],"ranges":'
        + ranges
        + '}],"kwargs":[],"result":{"t":"none"}}'
    )
    with pytest.raises(AbiError) as error:
        decode_call(text)
    assert str(error.value) == message


def test_constants() -> None:
    assert constant(True) == Constant(True, "bool")
    assert constant(1.5) == Constant(1.5, "float")
    assert constant(float("inf")) == Constant(None, "float", "inf")


def test_readable_form() -> None:
    assert format_call(CALL) == (
        "(state: TrainState(step=int32[], params={'w': float32[b,4]}), EmptyState(), "
        "unused float32[3], =2, None, *, mask: bool[?], node: Box()) -> "
        "[bfloat16[*], =nan]"
    )
    call = OriginalCall(
        (Array(0, "float32", (((2, ("b",)), (1, ())),)),), (), Container("tuple", (NoneLeaf(),))
    )
    assert format_call(call) == "(float32[2*b + 1]) -> (None,)"


def test_a_typed_key_dtype_round_trips() -> None:
    """A JAX typed PRNG key's dtype (docs/formats.md, `array`): the array is its data."""
    call = OriginalCall((Array(0, "key<fry>", (4, 2)),), (), Array(0, "key<urbg>", (4,)), "jax")
    text = encode_call(call)
    assert '"dtype":"key<fry>"' in text
    assert decode_call(text) == call


@pytest.mark.parametrize(
    "dtype", ["key<>", "key<FRY>", "key<fry", "key<f-ry>", "key<" + "a" * 40 + ">"]
)
def test_a_malformed_key_dtype_is_refused(dtype: str) -> None:
    text = encode_call(OriginalCall((Array(0, "float32", ()),), (), NoneLeaf(), "jax"))
    with pytest.raises(AbiError) as raised:
        decode_call(text.replace('"float32"', f'"{dtype}"'))
    assert str(raised.value) == (
        f"abi.call: dtype: expected a numpy dtype name or null, got {dtype!r}"
    )


def test_parameter_names_and_how_they_are_taken() -> None:
    """A torch program's `forward(self, x, state, *, gate)`: its positional parameters'
    names, which a call may also give by keyword (`by_name`), and keywords taken by
    keyword only (`kwonly`); a file without them reads as before (by position only,
    keywords also positionally)."""
    a = Array(0, "float32", (2,))
    call = OriginalCall(
        (a, Array(1, "float32", (2,))),
        (("gate", Array(2, "float32", (2,))),),
        a,
        "torch",
        ("x", "state"),
        by_name=True,
        keyword_only=True,
    )
    text = encode_call(call)
    assert text == (
        '{"args":[{"dims":[2],"dtype":"float32","i":0,"t":"array"},'
        '{"dims":[2],"dtype":"float32","i":1,"t":"array"}],"by_name":true,'
        '"kwargs":[["gate",{"dims":[2],"dtype":"float32","i":2,"t":"array"}]],'
        '"kwonly":true,"labels":["x","state"],'
        '"result":{"dims":[2],"dtype":"float32","i":0,"t":"array"},"tensor":"torch","v":1}'
    )
    assert decode_call(text) == call
    assert (
        format_call(call) == "(x: float32[2], state: float32[2], *, gate: float32[2]) -> float32[2]"
    )
    old = text.replace('"by_name":true,', "").replace('"kwonly":true,', "")
    assert decode_call(old) == dataclasses.replace(call, by_name=False, keyword_only=False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('"by_name":true', '"by_name":1'), "by_name: expected true or false"),
        (('"kwonly":true', '"kwonly":"yes"'), "kwonly: expected true or false"),
        (
            ('"labels":["x","state"]', '"labels":["x",null]'),
            "by_name: the positional parameters need distinct names of their own (labels)",
        ),
        (
            ('"labels":["x","state"]', '"labels":["x","x"]'),
            "by_name: the positional parameters need distinct names of their own (labels)",
        ),
        (
            ('"labels":["x","state"]', '"labels":["x","gate"]'),
            "by_name: the positional parameters need distinct names of their own (labels)",
        ),
    ],
)
def test_malformed_parameter_names(change: tuple[str, str], message: str) -> None:
    text = (
        '{"args":[{"dims":null,"dtype":null,"i":0,"t":"array"},'
        '{"dims":null,"dtype":null,"i":1,"t":"array"}],"by_name":true,'
        '"kwargs":[["gate",{"dims":null,"dtype":null,"i":2,"t":"array"}]],"kwonly":true,'
        '"labels":["x","state"],"result":{"t":"none"},"v":1}'
    )
    decode_call(text)
    with pytest.raises(AbiError) as error:
        decode_call(text.replace(*change))
    assert str(error.value) == f"abi.call: {message}"
