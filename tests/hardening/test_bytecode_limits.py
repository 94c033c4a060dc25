"""Bytecode on which IREE's reader never finishes: `abi_compiler.text.bytecode` bounds its
child by a CPU-time limit (``ABI_BYTECODE_CPU_SECONDS``, default 60 s plus 10 s per MB)
and a wall-clock limit far above it; on either the child is killed and the read is a
one-line diagnostic, exit status 1, no output.

The hanging mutation is regenerated from `tests/hardening/bytecode_campaign.py` (seed 100;
IREE 3.13, whose `iree-opt` writes the base file). The tests set a CPU limit of 1 s: they
depend on the machine only in that the hang never ends. (The campaign over seeds 0–2499
finds seven mutations on which IREE's reader goes past 10 s of CPU time: 100, 245, 567,
1124, 2092, 2187, 2246; seed 100 read for 150 s of CPU time without finishing.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from abi_compiler.pipeline import PipelineError, run_pipeline
from abi_compiler.text import bytecode
from tests.hardening.bytecode_campaign import base_bytecode, mutate

ENV = bytecode.CPU_SECONDS_ENV


def run(
    module: str, *args: str, cwd: Path, environment: dict[str, str], stdin: bytes = b""
) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        env={**os.environ, **environment},
        timeout=300,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def flipped(data: bytes, flips: list[tuple[int, int, int]]) -> bytes:
    """``data`` with each (offset, bit, byte before) flipped; the byte is checked first, so
    that a different base file fails loudly rather than testing nothing."""
    mutated = bytearray(data)
    for offset, bit, before in flips:
        assert mutated[offset] == before, "the base file is not the one the mutation was found on"
        mutated[offset] ^= bit
    return bytes(mutated)


@pytest.fixture(scope="module")
def hanging(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the campaign's base module (``m.mlirbc``) and its mutation on which
    IREE's reader loops forever (``hang.mlirbc``)."""
    pytest.importorskip("iree.compiler")
    folder = tmp_path_factory.mktemp("hang")
    data = base_bytecode(folder)
    # Campaign seed 100: two flipped bits; IREE 3.13's reader then never returns.
    mutated = flipped(data, [(469, 4, 0x04), (726, 64, 0x6F)])
    assert mutate(data, 100) == (mutated, "flip 469^4, 726^64")
    (folder / "hang.mlirbc").write_bytes(mutated)
    return folder


LIMIT = (
    "cannot read MLIR bytecode: IREE's reader did not finish within its CPU-time limit of "
    f"1 s ({ENV}=1); the bytecode may be corrupted, or set {ENV} higher to allow more"
)


def test_a_reader_that_never_finishes_stops_at_its_cpu_limit(hanging: Path) -> None:
    limit = {ENV: "1"}
    status, out, err = run(
        "abi_compiler.commands.opt_main",
        "hang.mlirbc",
        "-p",
        "iree-abi-v1",
        "-o",
        "out.mlir",
        cwd=hanging,
        environment=limit,
    )
    assert (status, out, err) == (1, "", f"hang.mlirbc: error: {LIMIT}\n")
    assert not (hanging / "out.mlir").exists()
    data = (hanging / "hang.mlirbc").read_bytes()
    assert run(
        "abi_compiler.commands.sig_main", "show", "-", cwd=hanging, environment=limit, stdin=data
    ) == (1, "", f"<stdin>: error: {LIMIT}\n")


def test_the_library_gets_the_limit_as_an_error(
    hanging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "1")
    data = (hanging / "hang.mlirbc").read_bytes()
    with pytest.raises(PipelineError) as caught:
        run_pipeline(data, "iree-abi-v1", name="hang.mlirbc")
    assert str(caught.value) == f"hang.mlirbc: error: {LIMIT}"


def test_the_same_limit_leaves_ordinary_bytecode_alone(hanging: Path) -> None:
    # The limit counts the reader's CPU time, not Python's start-up or IREE's import.
    status, out, err = run(
        "abi_compiler.commands.sig_main",
        "show",
        "m.mlirbc",
        cwd=hanging,
        environment={ENV: "1"},
    )
    assert (status, err) == (0, "")
    assert out.startswith("main(")


def test_a_child_that_blocks_is_stopped_at_the_wall_clock_limit(
    hanging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A child that waits without using the CPU (it never gets a signal but the kill): the
    # wall-clock limit, here 0.5 s (its factor set to 0), stops it.
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(bytecode, "_CHILD", [sys.executable, "-c", "import signal; signal.pause()"])
    monkeypatch.setattr(bytecode, "WALL_FACTOR", 0.0)
    monkeypatch.setattr(bytecode, "WALL_SECONDS_BASE", 0.5)
    with pytest.raises(bytecode.BytecodeError) as caught:
        bytecode.to_text((hanging / "m.mlirbc").read_bytes())
    assert caught.value.message == (
        "cannot read MLIR bytecode: IREE's reader did not finish within 0.5 s of wall-clock "
        "time, the bound that goes with its CPU-time limit of 60 s (60 s plus 10 s per MB of "
        f"input); the bytecode may be corrupted, or set {ENV} higher to allow more"
    )


def test_the_default_limits_scale_with_the_input() -> None:
    assert bytecode.cpu_limit(0) == 60
    assert bytecode.cpu_limit(5 * 2**20) == 110
    assert bytecode.wall_limit(110) == 1160


@pytest.mark.parametrize("setting", ["abc", "0", "-3", "inf", "nan", ""])
def test_a_limit_that_is_not_a_positive_number_is_refused(
    setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, setting)
    with pytest.raises(bytecode.BytecodeError) as caught:
        bytecode.cpu_limit(100)
    assert caught.value.message == (
        f"{ENV}={setting!r} is not a positive number of seconds (the CPU time IREE's "
        "bytecode reader may use)"
    )


def test_a_limit_that_is_not_a_number_is_a_diagnostic_of_the_tools(hanging: Path) -> None:
    # Checked before the child starts: the message, exit status 1, no output.
    assert run(
        "abi_compiler.commands.opt_main",
        "m.mlirbc",
        cwd=hanging,
        environment={ENV: "ten"},
    ) == (
        1,
        "",
        f"m.mlirbc: error: {ENV}='ten' is not a positive number of seconds (the CPU time "
        "IREE's bytecode reader may use)\n",
    )


def test_a_limit_with_a_fraction_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "2.5")
    assert bytecode.cpu_limit(10**9) == 2.5


def test_a_lower_cpu_limit_of_the_process_is_named(hanging: Path) -> None:
    # `ulimit -t 3` before abi-opt: the child inherits a hard limit below its own 60 s.
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (3, 3))

    environment = {key: value for key, value in os.environ.items() if key != ENV}
    done = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.opt_main", "hang.mlirbc"],
        cwd=hanging,
        capture_output=True,
        check=False,
        env=environment,
        preexec_fn=limit,
        timeout=300,
    )
    assert (done.returncode, done.stdout, done.stderr.decode()) == (
        1,
        b"",
        "hang.mlirbc: error: cannot read MLIR bytecode: IREE's reader did not finish within "
        "the CPU-time limit of every process here (ulimit -t: 3 s); the bytecode may be "
        "corrupted, or raise that limit\n",
    )
