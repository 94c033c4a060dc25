"""A torch program that updates one of its inputs in place (torch.export's
`user_inputs_to_mutate`: ``cache.index_copy_(1, position, key)``, ``x.add_(y)`` on an
argument), compiled and called: the caller's numpy array, torch tensor or device array
holds the new values after each call, as eager torch's tensor does (docs/calling.md,
"Inputs the program updates in place"). Skipped without torch and iree-turbine."""

from __future__ import annotations

from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine")

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.codecs.call_json import decode_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from tests.calling.helpers import compile_quietly  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:iree.turbine"),
]


class CacheUpdate(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, cache: Any, position: Any, key: Any) -> Any:
        cache.index_copy_(1, position, key)
        return cache.sum(1) * 2


class AddInPlace(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any, y: Any) -> Any:
        x.add_(y)
        return {"tripled": x * 3}


class TwoUpdates(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, a: Any, b: Any) -> Any:
        a.mul_(2)
        b.add_(1)
        return a + b


CACHE_ARGS = (torch.zeros(2, 8, 4), torch.tensor([3]), torch.ones(2, 1, 4))


@pytest.fixture(scope="module")
def cache_module() -> abi_iree.Module:
    return compile_quietly(torch.export.export(CacheUpdate(), CACHE_ARGS))


@pytest.fixture(scope="module")
def add_module() -> abi_iree.Module:
    return compile_quietly(torch.export.export(AddInPlace(), (torch.zeros(4), torch.ones(4))))


def steps(count: int) -> list[tuple[Any, Any]]:
    """Positions and keys of ``count`` cache updates."""
    return [
        (torch.tensor([(3 * step) % 8]), torch.full((2, 1, 4), float(step + 1)) * torch.arange(4.0))
        for step in range(count)
    ]


def test_the_call_records_the_update(cache_module: abi_iree.Module) -> None:
    """`abi.call` says which argument leaf the call updates and which result leaf holds
    its new value (docs/formats.md); the original result does not show it."""
    call = decode_call(cache_module.main.reflection["abi.call"])
    assert call.updates == ((0, 1),)
    assert "Updates in place: cache" in (cache_module.main.__doc__ or "")


@pytest.mark.parametrize("count", [1, 4])
def test_a_numpy_cache_is_updated_as_eager(cache_module: abi_iree.Module, count: int) -> None:
    eager = torch.zeros(2, 8, 4)
    cache = np.zeros((2, 8, 4), np.float32)
    for position, key in steps(count):
        want = CacheUpdate()(eager, position, key)
        got = cache_module.main(cache, position.numpy(), key.numpy())
        assert torch.equal(got, want)
        np.testing.assert_array_equal(cache, eager.numpy())
    assert cache.any()


@pytest.mark.parametrize("count", [1, 4])
def test_a_torch_cache_is_updated_as_eager(cache_module: abi_iree.Module, count: int) -> None:
    eager = torch.zeros(2, 8, 4)
    cache = torch.zeros(2, 8, 4)
    for position, key in steps(count):
        want = CacheUpdate()(eager, position, key)
        got = cache_module.main(cache, position, key)
        assert torch.equal(got, want)
        assert torch.equal(cache, eager)


def test_add_in_place_as_eager(add_module: abi_iree.Module) -> None:
    """``x.add_(y)`` on a numpy array, a torch tensor and a strided view of a bigger
    array (written through its strides)."""
    x = np.zeros(4, np.float32)
    tensor = torch.zeros(4)
    eager = torch.zeros(4)
    wide = np.zeros((4, 2), np.float32)
    column = wide[:, 1]
    for step in range(3):
        y = torch.arange(4.0) + step
        want = AddInPlace()(eager, y)
        assert torch.equal(add_module.main(x, y.numpy())["tripled"], want["tripled"])
        assert torch.equal(add_module.main(tensor, y)["tripled"], want["tripled"])
        add_module.main(column, y.numpy())
        np.testing.assert_array_equal(x, eager.numpy())
        assert torch.equal(tensor, eager)
        np.testing.assert_array_equal(column, eager.numpy())
    assert not wide[:, 0].any()


