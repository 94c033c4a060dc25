"""Which parts of the project may import which.

Passes talk to the driver only through its pass-facing modules (docs/design.md): they
report changes (`changes`), warn (`diagnostics`), keep source positions
(`location_table.inherit_location`) and state their contract (`carry.BodyAccess`, through
`passes/contract.py`); they never import the driver's parser, printer or command line.
One name of `xdsl_compat`, the one module that uses xDSL's private names, is theirs too:
`set_block_arguments` (`decompose` rebuilds an argument list in one step).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PASSES = sorted(path for path in (ROOT / "passes").glob("*.py") if path.name != "__init__.py")

#: Driver module -> the names passes may import from it (None: the module itself).
PASS_FACING: dict[str, frozenset[str] | None] = {
    "changes": None,
    "diagnostics": None,
    "location_table": frozenset({"inherit_location"}),
    "carry": frozenset({"BodyAccess"}),
    "xdsl_compat": frozenset({"set_block_arguments"}),
}
DRIVER = "abi_compiler.driver"


def _driver_imports(path: Path) -> list[tuple[str, str | None]]:
    """(driver module, name imported from it or None for the module) of every import
    of the driver in ``path``."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == DRIVER:
                found += [(alias.name, None) for alias in node.names]
            elif node.module.startswith(DRIVER + "."):
                module = node.module[len(DRIVER) + 1 :]
                found += [(module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(DRIVER + "."):
                    found.append((alias.name[len(DRIVER) + 1 :], None))
    return found


@pytest.mark.parametrize("path", PASSES, ids=lambda p: p.name)
def test_passes_import_only_the_pass_facing_driver_modules(path: Path) -> None:
    for module, name in _driver_imports(path):
        assert module in PASS_FACING, f"{path.name} imports {DRIVER}.{module}"
        allowed = PASS_FACING[module]
        if allowed is not None:
            assert name in allowed, f"{path.name} imports {name} from {DRIVER}.{module}"


def test_passes_do_not_load_the_driver_stack() -> None:
    modules = ", ".join(f"abi_compiler.passes.{path.stem}" for path in PASSES)
    code = (
        f"import sys, {modules}; print(sorted(m for m in sys.modules if m.startswith('{DRIVER}.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, text=True)
    loaded = {name[len(DRIVER) + 1 :] for name in ast.literal_eval(done.stdout)}
    assert loaded <= set(PASS_FACING), sorted(loaded - set(PASS_FACING))
