"""`abi_compiler.signatures.module_signatures` on MLIR text, and `model.signature_from_legacy`: which
functions are exported, where each signature comes from, and every error path."""

from __future__ import annotations

import re

import pytest

from abi_compiler.call_model import StateGlobal
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Argument,
    Dict,
    FlatSignature,
    Leaf,
    ListRef,
    NDArray,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    Unknown,
    signature_from_legacy,
)
from abi_compiler.signatures.module_signatures import (
    FunctionSignature,
    ReadError,
    caller_visible,
    read_functions,
    read_module,
)
from abi_compiler.text.lexer import quote

I32 = Scalar("i", 32)
F32 = Scalar("f", 32)


def shown(text: str) -> list[str]:
    return [function.line() for function in read_module(text.encode(), "m.mlir")]


def error_lines(text: str | bytes) -> list[str]:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(ReadError) as caught:
        read_module(data, "m.mlir")
    return caught.value.lines("abi-sig")


# -- legacy signatures as V1 records ----------------------------------------------------


def test_legacy_sequence_root_gives_positional_arguments_gaps_compressed() -> None:
    flat = FlatSignature((I32, NDArray(F32, (4,))), (F32,))
    sip = SipSignature(Sequence("list", (Leaf(None, 1), None, Leaf(None, 0))), Leaf(None, 0))
    assert signature_from_legacy(flat, sip) == Signature(
        (Argument(0, Leaf(NDArray(F32, (4,)), 1)), Argument(1, Leaf(I32, 0))),
        (Leaf(F32, 0),),
    )


def test_legacy_dict_root_gives_named_arguments_in_argument_order() -> None:
    flat = FlatSignature((I32, F32, I32), ())
    inputs = Dict(
        (
            ("a", Sequence("list", (Leaf(None, 2),))),
            ("empty", Dict(())),
            ("m", Leaf(None, 0)),
            ("z", Leaf(None, 1)),
        )
    )
    signature = signature_from_legacy(flat, SipSignature(inputs, None))
    assert signature == Signature(
        (
            Argument(0, Leaf(I32, 0), "m"),
            Argument(1, Leaf(F32, 1), "z"),
            Argument(2, Sequence("list", (Leaf(I32, 2),)), "a"),
            Argument(3, Dict(()), "empty"),  # no leaf: after the others
        ),
        (),
    )


def test_legacy_leaf_and_structured_roots() -> None:
    flat = FlatSignature((I32,), (I32, F32))
    results = Sequence("tuple", (Leaf(None, 1), Leaf(None, 0)))
    signature = signature_from_legacy(flat, SipSignature(Leaf(None, 0), results))
    assert signature.arguments == (Argument(0, Leaf(I32, 0)),)
    assert signature.results == (Sequence("tuple", (Leaf(F32, 1), Leaf(I32, 0))),)
    assert signature.inlined_result
    assert signature_from_legacy(FlatSignature((), ()), SipSignature(None, None)) == Signature(
        (), ()
    )


@pytest.mark.parametrize(
    ("flat", "sip", "message"),
    [
        (
            FlatSignature((I32, I32), ()),
            SipSignature(Sequence("list", (Leaf(None, 0),)), None),
            "sip inputs leaf indices [0] do not match the 2 raw inputs of f",
        ),
        (
            FlatSignature((I32,), ()),
            SipSignature(Sequence("list", (Leaf(None, 3),)), None),
            "sip inputs leaf indices [3] do not match the 1 raw inputs of f",
        ),
        (
            FlatSignature((), (I32,)),
            SipSignature(None, None),
            "sip results leaf indices [] do not match the 1 raw results of f",
        ),
    ],
)
def test_legacy_leaves_must_be_the_raw_values(
    flat: FlatSignature, sip: SipSignature, message: str
) -> None:
    with pytest.raises(AbiError, match=f"^{re.escape(message)}$"):
        signature_from_legacy(flat, sip)


# -- where a signature comes from -------------------------------------------------------

