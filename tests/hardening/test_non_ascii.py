"""Names and dict keys with any Unicode text (docs/design.md#hostile-input).

MLIR prints a string attribute's bytes outside printable ASCII as `\\XX` escapes; xDSL's
lexer used to read such a literal back as a `BytesAttr`, so `abi.name = "é"` stopped being
a name after one print/parse round trip. The pipeline's lexer
(`abi_compiler.xdsl_boundary.xdsl_fixes`) reads a literal whose bytes are UTF-8 as a string. These tests pin that, and
that every encoding carries the text exactly: JSON with `\\uXXXX` escapes (Python's
`ensure_ascii`), SIP `K` spans that count UTF-8 bytes, raw signatures unaffected.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import BytesAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.model import Dict
from abi_compiler.pipeline.dialects import register_dialects
from abi_compiler.xdsl_boundary import xdsl_fixes
from abi_compiler.xdsl_boundary.xdsl_fixes import FixedParser, FixedPrinter

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)


def _context() -> Context:
    ctx = Context()
    register_dialects(ctx)
    return ctx


def _print(module: ModuleOp) -> str:
    stream = StringIO()
    with xdsl_fixes.applied():
        FixedPrinter(stream=stream).print_op(module)
    return stream.getvalue()


def _module(text: str) -> ModuleOp:
    with xdsl_fixes.applied():
        module = FixedParser(_context(), text).parse_module()
        module.verify()
    return module


@settings(max_examples=200, deadline=None)
@given(texts)
def test_string_attribute_print_parse_print(text: str) -> None:
    module = ModuleOp([])
    module.attributes["note"] = StringAttr(text)
    printed = _print(module)

    parsed = _module(printed)

    assert parsed.attributes["note"] == StringAttr(text)
    assert _print(parsed) == printed


def test_a_literal_that_is_not_utf8_stays_bytes() -> None:
    module = _module('builtin.module attributes {note = "\\FF\\C3"} {\n}\n')
    assert module.attributes["note"] == BytesAttr(b"\xff\xc3")


def test_escaped_and_raw_spellings_are_the_same_string() -> None:
    module = _module('builtin.module attributes {a = "\\C3\\A9\\22", b = "é\\""} {\n}\n')
    assert module.attributes["a"] == module.attributes["b"] == StringAttr('é"')


NAMES = ["é", "日本", "😀", 'q"\\\n', "\x01", "", "Zeta", "ж€"]


def _function(escape: bool) -> str:
    """One named tuple argument per name; the names spelled as the printer does, or raw."""

    def literal(name: str) -> str:
        if escape:
            out = StringIO()
            FixedPrinter(stream=out).print_string_literal(name)
            return out.getvalue()
        return json.dumps(name, ensure_ascii=False).replace("\\u0001", "\\01")

    arguments = ", ".join(
        f"%a{i}: !abi.dict<{literal(name)}: i32> {{abi.name = {literal(name)}}}"
        for i, name in enumerate(NAMES)
    )
    return f"func.func @f({arguments}) {{\n  func.return\n}}\n"


def _run(tmp_path: Path, text: str, pipeline: str, capsys: pytest.CaptureFixture[str]) -> str:
    source = tmp_path / "in.mlir"
    source.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert AbiOptMain.main([str(source), "-p", pipeline]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def _reflection(output: str) -> dict[str, str]:
    function = next(op for op in _module(output).body.ops if isinstance(op, FuncOp))
    entries = function.attributes["iree.reflection"]
    assert isinstance(entries, DictionaryAttr)
    return {k: v.data for k, v in entries.data.items() if isinstance(v, StringAttr)}


def _stable_output(
    tmp_path: Path, escape: bool, pipeline: str, capsys: pytest.CaptureFixture[str]
) -> str:
    """The pipeline's output for the non-ASCII function; a second run leaves it alone."""
    output = _run(tmp_path, _function(escape), pipeline, capsys)
    assert _run(tmp_path, output, pipeline, capsys) == output
    return output


@pytest.mark.parametrize("escape", [False, True], ids=["raw-utf8", "escaped"])
def test_names_and_keys_through_v1(
    escape: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = _stable_output(tmp_path, escape, "iree-abi-v1", capsys)
    abi = _reflection(output)["iree.abi"]
    records = [["named", name, ["sdict", [name, "i32"]]] for name in NAMES]
    expected = {"a": records, "r": [], "v": 1}
    assert abi == json.dumps(expected, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    assert abi.isascii()
    assert [argument.name for argument in decode_json(abi).arguments] == NAMES


@pytest.mark.parametrize("escape", [False, True], ids=["raw-utf8", "escaped"])
def test_names_and_keys_through_legacy(
    escape: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = _stable_output(tmp_path, escape, "iree-abi-legacy", capsys)
    entries = _reflection(output)
    # All arguments named: the SIP input root is a dict keyed by name, byte-wise sorted,
    # each `K` span counting the key's UTF-8 bytes.
    by_name = {name: i for i, name in enumerate(NAMES)}
    ordered = sorted(NAMES, key=str.encode)

    def span(tag: str, body: str) -> str:
        return f"{tag}{len(body.encode()) + 1}!{body}"

    inner = "".join(
        span("K", name) + span("D", span("K", name) + f"_{by_name[name]}") for name in ordered
    )
    assert entries["sip"] == span("I", span("D", inner)) + "R1!"
    assert entries["f"] == span("I", "S3!t6" * len(NAMES)) + "R1!"
    decoded = decode_sip(entries["sip"]).inputs
    assert isinstance(decoded, Dict)
    assert [key for key, _ in decoded.items] == ordered
