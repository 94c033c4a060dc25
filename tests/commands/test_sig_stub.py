"""`abi-sig stub` on a compiled module: the stub it writes loads the module, its calls
return the stub's own classes, and `mypy --strict` accepts a correct call through it and
refuses a wrong keyword and a result field the model does not have (the exact text of a
stub is pinned by tests/filecheck/abi-sig/stub.mlir)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
pytest.importorskip("mypy")

from tests.calling.helpers import compile_quietly  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "frontends" / "inputs" / "torch_mlp.mlir"

CALL = """
import numpy as np

from model_api import CompiledModule, Pair, load

module: CompiledModule = load()
out = module.main(
    {"features": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)},
    (np.ones(3, np.float32), np.arange(3, dtype=np.int32)),
    2,
    mask=np.array([True, False, True]),
    ids=np.arange(3, dtype=np.uint8),
)
pair: Pair = out[1]
rest = out[0]["rest"]
print(type(pair).__module__, type(pair).__name__, pair.first.dtype, pair.second.tolist())
"""

WRONG = """
import numpy as np

from model_api import load

module = load()
out = module.main(
    {"features": np.zeros((2, 4), np.float32)},
    (np.ones(3, np.float32), np.arange(3, dtype=np.int32)),
    2,
    mask=np.array([True, False, True]),
    idz=np.arange(3, dtype=np.uint8),
)
print(out[1].third)
"""


# What a user writes (README, docs/calling.md): nested lists and numpy scalars as inputs,
# a session's loop, run from another folder than the stub's (load() finds the module
# beside the stub).
SESSION = """
import numpy as np

from model_api import CompiledModule, CompiledSession, load

module: CompiledModule = load()
features = [[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0]]
with module.session() as session:
    steps: CompiledSession = session
    for step in range(2):
        out = steps.main(
            {"features": np.asarray(features, np.float32)},
            (np.float32(step) + np.ones(3, np.float32), [1, 2, 3]),
            2,
            mask=[True, False, True],
            ids=np.arange(3, dtype=np.uint8),
        )
        print(out[1].first.tolist(), out[1].second.tolist())
    steps.reset()
module.close()
"""


@pytest.fixture(scope="module")
def stubbed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stub")
    vmfb = compile_quietly(MODEL.read_text()).vmfb
    (folder / "mlp.vmfb").write_bytes(vmfb)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "abi_compiler.commands.sig_main",
            "stub",
            "mlp.vmfb",
            "-o",
            "model_api.py",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    (folder / "call.py").write_text(CALL)
    (folder / "wrong.py").write_text(WRONG)
    (folder / "session.py").write_text(SESSION)
    return folder


def _mypy(folder: Path, script: str) -> subprocess.CompletedProcess[str]:
    # abi_compiler is found on MYPYPATH (this checkout, whatever this process has
    # installed); its own modules are not what is checked here.
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(folder / ".mypy_cache"),
            "model_api.py",
            script,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_a_call_through_the_stub_gives_its_classes(stubbed: Path) -> None:
    done = subprocess.run(
        [sys.executable, "call.py"],
        cwd=stubbed,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(stubbed), str(ROOT)])},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "model_api Pair float32 [0, 1, 2]\n"


def test_mypy_accepts_a_correct_call_and_refuses_wrong_ones(stubbed: Path) -> None:
    good = _mypy(stubbed, "call.py")
    assert good.returncode == 0, good.stdout
    bad = _mypy(stubbed, "wrong.py")
    assert bad.returncode == 1
    errors = sorted(
        line.split(": error: ", 1)[1] for line in bad.stdout.splitlines() if ": error: " in line
    )
    assert errors == [
        '"Pair" has no attribute "third"  [attr-defined]',
        'Unexpected keyword argument "idz" for "main" of "CompiledModule"  [call-arg]',
    ]


def test_a_session_loop_of_lists_type_checks_and_runs_from_another_folder(
    stubbed: Path, tmp_path: Path
) -> None:
    """The stub's `session()` gives a typed session of the same functions, its inputs
    take what the call takes (`ArrayLike`: lists, numpy scalars), and `load()` finds the
    module beside the stub, not in the current folder."""
    checked = _mypy(stubbed, "session.py")
    assert (checked.returncode, checked.stdout) == (
        0,
        "Success: no issues found in 2 source files\n",
    )
    done = subprocess.run(
        [sys.executable, str(stubbed / "session.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(stubbed), str(ROOT)])},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "[2.0, 2.0, 2.0] [1, 2, 3]\n[4.0, 4.0, 4.0] [1, 2, 3]\n"
