"""`abi.state` (docs/formats.md, "The state a function uses"): which mutable globals each
exported function of MLIR text reads or writes, directly or through what it calls, and
the entry's JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from abi_compiler.codecs.state_json import StateGlobal, decode_state, encode_state
from abi_compiler.errors import AbiError
from abi_compiler.text.lexer import quote
from abi_compiler.text.state import function_state, with_state

CACHE = Path(__file__).parent.parent / "calling" / "state" / "cache.mlir"
UTIL_FUNCS = CACHE.with_name("util_funcs.mlir")


def test_the_committed_module() -> None:
    found = function_state(CACHE.read_text())
    cache = StateGlobal("cache", "tensor<4x8xf32>", "float32", (4, 8), True, True)
    count = StateGlobal("count", "tensor<i32>", "int32", (), True, True)
    assert found == {
        "step": [cache, count],
        "calls": [StateGlobal("count", "tensor<i32>", "int32", (), True, False)],
        "reset_count": [StateGlobal("count", "tensor<i32>", "int32", (), False, True)],
    }


def test_util_func_entry_points() -> None:
    # IREE's `util.func` (what its torch input pipeline writes): public ones are exported,
    # whatever their visibility is written as, and what they `util.call` counts.
    found = function_state(UTIL_FUNCS.read_text())
    assert found == {
        "step": [StateGlobal("cache", "tensor<4x8xf32>", "float32", (4, 8), True, True)],
        "calls": [StateGlobal("count", "tensor<i32>", "int32", (), True, False)],
    }


def test_a_util_func_with_a_tied_result() -> None:
    text = """util.global private mutable @c = dense<0> : tensor<i32>
util.func public @tied(%x: tensor<i32>) -> %x {
  util.global.store %x, @c : tensor<i32>
  util.return %x : tensor<i32>
}
util.func public @f(%x: tensor<i32>) {
  %y = util.call @tied(%x) : (tensor<i32>) -> %x
  util.return
}"""
    written = [StateGlobal("c", "tensor<i32>", "int32", (), False, True)]
    assert function_state(text) == {"tied": written, "f": written}


def test_no_mutable_global_no_state() -> None:
    text = """util.global private @w = dense<1.0> : tensor<2xf32>
func.func @f() -> tensor<2xf32> {
  %w = util.global.load @w : tensor<2xf32>
  return %w : tensor<2xf32>
}"""
    assert function_state(text) == {}


def test_ml_program_globals_util_funcs_and_dynamic_dims() -> None:
    text = """ml_program.global private mutable @k(dense<0.0> : tensor<2x3xf32>) : tensor<?x3xf32>
util.func private @helper(%x: tensor<?x3xf32>) {
  ml_program.global_store @k = %x : tensor<?x3xf32>
  util.return
}
func.func @f(%x: tensor<?x3xf32>) {
  util.call @helper(%x) : (tensor<?x3xf32>) -> ()
  return
}
func.func private @unused() {
  %k = ml_program.global_load @k : tensor<?x3xf32>
  return
}"""
    assert function_state(text) == {
        "f": [StateGlobal("k", "tensor<?x3xf32>", "float32", (None, 3), False, True)]
    }


def test_the_entry_round_trips() -> None:
    used = [
        StateGlobal("cache", "tensor<?x8xbf16>", "bfloat16", (None, 8), True, True),
        StateGlobal("h", "!util.list<?>", None, None, True, False),
    ]
    assert decode_state(encode_state(used)) == used


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[", "not JSON"),
        ('{"v":2,"globals":[]}', 'expected an object with "v": 1'),
        ('{"v":1}', '"globals": expected a list'),
        ('{"v":1,"globals":[{"name":"c","type":"i32","access":"x"}]}', '"access"'),
        ('{"v":1,"globals":[{"name":"c","type":"i32","shape":[-1],"access":"r"}]}', '"shape"'),
        ('{"v":1,"globals":[{"name":1,"type":"i32","access":"r"}]}', '"name"'),
        (
            '{"v":1,"globals":[{"name":"c","type":"i32","access":"r"},'
            '{"name":"c","type":"i32","access":"rw"}]}',
            "globals\\[1\\]: the global 'c' is listed twice",
        ),
    ],
)
def test_a_malformed_entry_is_refused(text: str, message: str) -> None:
    with pytest.raises(AbiError, match=message):
        decode_state(text)


def test_an_op_name_in_a_string_is_no_use() -> None:
    text = """util.global private mutable @c = dense<0> : tensor<i32>
func.func @f() attributes {note = "util.global.store %x, @c"} {
  "test.op"() {text = "util.global.load @c : tensor<i32>"} : () -> ()
  return
}"""
    assert function_state(text) == {}


def _reflection_of(text: str, function: str) -> dict[str, str]:
    """The string entries of ``function``'s reflection in MLIR ``text``."""
    from abi_compiler.signatures.module_signatures import read_functions

    (found,) = [f for f in read_functions(text, "m.mlir") if f.name == function]
    return {key: value for key, value in found.reflection.items() if value is not None}


CALL = '{"args":[],"kwargs":[],"result":{"t":"none"},"v":1}'


def test_with_state_records_it_in_the_original_call_too() -> None:
    # `abi.state` on each function that uses the state; the same globals as the `state`
    # of its `abi.call`. @pure uses none: its `abi.call` stays byte for byte; @bad's does
    # not decode and is left for its reader to refuse; @kept's records its own; @empty's
    # records an empty list, which is none.
    empty = CALL.replace('"v":1}', '"state":[],"v":1}')
    own_state = (
        '{"args":[],"kwargs":[],"result":{"t":"none"},"state":[{"access":"r","dtype":null,'
        '"name":"other","shape":null,"type":"i32"}],"v":1}'
    )
    text = f"""util.global private mutable @c = dense<0> : tensor<i32>
func.func @step() attributes {{iree.reflection = {{abi.call = {quote(CALL)}}}}} {{
  %c = util.global.load @c : tensor<i32>
  util.global.store %c, @c : tensor<i32>
  return
}}
func.func @pure() attributes {{iree.reflection = {{abi.call = {quote(CALL)}}}}} {{
  return
}}
func.func @bad() attributes {{iree.reflection = {{abi.call = "[", k = "v"}}}} {{
  %c = util.global.load @c : tensor<i32>
  return
}}
func.func @kept() attributes {{iree.reflection = {{abi.call = {quote(own_state)}}}}} {{
  %c = util.global.load @c : tensor<i32>
  return
}}
func.func @empty() attributes {{iree.reflection = {{abi.call = {quote(empty)}}}}} {{
  %c = util.global.load @c : tensor<i32>
  return
}}
"""
    out = with_state(text)
    state = '[{"access":"rw","dtype":"int32","name":"c","shape":[],"type":"tensor<i32>"}]'
    step = _reflection_of(out, "step")
    assert step["abi.call"] == CALL.replace('"v":1}', f'"state":{state},"v":1}}')
    assert decode_state(step["abi.state"]) == [
        StateGlobal("c", "tensor<i32>", "int32", (), True, True)
    ]
    assert _reflection_of(out, "pure") == {"abi.call": CALL}
    assert _reflection_of(out, "bad")["abi.call"] == "["
    assert _reflection_of(out, "kept")["abi.call"] == own_state
    read = state.replace('"rw"', '"r"')
    assert _reflection_of(out, "empty")["abi.call"] == CALL.replace(
        '"v":1}', f'"state":{read},"v":1}}'
    )
    assert with_state(text.replace("mutable ", "")) == text.replace("mutable ", "")
