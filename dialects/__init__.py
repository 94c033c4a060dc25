"""Dialects of abi-compiler, declared the IRDL/ODS way."""

from __future__ import annotations

from xdsl.ir import Operation


def verify_dialect_attributes(module: Operation) -> None:
    """Check every discardable `abi.*` and `tf_saved_model.*` attribute in ``module``
    (on ops, function arguments and results), walking it once.

    xDSL verifies ops and types but has no hook for dialect attributes, so the driver
    calls this after parsing. Raises `abi_compiler.dialects.attributes.AttributeVerifyException`
    (a `VerifyException` with ``op`` and ``where``) on the first bad attribute.
    """
    from xdsl.dialects.func import FuncOp

    from abi_compiler.dialects import abi, tf_saved_model
    from abi_compiler.dialects.attributes import (
        by_name,
        placed_attributes,
        verify_placed_attributes,
    )

    # Each dialect's attributes in turn, per op; ops without any attribute skipped.
    dialects = (by_name(abi.ATTRIBUTES), by_name(tf_saved_model.ATTRIBUTES))
    # Parsed IR shares its attribute objects (one per distinct text): each check is made
    # once per value object and placement; the module keeps the values alive meanwhile.
    passed: set[tuple[str, int, type[Operation], str | None]] = set()
    for op in module.walk():
        if not op.attributes and not isinstance(op, FuncOp):
            continue
        placed = list(placed_attributes(op))
        for defs in dialects:
            verify_placed_attributes(op, placed, defs, passed)
