"""Calling compiled IREE modules with nested Python values: the public names of
`abi_compiler.calling`: its `compiling`, `modules` and `vm` modules (docs/calling.md).

    from abi_compiler import iree as abi_iree
    module = abi_iree.compile(mlir_text)              # abi-opt -p iree-abi-v1, iree-compile
    module = abi_iree.load("model.vmfb")              # or a module compiled elsewhere
"""

from __future__ import annotations

from abi_compiler.calling.compiling import COMPILE_FLAGS, compile, compile_vmfb, lower
from abi_compiler.calling.modules import (
    Function,
    Module,
    load,
    parameter_archive,
    parameter_index,
    save_parameters,
)
from abi_compiler.calling.sessions import Session
from abi_compiler.calling.vm import caller_visible
from abi_compiler.errors import CompileError
from abi_compiler.frontends.iree_tools import CompileWarning

__all__ = [
    "COMPILE_FLAGS",
    "CompileError",
    "CompileWarning",
    "Function",
    "Module",
    "Session",
    "caller_visible",
    "compile",
    "compile_vmfb",
    "load",
    "lower",
    "parameter_archive",
    "parameter_index",
    "save_parameters",
]
