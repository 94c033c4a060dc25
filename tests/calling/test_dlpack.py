"""Results kept on the device (``results="device"``) go to torch and JAX through DLPack
without a copy on a local CPU device: the tensor's memory is the module's result buffer,
mapped (docs/calling.md, "Arrays")."""

from __future__ import annotations

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

TEXT = (
    "func.func @f(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {\n"
    "  %y = arith.addf %x, %x : tensor<4x3xf32>\n"
    "  return %y : tensor<4x3xf32>\n}\n"
)
X = np.arange(12, dtype=np.float32).reshape(4, 3)


@pytest.fixture(scope="module")
def module() -> object:
    return compile_quietly(TEXT, results="device")


def test_torch_shares_the_result(module: object) -> None:
    torch = pytest.importorskip("torch")
    result = module.f(X)  # type: ignore[attr-defined]
    assert result.__dlpack_device__() == (1, 0)
    tensor = torch.from_dlpack(result)
    host = result.to_host()  # the mapped buffer
    assert tensor.data_ptr() == host.ctypes.data
    assert np.shares_memory(tensor.numpy(), host)
    np.testing.assert_array_equal(tensor.numpy(), X * 2)
    # And back in: the tensor is taken as the numpy array that shares its memory.
    np.testing.assert_array_equal(module.f(tensor).to_host(), X * 4)  # type: ignore[attr-defined]


def test_jax_shares_the_result(module: object) -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp

    result = module.f(X)  # type: ignore[attr-defined]
    array = jnp.from_dlpack(result)
    assert array.unsafe_buffer_pointer() == result.to_host().ctypes.data
    np.testing.assert_array_equal(np.asarray(array), X * 2)
    np.testing.assert_array_equal(module.f(array).to_host(), X * 4)  # type: ignore[attr-defined]


def test_numpy_takes_it_by_dlpack_too(module: object) -> None:
    result = module.f(X)  # type: ignore[attr-defined]
    shared = np.from_dlpack(result)
    assert shared.ctypes.data == result.to_host().ctypes.data
    np.testing.assert_array_equal(shared, X * 2)
