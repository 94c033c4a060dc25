"""Parsing helpers for the dialect tests."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.tensor import Tensor
from xdsl.parser import Parser

from abi_compiler.dialects.abi import Abi
from abi_compiler.dialects.hal import Hal
from abi_compiler.dialects.iree import Iree
from abi_compiler.dialects.tf_saved_model import TfSavedModel
from abi_compiler.dialects.util import Util


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Tensor, Util, Iree, Abi, Hal, TfSavedModel):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str) -> ModuleOp:
    """Parse and verify a module."""
    module = Parser(context(), text).parse_module()
    module.verify()
    return module
