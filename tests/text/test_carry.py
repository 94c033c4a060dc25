"""The lexical scanner behind carried text (`abi_compiler.text.carry`) and the driver's
use of it: items and bodies found whatever strings and comments hold, symbol references
redirected as whole tokens only, and a text the scanner does not understand parsed whole
(so that xDSL reports what is wrong with it); then the scanner read by MLIR's lexical
rules: items, function headers, locations, symbols per symbol table, comments,
structure."""

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


# == The scanner read by MLIR's lexical rules ==============================================


def texts(text: str, ranges: list[tuple[int, int]]) -> list[str]:
    return [text[start:end] for start, end in ranges]


# -- Items ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        # One op after the `}` (or the `loc(…)`) that closes the one before.
        (
            "func.func @a() {\n  return\n} func.func @b() {\n  return\n}",
            ["func.func @a() {\n  return\n}", "func.func @b() {\n  return\n}"],
        ),
        (
            'func.func @a() {\n} loc("a":1:1) "foo.op"() : () -> ()',
            ['func.func @a() {\n} loc("a":1:1)', '"foo.op"() : () -> ()'],
        ),
        # A function after blanks on the line of another op is a function of its own.
        (
            "func.func private @d(i32) -> i32  func.func @f() {\n  return\n}",
            ["func.func private @d(i32) -> i32", "func.func @f() {\n  return\n}"],
        ),
        # So is a module (not the end of a name, nor inside a dialect body).
        (
            "func.func private @d() -> i1   module @m {\n}\tbuiltin.module {\n}",
            ["func.func private @d() -> i1", "module @m {\n}", "builtin.module {\n}"],
        ),
        ("x.a @my_module !d.t<a module> {\n}", ["x.a @my_module !d.t<a module> {\n}"]),
        # ... but not inside a string on that line.
        ('x.a {k = " func.func @f"}', ['x.a {k = " func.func @f"}']),
        # CR-only and CR LF line ends.
        ("x.a @a\rx.b @b\r\nx.c @c", ["x.a @a", "x.b @b", "x.c @c"]),
        # A comment ends at `\r`; comment lines between items belong to none.
        ("x.a @a // c { \r// d\rx.b @b", ["x.a @a // c {", "x.b @b"]),
        # A header over several lines is one item.
        (
            "func.func @a(%x: i32)\n    -> i32\n    attributes {k} {\n}",
            ["func.func @a(%x: i32)\n    -> i32\n    attributes {k} {\n}"],
        ),
        # A line break inside a group or a dialect body starts no item.
        ("x.a {\nx.b}\nx.c #d.e<\nx.f>", ["x.a {\nx.b}", "x.c #d.e<\nx.f>"]),
        # Alias definitions and resource sections, also after a closing `}`.
        (
            '#a = 1\n!b = i32\nx.c {\n} {-# k: "#-}" #-}',
            ["#a = 1", "!b = i32", "x.c {\n}", '{-# k: "#-}" #-}'],
        ),
    ],
)
def test_split_items(text: str, items: list[str]) -> None:
    assert texts(text, carry.split_items(text, 0, len(text))) == items


def test_a_function_header_in_parts() -> None:
    text = (
        'func.func private @"a\\22b"(%x: tensor<4xf32> {k = "}"} loc("a":1:2), '
        '%y: !foo<"a>b">, %z: (i32) -> i32 loc (#l)) -> (tensor<4xf32> {r}, i32) '
        "attributes {f = [loc(#m)]} {\n  return\n} loc(#n)"
    )
    (func,) = carry.scan(text).ops
    assert isinstance(func, FuncText) and func.plain
    assert (func.name, func.visibility) == ('a"b', "private")
    assert text[slice(*func.name_span)] == '@"a\\22b"'
    assert func.arg_names == ["x", "y", "z"]
    assert [text[slice(*arg.type)] for arg in func.args] == [
        "tensor<4xf32>",
        '!foo<"a>b">',
        "(i32) -> i32",
    ]
    assert [arg.attributes and text[slice(*arg.attributes)] for arg in func.args] == [
        '{k = "}"}',
        None,
        None,
    ]
    assert [loc and text[slice(*loc)] for loc in func.arg_locs] == [
        'loc("a":1:2)',
        None,
        "loc (#l)",
    ]
    assert func.results is not None and func.results_parenthesized
    assert [text[slice(*r.type)] for r in func.results] == ["tensor<4xf32>", "i32"]
    assert func.attributes is not None
    assert text[slice(*func.attributes)] == "attributes {f = [loc(#m)]}"
    # Locations MLIR reads as locations; `loc(#m)` is an attribute's value.
    assert texts(text, func.header_locs) == ['loc("a":1:2)', "loc (#l)", "loc(#n)"]
    assert text[: func.signature_end].endswith("-> (tensor<4xf32> {r}, i32)")


