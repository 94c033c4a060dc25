"""The module a server serves: its functions read from the file once (`read_functions`,
the reader of `abi-sig show`), and the module loaded in a replica with its routes
(`load_endpoints`)."""

from __future__ import annotations

import os

from abi_compiler.errors import AbiError
from abi_compiler.serve.endpoints import ModuleEndpoints
from abi_compiler.serve.openai_api import add_text_generation
from abi_compiler.signatures.module_signatures import (
    FunctionSignature,
    ReadError,
    is_vmfb,
    read_module,
)

__all__ = ["load_endpoints", "read_functions"]


def read_functions(path: str | os.PathLike[str]) -> list[FunctionSignature]:
    """The functions of the compiled module at ``path``; an `AbiError` for a file that is
    not one (MLIR is compiled first: ``abi-compile``)."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except FileNotFoundError:  # (worded as abi-compile and abi-generate say it)
        raise AbiError(f"cannot read '{os.fspath(path)}': no such file") from None
    if not is_vmfb(data):
        raise AbiError(
            f"{os.fspath(path)}: not a compiled module (.vmfb): compile it first "
            "(abi-compile FILE -o model.vmfb)"
        )
    try:
        return read_module(data, os.fspath(path))
    except ReadError as error:
        raise AbiError(f"{os.fspath(path)}: {error.message}") from None


def load_endpoints(
    path: str,
    functions: list[FunctionSignature],
    name: str,
    device: str | None = None,
    mmap: bool = True,
) -> ModuleEndpoints:
    """The module at ``path`` loaded (its `.vmfb` and `.irpa` mapped, not copied:
    `load(…, mmap=True)`; ``mmap=False`` reads the `.vmfb` into the replica's memory)
    on ``device`` (by default `load`'s: ``local-sync`` for a small module), and its
    routes (the OpenAI ones too for a language model); results as numpy arrays (no
    framework)."""
    from abi_compiler.calling.modules import load

    module = load(path, device=device, results="numpy", mmap=mmap)
    endpoints = ModuleEndpoints(module, functions, name)
    add_text_generation(endpoints)  # (a module that records a generation job)
    return endpoints
