"""The lit/FileCheck suite (tests/filecheck), one pytest test per file, so that
`python -m pytest` is the project's single test command and shows progress and failures
per lit file (and pytest-xdist spreads them over the workers).

lit's own unittest adaptor (`lit.LitTestCase`) discovers the files with `lit.cfg.py`, as
`lit tests/filecheck` does, and runs each in this process; its RUN lines start the
installed `abi-opt`, `abi-sig` and `filecheck` (lit.cfg.py puts this interpreter's scripts
directory first on PATH). A failure shows lit's report of that file: the RUN line, the
command's output and FileCheck's diagnostics.
"""

from __future__ import annotations

import unittest
from pathlib import Path

# The module, not its class: pytest would collect an imported TestCase subclass as a test.
import lit.LitTestCase as lit_unittest
import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "filecheck"


def _lit_tests() -> list[lit_unittest.LitTestCase]:
    suite = lit_unittest.load_test_suite([str(SUITE)])
    found = [test for test in suite if isinstance(test, lit_unittest.LitTestCase)]
    return sorted(found, key=_name)


def _name(test: unittest.TestCase) -> str:
    """`tests/filecheck/driver/help.mlir` for lit's `abi-compiler :: tests/filecheck/…`: the
    path to give `lit` to run the file alone."""
    return test.id().split(" :: ", 1)[-1]


LIT_TESTS = _lit_tests()


def test_every_lit_file_is_collected() -> None:
    # Discovery goes through lit.cfg.py; a file it skipped (a wrong suffix, an excluded
    # directory) would silently never run.
    on_disk = sorted(
        path.relative_to(ROOT).as_posix()
        for path in SUITE.rglob("*.mlir")
        if "Output" not in path.relative_to(SUITE).parts
    )
    assert [_name(test) for test in LIT_TESTS] == on_disk
    assert len(on_disk) >= 56


@pytest.mark.parametrize("test", LIT_TESTS, ids=_name)
def test_lit_file(test: lit_unittest.LitTestCase) -> None:
    report = None
    try:
        test.runTest()
    except AssertionError as failure:  # lit's report of the file: RUN lines and output
        report = str(failure)
    except RuntimeError as unresolved:  # lit.LitTestCase.UnresolvedError: could not run
        report = f"lit could not run the test:\n{unresolved}"
    if report is not None:
        pytest.fail(report, pytrace=False)
