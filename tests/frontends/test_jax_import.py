"""`abi_compiler.frontends.jax` without JAX: the ImportError says what to install, and
nothing else of the project needs JAX (docs/spec.md §3.4)."""

from __future__ import annotations

import subprocess
import sys


def test_without_jax_the_import_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "try:\n"
        "    import abi_compiler.frontends.jax\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == (
        "abi_compiler.frontends.jax needs JAX (jax and jaxlib, 0.4.14 or newer): "
        "pip install 'abi-compiler[jax]'\n"
    )


def test_abi_opt_and_the_frontends_package_do_not_import_jax() -> None:
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "import abi_compiler.frontends, abi_compiler.commands.opt_main\n"
        "from abi_compiler.commands.opt_main import main\n"
        "sys.exit(main(['-', '-p', 'iree-abi-v1']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input='func.func @f(%x: tensor<2xf32> loc("x")) -> (tensor<2xf32> {jax.result_info = "result"}) {\n'
        "  return %x : tensor<2xf32>\n}\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (
        "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> attributes {iree.abi.stub"
        in result.stdout
    )
