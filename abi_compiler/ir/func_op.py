"""What passes read off a `func.func` op itself: whether it is public, and the attribute
dictionary of each argument and result (`passes/structure.py` reads the ABI from them,
`passes/jax_export.py` a JAX export's pytree paths)."""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute


def is_public(func: FuncOp) -> bool:
    return func.sym_visibility is None or func.sym_visibility.data == "public"


def value_attr_dicts(func: FuncOp, side: str) -> list[Mapping[str, Attribute]]:
    """The attribute dictionary of every argument (``side`` "argument") or result; empty
    when the function has none. One property lookup for a whole signature."""
    attrs = func.arg_attrs if side == "argument" else func.res_attrs
    return [] if attrs is None else [attr.data for attr in attrs.data]
