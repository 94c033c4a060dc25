"""`abi-serve`'s refusals before anything starts (docs/serving.md): one line, exit status
1, for a file that is not a compiled module, a missing file, `--replicas 0`, and a
missing Ray Serve. Serving itself: tests/serve/test_ray_serve.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from abi_compiler.commands.serve_main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            [str(ROOT / "README.md")],
            f"abi-serve: error: {ROOT / 'README.md'}: not a compiled module (.vmfb): compile it "
            "first (abi-compile FILE -o model.vmfb)",
        ),
        (
            ["model.vmfb", "--replicas", "0"],
            "abi-serve: error: --replicas must be at least 1, got 0",
        ),
        (
            ["model.vmfb", "--port", "x"],
            "abi-serve: error: argument --port: invalid int value: 'x'",
        ),
    ],
)
def test_refusals_are_one_line(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(arguments) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", message + "\n")


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "none.vmfb")]) == 1
    assert capsys.readouterr().err == (
        f"abi-serve: error: cannot read '{tmp_path / 'none.vmfb'}': no such file\n"
    )


def test_without_ray_it_says_which_extra(tmp_path: Path) -> None:
    """Ray refused on import (as where the serve extra is not installed), for a real
    module (a file's own problems are said first)."""
    from tests.calling.helpers import compile_quietly

    source = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }"
    (tmp_path / "model.vmfb").write_bytes(compile_quietly(source, "iree-abi-v1", vmfb=True))
    code = (
        "import importlib.abc, sys\n"
        "class Refuse(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('ray', 'starlette'):\n"
        "            raise ImportError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "from abi_compiler.commands.serve_main import main\n"
        f"sys.exit(main([{str(tmp_path / 'model.vmfb')!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "abi-serve: error: Ray Serve is not installed (No module named 'ray'): "
        "pip install 'abi-compiler[serve]'\n"
    )
