"""Native code in a child process: one runner and one account of how a child ended.

IREE's native code runs where a crash of it (a segfault, ``LLVM ERROR`` and an abort) or a
loop that never ends cannot end the caller's process: IREE's tools (``iree-opt``,
``iree-compile``: `abi_compiler.frontends.iree_tools.run_tool`), IREE's bytecode reader
(`abi_compiler.text.bytecode.to_text`) and the runtime's loading of a module it did not
compile (`abi_compiler.calling.modules.load`). Each runs its child with `run`: its input
on the child's standard input, its standard output and error kept, a wall-clock limit
when it has one (past it the child is killed), the child killed too when the caller is
interrupted (Ctrl-C). A child that does not exit with status 0 is a `ChildFailed`, which
says how it ended — its exit status, the signal that ended it (a CPU-time limit's
``SIGXCPU`` among them), or the wall-clock limit — with what it printed; each caller
words its own error from it.

A child that bounds its own CPU time calls `limit_cpu` once what should not count (starting
Python, importing IREE) is done. No memory limit: none of the three children has one.

No xDSL, numpy or IREE import.
"""

from __future__ import annotations

import math
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "CPU_GRACE",
    "ChildFailed",
    "Finished",
    "exit_reason",
    "limit_cpu",
    "process_cpu_limit",
    "run",
    "signal_name",
]

#: How long after its CPU-time limit's SIGXCPU the kernel kills a child that survives it.
CPU_GRACE = 5


@dataclass(frozen=True)
class Finished:
    """What a child that exited with status 0 wrote."""

    stdout: bytes
    stderr: bytes


class ChildFailed(Exception):
    """A child that did not exit with status 0: ``status`` is its exit status (negative:
    the signal that ended it, as `subprocess` gives it), None when it was killed at its
    wall-clock limit of ``wall_seconds``; ``stdout`` and ``stderr`` are what it wrote."""

    def __init__(
        self, status: int | None, stdout: bytes, stderr: bytes, wall_seconds: float | None
    ) -> None:
        super().__init__(
            f"killed at its wall-clock limit of {wall_seconds} s"
            if status is None
            else f"ended with {exit_reason(status)}"
        )
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.wall_seconds = wall_seconds

    @property
    def timed_out(self) -> bool:
        """Whether the child was killed at its wall-clock limit."""
        return self.status is None

    @property
    def signal(self) -> int | None:
        """The signal that ended the child (None: it exited, or was killed at its
        wall-clock limit)."""
        return -self.status if self.status is not None and self.status < 0 else None

    @property
    def out_of_cpu(self) -> bool:
        """Whether the child's CPU-time limit ended it (``SIGXCPU``; never where the
        signal does not exist)."""
        xcpu = getattr(signal, "SIGXCPU", None)
        return xcpu is not None and self.signal == xcpu

    @property
    def errors(self) -> str:
        """What the child wrote to its standard error, as text."""
        return self.stderr.decode("utf-8", "replace")

    @property
    def reason(self) -> str:
        """``SIGSEGV`` (a signal), ``exit status 3``; for a child killed at its wall-clock
        limit, the limit."""
        if self.status is None:
            return f"killed at its wall-clock limit of {self.wall_seconds} s"
        return exit_reason(self.status)


def signal_name(number: int) -> str:
    """``SIGSEGV``; ``signal 77`` for a number this platform does not name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def exit_reason(status: int) -> str:
    """A `subprocess` return code in words: the signal's name when negative, else
    ``exit status N``."""
    return signal_name(-status) if status < 0 else f"exit status {status}"


def run(
    command: Sequence[str],
    data: bytes,
    *,
    wall_seconds: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Finished:
    """Run ``command`` with ``data`` on its standard input and return what it wrote; a
    `ChildFailed` when it does not exit with status 0 or runs past ``wall_seconds`` (None:
    no wall-clock limit), when it is killed. The child is killed and waited for when this
    process is interrupted while it runs."""
    child = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=None if env is None else dict(env),
    )
    try:
        stdout, stderr = child.communicate(data, timeout=wall_seconds)
    except subprocess.TimeoutExpired:
        child.kill()
        stdout, stderr = child.communicate()
        raise ChildFailed(None, stdout, stderr, wall_seconds) from None
    except BaseException:  # Ctrl-C: the child goes too, not waited for
        child.kill()
        child.wait()
        raise
    if child.returncode != 0:
        raise ChildFailed(child.returncode, stdout, stderr, wall_seconds)
    return Finished(stdout, stderr)


# --------------------------------------------------------------------------------------
# In the child.
# --------------------------------------------------------------------------------------


def limit_cpu(seconds: float) -> None:
    """Let this process use ``seconds`` more CPU time: the kernel then sends SIGXCPU, which
    ends it (no core file), and SIGKILL `CPU_GRACE` seconds later. Nothing where the
    `resource` module does not exist (Windows: the caller's wall-clock limit alone
    applies)."""
    try:
        import resource
    except ImportError:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(used.ru_utime + used.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard == resource.RLIM_INFINITY or hard > soft + CPU_GRACE:
        hard = soft + CPU_GRACE
    else:  # a lower limit set outside (`ulimit -t`): SIGXCPU still comes first
        soft = max(min(soft, hard - 1), 0)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))


def process_cpu_limit() -> float | None:
    """The CPU-time limit this process was given (`ulimit -t`; a child inherits it), if
    any."""
    try:
        import resource
    except ImportError:
        return None
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    return None if hard == resource.RLIM_INFINITY else float(hard)
