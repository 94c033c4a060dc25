"""State the caller owns (docs/calling.md, "State and sessions"): a module with mutable
`util.global`s keeps its default state across calls; `Module.session()` gives the same
functions with state of their own; `reset` starts it over; a closed session or module
is an `AbiError` before the VM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from abi_compiler import iree
from abi_compiler.errors import AbiError

CACHE = Path(__file__).parent / "state" / "cache.mlir"


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    return iree.compile_vmfb(CACHE.read_text())


@pytest.fixture
def module(vmfb: bytes) -> iree.Module:
    return iree.load(vmfb, device="local-sync", isolate=False)


def _row(value: float) -> np.ndarray:
    return np.full(8, value, np.float32)


def test_the_default_state_persists_across_calls(module: iree.Module) -> None:
    assert float(module.step(_row(1), np.int32(0))) == 16.0
    assert float(module.step(_row(1), np.int32(1))) == 32.0
    assert float(module.step(_row(3), np.int32(1))) == 64.0  # (row 1 overwritten)
    assert int(module.calls()) == 3


def test_a_session_starts_from_the_initial_state(module: iree.Module) -> None:
    module.step(_row(1), np.int32(0))
    session = module.session()
    assert int(session.calls()) == 0
    assert float(session["step"](_row(1), np.int32(2))) == 16.0
    assert int(module.calls()) == 1 and int(session.calls()) == 1
    # immutable globals read the same
    np.testing.assert_array_equal(session.double(_row(1)), _row(2))


def _steps(function_of: object, rows: list[tuple[float, int]]) -> list[float]:
    return [float(function_of.step(_row(v), np.int32(p))) for v, p in rows]  # type: ignore[attr-defined]


def test_two_sessions_interleaved_give_what_each_gives_alone(module: iree.Module) -> None:
    first = [(1.0, 0), (2.0, 1), (0.5, 1), (4.0, 3)]
    second = [(3.0, 2), (1.0, 2), (1.0, 0), (2.0, 3)]
    alone_first = _steps(module.session(), first)
    alone_second = _steps(module.session(), second)
    a, b = module.session(), module.session()
    together_a, together_b = [], []
    for x, y in zip(first, second, strict=True):
        together_a += _steps(a, [x])
        together_b += _steps(b, [y])
    assert together_a == alone_first == [16.0, 48.0, 24.0, 88.0]
    assert together_b == alone_second
    assert int(a.calls()) == int(b.calls()) == 4
    assert int(module.calls()) == 0  # the default state untouched


def test_reset_starts_the_state_over(module: iree.Module) -> None:
    session = module.session()
    step = session.step  # (held across the reset: it calls in the new state)
    step(_row(1), np.int32(0))
    step(_row(1), np.int32(1))
    session.reset()
    assert int(session.calls()) == 0
    assert float(step(_row(1), np.int32(3))) == 16.0


def test_a_closed_session_is_refused(module: iree.Module) -> None:
    session = module.session()
    step = session.step
    session.close()
    with pytest.raises(AbiError, match=r"^@step: this session of the module is closed$"):
        step(_row(1), np.int32(0))
    with pytest.raises(AbiError, match="is closed"):
        session.calls()
    with pytest.raises(AbiError, match="is closed"):
        session.reset()
    assert int(module.calls()) == 0  # the module goes on


def test_a_closed_module_refuses_its_functions_and_sessions(vmfb: bytes) -> None:
    module = iree.load(vmfb, device="local-sync", isolate=False)
    with module.session() as session:
        step = session.step
        calls = module.calls
        module.close()
        uses = (
            lambda: step(_row(1), np.int32(0)),
            calls,
            lambda: module.calls(),
            lambda: session.calls(),
        )
        for use in uses:
            with pytest.raises(AbiError, match=r"^(@(step|calls): )?the module is closed$"):
                use()
        with pytest.raises(AbiError, match="is closed"):
            module.session()
    assert module.closed and session.closed


def test_a_session_keeps_its_module_alive(vmfb: bytes) -> None:
    session = iree.load(vmfb, device="local-sync", isolate=False).session()
    assert float(session.step(_row(1), np.int32(0))) == 16.0


PARAMETERS = """
util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<4xf32>
util.global private mutable @total = dense<0.0> : tensor<4xf32>
func.func @add() -> tensor<4xf32> {
  %w = util.global.load @w : tensor<4xf32>
  %t = util.global.load @total : tensor<4xf32>
  %u = arith.addf %t, %w : tensor<4xf32>
  util.global.store %u, @total : tensor<4xf32>
  return %u : tensor<4xf32>
}
"""


@pytest.mark.parametrize("kind", ["mapping", "archive"])
def test_sessions_of_a_module_with_named_parameters(kind: str, tmp_path: Path) -> None:
    """A session's context takes the module's parameter module: the same weights."""
    weights = {"w": np.array([1, 2, 3, 4], np.float32)}
    source: object = weights
    if kind == "archive":
        source = tmp_path / "w.irpa"
        iree.save_parameters(weights, source)
    vmfb = iree.compile_vmfb(PARAMETERS, archive_name="w.irpa")
    module = iree.load(vmfb, device="local-sync", isolate=False, parameters=source)  # type: ignore[arg-type]
    np.testing.assert_array_equal(module.add(), [1, 2, 3, 4])
    session = module.session()
    np.testing.assert_array_equal(session.add(), [1, 2, 3, 4])
    np.testing.assert_array_equal(session.add(), [2, 4, 6, 8])
    np.testing.assert_array_equal(module.add(), [2, 4, 6, 8])


def test_a_function_says_what_state_it_uses(module: iree.Module) -> None:
    """`Function.state`: the module's `abi.state` as the loaded module reads it."""
    from abi_compiler.codecs.state_json import StateGlobal

    assert module.calls.state == [StateGlobal("count", "tensor<i32>", "int32", (), True, False)]
    assert [g.name for g in module.step.state or []] == ["cache", "count"]
    assert module.double.state is None
    assert module.session().calls.state == module.calls.state


