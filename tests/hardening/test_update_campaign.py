"""A seeded campaign over inputs a program updates in place (docs/calling.md, "Inputs the
program updates in place"): `two(a, b, x)` adds ``x`` to both ``a`` and ``b`` in place,
called with views of one base — slices, reversed and strided views, broadcast and
`as_strided` views whose elements meet — and with `DeviceArray`s over one buffer. Each
call is refused before it runs exactly when the oracle (the byte addresses of every
element, listed) finds memory shared within an argument or between the two; every call
that runs leaves the values eager numpy gives, and nothing else of the base changed. No
framework needed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from tests.calling.test_updates import TWO_TEXT  # noqa: E402

CALLS = 300
ITEM = np.dtype(np.float32).itemsize


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    return compile_quietly(TWO_TEXT, vmfb=True)


def addresses(view: Any) -> list[int]:
    """The first byte of each element of ``view`` (the oracle: every element listed)."""
    start = view.__array_interface__["data"][0]
    return [
        start + sum(i * s for i, s in zip(index, view.strides, strict=True))
        for index in np.ndindex(view.shape)
    ]


def overlaps(first: list[int], second: list[int]) -> bool:
    return any(abs(p - q) < ITEM for p in first for q in second)


def self_overlaps(found: list[int]) -> bool:
    return any(abs(found[i] - found[j]) < ITEM for i in range(len(found)) for j in range(i))


def random_view(rng: random.Random, base: Any) -> Any:
    """A (3,) float32 view of ``base`` (16 floats): a slice, a reversed or strided one, a
    broadcast, or `as_strided` with a stride that may meet another element."""
    kind = rng.choice(["slice", "reversed", "broadcast", "strided", "bytes"])
    if kind == "slice":
        step = rng.choice([1, 2, 3, 4])
        start = rng.randrange(0, 16 - 2 * step)
        return base[start : start + 3 * step : step]
    if kind == "reversed":
        start = rng.randrange(2, 16)
        return base[start : start - 3 : -1] if start >= 3 else base[start::-1][:3]
    if kind == "broadcast":
        return np.broadcast_to(base[rng.randrange(16) :][:1], (3,))
    # Strides of 0 to 5 floats, or of a byte count that is not a whole float.
    stride = rng.choice([0, 4, 8, 12, 20]) if kind == "strided" else rng.choice([1, 2, 6])
    start = rng.randrange(0, 16 - (2 * stride) // ITEM - 1)
    return np.lib.stride_tricks.as_strided(base[start:], (3,), (stride,), writeable=True)


def test_updated_inputs_over_shared_memory(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb)
    rng = random.Random(44)
    counts = {"refused": 0, "ran": 0}
    for _ in range(CALLS):
        base = np.arange(16, dtype=np.float32) * 10
        a, b = random_view(rng, base), random_view(rng, base)
        x = np.array([rng.randrange(1, 9) for _ in range(3)], np.float32)
        before, a0, b0 = base.copy(), a.copy(), b.copy()
        where_a, where_b = addresses(a), addresses(b)
        shared = self_overlaps(where_a) or self_overlaps(where_b) or overlaps(where_a, where_b)
        writable = a.flags.writeable and b.flags.writeable
        try:
            result = module.two(a, b, x)
        except AbiError:
            assert shared or not writable, (a.strides, b.strides)
            np.testing.assert_array_equal(base, before)
            counts["refused"] += 1
            continue
        assert not shared and writable
        np.testing.assert_array_equal(result, (a0 + x) + (b0 + x))
        np.testing.assert_array_equal(a, a0 + x)
        np.testing.assert_array_equal(b, b0 + x)
        # (an element at a byte offset that is no whole float spans two floats of base)
        offsets = [p - base.ctypes.data for p in where_a + where_b]
        touched = {o // ITEM for o in offsets} | {(o + ITEM - 1) // ITEM for o in offsets}
        untouched = [i for i in range(16) if i not in touched]
        np.testing.assert_array_equal(base[untouched], before[untouched])
        counts["ran"] += 1
    # Both outcomes are exercised (the seed draws each often).
    assert counts["refused"] > 50 and counts["ran"] > 50, counts


def test_device_arrays_over_one_buffer(vmfb: bytes) -> None:
    """`DeviceArray`s a function returned twice (`dup`), host views of them, and separate
    ones, in every pairing: refused exactly when the two share a buffer."""
    module = abi_iree.load(vmfb, results="device")
    ones = np.ones(3, np.float32)
    for pairing in range(6):
        first, second = module.dup(np.arange(3, dtype=np.float32))
        other = module.dup(np.full(3, 5, np.float32))[0]
        a, b, shared = [
            (first, second, True),
            (first, first.to_host(), True),
            (second, first, True),
            (first, other, False),
            (other.to_host(), first, False),
            (first, np.zeros(3, np.float32), False),
        ][pairing]
        if shared:
            with pytest.raises(AbiError, match="the same memory as argument a"):
                module.two(a, b, ones)
            np.testing.assert_array_equal(first.to_host(), [0, 1, 2])
            continue
        a0 = np.array(a.to_host() if hasattr(a, "to_host") else a)
        b0 = np.array(b.to_host() if hasattr(b, "to_host") else b)
        module.two(a, b, ones)
        for value, old in ((a, a0), (b, b0)):
            np.testing.assert_array_equal(
                value.to_host() if hasattr(value, "to_host") else value, old + 1
            )
