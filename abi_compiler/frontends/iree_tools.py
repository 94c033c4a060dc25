"""IREE's tools (``iree-opt``, ``iree-compile``) run in a child process
(`abi_compiler.child`), and the errors of compiling: a failure — a crash of the tool
included — is a `CompileError` (`abi_compiler.errors`) naming the stage, with the tool's
diagnostics; what a tool prints when it succeeds is a `CompileWarning`.

The frontends lower their imports with ``iree-opt`` (`iree_ir.lower_torch`), and
`abi_compiler.iree.compile_vmfb` runs ``iree-compile``, through `run_tool`: IREE 3.13
crashes on some inputs (docs/calling.md), and the process that crashes is then the child,
never the caller's. No IREE import here: the caller finds the tool.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence

from abi_compiler import child
from abi_compiler.errors import CompileError

__all__ = ["KNOWN_DEFECTS", "CompileWarning", "report", "run_tool"]


class CompileWarning(UserWarning):
    """A warning of abi-opt or iree-compile during `compile` (the module was built)."""


def report(tool: str, failed: bool, diagnostics: str, *, stacklevel: int = 3) -> None:
    """A failed ``tool`` raises `CompileError` with its diagnostics; what it printed when
    it succeeded becomes a `CompileWarning` for the caller of `lower`/`compile_vmfb`."""
    if failed:
        raise CompileError(tool, diagnostics)
    if diagnostics.strip():
        warnings.warn(diagnostics.rstrip("\n"), CompileWarning, stacklevel=stacklevel)


# Where an LLVM tool's own report of a crash begins: what follows is a stack dump.
_CRASH_REPORT = re.compile(r"^(?:Please report issues to|PLEASE submit a bug report|Stack dump:)")

# Upstream defects a diagnostic shows, with the issue that tracks each.
KNOWN_DEFECTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"failed to legalize operation 'torch\.vtensor\.literal'"),
        "torch-mlir cannot lower an i1 tensor literal (dense<true> : tensor<i1>) combined "
        "by `aten.__and__.Tensor`, as transformers' attention masks make: "
        "https://github.com/llvm/torch-mlir/issues/4625",
    ),
)


def run_tool(command: Sequence[str], data: bytes, stage: str) -> bytes:
    """Run one of IREE's tools (``command``) on ``data`` in a child process and return
    what it writes to stdout. A failure raises `CompileError` for ``stage`` with the
    tool's diagnostics (without the stack dump of a crash, which becomes one line saying
    so) and a note for each known upstream defect they show; what the tool prints when it
    succeeds is a `CompileWarning`."""
    try:
        done = child.run(command, data)
    except child.ChildFailed as ended:
        raise _failure(command, stage, ended) from None
    report(stage, False, done.stderr.decode("utf-8", "replace"), stacklevel=4)
    return done.stdout


def _failure(command: Sequence[str], stage: str, ended: child.ChildFailed) -> CompileError:
    """The `CompileError` of a tool that failed or crashed."""
    assert ended.status is not None  # (no wall-clock limit)
    diagnostics = ended.errors
    lines: list[str] = []
    for line in diagnostics.splitlines():
        if _CRASH_REPORT.match(line):
            break
        lines.append(line)
    tool = os.path.basename(command[0])
    crashed = ended.signal is not None or len(lines) < len(diagnostics.splitlines())
    if crashed:
        where = "" if tool == stage else f" in the {stage}"
        lines.append(f"{tool}: crashed ({ended.reason}){where}, a defect of IREE")
    text = "\n".join(lines)
    for pattern, note in KNOWN_DEFECTS:
        if pattern.search(text):
            lines.append(f"note: a known upstream defect: {note}")
    return CompileError(stage, "".join(line + "\n" for line in lines))