SOURCES = """
func.func @v1(%a: tensor<?x4xf32>) -> i32 attributes {iree.reflection = {f = "I1!R1!", iree.abi = "{\\22a\\22:[[\\22named\\22,\\22a\\22,[\\22ndarray\\22,\\22f32\\22,2,null,4]]],\\22r\\22:[\\22i32\\22],\\22v\\22:1}", sip = "I1!R1!"}} {
  %0 = weird.op %a : i32
  return %0 : i32
}
func.func @legacy(%a: tensor<4xf32>, %n: i32) attributes {iree.reflection = {abi = "sip", f = "I11!B3!d4S3!t6R1!", fv = "1", sip = "I12!S9!k0_0k1_1R1!", sipv = "1"}} {
  return
}
func.func @raw_only(%a: tensor<4xf32>) attributes {iree.reflection = {f = "I6!B3!d4R1!", fv = "1"}} {
  return
}
func.func @typed(%t: tuple<i32, !abi.dict<"w": tensor<2xf32>, "b": f32>>, %l: !util.list<?>, %x: index) -> (tensor<*xbf16>, ui8) {
  "some.op"() : () -> ()
}
"""


def test_sources() -> None:
    found = read_module(SOURCES.encode(), "m.mlir")
    assert [(function.name, function.source) for function in found] == [
        ("v1", "iree.abi"),  # iree.abi wins over a legacy pair
        ("legacy", "legacy"),
        ("raw_only", "type"),  # `f` alone is no structure
        ("typed", "type"),
    ]
    assert [function.line() for function in found] == [
        "v1(a: tensor<?x4xf32>) -> (i32)",
        "legacy(tensor<4xf32>, i32) -> ()",
        "raw_only(tensor<4xf32>) -> ()  (no reflection)",
        "typed(tuple[i32, dict{b: f32, w: tensor<2xf32>}], list<?>, ?) -> (tensor<*xbf16>, i8)  (no reflection)",
    ]
    assert found[3].signature == Signature(
        (
            Argument(
                0,
                Sequence(
                    "tuple",
                    (Leaf(I32, 0), Dict((("b", Leaf(F32, 1)), ("w", Leaf(NDArray(F32, (2,)), 2))))),
                ),
            ),
            Argument(1, Leaf(ListRef(Unknown()), 3)),
            Argument(2, Leaf(Unknown(), 4)),
        ),
        (Leaf(NDArray(Scalar("bf", 16), None), 0), Leaf(Scalar("ui", 8), 1)),
    )


def test_bare_iree_abi_of_a_frontend() -> None:
    text = 'func.func @f(%a: i32) attributes {iree.abi = "{\\22a\\22:[[\\22named\\22,\\22n\\22,\\22i32\\22]],\\22r\\22:[],\\22v\\22:1}"} {\n  return\n}\n'
    assert shown(text) == ["f(n: i32) -> ()"]


def test_exported_functions_only() -> None:
    text = """
module {
  func.func @public(%a: i32) { return }
  func.func public @explicit(%a: i32) { return }
  func.func private @private(%a: i32) { return }
  func.func private @marked(%a: i32) attributes {iree.module.export} { return }
  func.func @opted_out(%a: i32) attributes {iree.abi.none} { return }
  func.func private @declared(i32)
  func.func @public_declaration(i32)
  util.global private mutable @g : tensor<4xf32>
}
"""
    assert [function.name for function in read_module(text.encode(), "m.mlir")] == [
        "public",
        "explicit",
        "marked",
    ]
    assert [(f.name, f.exported) for f in read_functions(text, "m.mlir")] == [
        ("public", True),
        ("explicit", True),
        ("private", False),
        ("marked", True),
        ("opted_out", False),
        ("declared", False),
        ("public_declaration", False),
    ]


def test_functions_of_nested_modules_are_not_listed() -> None:
    # (A shape the carried-text scanner does not know: the driver parses it whole.)
    text = """
module {
  func.func @outer(%a: i32) { return }
  module @nested {
    func.func @inner(%a: i32) { "x.y"() : () -> () }
  }
}
"""
    assert shown(text) == ["outer(i32) -> ()  (no reflection)"]


def test_saved_model_functions_under_their_exported_name() -> None:
    text = """
module attributes {tf_saved_model.semantics} {
  func.func @__inference_a(%x: tensor<4xf32> {tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["predict"]} { return }
  func.func @__inference_b(%x: tensor<4xf32>) attributes {tf_saved_model.exported_names = []} { return }
  func.func @__inference_c(%x: tensor<4xf32>) { return }
  func.func @__inference_d(%x: i32) attributes {tf_saved_model.exported_names = ["one", "two"]} { return }
}
"""
    assert shown(text) == [
        "predict(tensor<4xf32>) -> ()  (no reflection)",
        "__inference_d(i32) -> ()  (no reflection)",  # several names: its own
    ]


