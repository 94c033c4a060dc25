"""The dialects a run knows, registered lazily: a dialect's module is imported only when
the input or a pass uses it (start-up time)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect

#: Dialects a run knows: name -> (module, attribute holding the `Dialect`).
DIALECTS: dict[str, tuple[str, str]] = {
    "builtin": ("xdsl.dialects.builtin", "Builtin"),
    "func": ("xdsl.dialects.func", "Func"),
    "arith": ("xdsl.dialects.arith", "Arith"),
    "tensor": ("xdsl.dialects.tensor", "Tensor"),
    "util": ("abi_compiler.dialects.util", "Util"),
    "iree": ("abi_compiler.dialects.iree", "Iree"),
    "abi": ("abi_compiler.dialects.abi", "Abi"),
    "hal": ("abi_compiler.dialects.hal", "Hal"),
    "tf_saved_model": ("abi_compiler.dialects.tf_saved_model", "TfSavedModel"),
    "torch": ("abi_compiler.dialects.torch", "Torch"),
}


def _loader(module: str, attribute: str) -> Callable[[], Dialect]:
    return lambda: getattr(importlib.import_module(module), attribute)


def register_dialects(ctx: Context) -> None:
    """Register (without importing) every dialect a run knows."""
    for name, (module, attribute) in DIALECTS.items():
        ctx.register_dialect(name, _loader(module, attribute))


def context(allow_unregistered: bool = False) -> Context:
    """A context with every dialect a run knows."""
    ctx = Context(allow_unregistered=allow_unregistered)
    register_dialects(ctx)
    return ctx
