"""The types and dictionaries of ABI signatures read without xDSL's lexer (docs/carried-text.md).

xDSL's parser reads a type token by token through its Python lexer, and each token through
several layers of calls: a `tensor<?x8xf32>` costs about 100 µs, a structured
`!abi.dict<…>` a millisecond. The types the ABI uses are few and simple: builtin
`tensor<…>` (ranked or unranked, no encoding), integer, float, `index` and `tuple<…>`
types, and this project's `!abi.dict<…>`, `!util.list<…>`, `!iree.list<…>` and
`!torch.vtensor<…>`; the dictionaries on their arguments and results hold strings,
integers, arrays and dictionaries (`{tf_saved_model.index_path = [1, "ids"]}`).
`TypeReader` reads exactly those texts, with the patterns of `abi_compiler.text.lexer`,
and builds the very objects xDSL's parser builds from them (the same constructors, the
dialect types through the class the context registers under that name, with `new` as
xDSL does). Anything else — an encoding, an alias, another dialect, a comment, an
escape in a string, a value xDSL would read differently or reject — makes it answer
None, and the caller gives the text to xDSL, which reads it (or reports it) as before.

Whitespace is allowed where xDSL's lexer skips it, except inside a dimension list
(`tensor<2 x f32>` is left to xDSL). `tests/text_to_ir/test_type_reader.py` checks, on
every type and dictionary of the lit suite and on generated ones, that an answer is
always the one xDSL gives.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    StringAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute

from abi_compiler.text.lexer import (
    ALIAS_NAME,
    BARE_IDENTIFIER,
    DIMENSIONS,
    PLAIN_STRING,
    SIGNED_DECIMAL,
    SPACES,
)
from abi_compiler.xdsl_boundary.xdsl_compat import BUILTIN_FLOAT_TYPES, BUILTIN_INTEGER_TYPE

__all__ = ["TypeReader"]


class _Unread(Exception):
    """Not a text this reader knows: xDSL reads it."""


_SIGNEDNESS = {"s": Signedness.SIGNED, "u": Signedness.UNSIGNED, "i": Signedness.SIGNLESS}
# IntegerAttr's range for i64 is wider than int64; integers are read within int64 only.
_INT64 = 2**63
# A result of reading: the value and the position after it.
_Read = tuple[TypeAttribute, int]


def _space(text: str, pos: int) -> int:
    match = SPACES.match(text, pos)
    assert match is not None  # (`SPACES` matches the empty string)
    return match.end()


def _expect(text: str, pos: int, char: str) -> int:
    """The position after ``char``, which comes at ``pos`` after whitespace."""
    pos = _space(text, pos)
    if not text.startswith(char, pos):
        raise _Unread
    return _space(text, pos + 1)


class TypeReader:
    """Reads the texts of the ABI's types and dictionaries for the dialects of ``ctx``
    (one per parser: it remembers the dialect types it looked up)."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._names: dict[str, TypeAttribute | None] = {}
        self._tensors: dict[str, TensorType[Attribute]] = {}
        self._dialect_types: dict[str, tuple[type[ParametrizedAttribute], _Body] | None] = {}

    # -- Entry points --------------------------------------------------------------------

    def read_type(self, text: str) -> TypeAttribute | None:
        """The type ``text`` (all of it, blanks around it aside) is, as xDSL would build
        it; None when it is not one this reader knows."""
        try:
            value, pos = self._type(text, _space(text, 0))
            if _space(text, pos) != len(text):
                return None
            return value
        except _Unread:
            return None
        except Exception:  # a constructor's verifier: xDSL reports it
            return None

    def read_dictionary(self, text: str) -> dict[str, Attribute] | None:
        """The entries of the dictionary ``text`` (`{…}`, all of it), as xDSL's
        `parse_optional_dictionary_attr_dict` answers them; None when it is not one this
        reader knows."""
        try:
            pos = _space(text, 0)
            if not text.startswith("{", pos):
                return None
            entries, pos = self._entries(text, _space(text, pos + 1))
            if _space(text, pos) != len(text):
                return None
            return entries
        except _Unread:
            return None
        except Exception:
            return None

    # -- Types ---------------------------------------------------------------------------

    def _type(self, text: str, pos: int) -> _Read:
        if text.startswith("!", pos):
            match = ALIAS_NAME.match(text, pos)
            if match is None:
                raise _Unread
            end = match.end()
            dialect_type = self._dialect_type(match.group()[1:])
            # (A bare `!torch.vtensor` is left to xDSL: it reads a `<` after blanks too.)
            if dialect_type is None or not text.startswith("<", end):
                raise _Unread
            cls, body = dialect_type
            parameters, pos = body(self, text, _space(text, end + 1))
            return cls.new(parameters), pos
        match = BARE_IDENTIFIER.match(text, pos)
        if match is None:
            raise _Unread
        name = match.group()
        end = match.end()
        if text.startswith("<", end):
            if name == "tensor":
                return self._tensor(text, pos, _space(text, end + 1))
            if name == "tuple":
                return self._tuple(text, _space(text, end + 1))
            raise _Unread
        return self._named(name), end

    def _named(self, name: str) -> TypeAttribute:
        """A type spelled with one word: `index`, an integer or a float type."""
        if name in self._names:
            found = self._names[name]
        else:
            found = self._names[name] = _named_type(name)
        if found is None:
            raise _Unread
        return found

    def _tensor(self, text: str, start: int, pos: int) -> _Read:
        """The tensor type at ``start``, whose parameters are at ``pos``. Tensor types
        repeat inside the structured ones: each text is built once (a `TensorType` costs
        more to verify than to read)."""
        if text.startswith("*x", pos):
            element, pos = self._type(text, pos + 2)
            return UnrankedTensorType(element), self._close(text, pos)
        match = DIMENSIONS.match(text, pos)
        assert match is not None  # (matches the empty string)
        element, pos = self._type(text, match.end())
        end = self._close(text, pos)
        key = text[start:end]
        tensor = self._tensors.get(key)
        if tensor is None:
            dims = match.group().split("x")[:-1]
            shape = [DYNAMIC_INDEX if dim == "?" else int(dim) for dim in dims]
            tensor = self._tensors[key] = TensorType(element, shape)
        return tensor, end

    def _tuple(self, text: str, pos: int) -> _Read:
        if text.startswith(">", pos):
            return TupleType(ArrayAttr(())), pos + 1
        types: list[TypeAttribute] = []
        while True:
            value, pos = self._type(text, pos)
            types.append(value)
            pos = _space(text, pos)
            if text.startswith(",", pos):
                pos = _space(text, pos + 1)
                continue
            return TupleType(ArrayAttr(types)), self._close(text, pos)

    @staticmethod
    def _close(text: str, pos: int) -> int:
        """The position after the `>` at ``pos`` (after blanks)."""
        pos = _space(text, pos)
        if not text.startswith(">", pos):
            raise _Unread
        return pos + 1

    def _dialect_type(self, name: str) -> tuple[type[ParametrizedAttribute], _Body] | None:
        """The class ``ctx`` has for the dialect type ``name`` and the reader of its
        parameters, when it is one of this project's types this reader knows."""
        if name in self._dialect_types:
            return self._dialect_types[name]
        known = _DIALECT_TYPES.get(name)
        found: tuple[type[ParametrizedAttribute], _Body] | None = None
        if known is not None:
            # (What xDSL's parser asks the context for the same text: the same dialect
            # loaded, or the same unregistered type made.)
            cls = self._ctx.get_optional_type(name)
            module, class_name, body = known
            if cls is not None and (cls.__module__, cls.__name__) == (module, class_name):
                assert issubclass(cls, ParametrizedAttribute)
                found = (cls, body)
        self._dialect_types[name] = found
        return found

    # The parameters of the dialect types, after their `<` (and blanks): what their
    # `parse_parameters` return.

    def _abi_dict(self, text: str, pos: int) -> tuple[list[Attribute], int]:
        keys: list[StringAttr] = []
        types: list[Attribute] = []
        if not text.startswith(">", pos):
            while True:
                key, pos = _string(text, pos)
                value, pos = self._type(text, _expect(text, pos, ":"))
                keys.append(StringAttr(key))
                types.append(value)
                pos = _space(text, pos)
                if not text.startswith(",", pos):
                    break
                pos = _space(text, pos + 1)
        return [ArrayAttr(keys), ArrayAttr(types)], self._close(text, pos)

    def _list(self, text: str, pos: int) -> tuple[list[Attribute], int]:
        if text.startswith("?", pos):
            from abi_compiler.dialects.util import VariantType  # (loaded with the list type)

            return [VariantType()], self._close(text, pos + 1)
        element, pos = self._type(text, pos)
        return [element], self._close(text, pos)

    def _vtensor(self, text: str, pos: int) -> tuple[list[Attribute], int]:
        from abi_compiler.dialects.torch import UNKNOWN_SIZE  # (loaded with the type)

        sizes: Attribute = NoneAttr()
        if text.startswith("*", pos):
            pos += 1
        elif text.startswith("[", pos):
            values: list[IntAttr] = []
            pos = _space(text, pos + 1)
            if not text.startswith("]", pos):
                while True:
                    if text.startswith("?", pos):
                        values.append(IntAttr(UNKNOWN_SIZE))
                        pos += 1
                    else:
                        size, pos = _integer(text, pos)
                        values.append(IntAttr(UNKNOWN_SIZE if size < 0 else size))
                    pos = _space(text, pos)
                    if not text.startswith(",", pos):
                        break
                    pos = _space(text, pos + 1)
            pos = _expect(text, pos, "]")
            sizes = ArrayAttr(values)
        else:
            raise _Unread
        pos = _expect(text, pos, ",")
        match = BARE_IDENTIFIER.match(text, pos)
        if match is None:
            raise _Unread
        if match.group() == "unk":
            dtype: Attribute = NoneAttr()
        else:
            dtype = self._named(match.group())
            if isinstance(dtype, IndexType):  # (not a torch dtype: xDSL's error)
                raise _Unread
        return [sizes, dtype], self._close(text, match.end())

    # -- Dictionaries --------------------------------------------------------------------

    def _entries(self, text: str, pos: int) -> tuple[dict[str, Attribute], int]:
        """The entries of a dictionary after its `{` (and blanks), and the position after
        its `}`."""
        entries: dict[str, Attribute] = {}
        if text.startswith("}", pos):
            return entries, pos + 1
        while True:
            if text.startswith('"', pos):
                key, pos = _string(text, pos)
            else:
                match = BARE_IDENTIFIER.match(text, pos)
                if match is None:
                    raise _Unread
                key, pos = match.group(), match.end()
            if key in entries:  # (xDSL's error)
                raise _Unread
            pos = _space(text, pos)
            if text.startswith("=", pos):
                entries[key], pos = self._attribute(text, _space(text, pos + 1))
                pos = _space(text, pos)
            else:
                entries[key] = UnitAttr()
            if text.startswith(",", pos):
                pos = _space(text, pos + 1)
                continue
            if text.startswith("}", pos):
                return entries, pos + 1
            raise _Unread

    def _attribute(self, text: str, pos: int) -> tuple[Attribute, int]:
        """A string, an integer (an `i64`, as xDSL reads one with no type), an array of
        attributes or a dictionary."""
        char = text[pos : pos + 1]
        if char == '"':
            value, pos = _string(text, pos)
            return StringAttr(value), pos
        if char == "[":
            elements: list[Attribute] = []
            pos = _space(text, pos + 1)
            if text.startswith("]", pos):
                return ArrayAttr(()), pos + 1
            while True:
                element, pos = self._attribute(text, pos)
                elements.append(element)
                pos = _space(text, pos)
                if text.startswith(",", pos):
                    pos = _space(text, pos + 1)
                    continue
                if text.startswith("]", pos):
                    return ArrayAttr(elements), pos + 1
                raise _Unread
        if char == "{":
            entries, pos = self._entries(text, _space(text, pos + 1))
            return DictionaryAttr(entries), pos
        number, pos = _integer(text, pos)
        return IntegerAttr(number, i64), pos