def test_a_malformed_state_entry_is_an_abi_error() -> None:
    text = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> attributes {
    iree.reflection = {abi.state = "{\\22v\\22:1}"}} {
  return %x : tensor<2xf32>
}"""
    module = iree.load(iree.compile_vmfb(text), device="local-sync", isolate=False)
    with pytest.raises(
        AbiError, match=r"""^function @f: malformed reflection 'abi.state': "globals": expected"""
    ):
        _ = module.f.state
    np.testing.assert_array_equal(module.f(np.ones(2, np.float32)), [1, 1])


def test_a_session_made_while_the_module_closes_is_closed_or_refused(
    vmfb: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Module.close` in another thread while `module.session()` makes the session's
    context (was: the close went between the check and the session's registration, and
    left an open session of a closed module whose calls ran). The close waits for the
    session, then closes it; the wait below is bounded, and the outcome is the same
    whichever thread goes first."""
    import threading

    from abi_compiler.calling import sessions

    module = iree.load(vmfb, device="local-sync", isolate=False)
    made = sessions.new_context

    def closing_meanwhile(of: iree.Module) -> object:
        closer = threading.Thread(target=module.close)
        closer.start()
        closer.join(timeout=0.5)  # (finished here before the fix)
        return made(of)

    monkeypatch.setattr(sessions, "new_context", closing_meanwhile)
    session = module.session()
    monkeypatch.setattr(sessions, "new_context", made)
    for _ in range(100):  # the close runs once the session is made
        if module.closed:
            break
        threading.Event().wait(0.05)
    assert module.closed and session.closed
    with pytest.raises(AbiError, match=r"^the module is closed$"):
        session.calls()


def _race(module: iree.Module) -> list[object]:
    """Three threads making five sessions each while a fourth closes ``module``: what
    each ``module.session()`` gave (a session, or the message of its refusal)."""
    import threading

    start = threading.Barrier(4)
    made: list[object] = []

    def make() -> None:
        start.wait(timeout=10)
        for _ in range(5):
            try:
                made.append(module.session())
            except AbiError as error:
                made.append(str(error))

    def close() -> None:
        start.wait(timeout=10)
        module.close()

    threads = [threading.Thread(target=make) for _ in range(3)]
    threads.append(threading.Thread(target=close))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return made


def test_sessions_racing_a_close_in_threads(vmfb: bytes) -> None:
    """Threads making sessions while another closes the module: each session is closed
    once the module is, or was refused; none calls after the close."""
    for _ in range(10):
        module = iree.load(vmfb, device="local-sync", isolate=False)
        made = _race(module)
        assert module.closed and len(made) == 15
        for outcome in made:
            if isinstance(outcome, str):
                assert outcome == "the module is closed"
            else:
                with pytest.raises(AbiError, match=r"^@calls: the module is closed$"):
                    outcome.calls()  # type: ignore[attr-defined]


def test_a_session_without_the_function_says_what_the_module_says(module: iree.Module) -> None:
    """``session.nope`` is the `NoSuchFunction` `AbiError` of ``module.nope`` (was a
    plain AttributeError)."""
    from abi_compiler.calling.modules import NoSuchFunction

    session = module.session()
    with pytest.raises(NoSuchFunction) as from_session:
        _ = session.nope
    with pytest.raises(NoSuchFunction) as from_module:
        _ = module.nope
    assert str(from_session.value) == str(from_module.value)
    assert str(from_session.value) == (
        "the module exports no function 'nope' (its functions: step, calls, double, reset_count)"
    )
    assert not hasattr(session, "nope")
    with pytest.raises(NoSuchFunction):
        session["nope"]


def test_a_session_nobody_refers_to_is_freed(vmfb: bytes) -> None:
    """The module holds its sessions weakly: a session dropped without `close` is freed
    (its state with it) while the module lives on."""
    import gc
    import weakref

    module = iree.load(vmfb, device="local-sync", isolate=False)
    session = module.session()
    session.step(_row(1), np.int32(0))
    gone = weakref.ref(session)
    del session
    gc.collect()
    assert gone() is None
    assert len(module._sessions) == 0
    assert int(module.calls()) == 0


def test_messages_name_the_file_a_module_was_loaded_from(vmfb: bytes, tmp_path: Path) -> None:
    """A module loaded from a path is called by its file's name (was `module 'module'`,
    IREE's name of every module of MLIR text without a name: that is `the module`)."""
    from abi_compiler.calling.modules import NoSuchFunction

    (tmp_path / "cache.vmfb").write_bytes(vmfb)
    module = iree.load(tmp_path / "cache.vmfb", device="local-sync")
    assert module.name == "module" and module.file_name == "cache.vmfb"
    with pytest.raises(NoSuchFunction) as caught:
        module["nope"]
    assert str(caught.value).startswith("module 'cache.vmfb' exports no function 'nope'")
    session = module.session()
    session.close()
    with pytest.raises(AbiError) as closed:
        session.reset()
    assert str(closed.value) == "this session of module 'cache.vmfb' is closed"
    step = module.step
    module.close()
    with pytest.raises(AbiError) as closed:
        step(_row(1), np.int32(0))
    assert str(closed.value) == "@step: module 'cache.vmfb' is closed"
    with pytest.raises(AbiError) as closed:
        module.session()
    assert str(closed.value) == "module 'cache.vmfb' is closed"
