"""`pip install -e` of this checkout, as the README installs it, is seen by type checkers:
a fresh venv's editable install is a path entry (a `.pth` line naming the clone), which
mypy follows, not an import hook, which it does not (docs/calling.md, "Signatures and
typed stubs"). Skipped where the package index cannot be reached."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

USER = """\
from abi_compiler.errors import AbiError

error: AbiError = AbiError("refused")
number: int = error
"""


def test_mypy_sees_an_editable_install(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    home = tmp_path / "venv"
    venv.create(home)  # pip from this process installs into it (`pip --python`)
    python = home / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    install = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "-q"),
            *("--disable-pip-version-check", "--no-deps", "-e", str(ROOT)),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if install.returncode != 0 and "No matching distribution" in install.stderr:
        pytest.skip(f"setuptools cannot be installed here: {install.stderr[-300:]}")
    if install.returncode != 0 and "no such option: --python" in install.stderr:
        pytest.skip("this pip cannot install into another environment (pip 22.3 or newer can)")
    assert install.returncode == 0, install.stderr
    (tmp_path / "user.py").write_text(USER)
    checked = subprocess.run(
        [
            *(sys.executable, "-m", "mypy", "--strict", "--no-incremental"),
            *("--python-executable", str(python), "user.py"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    # The module is found and read: the one error is the user's, against its real class.
    assert checked.stdout.splitlines() == [
        'user.py:4: error: Incompatible types in assignment (expression has type "AbiError", '
        'variable has type "int")  [assignment]',
        "Found 1 error in 1 file (checked 1 source file)",
    ], checked.stdout + checked.stderr
