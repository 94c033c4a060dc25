# ruff: noqa: F821  (lit injects `config` and `lit_config`)
"""lit configuration of abi-compiler's FileCheck suite: `lit -v tests/filecheck`.

RUN lines use the installed console scripts `abi-opt`, `abi-sig` and `filecheck`, and lit's
builtin `not`. `%examples` is the repository's `examples/` directory.
"""

import contextlib
import importlib.util
import os
import sysconfig

import lit.formats

config.name = "abi-compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# Only tests/filecheck holds tests; everything else with a .mlir suffix is data.
config.excludes = [
    "Output",
    "Inputs",
    "inputs",
    "examples",
    "bench",
    "docs",
    "build",
    ".venv",
    "venv",
    ".git",
]

# lit runs RUN lines with a minimal environment. Put the scripts directory of the Python
# that runs lit first on PATH, so `abi-opt` and `filecheck` are the ones installed next to
# it (a venv or a `pip install --user` need not be on the caller's PATH).
_scripts = [sysconfig.get_path("scripts")]
with contextlib.suppress(KeyError):
    _scripts.append(sysconfig.get_path("scripts", f"{os.name}_user"))
config.environment["PATH"] = os.pathsep.join([*_scripts, os.environ.get("PATH", "")])
for _name in ("ABI_OPT_TRACEBACK", "HOME", "PYTHONPATH", "TMPDIR"):
    if _name in os.environ:
        config.environment[_name] = os.environ[_name]

# `REQUIRES: iree-compiler`: IREE's compiler package (`iree-opt`, its MLIR bindings) is
# installed next to this Python, as the test extra installs it where IREE ships wheels.
with contextlib.suppress(ImportError):
    if importlib.util.find_spec("iree.compiler") is not None:
        config.available_features.add("iree-compiler")

config.substitutions.append(("%examples", os.path.join(config.test_source_root, "examples")))
