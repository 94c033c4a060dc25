"""Equality with IREE's own `FunctionInvoker` (docs/spec.md §8.2's promise): where IREE's invoker
can call a function of the V1 module, both invokers return equal values; where it cannot
(the records it does not implement), ours can."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from .conftest import needs_iree

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.calling import vm  # noqa: E402
from tests.lowering.test_iree_e2e import to_host  # noqa: E402

from .test_e2e import same  # noqa: E402

rt = vm.rt

pair = np.array([1.5, -2.0], np.float32)

# name -> (args, kwargs): calls IREE's invoker accepts.
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "shapes": ((np.arange(6, dtype=np.float32).reshape(2, 3), 1.5, np.zeros(0, np.int32)), {}),
    "nested": ((({"a": (pair, 3), "b": 0.5}, np.array([4, 5, 6], np.int32)),), {}),
    "named": ((np.ones(3, np.float32),), {"bias": np.arange(3, dtype=np.float32), "steps": 7}),
    "all_named": ((), {"a": pair, "b": 11}),
    "empty": (((), 3, {}), {}),
}


@pytest.fixture(scope="module")
def iree_module(v1_vmfb: bytes) -> Any:
    config = rt.Config(device=rt.get_device("local-task"))
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, v1_vmfb))
    return context.modules.module


@pytest.mark.parametrize("name", sorted(CALLS))
def test_both_invokers_return_equal_values(
    v1: abi_iree.Module, iree_module: Any, name: str
) -> None:
    args, kwargs = CALLS[name]
    theirs = to_host(iree_module[name](*args, **kwargs))
    ours = v1[name](*args, **kwargs)
    same(ours, theirs)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("lists", "Unrecognized reflection compound type: py_homogeneous_list"),
        ("elements", "could not map abi type 'f16' to numpy dtype"),
        ("scalars", "Unrecognized reflection primitive type: i1"),
    ],
)
def test_what_iree_invoker_refuses(iree_module: Any, name: str, message: str) -> None:
    """The records IREE's invoker does not implement (test_e2e.py calls them through
    ours)."""
    with pytest.raises(ValueError, match=message):
        iree_module[name]
