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
    from abi_compiler.dialects.abi import verify_abi_attributes
    from abi_compiler.dialects.tf_saved_model import verify_tf_saved_model_attributes

    for op in module.walk():
        verify_abi_attributes(op)
        verify_tf_saved_model_attributes(op)