def test_bodies_are_not_parsed() -> None:
    # Not MLIR any parser reads, and ops of dialects nobody registered: carried.
    text = """
#map = affine_map<(d0) -> (d0)>
module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">]> : !hal.device]} {
  func.func @main(%a: tensor<4xf32> loc("a")) -> tensor<4xf32> {
    %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%a : tensor<4xf32>) {
    ^bb0(%o: f32):
      linalg.yield %o : f32 ??? :: [not, mlir]
    } -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""
    assert shown(text) == ["main(tensor<4xf32>) -> (tensor<4xf32>)  (no reflection)"]


def test_text_and_bytes_read_the_same_and_a_byte_order_mark_is_skipped() -> None:
    text = "func.func @f(%a: i32) {\n  return\n}\n"
    assert read_functions(text, "m") == read_functions(text.encode(), "m")
    assert read_functions("\ufeff" + text, "m")[0].position == "m:1:1"
    assert read_functions("\n\n" + text, "m")[0].position == "m:3:1"


def test_caller_visible() -> None:
    assert caller_visible("main")
    assert caller_visible("main$sync")
    assert not caller_visible("main$async")
    assert not caller_visible("__init")
    assert not caller_visible("__deinit")
    assert not caller_visible("__notify")
    assert not caller_visible("global$w$get")
    # Every other name is a caller's: TensorFlow exports `__call__`.
    assert caller_visible("__call__")
    assert caller_visible("__inference_f_12")
    assert caller_visible("__init__")
    function = FunctionSignature("main$async", Signature((), ()), "type")
    assert not function.caller_visible


# -- errors ---------------------------------------------------------------------------


def test_empty_input() -> None:
    assert error_lines("  // only a comment\n\n") == ["abi-sig: error: input 'm.mlir' is empty"]


def test_not_utf8() -> None:
    assert error_lines(b"func.func @f() {\n  return // \xff\n}\n") == [
        "m.mlir:2:13: error: input is not valid UTF-8 (byte 0xff)"
    ]


def test_syntax_error_in_a_header() -> None:
    assert error_lines("func.func @f(%a: tensor<4xf32, %b: i32) {\n  return\n}\n") == [
        "m.mlir:1:32: error: attribute expected"
    ]


def test_ssa_error_in_a_header() -> None:
    assert error_lines("func.func @f(%a: i32, %a: i32) {\n  return\n}\n") == [
        "m.mlir:1:23: error: SSA value %a is already defined"
    ]


def test_function_defined_twice() -> None:
    text = "func.func @f() {\n  return\n}\nfunc.func private @f(%a: i32) {\n  return\n}\n"
    assert error_lines(text) == [
        "m.mlir:4:1: error: redefinition of symbol named 'f'",
        "m.mlir:1:1: note: see existing symbol definition here",
    ]


@pytest.mark.parametrize(
    ("reflection", "message"),
    [
        (
            'iree.abi = "{\\22a\\22:[],\\22v\\22:1}"',
            "@f: malformed reflection 'iree.abi': missing key \"r\" (at offset 0)",
        ),
        ("iree.abi = 3 : i32", "@f: malformed reflection 'iree.abi': not a string"),
        (
            'f = "I1!R1!X", sip = "I1!R1!"',
            "@f: malformed reflection 'f': unexpected trailing text after the results span (at offset 6)",
        ),
        (
            'f = "I1!R1!", sip = "I3!_0R1!"',
            "@f: malformed reflection 'sip': sip inputs leaf indices [0] do not match the 0 raw inputs of f",
        ),
        ('f = "I1!R1!", sip = 1 : i32', "@f: malformed reflection 'sip': not a string"),
    ],
)
def test_malformed_reflection(reflection: str, message: str) -> None:
    text = f"func.func @ok() {{\n  return\n}}\nfunc.func @f() attributes {{iree.reflection = {{{reflection}}}}} {{\n  return\n}}\n"
    assert error_lines(text) == [f"m.mlir:4:1: error: {message}"]


def test_read_error_lines() -> None:
    error = ReadError("bad", "f.mlir:1:2", [("f.mlir:3:4", "here"), (None, "elsewhere")])
    assert error.lines("abi-sig") == [
        "f.mlir:1:2: error: bad",
        "f.mlir:3:4: note: here",
        "abi-sig: note: elsewhere",
    ]
    assert ReadError("gone").lines("abi-sig") == ["abi-sig: error: gone"]


# -- the state a function uses ------------------------------------------------------------

_STATE = '[{"access":"r","dtype":"int32","name":"c","shape":[],"type":"tensor<i32>"}]'
_CALL = '{"args":[],"kwargs":[],"result":{"t":"none"},"state":' + _STATE + ',"v":1}'
_ABI = '{"a":[],"r":[],"v":1}'


def _with_reflection(entries: dict[str, str]) -> str:
    written = ", ".join(f"{key} = {quote(value)}" for key, value in entries.items())
    return f"func.func @f() attributes {{iree.reflection = {{{written}}}}} {{\n  return\n}}\n"


def test_the_state_of_the_original_call() -> None:
    # Recorded in `abi.call` alone, or in both entries alike (docs/formats.md).
    global_c = StateGlobal("c", "tensor<i32>", "int32", (), True, False)
    state = '{"v":1,"globals":' + _STATE + "}"
    for entries in (
        {"abi.call": _CALL, "iree.abi": _ABI},
        {"abi.call": _CALL, "abi.state": state, "iree.abi": _ABI},
    ):
        (function,) = read_module(_with_reflection(entries).encode(), "m.mlir")
        assert function.state == (global_c,)


def test_the_original_call_and_abi_state_must_agree() -> None:
    state = '{"v":1,"globals":' + _STATE.replace('"r"', '"rw"') + "}"
    text = _with_reflection({"abi.call": _CALL, "abi.state": state, "iree.abi": _ABI})
    assert error_lines(text) == [
        "m.mlir:1:1: error: @f: reflection 'abi.call' and 'abi.state' record different "
        "state: @c int32[] (reads); @c int32[] (reads, writes)"
    ]


def test_the_state_of_mlir_text_is_read_from_it() -> None:
    # Where no entry records it: what compiling the text records (docs/formats.md,
    # "The state a function uses"); a saved model's function by its symbol, shown under
    # its exported name. An entry the function has is what it says.
    saved_model = """
