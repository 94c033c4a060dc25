"""How the command-line tools (`abi-opt`, `abi-compile`, `abi-sig`) end: their exit
statuses, the usage error they share, and the one place that turns a run's end into a
status (`finish`), with the console entry around it (`run_console`).

* ``0`` (`OK`): done; for ``abi-sig diff``, nothing breaks a caller.
* ``1`` (`FAILED`): a diagnostic on stderr, no output file; for ``abi-sig diff``,
  something breaks a caller.
* ``2`` (`UNREADABLE`): ``abi-sig diff`` could not read an input (its ``1`` is taken),
  and argparse's own status for ``abi-sig``'s command-line errors.
* ``130`` (`INTERRUPTED`): Ctrl-C, silently (128 + SIGINT, as a shell reports it).

A `UsageError` is a problem with the command line or an input, reported as
``<prog>: error: <message>``; `ArgumentParser` raises it for argparse's own errors
(``abi-opt``, ``abi-compile``: no usage text, status 1).

Standard library only (no xDSL), so that the console entry points can guard the import
of the driver itself.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from typing import NoReturn

from abi_compiler.commands import output

__all__ = [
    "FAILED",
    "INTERRUPTED",
    "OK",
    "UNREADABLE",
    "ArgumentParser",
    "UsageError",
    "finish",
    "interrupted_quietly",
    "run_console",
]

OK = 0
FAILED = 1
UNREADABLE = 2
INTERRUPTED = 130


class UsageError(Exception):
    """A problem with the command line or an input: ``<prog>: error: <message>``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose errors are a `UsageError` (worded by the tool, exit
    status 1) rather than its usage text and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def finish(
    prog: str,
    run: Callable[[], int],
    *,
    usage: Callable[[str], Iterable[str]] | None = None,
    internal: Callable[[Exception], int] | None = None,
) -> int:
    """``run()``'s exit status, with the ends every tool reports alike: a `UsageError` is
    its message on stderr (the lines ``usage`` words it as; by default one
    ``<prog>: error: <message>``) and `FAILED`, so is a standard stream or output file that
    cannot be used (`output.StreamError`); Ctrl-C is `INTERRUPTED`. Any other exception
    goes to ``internal`` (the tool's own diagnostics, and its report of a defect of ours),
    which gives the status; without it, it propagates."""
    try:
        return run()
    except UsageError as error:
        lines = [f"{prog}: error: {error.message}"] if usage is None else usage(error.message)
        for line in lines:
            output.write_stderr(line)
    except output.StreamError as error:
        output.write_stderr(f"{prog}: error: {error.message}")
    except KeyboardInterrupt:
        return INTERRUPTED
    except Exception as error:
        if internal is None:
            raise
        return internal(error)
    return FAILED


def interrupted_quietly(run: Callable[[], int]) -> int:
    """``run()``, with Ctrl-C anywhere in it (also while modules are imported) exit
    status `INTERRUPTED` and no traceback."""
    try:
        return run()
    except KeyboardInterrupt:
        return INTERRUPTED


def run_console(run: Callable[[], int]) -> NoReturn:
    """A command-line tool's whole process: closed standard streams reopened, ``run()``
    under the Ctrl-C guard, then exit without tearing the interpreter down. Freeing a
    large module's IR object by object takes seconds (a tenth of the run at 10 000
    functions); the operating system reclaims it at once. Only the standard streams need
    flushing: every file the tools write is closed by then."""
    output.reopen_closed_streams()
    status = interrupted_quietly(run)
    if not output.flush_standard_streams():
        status = status or FAILED
    os._exit(status)
