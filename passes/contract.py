"""What a pass of this project states to the driver, in one place (`AbiPass`).

`abi-opt` runs any xDSL `ModulePass`; a pass derived from `AbiPass` also says

* ``preserves_validity``: it only adds reflection entries, which no verifier reads, so the
  driver does not verify the module again after it;
* ``reports_changes``: it reports every top-level op it creates or modifies through
  `abi_compiler.driver.changes`, so the driver re-verifies only those (and the module op);
* ``body_access``: which function bodies it reads or rewrites (`BodyAccess`); the driver
  parses only those and carries every other body as text (docs/carried-text.md).

A pass that does not derive from `AbiPass` is taken to preserve nothing, report nothing
and need every body (`contract_of`). Warnings go through `abi_compiler.driver.diagnostics`,
errors are raised as `AbiError`s (see `abi_compiler.driver.opt_main`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.passes import ModulePass

from abi_compiler.driver.carry import BodyAccess

__all__ = ["AbiPass", "BodyAccess", "contract_of"]


class AbiPass(ModulePass):
    """A module pass with the driver-facing declarations above (defaults: the safe ones)."""

    preserves_validity: ClassVar[bool] = False
    reports_changes: ClassVar[bool] = False
    body_access: ClassVar[BodyAccess] = BodyAccess.ALL


def contract_of(module_pass: ModulePass) -> tuple[bool, bool, BodyAccess]:
    """(preserves_validity, reports_changes, body_access) of any pass."""
    if isinstance(module_pass, AbiPass):
        return module_pass.preserves_validity, module_pass.reports_changes, module_pass.body_access
    return False, False, BodyAccess.ALL
