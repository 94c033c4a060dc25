"""`func.func` headers built without xDSL's lexer (carried text, docs/carried-text.md).

A function whose body is carried needs only its header as IR. xDSL's parser spends about
a millisecond on one header, token by token through its Python lexer; most of that is
spent on the same few texts again and again (every `tensor<?x8xf32>`, every
`{tf_saved_model.index_path = ["in", 0]}`). `HeaderReader` splits a header at its
punctuation with a few regular expressions and gives each *distinct* type or attribute
dictionary text to xDSL's own parser once, so every type and attribute in the IR is
still one xDSL made, and builds the `func.func` exactly as xDSL's `func.func` parser does
(the same properties, an entry block with the arguments' name hints, source offsets
recorded for diagnostics).

The reader only takes headers of the plain shape

    func.func [private|public|nested] @name(%a: T [{…}], …) [-> T | -> (T [{…}], …)]
        [attributes {…}] {

with every `loc(…)` already masked out. Anything else — a quoted name, a declaration, a
function type as an argument type, a comment, a text that refers to an alias defined in
the file, a text xDSL rejects — makes it answer None, and that header is parsed by xDSL
as before (which also reports any error in it, at its place).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Region, SSAValue

from abi_compiler.identity import IdentityCache
from abi_compiler.ir.location_table import LocationTable
from abi_compiler.pipeline.plan import Plan
from abi_compiler.pipeline.type_cache import type_extent
from abi_compiler.pipeline.xdsl_fixes import FixedParser
from abi_compiler.text import carry
from abi_compiler.text.carry import BARE_IDENTIFIER, FuncText, ScanError, match_close

_T = TypeVar("_T")
_SPACE = re.compile(r"\s*")
_VISIBILITY = re.compile(r"(private|public|nested)\s+")
_NAME = re.compile(rf"@({BARE_IDENTIFIER.pattern})")
_ARGUMENT = re.compile(r"%([A-Za-z0-9_$.\-]+)\s*:\s*")
# Most types in one match, with the extent `type_extent` gives them: a bare name, or a
# parametrized builtin or dialect type whose `<…>` holds no `<`, `>` or string.
_SIMPLE_TYPE = re.compile(
    r'(?:(?:tensor|vector|memref|complex|tuple|![A-Za-z_][A-Za-z0-9_$.]*)<[^<>"]*>'
    r"|!?[A-Za-z_][A-Za-z0-9_$.]*)(?![<A-Za-z0-9_$.])"
)
_ATTRIBUTES = re.compile(r"attributes\s*(?=\{)")
_ALIAS_USE = re.compile(r"[#!]([A-Za-z_][A-Za-z0-9_$.\-]*)")
# What xDSL's `func.func` parser reserves in `attributes {…}` (it reports them).
_RESERVED = frozenset(("sym_name", "function_type", "sym_visibility"))


class _Unread(Exception):
    """This header is not of the plain shape: xDSL parses it."""


@dataclass(frozen=True, slots=True)
class _Signature:
    """What a header says after its name, read once per distinct text."""

    inputs: tuple[Attribute, ...]
    function_type: FunctionType
    arg_attrs: ArrayAttr[DictionaryAttr] | None
    res_attrs: ArrayAttr[DictionaryAttr] | None
    attributes: DictionaryAttr | None
    names: tuple[str, ...]
    #: Of each argument's `%`, from the end of the name.
    offsets: tuple[int, ...]


class HeaderReader:
    """Builds `func.func` headers of carried functions; one per chunk (``aliases``: the
    names of the aliases the chunk defines, with their `#`/`!`)."""

    def __init__(self, ctx: Context, aliases: Collection[str]) -> None:
        self._ctx = ctx
        self._aliases = frozenset(aliases)
        self._types: dict[str, Attribute | None] = {}
        self._dicts: dict[str, DictionaryAttr | None] = {}
        self._function_types: IdentityCache[FunctionType] = IdentityCache()
        self._arrays: IdentityCache[ArrayAttr[DictionaryAttr]] = IdentityCache()
        self._signatures: dict[str, _Signature] = {}

    def read(self, text: str, item: FuncText, table: LocationTable, base: int) -> FuncOp | None:
        """The header of ``item`` (in ``text``, locations masked) as a `func.func` with an
        empty entry block, its offsets recorded in ``table``; None if it is not plain."""
        if item.body_start is None or "//" in text[item.start : item.body_start]:
            return None
        try:
            return self._read(text, item, table, base)
        except (_Unread, ScanError, IndexError):
            return None

    def _read(self, text: str, item: FuncText, table: LocationTable, base: int) -> FuncOp:
        assert item.body_start is not None
        pos = _skip(text, item.start + len("func.func"))
        visibility = None
        if (match := _VISIBILITY.match(text, pos)) is not None:
            visibility = match.group(1)
            pos = match.end()
        name = _NAME.match(text, pos)
        if name is None:
            raise _Unread
        # What follows the name: the same text (modules repeat signatures) is read once.
        key = text[name.end() : item.body_start]
        signature = self._signatures.get(key)
        if signature is None:
            signature = self._signatures[key] = self._signature(key)
        block = Block(arg_types=signature.inputs)
        # The properties `FuncOp(…)` sets, in its order, without its generic (slower)
        # construction.
        properties: dict[str, Attribute] = {
            "sym_name": StringAttr(name.group(1)),
            "function_type": signature.function_type,
        }
        if visibility is not None:
            properties["sym_visibility"] = StringAttr(visibility)
        if signature.arg_attrs is not None:
            properties["arg_attrs"] = signature.arg_attrs
        if signature.res_attrs is not None:
            properties["res_attrs"] = signature.res_attrs
        func: FuncOp = FuncOp.create(
            properties=properties,
            attributes={} if signature.attributes is None else dict(signature.attributes.data),
            regions=[Region(block)],
        )
        table.record(func, base + item.start)
        start = base + name.end()
        for value, value_name, offset in zip(
            block.args, signature.names, signature.offsets, strict=True
        ):
            if SSAValue.is_valid_name(value_name):
                value.name_hint = value_name
            table.record(value, start + offset)
        return func

    def _signature(self, text: str) -> _Signature:
        """`(%a: T {…}, …) -> (…) attributes {…}` and blanks, all of ``text``."""
        pos = _expect(text, _skip(text, 0), "(")
        names: list[str] = []
        offsets: list[int] = []
        inputs: list[Attribute] = []
        arg_dicts: list[DictionaryAttr] = []
        if text[pos] == ")":
            pos += 1
        else:
            while True:
                argument = _ARGUMENT.match(text, pos)
                if argument is None or argument.group(1) in names:
                    raise _Unread
                names.append(argument.group(1))
                offsets.append(pos)
                pos = self._typed_value(text, argument.end(), inputs, arg_dicts)
                if text[pos] == ")":
                    pos += 1
                    break
                pos = _skip(text, _expect(text, pos, ","))
        pos = _skip(text, pos)
        outputs: list[Attribute] = []
        res_dicts: list[DictionaryAttr] = []
        if text.startswith("->", pos):
            pos = _skip(text, pos + 2)
            if text[pos] == "(":
                pos = _skip(text, pos + 1)
                if text[pos] == ")":
                    pos += 1
                else:
                    while True:
                        pos = self._typed_value(text, pos, outputs, res_dicts)
                        if text[pos] == ")":
                            pos += 1
                            break
                        pos = _skip(text, _expect(text, pos, ","))
            else:
                pos = self._type(text, pos, outputs)
            pos = _skip(text, pos)
        attributes: DictionaryAttr | None = None
        if (keyword := _ATTRIBUTES.match(text, pos)) is not None:
            close = match_close(text, keyword.end())
            attributes = self._dict(text[keyword.end() : close])
            if _RESERVED.intersection(attributes.data):
                raise _Unread
            pos = _skip(text, close)
        if pos != len(text):
            raise _Unread
        return _Signature(
            tuple(inputs),
            self._function_type(inputs, outputs),
            self._array(arg_dicts) if any(d.data for d in arg_dicts) else None,
            self._array(res_dicts) if any(d.data for d in res_dicts) else None,
            attributes,
            tuple(names),
            tuple(offsets),
        )

    # The parts of a header are the reader's own objects (one per distinct text), so
    # identical signatures share their (immutable) `FunctionType` and attribute arrays.

    def _function_type(self, inputs: list[Attribute], outputs: list[Attribute]) -> FunctionType:
        return self._function_types.answer(
            lambda: FunctionType.from_lists(inputs, outputs), *inputs, _ARROW, *outputs
        )

    def _array(self, dicts: list[DictionaryAttr]) -> ArrayAttr[DictionaryAttr]:
        return self._arrays.answer(lambda: ArrayAttr(dicts), *dicts)

    def _typed_value(
        self, text: str, pos: int, types: list[Attribute], dicts: list[DictionaryAttr]
    ) -> int:
        """`T [{…}]` at ``pos``; returns the position after it and its blanks."""
        pos = _skip(text, self._type(text, pos, types))
        if text[pos] == "{":
            close = match_close(text, pos)
            dicts.append(self._dict(text[pos:close]))
            return _skip(text, close)
        dicts.append(_EMPTY)
        return pos

    def _type(self, text: str, pos: int, types: list[Attribute]) -> int:
        simple = _SIMPLE_TYPE.match(text, pos)
        end = simple.end() if simple is not None else type_extent(text, pos)
        if end is None:
            raise _Unread
        key = text[pos:end]
        if key not in self._types:
            self._types[key] = self._parse(key, FixedParser.parse_optional_type)
        parsed = self._types[key]
        if parsed is None:
            raise _Unread
        types.append(parsed)
        return end

    def _dict(self, key: str) -> DictionaryAttr:
        if key not in self._dicts:
            entries = self._parse(key, FixedParser.parse_optional_dictionary_attr_dict)
            self._dicts[key] = None if entries is None else DictionaryAttr(entries)
        parsed = self._dicts[key]
        if parsed is None:
            raise _Unread
        return parsed

    def _parse(self, key: str, method: Callable[[FixedParser], _T | None]) -> _T | None:
        """``method`` of a parser of ``key`` alone, if it reads all of it (None when the
        text names one of the chunk's aliases, which only the whole chunk's parser
        knows, or does not parse)."""
        if any(use in self._aliases for use in _alias_uses(key)):
            return None
        parser = FixedParser(self._ctx, key)
        try:
            parsed = method(parser)
        except Exception:
            return None
        return parsed if parser.pos == len(key) else None


_EMPTY = DictionaryAttr({})
_ARROW = object()  # between the inputs and the outputs of a `_function_type` key


def _alias_uses(text: str) -> list[str]:
    return [match.group() for match in _ALIAS_USE.finditer(text)]


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    assert match is not None
    return match.end()


def _expect(text: str, pos: int, char: str) -> int:
    if text[pos] != char:
        raise _Unread
    return pos + 1


def read_headers(
    plan: Plan, reader: HeaderReader, table: LocationTable, base: int
) -> dict[int, FuncOp]:
    """The headers of the carried functions of ``plan`` that ``reader`` takes, by index
    into the layout's ops; those functions are then masked whole in ``plan.masked``
    (xDSL does not see them)."""
    headers: dict[int, FuncOp] = {}
    ranges = []
    for index, item in enumerate(plan.layout.ops):
        if isinstance(item, FuncText) and index not in plan.parsed:
            func = reader.read(plan.masked, item, table, base)
            if func is not None:
                headers[index] = func
                ranges.append((item.start, item.end))
    if ranges:
        plan.masked = carry.mask(plan.masked, ranges)
    return headers