def test_a_device_array_is_updated_in_place() -> None:
    """With ``results="device"``, a result passed back in for the updated input is that
    same `DeviceArray` afterwards, IREE having written the new values into its buffer
    (`hal.tensor.alias`): a host view of it taken before the call shows them."""
    program = torch.export.export(AddInPlace(), (torch.zeros(4), torch.ones(4)))
    module = compile_quietly(program, results="device")
    y = np.arange(4, dtype=np.float32)
    state = module.main(np.ones(4, np.float32), y)["tripled"]  # (1 + y) * 3, on the device
    eager = torch.from_numpy((1 + y) * 3)
    for _ in range(3):
        before, view = state, state.to_host()
        out = module.main(state, y)["tripled"]
        want = AddInPlace()(eager, torch.from_numpy(y))["tripled"]
        assert state is before
        np.testing.assert_array_equal(state.to_host(), eager.numpy())
        np.testing.assert_array_equal(view, eager.numpy())
        np.testing.assert_array_equal(out.to_host(), want.numpy())


def test_a_vmfb_loaded_without_torch_updates_numpy(tmp_path: Any) -> None:
    """The `.vmfb` (`compile_vmfb`) records the update: loaded, its call writes the
    numpy cache, as `abi-sig show` says."""
    from abi_compiler.commands import sig_main

    program = torch.export.export(CacheUpdate(), CACHE_ARGS)
    path = tmp_path / "cache.vmfb"
    path.write_bytes(abi_iree.compile_vmfb(program))
    module = abi_iree.load(path)
    cache = np.zeros((2, 8, 4), np.float32)
    module.main(cache, np.array([5]), np.ones((2, 1, 4), np.float32))
    assert cache[:, 5].all() and cache.sum() == 8
    assert sig_main.main(["show", str(path)]) == 0


