"""`abi.state` JSON ↔ a list of `StateGlobal`: the module state (mutable globals) a compiled function
reads or writes, with each global's name, MLIR type, dtype and shape (docs/formats.md,
"The state a function uses"). One global's object is also an item of `abi.call`'s
``state`` (`encode_global`, `decode_globals`)."""

from __future__ import annotations

import json
from typing import Any, NoReturn

from abi_compiler.call_model import StateGlobal
from abi_compiler.errors import AbiError

__all__ = [
    "StateGlobal",
    "decode_globals",
    "decode_state",
    "encode_global",
    "encode_state",
    "format_access",
    "format_global",
    "format_state",
    "read_versioned",
]

VERSION = 1


def encode_global(g: StateGlobal) -> dict[str, Any]:
    """One global's JSON object."""
    return {
        "name": g.name,
        "type": g.type,
        "dtype": g.dtype,
        "shape": None if g.shape is None else list(g.shape),
        "access": ("r" if g.reads else "") + ("w" if g.writes else ""),
    }


def encode_state(used: list[StateGlobal]) -> str:
    items = [encode_global(g) for g in used]
    return json.dumps({"v": VERSION, "globals": items}, separators=(",", ":"))


def _fail(message: str) -> NoReturn:
    raise AbiError(message)


def read_versioned(text: str | bytes, version: int) -> dict[str, Any]:
    """The JSON object of a versioned entry's ``text`` (its member ``"v"`` is
    ``version``); an `AbiError` for anything else."""
    try:
        value: Any = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        _fail("not JSON")
    if not isinstance(value, dict) or value.get("v") != version:
        _fail(f'expected an object with "v": {version}')
    return value


def decode_state(text: str | bytes) -> list[StateGlobal]:
    return decode_globals(read_versioned(text, VERSION).get("globals"), "globals")


def decode_globals(items: Any, where: str) -> list[StateGlobal]:
    """The globals of a decoded JSON list ``items`` (the member ``where``); `AbiError`
    naming the member and item for anything else, and for a global listed twice."""
    if not isinstance(items, list):
        _fail(f'"{where}": expected a list')
    found: list[StateGlobal] = []
    names: set[str] = set()
    for position, item in enumerate(items):
        at = f"{where}[{position}]"
        if not isinstance(item, dict):
            _fail(f"{at}: expected an object")
        name, type_, dtype = item.get("name"), item.get("type"), item.get("dtype")
        shape, access = item.get("shape"), item.get("access")
        if not isinstance(name, str) or not isinstance(type_, str):
            _fail(f'{at}: expected a "name" and a "type" (strings)')
        if dtype is not None and not isinstance(dtype, str):
            _fail(f'{at}: "dtype": expected a string or null')
        if shape is not None and (
            not isinstance(shape, list)
            or not all(
                d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                for d in shape
            )
        ):
            _fail(f'{at}: "shape": expected a list of sizes (or null)')
        if access not in ("r", "w", "rw"):
            _fail(f'{at}: "access": expected "r", "w" or "rw"')
        if name in names:
            _fail(f"{at}: the global {name!r} is listed twice")
        names.add(name)
        found.append(
            StateGlobal(
                name,
                type_,
                dtype,
                None if shape is None else tuple(shape),
                "r" in access,
                "w" in access,
            )
        )
    return found


def format_global(g: StateGlobal) -> str:
    """``float32[4,8]``: a global's dtype and shape, or its MLIR type when they are not
    known."""
    if g.dtype is not None and g.shape is not None:
        dims = ",".join("?" if d is None else str(d) for d in g.shape)
        return f"{g.dtype}[{dims}]"
    return g.type


def format_access(g: StateGlobal) -> str:
    """``reads, writes``, ``reads`` or ``writes``."""
    return ", ".join(word for word, on in (("reads", g.reads), ("writes", g.writes)) if on)


def format_state(used: list[StateGlobal]) -> str:
    """``@cache float32[4,8] (reads, writes), @count int32[] (reads)``: the `state:` line
    of `abi-sig show`."""
    return ", ".join(f"@{g.name} {format_global(g)} ({format_access(g)})" for g in used)
