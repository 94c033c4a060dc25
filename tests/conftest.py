"""Shared pytest configuration for abi-compiler's tests (`python -m pytest`)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import settings

import tests

# xDSL's wheel installs a top-level `tests` namespace package into site-packages; with
# tests/__init__.py ours is a regular package and wins. Fail loudly if that ever changes.
assert Path(tests.__file__).resolve().parent == Path(__file__).resolve().parent, (
    f"'tests' resolves to {tests.__file__}, not this repository's tests/"
)

# CI machines are slow and shared: no per-example deadline, and a fixed example sequence so
# that a red build is reproducible.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