_Body = Callable[[TypeReader, str, int], tuple[list[Attribute], int]]

#: The dialect types read here: name -> (module and name of the class `ctx` must have for
#: it, the reader of its parameters).
_DIALECT_TYPES: dict[str, tuple[str, str, _Body]] = {
    "abi.dict": ("abi_compiler.dialects.abi", "DictType", TypeReader._abi_dict),
    "util.list": ("abi_compiler.dialects.util", "ListType", TypeReader._list),
    "iree.list": ("abi_compiler.dialects.iree", "IreeListType", TypeReader._list),
    "torch.vtensor": ("abi_compiler.dialects.torch", "ValueTensorType", TypeReader._vtensor),
}


def _named_type(name: str) -> TypeAttribute | None:
    if name == "index":
        return IndexType()
    match = BUILTIN_INTEGER_TYPE.match(name)
    if match is not None:
        return IntegerType(int(match.group(1)), _SIGNEDNESS[name[0]])
    return BUILTIN_FLOAT_TYPES.get(name)


def _string(text: str, pos: int) -> tuple[str, int]:
    """A string literal of printable ASCII without escapes, and the position after it."""
    match = PLAIN_STRING.match(text, pos)
    if match is None:
        raise _Unread
    return match.group()[1:-1], match.end()


def _integer(text: str, pos: int) -> tuple[int, int]:
    """A decimal integer within int64 that is a token of its own (not `0x1`, `1.5`)."""
    match = SIGNED_DECIMAL.match(text, pos)
    if match is None:
        raise _Unread
    end = match.end()
    if end < len(text) and (text[end].isalnum() or text[end] in "._$"):
        raise _Unread
    value = int(match.group())
    if not -_INT64 <= value < _INT64:
        raise _Unread
    return value, end
