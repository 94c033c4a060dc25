"""Sessions that move (docs/calling.md, "Moving a session"): `Session.state()` reads a
session's state out as host arrays, ``module.session(state=…)`` starts one from it — in
another load of the same module, as another process or server replica would — checked
against `abi.state` first; the accessors `compile_vmfb` adds stay hidden from callers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.text.state import with_state  # noqa: E402

CACHE = Path(__file__).parent / "state" / "cache.mlir"


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    return iree.compile_vmfb(CACHE.read_text())


def _load(vmfb: bytes) -> iree.Module:
    return iree.load(vmfb, device="local-sync", isolate=False)


def _row(value: float) -> np.ndarray:
    return np.full(8, value, np.float32)


def _conversation(session: Any) -> None:
    session.step(_row(1), np.int32(0))
    session.step(_row(3), np.int32(2))


def test_state_reads_the_session_out(vmfb: bytes) -> None:
    module = _load(vmfb)
    session = module.session()
    _conversation(session)
    state = session.state()
    assert list(state) == ["cache", "count"]
    expected = np.zeros((4, 8), np.float32)
    expected[0], expected[2] = 2, 6
    np.testing.assert_array_equal(state["cache"], expected)
    assert state["cache"].dtype == np.float32 and state["count"].dtype == np.int32
    assert int(state["count"]) == 2
    session.step(_row(1), np.int32(3))  # the arrays are copies: later calls leave them
    np.testing.assert_array_equal(state["cache"], expected)
    assert int(module.calls()) == 0  # the default state untouched


def test_a_restored_session_goes_on_as_the_original(vmfb: bytes) -> None:
    original = _load(vmfb).session()
    _conversation(original)
    moved = _load(vmfb).session(state=original.state())  # another load: another replica
    assert int(moved.calls()) == 2
    for value, position in [(2.0, 1), (0.5, 3), (1.0, 0)]:
        assert float(moved.step(_row(value), np.int32(position))) == float(
            original.step(_row(value), np.int32(position))
        )
    np.testing.assert_array_equal(moved.state()["cache"], original.state()["cache"])


def test_a_state_moves_to_another_process(vmfb: bytes, tmp_path: Path) -> None:
    path = tmp_path / "cache.vmfb"
    path.write_bytes(vmfb)
    session = _load(vmfb).session()
    _conversation(session)
    np.savez(tmp_path / "state.npz", **session.state())
    code = (
        "import sys, numpy as np\n"
        "from abi_compiler import iree\n"
        "module = iree.load(sys.argv[1], device='local-sync')\n"
        "state = dict(np.load(sys.argv[2]))\n"
        "s = module.session(state=state)\n"
        "print(float(s.step(np.full(8, 1, np.float32), np.int32(1))), int(s.calls()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), str(tmp_path / "state.npz")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout == f"{float(session.step(_row(1), np.int32(1)))} 3\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda s: {"cache": s["cache"]},
            "state: expected the globals 'cache', 'count', got 'cache'",
        ),
        (
            lambda s: {**s, "other": s["count"]},
            "state: expected the globals 'cache', 'count', got 'cache', 'count', 'other'",
        ),
        (
            lambda s: {**s, "cache": s["cache"].astype(np.float64)},
            "state 'cache': expected float32[4,8], got float64[4,8]",
        ),
        (
            lambda s: {**s, "cache": s["cache"][:3]},
            "state 'cache': expected float32[4,8], got float32[3,8]",
        ),
        (
            lambda s: {**s, "count": 2},
            "state 'count': expected int32[], got int",
        ),
        (
            lambda s: [s["cache"], s["count"]],
            "state: expected a mapping of global names to arrays, got list",
        ),
    ],
)
def test_a_state_that_does_not_fit_is_an_abi_error(vmfb: bytes, change: Any, message: str) -> None:
    module = _load(vmfb)
    state = module.session().state()
    with pytest.raises(AbiError) as error:
        module.session(state=change(state))
    assert str(error.value) == message


def test_the_accessors_are_not_the_callers(vmfb: bytes) -> None:
    module = _load(vmfb)
    assert module.function_names == ["step", "calls", "double", "reset_count"]
    with pytest.raises(KeyError):
        module["global$cache$get"]


def test_a_module_without_accessors_says_so() -> None:
    """Compiled by IREE's compiler from text with `abi.state` but not the accessors (as
    a module compiled before they existed)."""
    from iree.compiler import compile_str

    text = with_state(CACHE.read_text())
    module = _load(compile_str(text, target_backends=["llvm-cpu"]))
    session = module.session()
    with pytest.raises(AbiError) as error:
        session.state()
    assert str(error.value) == (
        "module 'module' has no accessors of its state (global 'cache'): it was compiled "
        "before states could move, or not by abi_compiler; compile it again"
    )


def test_a_module_without_state_has_an_empty_one() -> None:
    module = _load(iree.compile_vmfb("func.func @f(%x: i32) -> i32 { return %x : i32 }"))
    assert module.session().state() == {}
    assert module.session(state={}).f(3) == 3


def test_a_0d_array_keeps_its_rank_without_reflection() -> None:
    """A 0-d array given to a function without reflection (the dynamic convention, as
    the state's setters take it) reaches the VM 0-d, not 1-d."""
    text = "func.func @f(%x: tensor<i32>) -> tensor<i32> { return %x : tensor<i32> }"
    module = _load(iree.compile_vmfb(text, pipeline=None))
    assert module.f.convention == "flat"
    result = module.f(np.array(7, np.int32))
    assert (result.shape, int(result)) == ((), 7)
