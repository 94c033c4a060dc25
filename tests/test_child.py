"""`abi_compiler.child`: the one runner of native code in a child process, and how a child
ended (docs/design.md, "Modules")."""

from __future__ import annotations

import ast
import signal
import sys
from pathlib import Path

import pytest

from abi_compiler import child

ROOT = Path(__file__).resolve().parent.parent


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def failure(command: list[str], **options: float) -> child.ChildFailed:
    with pytest.raises(child.ChildFailed) as caught:
        child.run(command, b"", **options)
    return caught.value


def test_what_a_child_wrote() -> None:
    code = "import sys; sys.stdout.write(sys.stdin.read().upper()); sys.stderr.write('said')"
    assert child.run(python(code), b"abc") == child.Finished(b"ABC", b"said")


def test_an_exit_status() -> None:
    ended = failure(python("import sys; sys.stderr.write('no'); sys.exit(3)"))
    assert (ended.status, ended.signal, ended.timed_out, ended.out_of_cpu) == (
        3,
        None,
        False,
        False,
    )
    assert (ended.reason, ended.errors, str(ended)) == (
        "exit status 3",
        "no",
        "ended with exit status 3",
    )


def test_a_signal() -> None:
    ended = failure(python("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"))
    assert (ended.status, ended.signal, ended.reason) == (
        -signal.SIGSEGV,
        signal.SIGSEGV,
        "SIGSEGV",
    )
    assert child.exit_reason(-6) == "SIGABRT"
    assert child.signal_name(77) == "signal 77"  # none of Linux's or macOS's


def test_the_wall_clock_limit() -> None:
    # A child that waits without using the CPU: killed at its wall-clock limit.
    ended = failure(python("import signal; signal.pause()"), wall_seconds=0.5)
    assert (ended.timed_out, ended.status, ended.signal, ended.wall_seconds) == (
        True,
        None,
        None,
        0.5,
    )
    assert ended.reason == "killed at its wall-clock limit of 0.5 s"


@pytest.mark.skipif(not hasattr(signal, "SIGXCPU"), reason="no CPU-time limit here")
def test_the_cpu_time_limit() -> None:
    # The child bounds its own CPU time once it has started; SIGXCPU ends it.
    ended = failure(python("from abi_compiler import child\nchild.limit_cpu(1)\nwhile True: pass"))
    assert ended.out_of_cpu and ended.reason == "SIGXCPU"


def test_only_the_runner_starts_processes() -> None:
    # The library's children (IREE's tools, its bytecode reader, a module's first load)
    # all go through `child.run`: no other module of the library imports `subprocess`.
    found = []
    for folder in ("abi_compiler", "passes", "dialects"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = (
                    [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                if "subprocess" in names:
                    found.append(str(path.relative_to(ROOT)))
    assert found == ["abi_compiler/child.py"]
