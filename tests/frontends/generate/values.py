"""Call values as JSON, for the generated test inputs: an array is
``{"array": <nested lists>, "dtype": "<numpy dtype>"}``, a tuple ``{"tuple": [...]}``, a
namedtuple ``{"namedtuple": "<name>", "fields": [[name, value], ...]}``, a dataclass (its pytree fields:
a flax struct's static fields left out) ``{"dataclass": "<name>", "fields": [...]}``, a
dict ``{"dict": [[key, value], ...]}`` (in its order), a list a JSON list, numbers and None as they are. A torch
tensor (or a JAX array) is encoded as the numpy array it holds.

Decoded, namedtuples and dataclasses are types of the recorded name and fields made
here — what a server without the training code has."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import numpy as np


def encode(value: Any) -> Any:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().numpy()
    if type(value).__module__.startswith("jax"):  # a JAX array
        value = np.asarray(value)
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return {"array": array.tolist(), "dtype": array.dtype.name}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        fields = [[name, encode(getattr(value, name))] for name in value._fields]
        return {"namedtuple": type(value).__name__, "fields": fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [
            [field.name, encode(getattr(value, field.name))]
            for field in dataclasses.fields(value)
            if field.metadata.get("pytree_node", True)
        ]
        return {"dataclass": type(value).__name__, "fields": fields}
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):  # pairs: the key order is part of the value
        return {"dict": [[str(key), encode(item)] for key, item in value.items()]}
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if "array" in value:
            return np.array(value["array"], dtype=value["dtype"])
        if "tuple" in value:
            return tuple(decode(item) for item in value["tuple"])
        if "namedtuple" in value:
            names = [name for name, _ in value["fields"]]
            cls = collections.namedtuple(value["namedtuple"], names)  # type: ignore[misc]
            return cls(*[decode(item) for _, item in value["fields"]])
        if "dataclass" in value:
            names = [name for name, _ in value["fields"]]
            made = dataclasses.make_dataclass(value["dataclass"], names)
            return made(*[decode(item) for _, item in value["fields"]])
        return {key: decode(item) for key, item in value["dict"]}
    return value


def assert_same(got: Any, expected: Any, path: str = "result") -> None:
    """``got`` has ``expected``'s structure (containers of the same kind and keys) and
    values (arrays compared in the expected dtype, floats to 1e-5)."""
    if isinstance(expected, np.ndarray):
        array = np.asarray(got)
        assert array.shape == expected.shape, f"{path}: shape {array.shape} != {expected.shape}"
        np.testing.assert_allclose(array.astype(expected.dtype), expected, rtol=1e-5, err_msg=path)
        return
    if hasattr(expected, "_fields") or dataclasses.is_dataclass(expected):
        # Rebuilt from the module's `abi.call`: the same name and fields.
        assert type(got).__name__ == type(expected).__name__, f"{path}: {type(got).__name__}"
        names = (
            [f.name for f in dataclasses.fields(expected)]
            if dataclasses.is_dataclass(expected)
            else list(expected._fields)
        )
        for name in names:
            assert_same(getattr(got, name), getattr(expected, name), f"{path}.{name}")
        return
    assert type(got) is type(expected), f"{path}: {type(got).__name__} != {type(expected).__name__}"
    if isinstance(expected, dict):
        assert list(got) == list(expected), f"{path}: keys {list(got)} != {list(expected)}"
        for key in expected:
            assert_same(got[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), f"{path}: {len(got)} items != {len(expected)}"
        for index, (item, want) in enumerate(zip(got, expected, strict=True)):
            assert_same(item, want, f"{path}[{index}]")
    else:
        assert got == expected, f"{path}: {got!r} != {expected!r}"
