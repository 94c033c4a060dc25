"""The `iree.reflection` dictionary of a function (docs/spec.md §7): read, merge, validate."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

from abi_compiler.attribute_names import IREE_ABI, REFLECTION
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics

T = TypeVar("T")


def reflection_entries(func: FuncOp) -> dict[str, Attribute]:
    attr = func.attributes.get(REFLECTION)
    if attr is None:
        return {}
    if not isinstance(attr, DictionaryAttr):
        raise AbiError(f"{REFLECTION} must be a dictionary attribute", op=func)
    return dict(attr.data)


def set_reflection_entries(func: FuncOp, entries: dict[str, Attribute]) -> None:
    """Write ``iree.reflection`` with its keys sorted, as MLIR prints dictionaries."""
    func.attributes[REFLECTION] = DictionaryAttr(dict(sorted(entries.items())))


def existing_string(func: FuncOp, entries: dict[str, Attribute], key: str) -> str | None:
    value = entries.get(key)
    if value is None:
        return None
    if not isinstance(value, StringAttr):
        raise AbiError(f"malformed existing reflection '{key}': expected a string", op=func)
    return value.data


def existing_decoded(
    func: FuncOp, entries: dict[str, Attribute], key: str, decode: Callable[[str], T]
) -> T | None:
    """The existing entry ``key`` decoded by ``decode``; None when there is none. An
    entry that does not decode is the error `malformed existing reflection '<key>': …`
    (docs/spec.md §7): passes check an existing entry this way instead of replacing it."""
    existing = existing_string(func, entries, key)
    if existing is None:
        return None
    try:
        return decode(existing)
    except AbiError as error:
        raise AbiError(f"malformed existing reflection '{key}': {error}", op=func) from None


def adopt_bare_iree_abi(func: FuncOp, entries: dict[str, Attribute]) -> None:
    """A frontend's plain `iree.abi` attribute moves into `iree.reflection` (docs/spec.md §7).
    Beside an `iree.abi` already in `iree.reflection`, the reflection entry wins (IREE
    reads only that one): an identical bare one goes silently, a different one goes
    with a warning."""
    bare = func.attributes.get(IREE_ABI)
    if bare is None:
        return
    if IREE_ABI not in entries:
        entries[IREE_ABI] = bare
    elif entries[IREE_ABI] != bare:
        diagnostics.warn(
            f"bare {IREE_ABI} differs from the one in {REFLECTION} and is dropped "
            f"(IREE reads only {REFLECTION})",
            func,
        )
    del func.attributes[IREE_ABI]


def add_entries(
    func: FuncOp,
    entries: dict[str, Attribute],
    wanted: dict[str, Callable[[], str]],
    validators: dict[str, Callable[[str], object]],
) -> None:
    """Add each wanted entry unless it exists; an existing one is validated instead of
    replaced (docs/spec.md §7). ``wanted`` maps keys to the computation of their value."""
    for key, compute in wanted.items():
        validate = validators.get(key)
        if validate is None:
            exists = existing_string(func, entries, key) is not None
        else:
            exists = existing_decoded(func, entries, key, validate) is not None
        if not exists:
            entries[key] = StringAttr(compute())