@pytest.mark.parametrize(
    ("written", "types"),
    [
        # `->` in a dialect body closes nothing: `{` inside it does not end the type.
        ("%a: !foo.t<-> {a}>, %b: !foo.t<a -> {b}>", ["!foo.t<-> {a}>", "!foo.t<a -> {b}>"]),
        ("%a: !foo.t<x<-> {a}>>", ["!foo.t<x<-> {a}>>"]),
        ("%a: !foo.t<-1>, %b: tensor<2x!foo.t<->>>", ["!foo.t<-1>", "tensor<2x!foo.t<->>>"]),
    ],
)
def test_arrows_in_dialect_bodies(written: str, types: list[str]) -> None:
    text = f"func.func @f({written}) attributes {{k}} {{\n  return\n}}"
    (func,) = carry.scan(text).ops
    assert isinstance(func, FuncText) and func.plain
    assert [text[slice(*arg.type)] for arg in func.args] == types
    assert func.attributes is not None and text[slice(*func.attributes)] == "attributes {k}"


@pytest.mark.parametrize(
    "header",
    [
        "func.func @f(%a: i32,) {",  # a trailing comma
        "func.func @f-g(%a: i32) {",  # `@f`, then `-g`
        "func.func @f(%a i32) {",
    ],
)
def test_a_header_mlir_rejects_keeps_its_body(header: str) -> None:
    """xDSL reads such a header (and says what is wrong); its body is still carried."""
    text = header + "\n  stablehlo.foo\n} loc(#l)"
    (func,) = carry.scan(text).ops
    assert isinstance(func, FuncText) and not func.plain
    assert func.body_start == text.index("{\n")
    assert func.body_end == text.index("} loc") + 1
    assert texts(text, func.header_locs) == ["loc(#l)"]


def test_symbols_of_carried_ops() -> None:
    text = (
        'memref.global "private" constant @a : memref<2xf32>\n'
        "util.global private mutable @b : i32\n"
        '"memref.global"() <{sym_name = "c", type = memref<2xf32>}> : () -> ()\n'
        '"foo.op"() ({\n  "foo.inner"() {sym_name = "no"} : () -> ()\n}) {sym_name = "d", x = {sym_name = "no"}} : () -> ()\n'
        'sdy.mesh @"e\\22" = <["x"=2]>\n'
        "foo.use %x : i32\n"
        "module @f {\n}\n"
    )
    ops = carry.scan(text).ops
    assert all(isinstance(op, OpText) for op in ops)
    assert [op.symbol for op in ops if isinstance(op, OpText)] == [
        "a",
        "b",
        "c",
        "d",
        'e"',
        None,
        "f",
    ]


def test_module_layout_and_alias_places() -> None:
    text = (
        '#l0 = loc("a":1:1)\n'
        "func.func @a() {\n}\n"
        "#between = {k = 1}\n"
        '#l1 = loc("b":1:1)\n'
        "func.func @b() attributes {k = #between} {\n}\n"
        "!t = tuple<i32>\n"
        '{-# k: "v" #-}\n'
    )
    layout = carry.scan(text)
    assert layout.module is None
    assert texts(text, layout.prologue) == [
        '#l0 = loc("a":1:1)',
        "#between = {k = 1}",
        "!t = tuple<i32>",
    ]
    assert texts(text, layout.epilogue) == ['#l1 = loc("b":1:1)', '{-# k: "v" #-}']
    assert [(a.name, a.location) for a in layout.aliases] == [
        ("#l0", True),
        ("#between", False),
        ("#l1", True),
        ("!t", False),
    ]


def test_a_module_among_other_ops_is_an_op() -> None:
    text = "module @x {\n  func.func @f() {\n  }\n}\nfunc.func @g() {\n}\n"
    layout = carry.scan(text)
    assert layout.module is None
    nested, func = layout.ops
    assert isinstance(nested, OpText) and nested.symbol == "x"
    assert nested.functions is not None and [f.name for f in nested.functions] == ["f"]
    assert isinstance(func, FuncText) and func.name == "g"


# -- Locations ------------------------------------------------------------------------------


def test_locations_are_only_those_of_ops_and_arguments() -> None:
    text = (
        '%0 = "x.op"() {a = [loc("v":1:1)], b = loc("v":2:2), c = #d.e<loc(3)>} : '
        "() -> !t.u<loc(4)> loc(#op)\n"
        '^bb0(%a: i32 loc(#arg), %b: i32 loc (fused[#l, loc("v":5:5)])):\n'
        'x.call @loc(%a) : (i32) -> () loc(callsite(loc("a":1:1) at loc("b":2:2)))'
    )
    assert texts(text, carry.locations(text, 0, len(text))) == [
        "loc(#op)",
        "loc(#arg)",
        'loc (fused[#l, loc("v":5:5)])',
        'loc(callsite(loc("a":1:1) at loc("b":2:2)))',
    ]


def test_a_value_after_a_comment_is_still_a_value() -> None:
    text = (
        '"x.op"() {a = // c\n // d\r  loc(unknown), b = {c = [1, // e\n loc(#v)]}} : '
        "() -> () // f\n  loc(#op)\n"
        "func.func @f(%a: i32 // g\n loc(#arg)) {\n}"
    )
    assert texts(text, carry.locations(text, 0, len(text))) == ["loc(#op)", "loc(#arg)"]


