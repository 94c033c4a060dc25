"""The lexical scanner behind carried text (`abi_compiler.text.carry`) and the driver's
use of it: items and bodies found whatever strings and comments hold, symbol references
redirected as whole tokens only, and a text the scanner does not understand parsed whole
(so that xDSL reports what is wrong with it)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import SupportsIndex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abi_compiler.commands.opt_main import main as opt_main
from abi_compiler.text import carry, lexer, symbols
from abi_compiler.text.carry import FuncText, OpText, ScanError
from abi_compiler.text.lexer import StringEscapeError
from tests.commands.test_opt_main import run as run_driver

MODULE = """\
#loc1 = loc("a{b")
module attributes {note = "} {"} {
  util.global private @g = dense<"0x7B7D"> : tensor<2xi8>
  // a comment with { and "
  func.func @f(%arg0: tensor<4xf32> {x.y = "(("} loc(#loc1), %b: i32 loc("f.py":1:2 to :8)) -> (tensor<4xf32> {r = "}"}) attributes {s = "{"} {
    %0 = "x.op"(%arg0) {text = "} // not a comment"} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  } loc(#loc1)
  func.func private @decl(i32) -> i32 loc(#loc1)
}
#loc2 = loc("b")
"""


def test_scan_finds_items_bodies_arguments_and_locations() -> None:
    layout = carry.scan(MODULE)
    text = layout.text
    assert [text[s:e] for s, e in layout.prologue] == ['#loc1 = loc("a{b")']
    assert [text[s:e] for s, e in layout.epilogue] == ['#loc2 = loc("b")']
    assert layout.module is not None
    assert text[layout.module.body_end : layout.module.end] == ""
    global_op, func, decl = layout.ops
    assert isinstance(global_op, OpText) and global_op.symbol == "g"
    assert text[global_op.start : global_op.end] == (
        'util.global private @g = dense<"0x7B7D"> : tensor<2xi8>'
    )
    assert isinstance(func, FuncText) and func.body_start is not None
    assert func.arg_names == ["arg0", "b"]
    assert [text[s:e] for s, e in (loc for loc in func.arg_locs if loc)] == [
        "loc(#loc1)",
        'loc("f.py":1:2 to :8)',
    ]
    assert text[func.body_start : func.body_start + 6] == "{\n    "
    assert text[func.body_end : func.end] == " loc(#loc1)"
    assert isinstance(decl, FuncText) and decl.body_start is None
    assert [text[s:e] for s, e in decl.header_locs] == ["loc(#loc1)"]


@pytest.mark.parametrize(
    "text",
    [
        "func.func @f() {\n  return\n",  # unclosed body
        "func.func @f() {\n  return\n}}\n",  # one brace too many
        '"builtin.module"() ({\n}) : () -> ()\n',  # a generic-form module
        "%%%\n",  # not an operation
        "{-# dialect_resources: {}\n",  # an unterminated resource section
    ],
)
def test_scan_rejects_shapes_it_does_not_know(text: str) -> None:
    with pytest.raises(ScanError):
        carry.scan(text)


def test_rename_symbols_rewrites_whole_references_only() -> None:
    text = (
        'call @f(%a) {note = "@f"} : (i32) -> i32\n'
        "call @f_2(%a) : (i32) -> i32 // @f\n"
        'call @"f"(%a) : (i32) -> i32\n'
        "x.use @f::@inner\n"
    )
    assert symbols.rename_symbols(text, {"f": "_f"}) == (
        'call @_f(%a) {note = "@f"} : (i32) -> i32\n'
        "call @f_2(%a) : (i32) -> i32 // @f\n"
        "call @_f(%a) : (i32) -> i32\n"
        "x.use @_f::@inner\n"
    )
    assert symbols.rename_symbols("call @f()", {"f": "a b"}) == 'call @"a b"()'
    assert symbols.symbol_references(text) == {"f", "f_2", "inner"}


def test_drop_comments_keeps_strings() -> None:
    text = '  %0 = "x.op"() {s = "// kept"} : () -> i32 // dropped\n  // gone\n  return\n'
    assert carry.drop_comments(text) == '  %0 = "x.op"() {s = "// kept"} : () -> i32\n  return\n'


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(['"a{"', '"}"', "{", "}", "(", ")", "x", "\n", "// {", '"\\""'])))
def test_mask_keeps_every_offset(pieces: list[str]) -> None:
    text = "".join(pieces)
    ranges = [(i, i + 2) for i in range(0, len(text), 5)]
    masked = carry.mask(text, ranges)
    assert len(masked) == len(text)
    for start, end in ranges:
        assert masked[start:end] == " " * len(text[start:end])


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='{}()[]"\\\n/ax#-', max_size=60))
def test_scanner_never_hangs_or_crashes(text: str) -> None:
    try:
        layout = carry.scan(text)
    except (ScanError, StringEscapeError):  # the latter: an error of the input
        return
    for item in layout.ops:
        assert 0 <= item.start <= item.end <= len(text)


def run(args: list[str], text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    result = run_driver(args, capsys, stdin=text)
    return result.status, result.stdout, result.stderr


def test_unbalanced_body_is_parsed_and_reported(capsys: pytest.CaptureFixture[str]) -> None:
    # The scanner gives up; xDSL parses the chunk and says what is wrong.
    status, out, err = run(["-p", "materialize-iree-abi"], "func.func @f() {\n  return\n", capsys)
    assert (status, out) == (1, "")
    assert err.startswith("<stdin>:3:1: error:")


def test_parse_all_verifies_bodies(capsys: pytest.CaptureFixture[str]) -> None:
    text = "func.func @f(%a: i32) -> f32 {\n  func.return %a : i32\n}\n"
    status, out, _ = run(["-p", "materialize-iree-abi"], text, capsys)
    assert status == 0 and "func.return %a : i32" in out  # carried: not verified
    status, out, err = run(["-p", "materialize-iree-abi", "--parse-all"], text, capsys)
    assert (status, out) == (1, "")
    assert err.startswith("<stdin>:2:3: error: Expected arguments to have the same types")


LIT = Path(__file__).resolve().parent.parent / "filecheck"


def _inputs() -> list[Path]:
    return sorted(
        p
        for p in LIT.rglob("*.mlir")
        if "Output" not in p.parts and "--verify-diagnostics" not in p.read_text()
    )


@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
def test_carried_output_means_what_full_parsing_gives(
    pipeline: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """On every lit input that the full parse accepts, the output with carried text,
    parsed again in full, is the output of the full parse: carrying changes how bodies
    are spelled, never what they are."""
    compared = 0
    for path in _inputs():
        split = ["--split-input-file"] if "--split-input-file" in path.read_text() else []
        full_status, full, _ = run(
            [str(path), "-p", pipeline, "--parse-all", "--allow-unregistered-dialect", *split],
            "",
            capsys,
        )
        if full_status != 0:
            continue
        # A file whose RUN lines allow unregistered dialects is carried with that flag too
        # (its generic-form bodies parse only with it).
        flag = (
            ["--allow-unregistered-dialect"]
            if "--allow-unregistered-dialect" in path.read_text()
            else []
        )
        status, carried, err = run([str(path), "-p", pipeline, *split, *flag], "", capsys)
        assert status == 0, f"{path}: {err}"
        normalized = tmp_path / "carried.mlir"
        normalized.write_text(carried)
        status, again, err = run(
            [str(normalized), "--parse-all", "--allow-unregistered-dialect", *split], "", capsys
        )
        assert status == 0, f"{path}: {err}"
        reference = tmp_path / "full.mlir"
        reference.write_text(full)
        _, expected, _ = run(
            [str(reference), "--parse-all", "--allow-unregistered-dialect", *split], "", capsys
        )
        assert again == expected, path
        compared += 1
    assert compared >= 20


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_string_literals_print_as_mlir_prints_them(data: bytes) -> None:
    """The pipeline's printer (`xdsl_fixes.FixedPrinter`, one `str.translate`) writes what xDSL's
    byte-by-byte loop writes: printable ASCII but `"` and `\\` as itself, `\\` doubled,
    every other byte as `\\XX`."""
    from abi_compiler.xdsl_boundary.xdsl_fixes import FixedPrinter

    expected = "".join(
        "\\\\" if b == 0x5C else f"\\{b:02X}" if b < 0x20 or b > 0x7E or b == 0x22 else chr(b)
        for b in data
    )
    stream = io.StringIO()
    FixedPrinter(stream=stream).print_bytes_literal(data)
    assert stream.getvalue() == f'"{expected}"'


def test_a_header_over_several_lines_is_one_item() -> None:
    text = (
        "module {\n"
        "  func.func public @main(%a: tensor<2xf32> {x = 1},\n"
        "                         %b: tensor<f32>)\n"
        "      -> (tensor<2xf32> {y = 2})\n"
        "      attributes {z = 3} {\n"
        "    return %a : tensor<2xf32>\n"
        "  }\n"
        "}\n"
    )
    (func,) = carry.scan(text).ops
    assert isinstance(func, FuncText) and func.body_start is not None
    assert func.arg_names == ["a", "b"]
    assert func.attributes is not None
    assert text[func.attributes[0] : func.attributes[1]] == "attributes {z = 3}"


@settings(max_examples=300, deadline=None)
@given(name=st.text(min_size=0, max_size=12) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_$.\-]{0,8}"))
def test_symbol_text_is_how_the_printer_spells_a_symbol(name: str) -> None:
    """Renames in carried text are spelled exactly as the IR printer spells the renamed
    function (quoted unless a bare identifier; `"` and non-ASCII bytes as `\\XX`)."""
    from abi_compiler.xdsl_boundary.xdsl_fixes import FixedPrinter

    stream = io.StringIO()
    FixedPrinter(stream=stream).print_symbol_name(name)
    assert lexer.symbol_text(name) == stream.getvalue()


def test_a_renamed_reference_in_carried_text_is_spelled_as_printed() -> None:
    assert symbols.rename_symbols('call @"f-x"(%a)', {"f-x": "_f-x"}) == 'call @"_f-x"(%a)'
    # `@f-x` is `@f`, then `-x` (MLIR's lexer).
    assert symbols.rename_symbols("call @f-x(%a)", {"f": "g"}) == "call @g-x(%a)"
    assert symbols.rename_symbols('call @"a\\22b"', {'a"b': '_a"b'}) == 'call @"_a\\22b"'


# -- Comment lines: time linear in their number ----------------------------------------------

_FUNC = (
    "  func.func @f(%a: tensor<4xf32>, %b: tuple<i32, i32>)\n"
    "      -> tensor<4xf32> {\n"
    "    return %a : tensor<4xf32>\n"
    "  }\n"
)
_MODULE = "module {\n" + _FUNC + "}\n"
#: Where the comment lines (`@COMMENTS@`) stand: after the module, after the function
#: inside it, after a function with no module around it, between the lines of a header,
#: with CRLF line ends, and in two chunks of `--split-input-file`. Each went quadratic in
#: the number of lines (each line end skipped every comment line after it again).
_COMMENT_LAYOUTS = {
    "after-module": _MODULE + "@COMMENTS@",
    "in-module": "module {\n" + _FUNC + "@COMMENTS@}\n",
    "implicit-module": _FUNC + "@COMMENTS@",
    "in-header": _MODULE.replace("      -> ", "@COMMENTS@      -> "),
    "crlf": (_MODULE + "@COMMENTS@").replace("\n", "\r\n"),
    "split-input-file": (
        _MODULE + "@COMMENTS@// -----\n" + _MODULE.replace("@f", "@g") + "@COMMENTS@"
    ),
}


def _blank_characters_skipped(
    layout: str, lines: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> int:
    """How many characters `lexer.skip_blank` goes over while ``abi-opt -p iree-abi-v1``
    reads ``layout`` with ``lines`` comment lines: the work that grows with them."""
    newline = "\r\n" if layout == "crlf" else "\n"
    comments = "".join(f'// comment {i} with {{ and ( and " in it{newline}' for i in range(lines))
    text = _COMMENT_LAYOUTS[layout].replace("@COMMENTS@", comments)
    real = lexer._BLANK_RUN
    scanned = 0

    class Counting:
        def match(self, text: str, pos: int, end: int) -> re.Match[str] | None:
            nonlocal scanned
            found = real.match(text, pos, end)
            scanned += 0 if found is None else found.end() - pos
            return found

    monkeypatch.setattr(lexer, "_BLANK_RUN", Counting())
    source, output = tmp_path / f"{layout}-{lines}.mlir", tmp_path / "out.mlir"
    source.write_text(text, newline="")
    split = ["--split-input-file"] if layout == "split-input-file" else []
    assert opt_main([str(source), "-p", "iree-abi-v1", "-o", str(output), *split]) == 0
    assert "iree.abi" in output.read_text()
    monkeypatch.undo()
    return scanned


@pytest.mark.parametrize("layout", sorted(_COMMENT_LAYOUTS))
def test_comment_lines_cost_work_linear_in_their_number(
    layout: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Twice the comment lines, twice the characters skipped as blank (not four times):
    counted, not timed. 20 000 comment lines after a function took 35 s."""
    once = _blank_characters_skipped(layout, 400, monkeypatch, tmp_path)
    twice = _blank_characters_skipped(layout, 800, monkeypatch, tmp_path)
    assert 1.8 < twice / once < 2.2, (once, twice)


class _CountingText(str):
    """A text that adds up the characters its `find` and `rfind` may look at."""

    scanned = 0

    def _count(self, start: SupportsIndex | None, end: SupportsIndex | None) -> None:
        low = 0 if start is None else int(start)
        high = len(self) if end is None else int(end)
        _CountingText.scanned += max(0, high - low)

    def find(
        self, sub: str, start: SupportsIndex | None = None, end: SupportsIndex | None = None
    ) -> int:
        self._count(start, end)
        return super().find(sub, start, end)

    def rfind(
        self, sub: str, start: SupportsIndex | None = None, end: SupportsIndex | None = None
    ) -> int:
        self._count(start, end)
        return super().rfind(sub, start, end)


def _characters_searched(layout: str, lines: int) -> int:
    """How many characters `find`/`rfind` may look at while `carry.scan` reads ``layout``
    (a single chunk) with ``lines`` comment lines."""
    newline = "\r\n" if layout == "crlf" else "\n"
    comments = "".join(f"// comment {i}{newline}" for i in range(lines))
    text = _CountingText(_COMMENT_LAYOUTS[layout].replace("@COMMENTS@", comments))
    _CountingText.scanned = 0
    layout_found = carry.scan(text)
    assert layout_found.ops
    return _CountingText.scanned


@pytest.mark.parametrize("layout", sorted(set(_COMMENT_LAYOUTS) - {"split-input-file"}))
def test_comment_lines_cost_searches_linear_in_their_number(layout: str) -> None:
    """The same for the scanner's searches for line ends: an item's end is moved back over
    its trailing comment lines, and `rfind("\\r")` in a file of `\\n` line ends ran back
    to the item's start from each of them (160 000 lines took 6 s)."""
    once = _characters_searched(layout, 2000)
    twice = _characters_searched(layout, 4000)
    assert twice / once < 2.2, (once, twice)  # (a header's comments are never searched)
