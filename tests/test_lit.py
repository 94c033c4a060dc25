"""Runs the whole lit/FileCheck suite (tests/filecheck) as one pytest test, so that
`python -m pytest` is the project's single test command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_lit_suite() -> None:
    # lit run by this interpreter: lit.cfg.py puts this interpreter's scripts directory
    # (where `abi-opt` and `filecheck` are installed) first on PATH.
    result = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-sv", "tests/filecheck"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        pytest.fail(
            f"lit exited with status {result.returncode}\n{result.stdout}\n{result.stderr}",
            pytrace=False,
        )
