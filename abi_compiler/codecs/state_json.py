"""`abi.state` JSON ↔ a list of `StateGlobal`: the module state (mutable globals) a compiled function
reads or writes, with each global's name, MLIR type, dtype and shape (docs/formats.md,
"The state a function uses")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NoReturn

from abi_compiler.errors import AbiError

__all__ = ["StateGlobal", "decode_state", "encode_state", "format_state"]

VERSION = 1


@dataclass(frozen=True, slots=True)
class StateGlobal:
    """One mutable global a function uses."""

    #: Its symbol name (without `@`).
    name: str
    #: Its MLIR type as written (`tensor<4x8xf32>`).
    type: str
    #: Its element's numpy dtype name (`float32`), None when not known.
    dtype: str | None
    #: Its dims (None: a dynamic one); None when not known.
    shape: tuple[int | None, ...] | None
    reads: bool
    writes: bool


def encode_state(used: list[StateGlobal]) -> str:
    items = [
        {
            "name": g.name,
            "type": g.type,
            "dtype": g.dtype,
            "shape": None if g.shape is None else list(g.shape),
            "access": ("r" if g.reads else "") + ("w" if g.writes else ""),
        }
        for g in used
    ]
    return json.dumps({"v": VERSION, "globals": items}, separators=(",", ":"))


def _fail(message: str) -> NoReturn:
    raise AbiError(message)


def decode_state(text: str | bytes) -> list[StateGlobal]:
    try:
        value: Any = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        _fail("not JSON")
    if not isinstance(value, dict) or value.get("v") != VERSION:
        _fail(f'expected an object with "v": {VERSION}')
    items = value.get("globals")
    if not isinstance(items, list):
        _fail('"globals": expected a list')
    found = []
    for position, item in enumerate(items):
        where = f"globals[{position}]"
        if not isinstance(item, dict):
            _fail(f"{where}: expected an object")
        name, type_, dtype = item.get("name"), item.get("type"), item.get("dtype")
        shape, access = item.get("shape"), item.get("access")
        if not isinstance(name, str) or not isinstance(type_, str):
            _fail(f'{where}: expected a "name" and a "type" (strings)')
        if dtype is not None and not isinstance(dtype, str):
            _fail(f'{where}: "dtype": expected a string or null')
        if shape is not None and (
            not isinstance(shape, list)
            or not all(
                d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                for d in shape
            )
        ):
            _fail(f'{where}: "shape": expected a list of sizes (or null)')
        if access not in ("r", "w", "rw"):
            _fail(f'{where}: "access": expected "r", "w" or "rw"')
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


def format_state(used: list[StateGlobal]) -> str:
    """``@cache float32[4, 8] (reads, writes), @count int32[] (reads)``: the `state:` line
    of `abi-sig show`."""

    def one(g: StateGlobal) -> str:
        if g.dtype is not None and g.shape is not None:
            dims = ", ".join("?" if d is None else str(d) for d in g.shape)
            shown = f"{g.dtype}[{dims}]"
        else:
            shown = g.type
        access = ", ".join(word for word, on in (("reads", g.reads), ("writes", g.writes)) if on)
        return f"@{g.name} {shown} ({access})"

    return ", ".join(one(g) for g in used)