module attributes {tf_saved_model.semantics} {
  ml_program.global private mutable @v(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
  func.func @__inference_a(%x: tensor<4xf32> {tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["update"]} {
    ml_program.global_store @v = %x : tensor<4xf32>
    return
  }
}
"""
    (update,) = read_module(saved_model.encode(), "m.mlir")
    assert update.state == (StateGlobal("v", "tensor<4xf32>", "float32", (4,), False, True),)
    text = """util.global private mutable @c = dense<0> : tensor<i32>
func.func @recorded() attributes {iree.reflection = {abi.state = "{\\22v\\22:1,\\22globals\\22:[]}"}} {
  %c = util.global.load @c : tensor<i32>
  return
}
func.func @read() -> tensor<i32> {
  %c = util.global.load @c : tensor<i32>
  return %c : tensor<i32>
}
func.func @none() {
  return
}
"""
    read = (StateGlobal("c", "tensor<i32>", "int32", (), True, False),)
    for data in (text.encode(), ("\ufeff" + text).encode()):  # a byte order mark skipped
        found = {f.name: f.state for f in read_module(data, "m.mlir")}
        assert found == {"recorded": (), "read": read, "none": None}


def test_text_the_state_reader_does_not_scan_has_no_state() -> None:
    # A generic-form module (which the header reader parses whole) with a mutable global.
    text = """"builtin.module"() ({
  "util.global"() {sym_name = "c", sym_visibility = "private", is_mutable, type = tensor<i32>} : () -> ()
  func.func @read() -> tensor<i32> {
    %c = "util.global.load"() {global = @c} : () -> tensor<i32>
    return %c : tensor<i32>
  }
}) : () -> ()
"""
    (function,) = read_module(text.encode(), "m.mlir")
    assert (function.name, function.state) == ("read", None)