def test_show_prints_the_update(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from abi_compiler.commands import sig_main
    from abi_compiler.frontends import torch as torch_frontend

    found = torch_frontend.program(
        torch.export.export(AddInPlace(), (torch.zeros(4), torch.ones(4)))
    )
    path = tmp_path / "add.mlir"
    path.write_text(found.mlir)
    assert sig_main.main(["show", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        "  called as main(x: float32[4], y: float32[4]) -> {'tripled': float32[4]}",
        "  updates in place: x",
    ]


# -- refusals: before the call, nothing written ------------------------------------------


def call_error(function: Any, *args: Any) -> str:
    with pytest.raises(AbiError) as caught:
        function(*args)
    return str(caught.value)


def test_a_value_without_memory_of_its_own_is_refused(add_module: abi_iree.Module) -> None:
    y = np.ones(4, np.float32)
    assert call_error(add_module.main, [0.0, 0.0, 0.0, 0.0], y) == (
        "argument x: expected an array the call can update in place (the program updates "
        "this input in place: a numpy array, a torch tensor or a DeviceArray), got list"
    )


def test_a_read_only_array_is_refused(add_module: abi_iree.Module) -> None:
    x = np.zeros(4, np.float32)
    x.flags.writeable = False
    assert call_error(add_module.main, x, np.ones(4, np.float32)) == (
        "argument x: got a read-only numpy array, which the call cannot update (the "
        "program updates this input in place)"
    )


def test_a_converted_array_is_refused(tmp_path: Any) -> None:
    """With ``convert=True`` a float64 array would be sent as a float32 copy: the new
    values could not reach it."""
    program = torch.export.export(AddInPlace(), (torch.zeros(4), torch.ones(4)))
    path = tmp_path / "add.vmfb"
    path.write_bytes(abi_iree.compile_vmfb(program))
    module = abi_iree.load(path, convert=True)
    x = np.zeros(4, np.float64)
    assert call_error(module.main, x, np.ones(4, np.float32)) == (
        "argument x: expected an array of dtype float32 the call can write into (the "
        "program updates this input in place), got float64: the call would send a "
        "converted copy"
    )
    assert not x.any()


def test_a_negative_view_is_refused(add_module: abi_iree.Module) -> None:
    """A tensor with torch's negative bit reads as its negation, which the call sends as a
    copy (`resolve_neg`): the new values could not reach its memory."""
    x = torch.zeros(4)._neg_view()
    message = call_error(add_module.main, x, torch.ones(4))
    assert message == (
        "argument x: got a torch.Tensor whose memory the call cannot write (the program "
        "updates this input in place): pass a CPU tensor of dtype float32"
    )


def test_a_device_array_needs_device_results(add_module: abi_iree.Module) -> None:
    import iree.runtime as rt

    array = rt.asdevicearray(add_module.device, np.zeros(4, np.float32))
    assert call_error(add_module.main, array, np.ones(4, np.float32)).startswith(
        "argument x: got a DeviceArray, which a module loaded with results='numpy' cannot "
        "update in place"
    )


def test_one_array_for_two_updated_inputs_is_refused() -> None:
    program = torch.export.export(TwoUpdates(), (torch.ones(3), torch.ones(3)))
    module = compile_quietly(program)
    a, b = np.ones(3, np.float32), np.ones(3, np.float32)
    module.main(a, b)
    assert a.tolist() == [2.0] * 3 and b.tolist() == [2.0] * 3
    assert call_error(module.main, a, a) == (
        "argument b: the same memory as argument a, and the program updates both in "
        "place: pass separate arrays"
    )
    assert a.tolist() == [2.0] * 3


class NestedUpdates(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any, state: Any, *, scale: Any) -> Any:
        state["k"].mul_(scale)
        state["v"][0].add_(x)
        return x * 2, None


def test_updates_inside_a_structure_through_abi_compile(tmp_path: Any) -> None:
    """Inputs inside a dict (its keys not in sorted order: the records' leaves differ from
    the program's flatten order) and a list, a keyword beside them, the program saved as a
    `.pt2` and compiled by `abi-compile`: each updated leaf is written, the others not."""
    from abi_compiler.commands.compile_main import main

    state = {"v": [torch.zeros(3), torch.ones(1)], "k": torch.ones(2)}
    program = torch.export.export(
        NestedUpdates(), (torch.ones(3), state), {"scale": torch.tensor(3.0)}
    )
    archive, vmfb = tmp_path / "model.pt2", tmp_path / "model.vmfb"
    torch.export.save(program, archive)
    assert main([str(archive), "-o", str(vmfb)]) == 0
    module = abi_iree.load(vmfb)
    assert "Updates in place: state['v'][0], state['k']" in (module.main.__doc__ or "")
    given = {"v": [np.zeros(3, np.float32), np.ones(1, np.float32)], "k": np.ones(2, np.float32)}
    eager = {"v": [torch.zeros(3), torch.ones(1)], "k": torch.ones(2)}
    for _ in range(2):
        got = module.main(np.ones(3, np.float32), given, scale=np.float32(3))
        want = NestedUpdates()(torch.ones(3), eager, scale=torch.tensor(3.0))
        assert torch.equal(got[0], want[0]) and got[1] is None
        np.testing.assert_array_equal(given["k"], eager["k"].numpy())
        np.testing.assert_array_equal(given["v"][0], eager["v"][0].numpy())
    assert given["v"][1].tolist() == [1.0]


class ReturnsIt(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any, y: Any) -> Any:
        x.add_(y)
        return x


class ReturnsNothing(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any, y: Any) -> None:
        x.add_(y)


@pytest.mark.parametrize("model", [ReturnsIt, ReturnsNothing])
def test_the_updated_input_returned_or_nothing_returned(model: Any) -> None:
    """The updated input is also the program's result (a separate array, equal to the
    updated one), or the program returns None: the update still reaches the caller."""
    module = compile_quietly(torch.export.export(model(), (torch.zeros(3), torch.ones(3))))
    x = np.zeros(3, np.float32)
    got = module.main(x, np.ones(3, np.float32))
    assert x.tolist() == [1.0] * 3
    assert got is None if model is ReturnsNothing else got.tolist() == [1.0] * 3
