"""The campaign over index arithmetic (tests/hardening/index_campaign.py), each framework's
in a child process: a read or write outside a buffer that crashed would end the child,
which the test reports, not the test process. Every case must match the framework: its
numbers where it takes the value, an `AbiError` where torch or ONNX Runtime refuse it,
JAX's own clamped or dropped result. Skipped without the framework (CI has none of them;
tests/frontends/test_index_checks.py runs the checks there)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree

ROOT = Path(__file__).resolve().parents[2]
# The least number of cases each campaign runs (forms × values): a campaign that silently
# ran fewer would prove less.
LEAST = {"torch": 80, "jax": 168, "onnx": 60}


@pytest.mark.parametrize(
    ("framework", "needs"),
    [("torch", "iree.turbine"), ("jax", "jax"), ("onnx", "onnxruntime")],
)
def test_index_campaign(framework: str, needs: str) -> None:
    needs_iree()
    pytest.importorskip(framework)
    pytest.importorskip(needs)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    ended = subprocess.run(
        [sys.executable, "-m", "tests.hardening.index_campaign", framework],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    lines = ended.stdout.splitlines()
    problems = [line for line in lines if not line.endswith(" equal") and " refused: " not in line]
    assert ended.returncode == 0, (ended.returncode, problems, ended.stderr[-3000:])
    assert lines[-1].startswith("cases ") and lines[-1].endswith(" failures 0"), problems
    assert int(lines[-1].split()[1]) >= LEAST[framework]
    refused = [line for line in lines if " refused: " in line]
    if framework == "jax":
        assert not refused  # JAX clamps and drops: never an error
    else:
        assert any("index out of bounds" in line for line in refused)