# -- Symbols --------------------------------------------------------------------------------


def test_references_of_one_symbol_table() -> None:
    text = (
        'x.a @f, @g::@h, #sdy.s<@mesh, [{"x"}]> // @comment\n'
        'x.b "@string"\n'
        "module @m attributes {r = @in_header} {\n  x.c @nested\n}\n"
        '"builtin.module"() <{sym_name = "n"}> ({\n  x.d @nested_generic\n}) : () -> ()\n'
        'x.e @after, @"quoted\\22"\n'
    )
    assert symbols.symbol_references(text) == {
        "f",
        "g",
        "h",
        "mesh",
        "m",
        "in_header",
        "after",
        'quoted"',
    }
    renamed = symbols.rename_symbols(text, {"f": "_f", "nested": "_n", "in_header": "a b"})
    assert renamed.startswith("x.a @_f, @g::@h,")
    assert '{r = @"a b"}' in renamed
    assert "x.c @nested" in renamed and "x.d @nested_generic" in renamed


def test_called_symbols() -> None:
    text = (
        "%0 = call @a(%x) : (i32) -> i32\n"
        "%1 = func.call @b(%x) : (i32) -> i32\n"
        '%2 = "func.call"(%x) <{callee = @c}> : (i32) -> i32\n'
        '%3 = "func.call"(%x) <{callee = #alias}> : (i32) -> i32\n'
        "%4 = func.constant @d : (i32) -> i32\n"
        '"foo.op"() {r = @not_called, callee_x = @no} : () -> ()\n'
        "module @m {\n  %5 = call @inner(%x) : (i32) -> i32\n}\n"
    )
    assert symbols.called_symbols(text, 0, len(text)) == {"a", "b", "c", "#alias", "d"}


# -- Comments and structure -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dropped"),
    [
        ("a // c\n  // d\nb", "a\nb"),
        ("a // c\r  // d\rb", "a\rb"),
        ('a "//" #d.e<x // y\n z> // c\nb', 'a "//" #d.e<x // y\n z>\nb'),
        ("a\n\n// c\nb", "a\n\nb"),
    ],
)
def test_drop_comments(text: str, dropped: str) -> None:
    assert carry.drop_comments(text) == dropped


def test_structured_signatures_through_aliases() -> None:
    text = (
        "!a = tuple<i32>\n!b = !a\n!c = tensor<4x!util.list<?>>\n"
        "func.func @f(%x: !b) {\n}\n"
        "func.func @g(%x: !c) {\n}\n"
        'func.func @h(%x: i32 {k = "tuple<"}) -> !foo.attributes {\n}\n'
    )
    layout = carry.scan(text)
    assert layout.structured_aliases == {"!a", "!b", "!c"}
    assert [
        carry.has_structured_signature(layout, f) for f in layout.ops if isinstance(f, FuncText)
    ] == [
        True,
        True,
        False,
    ]


@pytest.mark.parametrize(
    ("body", "structured"),
    [
        ("%0 = abi.tuple.get %t[0] : tuple<i32> -> i32", True),
        ('%0 = "abi.tuple.get"(%t) : (tuple<i32>) -> i32', True),
        ('%0 = x.y %t : !abi.dict<"a": i32>', True),
        ('// a comment on tuple<i32> and abi.tuple.get\n%0 = x.y {s = "!abi.dict<"} : i32', False),
        ('%0 = x.y : !foo<"tuple<i32>">', False),
    ],
)
def test_structured_bodies_by_their_tokens(body: str, structured: bool) -> None:
    text = "func.func @f() {\n" + body + "\n}"
    (func,) = carry.scan(text).ops
    assert isinstance(func, FuncText)
    assert carry.has_structured_body(text, func) is structured


@pytest.mark.parametrize(
    "text",
    [
        "x.a @a" + " " * 200_000 + "b // c\n",  # blanks, then no comment
        "/" * 200_000 + "\nx.a @a\n",  # a line of slashes
        "x.a " + "#a.b<" * 2_000 + ">" * 2_000 + " // c\n",  # nested dialect bodies
        'x.a "' + "\\\\" * 100_000 + '" // c\n',  # a string of escapes
        "x.a " + "(" * 50_000 + ")" * 50_000 + "\n" + "x.b @b // c\n" * 1_000,
    ],
)
def test_hostile_shapes_are_read_in_linear_time(text: str) -> None:
    """Each of these took minutes or more with a pattern that backtracks (a quadratic
    search or an exponential match); read linearly, they take milliseconds."""
    layout = carry.scan(text)
    for item in layout.ops:
        carry.drop_comments(text[item.start : item.end])
        symbols.rename_symbols(text[item.start : item.end], {"a": "b"})
        carry.locations(text, item.start, item.end)
    assert lexer.skip_blank(text, 0) >= 0
