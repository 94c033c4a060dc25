"""A JAX typed PRNG key leaf on the caller's side without JAX (docs/calling.md, "JAX typed PRNG keys"): a
key result comes back as its uint32 data (the record is a signless i32, read as int32);
key data is taken as an argument. The frontend side is tests/frontends/test_jax_keys.py."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import needs_iree

needs_iree()


def test_a_key_result_without_jax_is_its_uint32_data(monkeypatch: pytest.MonkeyPatch) -> None:
    from abi_compiler.calling import call_leaves

    monkeypatch.setattr(call_leaves, "_jax", lambda: None)
    to_data = call_leaves._key_result("key<fry>")
    got = to_data(np.array([[1, -2]], np.int32))
    assert got.dtype == np.uint32
    assert got.tolist() == [[1, 4294967294]]


def test_a_key_of_an_unknown_implementation_is_its_data() -> None:
    """A key dtype JAX's own implementations do not have (a custom PRNG) comes back as its
    data even with JAX: there is no implementation name to wrap it with."""
    from abi_compiler.calling import call_leaves

    to_data = call_leaves._key_result("key<mine>")
    assert to_data(np.array([7], np.int32)).dtype == np.uint32


def test_key_data_is_taken_as_an_argument() -> None:
    from abi_compiler.calling import call_leaves
    from abi_compiler.calling.mismatch import Mismatch

    taken: list[object] = []
    convert = call_leaves._key_leaf("key<fry>", lambda value: taken.append(value) or value)
    data = np.array([1, 2], np.uint32)
    assert convert(data) is data

    class OtherKey:
        dtype = "key<rbg>"

    with pytest.raises(Mismatch) as raised:
        convert(OtherKey())
    assert raised.value.message == "expected a key<fry> key array, got a key<rbg> one"
