"""`func.func` headers built without xDSL's lexer (carried text, docs/carried-text.md).

A function whose body is carried needs only its header as IR. xDSL's parser spends about
a millisecond on one header, token by token through its Python lexer; most of that is
spent on the same few texts again and again (every `tensor<?x8xf32>`, every
`{tf_saved_model.index_path = ["in", 0]}`). The scanner (`abi_compiler.text.carry`)
already knows where each part of a header is: the name, each argument's name, type,
attribute dictionary and location, each result's type and dictionary, the function's
attributes. `HeaderReader` reads each *distinct* type or dictionary text once: with
`TypeReader` when it is one of the ABI's types or dictionaries (the objects xDSL would
build from it), else with xDSL's own parser (`TextValueParser`, which knows the chunk's
aliases). It builds the `func.func` exactly as xDSL's `func.func` parser does (the same
properties, an entry block with the arguments' name hints, source offsets recorded for
diagnostics).

A header the reader cannot build — a name MLIR rejects, two arguments of one name, a
reserved attribute in `attributes {…}`, a text xDSL rejects — makes it answer None, and
that header is parsed by xDSL as before (which also reports any error in it, at its
place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Region, SSAValue

from abi_compiler.identity import IdentityCache
from abi_compiler.ir.location_table import LocationTable
from abi_compiler.text.carry import FuncText, OpText
from abi_compiler.text.lexer import skip_blank
from abi_compiler.text_to_ir.carried_ir import Carried, CarriedFunction
from abi_compiler.text_to_ir.text_values import TextValueParser
from abi_compiler.text_to_ir.type_reader import TypeReader

_T = TypeVar("_T")
# What xDSL's `func.func` parser reserves in `attributes {…}` (it reports them).
_RESERVED = frozenset(("sym_name", "function_type", "sym_visibility"))


class _Unread(Exception):
    """This header cannot be built here: xDSL parses it."""


@dataclass(frozen=True, slots=True)
class _Signature:
    """What a header says after its name, read once per distinct text."""

    inputs: tuple[Attribute, ...]
    function_type: FunctionType
    arg_attrs: ArrayAttr[DictionaryAttr] | None
    res_attrs: ArrayAttr[DictionaryAttr] | None
    attributes: DictionaryAttr | None


class HeaderReader:
    """Builds `func.func` headers of carried functions; one per chunk (``aliases``: the
    chunk's alias definitions, by name with their `#`/`!`)."""

    def __init__(self, ctx: Context, aliases: Mapping[str, Attribute]) -> None:
        self._ctx = ctx
        self._aliases = dict(aliases)
        self._reader = TypeReader(ctx)
        self._types: dict[str, Attribute | None] = {}
        self._dicts: dict[str, DictionaryAttr | None] = {}
        self._function_types: IdentityCache[FunctionType] = IdentityCache()
        self._arrays: IdentityCache[ArrayAttr[DictionaryAttr]] = IdentityCache()
        self._signatures: dict[tuple[str | bool | None, ...], _Signature] = {}

    def read(self, text: str, item: FuncText, table: LocationTable, base: int) -> FuncOp | None:
        """The header of ``item`` (in ``text``) as a `func.func` (with an empty entry
        block, or no block for a declaration), its offsets recorded in ``table``; None
        if it cannot be built here."""
        try:
            return self._read(text, item, table, base)
        except _Unread:
            return None

    def _read(self, text: str, item: FuncText, table: LocationTable, base: int) -> FuncOp:
        if item.name is None or not item.plain:
            raise _Unread
        names = [arg.name for arg in item.args]
        declaration = item.body_start is None
        if declaration:
            if any(name is not None for name in names):
                raise _Unread
        elif None in names or len(set(names)) != len(names):
            raise _Unread
        # The same text (modules repeat signatures) is read once.
        key = _key(text, item)
        signature = self._signatures.get(key)
        if signature is None:
            signature = self._signatures[key] = self._signature(text, item)
        # The properties `FuncOp(…)` sets, in its order, without its generic (slower)
        # construction.
        properties: dict[str, Attribute] = {
            "sym_name": StringAttr(item.name),
            "function_type": signature.function_type,
        }
        if item.visibility is not None:
            properties["sym_visibility"] = StringAttr(item.visibility)
        if signature.arg_attrs is not None:
            properties["arg_attrs"] = signature.arg_attrs
        if signature.res_attrs is not None:
            properties["res_attrs"] = signature.res_attrs
        region = Region() if declaration else Region(Block(arg_types=signature.inputs))
        func: FuncOp = FuncOp.create(
            properties=properties,
            attributes={} if signature.attributes is None else dict(signature.attributes.data),
            regions=[region],
        )
        table.record(func, base + item.start)
        if not declaration:
            for value, arg in zip(func.body.block.args, item.args, strict=True):
                assert arg.name is not None
                if SSAValue.is_valid_name(arg.name):
                    value.name_hint = arg.name
                table.record(value, base + arg.start)
        return func

    def _signature(self, text: str, item: FuncText) -> _Signature:
        inputs = [self._type(text[arg.type[0] : arg.type[1]]) for arg in item.args]
        arg_dicts = [self._dict_at(text, arg.attributes) for arg in item.args]
        results = item.results or []
        outputs = [self._type(text[r.type[0] : r.type[1]]) for r in results]
        res_dicts = [self._dict_at(text, r.attributes) for r in results]
        attributes: DictionaryAttr | None = None
        if item.attributes is not None:
            keyword, end = item.attributes
            attributes = self._dict(text[skip_blank(text, keyword + len("attributes"), end) : end])
            if _RESERVED.intersection(attributes.data):
                raise _Unread
        return _Signature(
            tuple(inputs),
            self._function_type(inputs, outputs),
            self._array(arg_dicts) if any(d.data for d in arg_dicts) else None,
            self._array(res_dicts) if any(d.data for d in res_dicts) else None,
            attributes,
        )

    # The parts of a header are the reader's own objects (one per distinct text), so
    # identical signatures share their (immutable) `FunctionType` and attribute arrays.

    def _function_type(self, inputs: list[Attribute], outputs: list[Attribute]) -> FunctionType:
        return self._function_types.answer(
            lambda: FunctionType.from_lists(inputs, outputs), *inputs, _ARROW, *outputs
        )

    def _array(self, dicts: list[DictionaryAttr]) -> ArrayAttr[DictionaryAttr]:
        return self._arrays.answer(lambda: ArrayAttr(dicts), *dicts)

    def _type(self, key: str) -> Attribute:
        if key not in self._types:
            parsed: Attribute | None = self._reader.read_type(key)
            if parsed is None:
                parsed = self._parse(key, TextValueParser.parse_optional_type)
            self._types[key] = parsed
        parsed = self._types[key]
        if parsed is None:
            raise _Unread
        return parsed

    def _dict_at(self, text: str, span: tuple[int, int] | None) -> DictionaryAttr:
        return _EMPTY if span is None else self._dict(text[span[0] : span[1]])

    def _dict(self, key: str) -> DictionaryAttr:
        if key not in self._dicts:
            entries = self._reader.read_dictionary(key)
            if entries is None:
                entries = self._parse(key, TextValueParser.parse_optional_dictionary_attr_dict)
            self._dicts[key] = None if entries is None else DictionaryAttr(entries)
        parsed = self._dicts[key]
        if parsed is None:
            raise _Unread
        return parsed

    def _parse(self, key: str, method: Callable[[TextValueParser], _T | None]) -> _T | None:
        """``method`` of a parser of ``key`` alone (knowing the chunk's aliases), if it
        reads all of it."""
        parser = TextValueParser(self._ctx, key)
        parser.attribute_aliases = self._aliases
        try:
            parsed = method(parser)
        except Exception:
            return None
        return parsed if parser.pos == len(key) else None


def _key(text: str, item: FuncText) -> tuple[str | bool | None, ...]:
    """What a header's signature is read from: its types and dictionaries, as written
    (the text after the name when it holds no location, else each part)."""
    if not item.header_locs or item.header_locs[0][0] >= item.signature_end:
        end = item.signature_end if item.attributes is None else item.attributes[1]
        return (text[item.name_span[1] : end],)
    parts: list[str | bool | None] = [item.results_parenthesized]
    for arg in item.args:
        parts.append(text[arg.type[0] : arg.type[1]])
        parts.append(
            None if arg.attributes is None else text[arg.attributes[0] : arg.attributes[1]]
        )
    parts.append("->")  # (never a type or a dictionary)
    for result in item.results or ():
        parts.append(text[result.type[0] : result.type[1]])
        parts.append(
            None if result.attributes is None else text[result.attributes[0] : result.attributes[1]]
        )
    parts.append(None if item.attributes is None else text[item.attributes[0] : item.attributes[1]])
    return tuple(parts)


_EMPTY = DictionaryAttr({})
_ARROW = object()  # between the inputs and the outputs of a `_function_type` key


def read_headers(carried: Carried, reader: HeaderReader, table: LocationTable, base: int) -> None:
    """Build the headers of the carried functions that ``reader`` takes (into
    ``carried.headers``; xDSL then does not see those functions), and the stand-in of
    each nested module carried whole, with the headers of its functions (into
    ``carried.nested``)."""
    layout = carried.layout
    text = layout.text
    for index, item in enumerate(layout.ops):
        if index in carried.parsed:
            continue
        if isinstance(item, FuncText):
            func = reader.read(text, item, table, base)
            if func is not None:
                carried.headers[index] = func
        elif isinstance(item, OpText) and item.functions:
            functions = [reader.read(text, inner, table, base) for inner in item.functions]
            name = None if item.symbol is None else StringAttr(item.symbol)
            stand_in = ModuleOp([func for func in functions if func is not None], sym_name=name)
            carried.nested[index] = stand_in
            table.record(stand_in, base + item.start)
            for func, inner in zip(functions, item.functions, strict=True):
                if func is not None:
                    carried.functions[func] = CarriedFunction(
                        inner, dict(func.properties), dict(func.attributes)
                    )
