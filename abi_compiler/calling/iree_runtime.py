"""IREE's Python runtime and numpy, imported once for the caller's side: the modules that
call into IREE take them from here, so that a user without them gets one message (which
extra to install) instead of whichever import failed first."""

from __future__ import annotations

try:
    import ml_dtypes
    import numpy as np
    from iree import runtime as rt
    from iree.runtime import _binding as binding
except ImportError as _error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "abi_compiler.iree needs IREE's Python runtime (iree-base-runtime 3.13, with numpy "
        "and ml_dtypes): pip install 'abi-compiler[iree]'"
    ) from _error

__all__ = ["binding", "ml_dtypes", "np", "rt"]
