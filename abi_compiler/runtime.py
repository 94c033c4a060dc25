"""Python values ↔ the flat argument and result lists of a function, by its signature: the
public names of `abi_compiler.calling.marshal` (docs/calling.md). No xDSL, numpy or IREE."""

from __future__ import annotations

from abi_compiler.calling.marshal import pack, pack_call, pack_legacy, unpack, unpack_legacy

__all__ = ["pack", "pack_call", "pack_legacy", "unpack", "unpack_legacy"]
