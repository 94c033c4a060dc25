"""Shared pytest configuration for abi-compiler's tests (`python -m pytest`)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import settings

import tests

# xDSL's wheel installs a top-level `tests` namespace package into site-packages; with
# tests/__init__.py ours is a regular package and wins. Fail loudly if that ever changes.
assert Path(tests.__file__).resolve().parent == Path(__file__).resolve().parent, (
    f"'tests' resolves to {tests.__file__}, not this repository's tests/"
)

# Machines are slow and shared (CI, a laptop building something else, the suite run in the
# background): no per-example deadline, and a fixed example sequence, so that the test
# command gives the same verdict on every run and a red build is reproducible.
settings.register_profile("deterministic", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("deterministic")
