"""The `abi-opt` console entry point: it imports the driver (and with it xDSL) only inside
the Ctrl-C guard of `output.run_console`, so Ctrl-C during start-up exits quietly."""

from __future__ import annotations

from typing import NoReturn

from abi_compiler.commands import output


def abi_opt() -> NoReturn:
    """The `abi-opt` command."""

    def run() -> int:
        from abi_compiler.commands.opt_main import main

        return main()

    output.run_console(run)
