"""The scanner of carried text (`abi_compiler.text.carry`) read by MLIR's lexical rules:
items, function headers, locations, symbols per symbol table, comments, structure."""

from __future__ import annotations

import pytest

from abi_compiler.text import carry, lexer, symbols
from abi_compiler.text.carry import FuncText, OpText


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
