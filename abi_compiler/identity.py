"""Answers remembered per object, by identity.

`abi-opt` parses each distinct type, attribute dictionary and signature text once, so a
large module's IR shares a few objects thousands of times; a question asked of every
function (its value types, its signature, whether an attribute needs rewriting) is
answered once per object. Hashing an xDSL attribute walks it, so these caches use the
objects' ids, and keep each object alive with its answer so that its id is not reused
while it is cached. Equal but distinct objects are only answered again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar, cast

_V = TypeVar("_V")


class IdentityCache(Generic[_V]):
    """Answers keyed by a tuple of objects' identities; emptied when ``limit`` answers
    are held (None: never)."""

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int | None = None) -> None:
        self._entries: dict[tuple[int, ...], tuple[tuple[object, ...], _V]] = {}
        self._limit = limit

    def get(self, *objects: object) -> tuple[bool, _V | None]:
        """(True, answer) when these very objects were answered, else (False, None)."""
        entry = self._entries.get(tuple(map(id, objects)))
        if entry is not None and all(a is b for a, b in zip(entry[0], objects, strict=True)):
            return True, entry[1]
        return False, None

    def put(self, answer: _V, *objects: object) -> _V:
        """Remember ``answer`` for these objects; returns it."""
        if self._limit is not None and len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[tuple(map(id, objects))] = (objects, answer)
        return answer

    def answer(self, compute: Callable[[], _V], *objects: object) -> _V:
        """The answer remembered for these objects, or ``compute()`` remembered."""
        found, known = self.get(*objects)
        return cast(_V, known) if found else self.put(compute(), *objects)
