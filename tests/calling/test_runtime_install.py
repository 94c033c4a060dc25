"""The `runtime` extra: a server that only loads and calls modules installs
`abi-compiler[runtime]` (IREE's runtime, numpy, ml_dtypes), not IREE's compiler. A fresh
venv gets exactly that from this checkout; a `.vmfb` compiled here from a committed input
loads and is called there with the model's original call, nothing on that path imports
`iree.compiler`, and what needs the compiler names the extra to install. Skipped where
IREE ships no wheel (the `test` extra's markers) or where the package index cannot be
reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "frontends" / "inputs" / "torch_mlp.mlir"
EXAMPLE = MODEL.with_suffix(".json")

SERVER = """
import importlib.util, json, sys

import numpy as np

from abi_compiler import iree as abi_iree

assert importlib.util.find_spec("iree.compiler") is None, "IREE's compiler is installed"
assert abi_iree.__file__.startswith(sys.prefix), abi_iree.__file__  # the installed copy


def decode(value):
    if isinstance(value, dict) and "array" in value:
        return np.asarray(value["array"], dtype=value["dtype"])
    if isinstance(value, dict) and "tuple" in value:
        return tuple(decode(item) for item in value["tuple"])
    if isinstance(value, dict) and "dict" in value:
        return {key: decode(item) for key, item in value["dict"]}
    if isinstance(value, dict) and "namedtuple" in value:
        return {name: decode(item) for name, item in value["fields"]}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


example = json.loads(open(sys.argv[2]).read())
module = abi_iree.load(sys.argv[1])
got = module.main(*decode(example["args"]), **decode(example["kwargs"]))
want = decode(example["results"])
np.testing.assert_allclose(got[0]["y"], want[0]["y"], rtol=1e-6)
assert got[0]["rest"][1][1].tolist() == want[0]["rest"][1][1].tolist()
assert got[1].first.tolist() == want[1]["first"].tolist()
assert type(got[1]).__name__ == "Pair"
print("called:", sorted(name for name in sys.modules if name.startswith("iree.compiler")))
try:
    abi_iree.compile_vmfb("func.func @f() { func.return }")
except ImportError as error:
    print("compile:", error)
"""


def test_the_runtime_extra_loads_and_calls_without_the_compiler(tmp_path: Path) -> None:
    # Nothing of this process's paths: the venv's own site-packages only.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    vmfb = tmp_path / "mlp.vmfb"
    vmfb.write_bytes(compile_quietly(MODEL.read_text()).vmfb)
    home = tmp_path / "venv"
    venv.create(home, with_pip=True)
    python = home / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    install = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            f"{ROOT}[runtime]",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if install.returncode != 0 and "No matching distribution" in install.stderr:
        pytest.skip(f"the runtime extra cannot be installed here: {install.stderr[-300:]}")
    assert install.returncode == 0, install.stderr
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {entry["name"].lower().replace("_", "-") for entry in json.loads(listed.stdout)}
    assert {"iree-base-runtime", "numpy", "ml-dtypes", "xdsl"} <= installed
    assert "iree-base-compiler" not in installed
    done = subprocess.run(
        [str(python), "-c", SERVER, str(vmfb), str(EXAMPLE)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "called: []\ncompile: abi_compiler.iree.compile needs IREE's compiler "
        "(iree-base-compiler 3.13): pip install 'abi-compiler[iree]'\n"
    )
