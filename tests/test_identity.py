"""`abi_compiler.identity.IdentityCache`: answers per object identity, never per equality."""

from __future__ import annotations

from abi_compiler.identity import IdentityCache


def test_answers_are_per_object_not_per_value() -> None:
    cache: IdentityCache[str] = IdentityCache()
    first, equal = [1, 2], [1, 2]
    calls: list[object] = []

    def compute(value: object) -> str:
        calls.append(value)
        return f"answer {len(calls)}"

    assert cache.answer(lambda: compute(first), first) == "answer 1"
    assert cache.answer(lambda: compute(first), first) == "answer 1"
    assert cache.answer(lambda: compute(equal), equal) == "answer 2"
    assert calls == [first, equal]


def test_none_is_an_answer_and_keys_are_ordered_tuples() -> None:
    cache: IdentityCache[None] = IdentityCache()
    a, b = object(), object()
    assert cache.get(a, b) == (False, None)
    cache.put(None, a, b)
    assert cache.get(a, b) == (True, None)
    assert cache.get(b, a) == (False, None)


def test_kept_objects_keep_their_ids() -> None:
    """The cache holds its objects, so a new object never takes a cached one's id."""
    cache: IdentityCache[int] = IdentityCache()
    for i in range(1000):
        cache.put(i, [i])
    fresh = [[i] for i in range(1000)]
    assert all(cache.get(item) == (False, None) for item in fresh)


def test_limit_empties_the_cache() -> None:
    cache: IdentityCache[int] = IdentityCache(limit=2)
    a, b, c = object(), object(), object()
    cache.put(1, a)
    cache.put(2, b)
    cache.put(3, c)
    assert cache.get(a) == (False, None)
    assert cache.get(c) == (True, 3)
