"""The `abi-opt` and `abi-compile` console entry points: each imports its driver (and with
it xDSL) only inside the Ctrl-C guard of `status.run_console`, so Ctrl-C during start-up
exits quietly."""

from __future__ import annotations

from typing import NoReturn

from abi_compiler.commands import status


def abi_opt() -> NoReturn:
    """The `abi-opt` command."""

    def run() -> int:
        from abi_compiler.commands.opt_main import main

        return main()

    status.run_console(run)


def abi_compile() -> NoReturn:
    """The `abi-compile` command."""

    def run() -> int:
        from abi_compiler.commands.compile_main import main

        return main()

    status.run_console(run)


def abi_serve() -> NoReturn:
    """The `abi-serve` command."""

    def run() -> int:
        from abi_compiler.commands.serve_main import main

        return main()

    status.run_console(run)
