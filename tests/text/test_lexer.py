"""MLIR's lexical grammar (`abi_compiler.text.lexer`): every token kind, strings and their
escapes, comments only where MLIR has them, dialect bodies, groups, resource sections, and
agreement with xDSL's own lexer where both read the same language."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abi_compiler.text import lexer
from abi_compiler.text.lexer import (
    AT,
    BANG,
    BARE,
    BODY,
    CARET,
    COMMENT_TOKEN,
    HASH,
    META_BEGIN,
    META_END,
    NUMBER,
    OTHER,
    PERCENT,
    PUNCT,
    STRING_TOKEN,
    LexError,
)


def each(kind: int, words: str) -> list[tuple[int, str]]:
    return [(kind, word) for word in words.split(" ")]


def kinds(text: str, **options: bool) -> list[tuple[int, str]]:
    return [(kind, text[start:end]) for kind, start, end in lexer.tokens(text, **options)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("func.func x_1$a.b", [(BARE, "func.func"), (BARE, "x_1$a.b")]),
        ('@f @f.g$h @"a b"', [(AT, "@f"), (AT, "@f.g$h"), (AT, '@"a b"')]),
        # `-` is no part of a symbol name (it is of a suffix id).
        ("@f-x %a-b", [(AT, "@f"), (PUNCT, "-"), (BARE, "x"), (PERCENT, "%a-b")]),
        ("#map #0 #a.b-c", [(HASH, "#map"), (HASH, "#0"), (HASH, "#a.b-c")]),
        ("!t !foo.bar", [(BANG, "!t"), (BANG, "!foo.bar")]),
        (
            "%0 %arg0 %_x ^bb1",
            [(PERCENT, "%0"), (PERCENT, "%arg0"), (PERCENT, "%_x"), (CARET, "^bb1")],
        ),
        ("0 42 0x1F 1.5 2. 1.0e-3 3.0E+2", each(NUMBER, "0 42 0x1F 1.5 2. 1.0e-3 3.0E+2")),
        # `0xi32` is `0` and `xi32`; `4xf32` is `4` and `xf32`.
        ("0xi32 4xf32", [(NUMBER, "0"), (BARE, "xi32"), (NUMBER, "4"), (BARE, "xf32")]),
        (
            "-> ... : , ( ) { } [ ] < > = + * ? | -",
            each(PUNCT, "-> ... : , ( ) { } [ ] < > = + * ? | -"),
        ),
        ("{-# x #-}", [(META_BEGIN, "{-#"), (BARE, "x"), (META_END, "#-}")]),
        (
            '"a" "b\\"c" "\\5C\\n\\t"',
            [(STRING_TOKEN, '"a"'), (STRING_TOKEN, '"b\\"c"'), (STRING_TOKEN, '"\\5C\\n\\t"')],
        ),
        # A dialect body is one token after its name; `//` is text in it.
        ("#foo.a<x // y>", [(HASH, "#foo.a"), (BODY, "<x // y>")]),
        (
            '!foo<"a>b"> !d.t<(a, [b], {c}) -> <d>>',
            [(BANG, "!foo"), (BODY, '<"a>b">'), (BANG, "!d.t"), (BODY, "<(a, [b], {c}) -> <d>>")],
        ),
        # Not right after the name: no body (MLIR reads `<` as its own token).
        ("#foo.a <x>", [(HASH, "#foo.a"), (PUNCT, "<"), (BARE, "x"), (PUNCT, ">")]),
        ("a ; b", [(BARE, "a"), (OTHER, ";"), (BARE, "b")]),
    ],
)
def test_every_token_kind(text: str, expected: list[tuple[int, str]]) -> None:
    assert kinds(text) == expected


def test_whitespace_and_comments_end_at_any_line_end() -> None:
    text = "a // one\rb // two\r\nc // three\nd\te"
    assert kinds(text) == [(BARE, w) for w in "abcde"]
    assert kinds(text, comments=True)[1] == (COMMENT_TOKEN, "// one")
    # A comment ends at `\r` (a CR-only file), not only at `\n`.
    assert kinds("x // c\ry") == [(BARE, "x"), (BARE, "y")]


def test_no_comment_in_strings_or_dialect_bodies() -> None:
    assert kinds('"// not" #a.b<// not>') == [
        (STRING_TOKEN, '"// not"'),
        (HASH, "#a.b"),
        (BODY, "<// not>"),
    ]
    # Inside a body read as its own text (`pretty`), `//` is no comment either.
    assert kinds("x // y", pretty=True) == [(BARE, "x"), (OTHER, "/"), (OTHER, "/"), (BARE, "y")]


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ('"abc" x', 5),
        ('"a\\"b" x', 6),
        ('"a\\\\" x', 5),
        ('"a\\\\\\"b" x', 8),
        ('"\\22\\0A" x', 8),
        ('"a\rb" x', 5),  # `\r` is allowed in a string (MLIR's lexer)
        ('"abc\n"', 4),  # not closed on its line: ends at the line end
        ('"ab\vc"', 3),
        ('"abc', 4),
    ],
)
def test_string_end(text: str, end: int) -> None:
    assert lexer.string_end(text, 0) == end


def test_a_long_string_is_one_token() -> None:
    hexdigits = "0x" + "AB" * 500_000
    text = f'dense<"{hexdigits}"> x'
    tokens = kinds(text)
    assert tokens[2] == (STRING_TOKEN, f'"{hexdigits}"')
    assert tokens[-1] == (BARE, "x")


@pytest.mark.parametrize(
    ("literal", "text"),
    [
        ('"abc"', "abc"),
        ('"a\\"b"', 'a"b'),
        ('"a\\22b"', 'a"b'),
        ('"\\5C\\n\\t"', "\\\n\t"),
        ('"\\C3\\A9"', "é"),
        ('"\\zz"', None),
        ('"\\FF"', None),  # not UTF-8
        ('"a"b"', None),
        ('"abc', None),
    ],
)
def test_unquote(literal: str, text: str | None) -> None:
    assert lexer.unquote(literal) == text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_quote_and_unquote_round_trip(name: str) -> None:
    literal = lexer.quote(name)
    assert lexer.STRING.fullmatch(literal)
    assert lexer.unquote(literal) == name
    assert lexer.string_end(literal, 0) == len(literal)
    assert lexer.symbol_name(lexer.symbol_text(name)) == name


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("(a, (b)) x", 8),
        ('[a, "]"] x', 8),
        ('{a = "}"} x', 9),
        ("{a // }\n} x", 9),
        ("{#a.b<{}>} x", 10),
        # A comment that ends in `<` opens no dialect body (`// CHECK: #a.b<`).
        ("{// #a.b<\n} x", 11),
        ("{x // a<\n y} z", 12),
        ("(x {-# y #-}) z", 13),
        ('tensor<4x!a<">">> x', None),
        ('<4x!a<">">> x', 11),
        # `>=`, `<=`, and `>` inside `(…)`, are comparisons; `->` is an arrow.
        ("<(d0) : (d0 >= 0, d0 <= 4, d0 > 1)> x", 35),
        ("<(d0) -> (d0)> x", 14),
        ("<{a = 1}> x", 9),
        ("<1, f<2>> x", 9),
    ],
)
def test_group_end(text: str, end: int | None) -> None:
    if end is None:
        with pytest.raises(LexError):
            lexer.group_end(text, 0)
        return
    assert lexer.group_end(text, 0) == end


@pytest.mark.parametrize("text", ["(a", "{a // }", "#a.b<(>", '#a.b<">', "<a"])
def test_unbalanced_groups_are_errors(text: str) -> None:
    with pytest.raises(LexError):
        list(lexer.tokens(text))
        lexer.group_end(text, 0)


def test_resource_sections_skip_their_strings() -> None:
    text = '{-# a: { b: "x #-} y" } #-} z'
    assert lexer.metadata_end(text, 0) == len(text) - 2
    with pytest.raises(LexError):
        lexer.metadata_end('{-# a: "#-}', 0)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('#foo<"x"> : i32, b = 2}', '#foo<"x"> : i32'),
        ('[loc(callsite("a" at "b"))], x', '[loc(callsite("a" at "b"))]'),
        ("affine_set<(d0) : (d0 >= 0)>}", "affine_set<(d0) : (d0 >= 0)>"),
        ("distinct[0]<>, x", "distinct[0]<>"),
        ("sparse<[[0, 1]], [1]> : tensor<2xi32>}", "sparse<[[0, 1]], [1]> : tensor<2xi32>"),
        ("dense<[1, 2]> : tensor<2xi32>", "dense<[1, 2]> : tensor<2xi32>"),
    ],
)
def test_value_end(text: str, value: str) -> None:
    assert text[: lexer.value_end(text, 0)] == value


# Balanced type and attribute text: names with `<…>` groups, `(…)`, `[…]`, `{…}`,
# properties `<{…}>`, comparisons, arrows, strings and dialect bodies holding brackets.
_LEAVES = st.sampled_from(
    [
        "f32",
        "4x?xi8",
        "(d0 >= 0)",
        "(d0 <= 4)",
        "(a > b, c < d)",
        "->",
        '"<(]"',
        '#a.b<[<x>] "(">',
        "!c<x -> y>",
        "1",
    ]
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.builds(
            lambda name, items: f"{name}<{', '.join(items)}>",
            st.sampled_from(["tensor", "f", "x.y", "distinct[0]"]),
            st.lists(inner, max_size=3),
        ),
        st.builds(lambda items: f"({', '.join(items)})", st.lists(inner, max_size=3)),
        st.builds(lambda items: f"[{', '.join(items)}]", st.lists(inner, max_size=3)),
        st.builds(lambda items: f"{{a = {' '.join(items)}}}", st.lists(inner, max_size=3)),
        st.builds(lambda items: f"<{{p = {' '.join(items)}}}>", st.lists(inner, max_size=2)),
    ),
    max_leaves=8,
)


@given(_VALUES.filter(lambda value: "<" in value and not value.startswith('"')))
@settings(max_examples=300)
def test_one_bracket_rule_for_tokens_and_views(value: str) -> None:
    """`group_end` of a `<` (a view of brackets) and `value_end` (tokens) pair the same
    brackets: both walk `Nesting`."""
    text = f"{value}, z"
    assert lexer.value_end(text, 0) == len(value)
    if value.startswith(("tensor<", "f<", "x.y<", "<")):
        assert lexer.group_end(text, value.index("<")) == len(value)


@pytest.mark.parametrize(
    ("text", "changes", "left"),
    [
        ("tensor<4xf32>", [1, -1], []),
        # A `<` that follows no name and precedes no `{` is a comparison, and so is a `>`
        # that closes no `<` or is a `>=`.
        ("(a < b, c > d, e >= f)", [1, 0, 0, 0, -1], []),
        ("x<{a}>", [1, 1, -1, -1], []),
        ("distinct[0]<", [1, -1, 1], ["<"]),
        ("f<=", [0], []),
    ],
)
def test_nesting(text: str, changes: list[int], left: list[str]) -> None:
    nesting = lexer.Nesting(text, len(text))
    taken = [nesting.bracket(pos) for pos, char in enumerate(text) if char in lexer.BRACKETS]
    assert (taken, nesting.stack) == (changes, left)


@pytest.mark.parametrize(
    ("text", "at"), [("(]", 1), ("<a)", 2), ("x<(]", 3), ("x<a)", 3), ("]", 0)]
)
def test_nesting_refuses_a_bracket_that_closes_another_group(text: str, at: int) -> None:
    nesting = lexer.Nesting(text, len(text))
    with pytest.raises(LexError) as error:
        for pos, char in enumerate(text):
            if char in lexer.BRACKETS:
                nesting.bracket(pos)
    assert (error.value.message, error.value.offset) == (f"unbalanced '{text[at]}'", at)


def test_skip_blank() -> None:
    text = "a\n  // c\r\n  b"
    assert lexer.skip_blank(text, 1) == text.index("b")


# -- Agreement with xDSL's lexer ------------------------------------------------------------

_IDENTIFIER = st.from_regex(r"[A-Za-z_][A-Za-z0-9_$.]{0,6}", fullmatch=True)
_SUFFIX = st.from_regex(r"[0-9]{1,3}|[A-Za-z_$.\-][A-Za-z0-9_$.\-]{0,5}", fullmatch=True)
_STRING = st.lists(
    st.sampled_from(["a", " ", "<", ">", "/", "#", "{", "\\n", '\\"', "\\\\", "\\3F", "é"]),
    max_size=6,
).map(lambda parts: '"' + "".join(parts) + '"')
_TOKEN = st.one_of(
    _IDENTIFIER,
    _SUFFIX.map(lambda s: "%" + s),
    _SUFFIX.map(lambda s: "^" + s),
    _SUFFIX.map(lambda s: "#" + s),
    _SUFFIX.map(lambda s: "!" + s),
    _IDENTIFIER.map(lambda s: "@" + s),
    _STRING,
    _STRING.map(lambda s: "@" + s),
    st.from_regex(
        r"[0-9]{1,4}|0x[0-9A-F]{1,4}|[0-9]{1,2}\.[0-9]{0,2}(?:e-?[0-9])?", fullmatch=True
    ),
    st.sampled_from(
        ["->", "...", ":", ",", "(", ")", "{", "}", "[", "]", "<", ">", "=", "+", "*", "?", "|"]
    ),
)
_BLANK = st.sampled_from([" ", "  ", "\n", "\t", " // comment\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_TOKEN, _BLANK), max_size=12))
def test_tokens_agree_with_xdsls_lexer(pieces: list[tuple[str, str]]) -> None:
    """Token by token, spans included, against the lexer the pipeline's parser uses
    (xDSL's, `xdsl_fixes.FixedLexer`). (Every token is followed by a blank, so no `<`
    follows a `#`/`!` name: a dialect body is one token here, several in xDSL's lexer.)"""
    from xdsl.utils.lexer import Input
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    from abi_compiler.xdsl_boundary.xdsl_fixes import FixedLexer

    text = "".join(token + blank for token, blank in pieces)
    ours = [(start, end) for _, start, end in lexer.tokens(text)]
    theirs = []
    xdsl = FixedLexer(Input(text, "x"))
    while (token := xdsl.lex()).kind is not MLIRTokenKind.EOF:
        theirs.append((token.span.start, token.span.end))
    assert ours == theirs
