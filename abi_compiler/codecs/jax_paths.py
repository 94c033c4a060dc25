"""JAX pytree key strings (docs/spec.md §3.3): `jax.arg_info` / `jax.result_info` → index paths.

JAX writes where each flat argument and result sits in the traced function's pytrees as
the key string of its path (`jax.tree_util.keystr`): each key is `[<int>]` (a sequence
index), `[<Python repr of a str>]` (a dict key: `['k']`, `["it's"]`) or `.<name>` (an
attribute, read as the dict key `name`). Arguments are prefixed with the parameter name
(`params['dense']['w']`); results are the bare keys (`""` is the single-leaf root), or,
as JAX writes them since 0.5.3, prefixed with `result` (`result['loss']`).

(Argument names come from `jax.arg_info` or, since JAX 0.4.14, from the argument's name
location; the passes find them, this module reads the texts.)

This module reads that grammar in one linear pass and turns the texts into the index
paths of docs/spec.md §3.2: argument `<name><keys>` → `[<position of name>, <keys>…]`, each
distinct name one positional root argument in order of first appearance, after the
platform index and effect token arguments; result `<keys>` → `[<keys>…]`. `first_gap`
finds where JAX dropped a `None` leaf or an empty container among the results. Keys JAX writes for pytree nodes without keys
(`[<flat index 0>]`) and custom keys (`[('i', 'k')]`, `[1.5]`) do not read: they are
`AbiError`s, which the passes turn into a warning and a flat signature.

Pure Python: no xDSL imports (a runtime can vendor it with the other codecs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from abi_compiler.errors import AbiError
from abi_compiler.model import IndexPath, IndexPathComponent

# The largest sequence index read: a gap-filled sequence this long is already far
# beyond any real pytree (the SIP codec uses the same bound).
MAX_SEQUENCE_KEY = 2**20

# A result key string may start with this literal (JAX since 2025: `result[0]`).
RESULT_PREFIX = "result"

_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_FLAT_INDEX = "<flat index "


def _error(message: str, text: str, index: int) -> AbiError:
    """An error at character ``index``, located by UTF-8 byte offset (as every codec)."""
    offset = len(text[:index].encode("utf-8", "surrogatepass"))
    return AbiError(message, offset=offset)


def _parse_int_key(text: str, start: int, end: int) -> int:
    digits = text[start:end]
    if not digits.isascii() or not digits.isdigit():
        raise _error(f"unsupported key '[{digits}]'", text, start - 1)
    if len(digits) > 1 and digits[0] == "0":
        raise _error(f"sequence key with a leading zero '[{digits}]'", text, start)
    if len(digits) > 7 or int(digits) > MAX_SEQUENCE_KEY:
        raise _error(f"sequence key {digits} above {MAX_SEQUENCE_KEY}", text, start)
    return int(digits)


def _parse_str_key(text: str, start: int) -> tuple[str, int]:
    """The Python string literal at ``start`` (the opening quote); returns the string and
    the index after the closing quote. Reads the escapes `repr(str)` writes."""
    quote = text[start]
    chars: list[str] = []
    i = start + 1
    length = len(text)
    while i < length:
        char = text[i]
        if char == quote:
            return "".join(chars), i + 1
        if char != "\\":
            chars.append(char)
            i += 1
            continue
        if i + 1 >= length:
            break
        kind = text[i + 1]
        simple = _SIMPLE_ESCAPES.get(kind)
        if simple is not None:
            chars.append(simple)
            i += 2
            continue
        width = _HEX_ESCAPES.get(kind)
        if width is None:
            raise _error(f"unknown escape '\\{kind}' in a dict key", text, i)
        digits = text[i + 2 : i + 2 + width]
        if len(digits) != width or not all(d in _HEX_DIGITS for d in digits):
            raise _error(f"'\\{kind}' needs {width} hex digits", text, i)
        code = int(digits, 16)
        if code > 0x10FFFF:
            raise _error(f"'\\{kind}{digits}' is not a code point", text, i)
        chars.append(chr(code))
        i += 2 + width
    raise _error("unterminated dict key", text, start)


def parse_keys(text: str, start: int = 0) -> IndexPath:
    """The components of the key string ``text[start:]``: ints for `[<int>]`, strings for
    `['k']` and `.k`. Raises `AbiError` with the offset of the first key that does not
    read."""
    path: list[IndexPathComponent] = []
    i = start
    length = len(text)
    while i < length:
        char = text[i]
        if char == ".":
            end = i + 1
            while end < length and text[end] not in ".[":
                end += 1
            name = text[i + 1 : end]
            if not name.isidentifier():
                raise _error(f"attribute key '.{name}' is not an identifier", text, i)
            path.append(name)
            i = end
        elif char == "[":
            if i + 1 < length and text[i + 1] in "'\"":
                key, end = _parse_str_key(text, i + 1)
                if end >= length or text[end] != "]":
                    raise _error("expected ']' after a dict key", text, end)
                path.append(key)
                i = end + 1
            else:
                end = text.find("]", i + 1)
                if end < 0:
                    raise _error("expected ']'", text, length)
                if text.startswith(_FLAT_INDEX, i + 1):
                    raise _error(
                        f"pytree node without keys '{text[i : end + 1]}' "
                        "(a flattened index, not a path)",
                        text,
                        i,
                    )
                path.append(_parse_int_key(text, i + 1, end))
                i = end + 1
        else:
            raise _error(f"expected '[' or '.', got '{char}'", text, i)
    return tuple(path)


def parse_arg_info(text: str) -> tuple[str, IndexPath]:
    """`<name><keys>` → the parameter name and the key components."""
    end = 0
    length = len(text)
    while end < length and text[end] not in ".[":
        end += 1
    name = text[:end]
    if not name:
        raise _error("expected a parameter name", text, 0)
    if not name.isidentifier():
        raise _error(f"parameter name '{name}' is not an identifier", text, 0)
    return name, parse_keys(text, end)


def parse_result_info(text: str) -> IndexPath:
    """`<keys>` or `result<keys>` → the key components (`""`: the root)."""
    start = len(RESULT_PREFIX) if text.startswith(RESULT_PREFIX) else 0
    return parse_keys(text, start)


@dataclass(frozen=True, slots=True)
class JaxIndexPaths:
    """The index paths read from a function's JAX key strings, by flat position, and the
    parameter name of each root argument (by root position; None for a special one)."""

    arguments: tuple[IndexPath, ...]
    results: tuple[IndexPath, ...]
    parameters: tuple[str | None, ...]


def jax_index_paths(
    arg_infos: Sequence[str | None], result_infos: Sequence[str | None]
) -> JaxIndexPaths:
    """The index path of every flat argument and result (docs/spec.md §3.3). A None argument is a
    special one (the platform index, an effect token): the special arguments are the
    first root arguments, in order, and each distinct parameter name one root after them
    in the order of first appearance. A None result is an effect token: the tokens are
    the first items of the result root, and the pytree the item after them (the root
    itself when there are none). A text that does not read raises `AbiError` with
    ``where`` naming its argument or result."""
    specials = sum(1 for text in arg_infos if text is None)
    positions: dict[str, int] = {}
    arg_paths: list[IndexPath] = []
    special = 0
    for i, text in enumerate(arg_infos):
        if text is None:
            arg_paths.append((special,))
            special += 1
            continue
        try:
            name, keys = parse_arg_info(text)
        except AbiError as error:
            error.where = ("argument", i)
            raise
        position = positions.setdefault(name, specials + len(positions))
        arg_paths.append((position, *keys))
    tokens = sum(1 for text in result_infos if text is None)
    result_paths: list[IndexPath] = []
    token = 0
    for i, text in enumerate(result_infos):
        if text is None:
            result_paths.append((token,))
            token += 1
            continue
        try:
            keys = parse_result_info(text)
        except AbiError as error:
            error.where = ("result", i)
            raise
        result_paths.append((tokens, *keys) if tokens else keys)
    parameters: tuple[str | None, ...] = (None,) * specials + tuple(positions)
    return JaxIndexPaths(tuple(arg_paths), tuple(result_paths), parameters)


def first_gap(paths: Sequence[IndexPath]) -> IndexPath | None:
    """The first path (in path order) at which a sequence of ``paths`` has no item
    although a later key of the same sequence has one: JAX writes no value for a `None`
    leaf or an empty container, so `[1]` without `[0]` is a result it dropped."""
    keys: dict[IndexPath, set[int]] = {}
    dict_levels: set[IndexPath] = set()
    for path in paths:
        for depth, component in enumerate(path):
            if isinstance(component, int):
                keys.setdefault(path[:depth], set()).add(component)
            else:
                dict_levels.add(path[:depth])
    # (A level with both kinds of keys is an error the tree's reader reports.)
    for level in dict_levels:
        keys.pop(level, None)
    # With n distinct keys, a sequence has a gap exactly when one of 0..n-1 is missing.
    gaps = [
        (*prefix, next(k for k in range(len(found)) if k not in found))
        for prefix, found in keys.items()
        if max(found) >= len(found)
    ]
    return min(gaps, key=_path_order, default=None)


def _path_order(path: IndexPath) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, c) if isinstance(c, int) else (1, c) for c in path)
