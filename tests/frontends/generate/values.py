"""Call values as JSON, for the generated test inputs: an array is
``{"array": <nested lists>, "dtype": "<numpy dtype>"}``, a tuple (namedtuples too)
``{"tuple": [...]}``, a dict ``{"dict": {...}}``, a list a JSON list, numbers and None as
they are. A torch tensor is encoded as the numpy array it holds."""

from __future__ import annotations

from typing import Any

import numpy as np


def encode(value: Any) -> Any:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return {"array": array.tolist(), "dtype": array.dtype.name}
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {"dict": {str(key): encode(item) for key, item in value.items()}}
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if "array" in value:
            return np.array(value["array"], dtype=value["dtype"])
        if "tuple" in value:
            return tuple(decode(item) for item in value["tuple"])
        return {key: decode(item) for key, item in value["dict"].items()}
    return value


def assert_same(got: Any, expected: Any, path: str = "result") -> None:
    """``got`` has ``expected``'s structure (containers of the same kind and keys) and
    values (arrays compared in the expected dtype, floats to 1e-5)."""
    if isinstance(expected, np.ndarray):
        array = np.asarray(got)
        assert array.shape == expected.shape, f"{path}: shape {array.shape} != {expected.shape}"
        np.testing.assert_allclose(array.astype(expected.dtype), expected, rtol=1e-5, err_msg=path)
        return
    assert type(got) is type(expected), f"{path}: {type(got).__name__} != {type(expected).__name__}"
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), f"{path}: keys {sorted(got)} != {sorted(expected)}"
        for key in expected:
            assert_same(got[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), f"{path}: {len(got)} items != {len(expected)}"
        for index, (item, want) in enumerate(zip(got, expected, strict=True)):
            assert_same(item, want, f"{path}[{index}]")
    else:
        assert got == expected, f"{path}: {got!r} != {expected!r}"
