"""Attributes and types xDSL cannot read, kept as their text (docs/carried-text.md).

A header is always parsed into IR, and some of what MLIR accepts in one xDSL does not
read: a dialect attribute or type in its verbose form (`#foo<"x">`, `!foo<"a>b">`), a
typed attribute (`"x" : i32`, `#hal.device.target<…> : !hal.device`), `sparse<…>`,
`distinct[0]<…>`, a semi-affine map or set (`affine_map<()[s0, s1] -> (s0 * s1)>`), a
location attribute naming a location alias (`[loc(#loc3)]`, the alias is carried).
`TextValueParser` reads such a value as a `TextAttr` (or `TextType`) that holds its
source text, from where MLIR's lexical rules say it starts to where they say it ends
(`abi_compiler.text.lexer.value_end`), and prints it as written. Only those forms are
kept as text: any other value xDSL rejects is still its error, at its place.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import BuiltinAttribute, LocationAttr, StringAttr, UnitAttr, UnknownLoc
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from abi_compiler.text import lexer
from abi_compiler.text.lexer import BANG, BARE, BODY, HASH, PUNCT, STRING_TOKEN, LexError
from abi_compiler.xdsl_boundary.xdsl_fixes import FixedParser

__all__ = ["TextAttr", "TextType", "TextValueParser", "define_aliases"]


@irdl_attr_definition
class TextAttr(ParametrizedAttribute, BuiltinAttribute):
    """An attribute xDSL cannot read, as written (printed as written)."""

    name = "abi_opt.text"

    text: StringAttr

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string(self.text.data, indent=0)


@irdl_attr_definition
class TextType(ParametrizedAttribute, BuiltinAttribute, TypeAttribute):
    """A type xDSL cannot read, as written (printed as written)."""

    name = "abi_opt.text_type"

    text: StringAttr

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string(self.text.data, indent=0)


# Builtin attributes MLIR has and xDSL does not read.
_UNREAD_BUILTINS = frozenset(("sparse", "distinct", "loc"))
_AFFINE_NAME = re.compile(r"affine_(?:map|set)(?![\w$.])")


class TextValueParser(FixedParser):
    """xDSL's parser, reading the values xDSL cannot read as `TextAttr`/`TextType`, and
    the location of an op or argument it cannot read (`loc(#loc3)` before `#loc3` is
    defined, `loc("f.py":1:2 to :5)`) as an unknown one: `abi-opt` prints no location of
    a parsed op (but with `--print-debuginfo`)."""

    _attribute_depth = 0

    def parse_optional_attribute(self) -> Attribute | None:
        start = self.pos
        self._attribute_depth += 1
        try:
            return super().parse_optional_attribute()
        except NotImplementedError:
            # xDSL's affine expressions lack the semi-affine ones MLIR reads (`s0 * s1`,
            # `d0 mod s0`, `s1 ceildiv s0`): such a map or set is kept as written.
            end = self._semi_affine_end(start)
            if end is None:
                raise
        finally:
            self._attribute_depth -= 1
        self.resume_at(end)
        return TextAttr(StringAttr(self._content[start:end]))

    def parse_optional_location(self) -> LocationAttr | None:
        start = self.pos
        try:
            return super().parse_optional_location()
        except ParseError as error:
            # As an attribute, a location is a value: its dictionary keeps it as text.
            if self._attribute_depth or not self._content.startswith("loc", start):
                raise
            paren = lexer.skip_blank(self._content, start + 3)
            try:
                end = lexer.group_end(self._content, paren)
            except LexError:  # `loc(` never closed: xDSL's own diagnostic
                raise error from None
        self.resume_at(end)
        return UnknownLoc()

    def parse_optional_type(self) -> TypeAttribute | None:
        start = self.pos
        try:
            return super().parse_optional_type()
        except ParseError:
            end = self._verbose_type_end(start)
            if end is None:
                raise
        self.resume_at(end)
        return TextType(StringAttr(self._content[start:end]))

    def parse_optional_dictionary_attr_dict(self) -> dict[str, Attribute]:
        if self.current_token.kind is not MLIRTokenKind.L_BRACE:
            return {}
        return self._entries(self.parse_comma_separated_list(self.Delimiter.BRACES, self._entry))

    def parse_optional_properties_dict(self) -> dict[str, Attribute]:
        if self.parse_optional_punctuation("<") is None:
            return {}
        entries = self.parse_comma_separated_list(self.Delimiter.BRACES, self._entry)
        self.parse_punctuation(">")
        return self._entries(entries)

    def _entries(self, entries: list[tuple[str, Attribute]]) -> dict[str, Attribute]:
        found: dict[str, Attribute] = {}
        for key, value in entries:
            if key in found:
                self.raise_error(f"Duplicate key '{key}' in dictionary attribute")
            found[key] = value
        return found

    def _entry(self) -> tuple[str, Attribute]:
        """`key` or `key = value`, as xDSL reads an entry, with `parse_value`."""
        key = self.parse_optional_identifier_or_str_literal()
        if key is None:
            self.raise_error("Expected bare-id or string-literal here as part of attribute entry!")
        if self.parse_optional_punctuation("=") is None:
            return key, UnitAttr()
        return key, self.parse_value(",}")

    def parse_value(self, stops: str, end: int | None = None) -> Attribute:
        """The attribute at the current position, which ends at one of ``stops`` or at
        ``end``: what xDSL reads, else, as text, a typed value (`… : type`) or a form
        xDSL lacks."""
        text = self._content
        start = self.pos
        try:
            value = self.parse_attribute()
        except ParseError:
            stop = self._unread_value_end(start, stops, end)
            if stop is None:
                raise
            self.resume_at(stop)
            return TextAttr(StringAttr(text[start:stop].rstrip(" \t\r\n")))
        if self.current_token.kind is not MLIRTokenKind.COLON:
            return value
        # A typed attribute xDSL does not read as one (`"x" : i32`): its type must parse.
        colon = self.pos
        try:
            stop = lexer.value_end(text, start, end, stops)
        except LexError:
            return value
        self.resume_at(colon + 1)
        self.parse_type()
        if self.pos < stop:
            self.raise_error("unexpected text after a typed attribute")
        self.resume_at(stop)
        return TextAttr(StringAttr(text[start:stop].rstrip(" \t\r\n")))

    @property
    def _content(self) -> str:
        return self.lexer.input.content

    def _semi_affine_end(self, start: int) -> int | None:
        """The end of the `affine_map<…>` or `affine_set<…>` at ``start`` (None when
        there is none)."""
        text = self._content
        name = _AFFINE_NAME.match(text, start)
        if name is None:
            return None
        try:
            return lexer.group_end(text, lexer.skip_blank(text, name.end()))
        except LexError:
            return None

    def _verbose_type_end(self, start: int) -> int | None:
        """The end of the type at ``start`` when it is a type of a dialect abi-opt does
        not know in verbose form (`!foo<"a>b">`)."""
        text = self._content
        name = lexer.ALIAS_NAME.match(text, start)
        if name is None or text[start] != "!" or not text.startswith("<", name.end()):
            return None
        dialect = name.group()[1:]
        if "." in dialect or dialect in set(self.ctx.registered_dialect_names):
            return None
        try:
            return lexer.dialect_body_end(text, name.end())
        except LexError:
            return None

    def _unread_value_end(self, start: int, stops: str, end: int | None) -> int | None:
        """The end of the value at ``start`` when it holds one of the forms xDSL does not
        read (None for anything else: xDSL's error stands)."""
        text = self._content
        try:
            stop = lexer.value_end(text, start, end, stops)
            known = set(self.ctx.registered_dialect_names)
            previous = (0, start, start)
            for token in lexer.tokens(text, start, stop):
                kind, token_start, token_end = token
                if kind == BODY and previous[0] in (HASH, BANG):
                    dialect = text[previous[1] + 1 : token_start]
                    if "." not in dialect and dialect not in known:
                        return stop
                elif kind == BARE and text[token_start:token_end] in _UNREAD_BUILTINS:
                    following = lexer.skip_blank(text, token_end, stop)
                    if text.startswith(("<", "[", "("), following):
                        return stop
                elif (
                    kind == PUNCT
                    and text[token_start] == ":"
                    and previous[0] in (BODY, STRING_TOKEN)
                ):
                    # A typed dialect attribute or string (`#d.a<…> : !d.t`, `"x" : i32`).
                    return stop
                previous = token
        except LexError:
            return None
        return None


def define_aliases(parser: TextValueParser, definitions: list[tuple[str, int, int, int]]) -> None:
    """Define the aliases ``definitions`` ((name with `#`/`!`, start, value start, end),
    in text order) in ``parser``, each value read as `TextValueParser.parse_value` reads
    one. Raises ParseError as xDSL does (a value it rejects, a re-declared name)."""
    text = parser.lexer.input.content
    for name, start, value_start, end in definitions:
        if name in parser.attribute_aliases:
            parser.resume_at(start)
            parser.raise_error(f"re-declaration of alias '{name}'")
        parser.resume_at(value_start)
        value = parser.parse_value("", end)
        if parser.pos < lexer.skip_blank(text, end):
            parser.raise_error("unexpected text after the aliased value")
        if name[0] == "!" and isinstance(value, TextAttr):
            value = TextType(value.text)
        parser.attribute_aliases[name] = value
