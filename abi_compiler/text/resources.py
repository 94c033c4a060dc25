"""Resource sections, `{-# dialect_resources: {…} #-}`, and the handles that name their
blobs (`dense_resource<key>`), read by MLIR's lexical rules (`abi_compiler.text.lexer`).

A section is what MLIR's parser reads as file metadata: a comma-separated list of
``group: {…}`` (`dialect_resources`, `external_resources`), each a list of
``dialect: {…}``, each a list of ``key: value``; a key is a bare identifier or a string, a
value a string (a blob's hex) or a bare word (`true`). A builtin blob is used as
`dense_resource<key>` (the key written the same two ways), wherever an attribute stands,
in a dialect body too. Linking renames keys apart with both (`entries`, `rename_handles`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from abi_compiler.text import lexer
from abi_compiler.text.lexer import BARE, BODY, META_BEGIN, META_END, PUNCT, STRING_TOKEN

_T = TypeVar("_T")

__all__ = ["Resource", "ResourceError", "entries", "key_text", "rename_handles", "rename_keys"]


class ResourceError(Exception):
    """A resource section not as MLIR's parser reads one."""


@dataclass(frozen=True, slots=True)
class Resource:
    """One ``key: value`` of a resource section (offsets into the text read)."""

    #: `dialect_resources` or `external_resources`.
    group: str
    #: The dialect (or the external group's name) it belongs to.
    dialect: str
    #: The key, unquoted.
    key: str
    #: Where the key is written (a bare identifier or a string literal).
    key_span: tuple[int, int]
    #: Where its value is written.
    value_span: tuple[int, int]


def entries(text: str, start: int, end: int) -> list[Resource]:
    """The resources of the section ``text[start:end]`` (from its `{-#` to its `#-}`), in
    text order. Raises `ResourceError` for a section MLIR would not read."""
    tokens = _Tokens(text, start, end)
    tokens.expect(META_BEGIN, "{-#")
    found: list[Resource] = []
    if tokens.kind == META_END:
        return found
    while True:
        group = tokens.name("a group name (dialect_resources)")
        tokens.punct(":")
        for dialect in tokens.braced(lambda: tokens.name("a dialect name")):
            tokens.punct(":")
            for key, key_span in tokens.braced(tokens.key):
                tokens.punct(":")
                if tokens.kind not in (STRING_TOKEN, BARE):
                    raise ResourceError(f"expected the value of '{key}' at offset {tokens.start}")
                value_span = (tokens.start, tokens.stop)
                tokens.next()
                found.append(Resource(group, dialect, key, key_span, value_span))
        if tokens.kind == META_END:
            return found
        tokens.punct(",")


def key_text(key: str) -> str:
    """``key`` as MLIR prints a resource key: bare when it is a bare identifier, else a
    string literal."""
    return key if lexer.BARE_IDENTIFIER.fullmatch(key) else lexer.quote(key)


def rename_keys(text: str, renames: Mapping[tuple[int, int], str]) -> str:
    """``text`` with the key written at each span of ``renames`` replaced by the new
    key's text (`key_text`)."""
    pieces: list[str] = []
    pos = 0
    for (start, end), key in sorted(renames.items()):
        pieces.append(text[pos:start])
        pieces.append(key_text(key))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def rename_handles(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with every `dense_resource<key>` of a key of ``renames`` naming the new
    key, in dialect bodies too; never in a string."""
    if not renames or "dense_resource" not in text:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end, key in _handles(text, 0, len(text), pretty=False):
        new = renames.get(key)
        if new is not None:
            pieces.append(text[pos:start])
            pieces.append(key_text(new))
            pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _handles(text: str, start: int, end: int, *, pretty: bool) -> Iterator[tuple[int, int, str]]:
    """(start, end, key) of the key of each `dense_resource<key>` in ``text[start:end]``."""
    # The last three tokens: `dense_resource`, `<`, the key.
    previous: list[tuple[int, int, int]] = []
    for token in lexer.tokens(text, start, end, pretty=pretty):
        kind, token_start, token_end = token
        if kind == BODY:
            yield from _handles(text, token_start + 1, token_end - 1, pretty=True)
        elif (
            kind in (BARE, STRING_TOKEN)
            and len(previous) == 2
            and previous[0][0] == BARE
            and text[previous[0][1] : previous[0][2]] == "dense_resource"
            and previous[1][0] == PUNCT
            and text[previous[1][1] : previous[1][2]] == "<"
        ):
            key = _key(text, token)
            if key is not None:
                yield token_start, token_end, key
        previous = [*previous[-1:], token]


def _key(text: str, token: tuple[int, int, int]) -> str | None:
    kind, start, end = token
    written = text[start:end]
    return written if kind == BARE else lexer.unquote(written)


class _Tokens:
    """The tokens of a resource section, one at a time."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self._tokens = lexer.tokens(text, start, end)
        self.kind, self.start, self.stop = 0, end, end
        self.next()

    def next(self) -> None:
        token = next(self._tokens, None)
        if token is None:
            self.kind, self.start = 0, self.stop
        else:
            self.kind, self.start, self.stop = token

    @property
    def value(self) -> str:
        return self.text[self.start : self.stop]

    def expect(self, kind: int, what: str) -> None:
        if self.kind != kind:
            raise ResourceError(f"expected '{what}' at offset {self.start}")
        self.next()

    def punct(self, char: str) -> None:
        if self.kind != PUNCT or self.value != char:
            raise ResourceError(f"expected '{char}' at offset {self.start}")
        self.next()

    def name(self, what: str) -> str:
        if self.kind != BARE:
            raise ResourceError(f"expected {what} at offset {self.start}")
        name = self.value
        self.next()
        return name

    def key(self) -> tuple[str, tuple[int, int]]:
        key = None
        if self.kind in (BARE, STRING_TOKEN):
            key = _key(self.text, (self.kind, self.start, self.stop))
        if key is None:
            raise ResourceError(f"expected a resource key at offset {self.start}")
        span = (self.start, self.stop)
        self.next()
        return key, span

    def braced(self, item: Callable[[], _T]) -> Iterator[_T]:
        """Each ``item()`` of a `{…}` comma-separated list (the cursor after its `}`)."""
        self.punct("{")
        if self.kind == PUNCT and self.value == "}":
            self.next()
            return
        while True:
            yield item()
            if self.kind == PUNCT and self.value == "}":
                self.next()
                return
            self.punct(",")
