"""Large literals parse in bounded memory (docs/design.md#constants): `abi-opt` runs in
a child process whose address space is limited (`RLIMIT_AS`), on generated multi-MB
literals: a `dense<"0x…">` constant, a string attribute full of escapes, and a splat of
10^8 elements. Before the fixes, the type cache scanned `dense<"0x…">` as a type with a
regex frame per character (an 8 MB constant needed about 1.2 GB), and xDSL expanded the
splat to 10^8 floats; each case here failed with "out of memory while parsing".
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

# Python, xDSL and the driver map about 250 MB of address space before reading input.
ADDRESS_SPACE_LIMIT = 600 << 20
LITERAL_BYTES = 8 << 20
STRING_BYTES = 2 << 20
# `--parse-all`: by default a body no pass rewrites is carried as text and its constants
# are not parsed at all.
PIPELINE = ("--parse-all", "-p", "iree-abi-v1")


def _run_limited(path: Path) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.opt_main", str(path), *PIPELINE],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=300,
        check=False,
    )


def _function(attributes: str, constant: str, type: str) -> str:
    return (
        f"func.func @big() -> {type} attributes {{{attributes}}} {{\n"
        f"  %0 = arith.constant {constant} : {type}\n"
        f"  func.return %0 : {type}\n"
        "}\n"
    )


def test_hex_constant(tmp_path: Path) -> None:
    data = os.urandom(LITERAL_BYTES)
    count = LITERAL_BYTES // 4
    path = tmp_path / "hex.mlir"
    path.write_text(_function("", f'dense<"0x{data.hex()}">', f"tensor<{count}xf32>"))
    result = _run_limited(path)
    assert result.returncode == 0, result.stderr
    assert f'dense<"0x{data.hex().upper()}"> : tensor<{count}xf32>' in result.stdout


def test_string_with_escapes(tmp_path: Path) -> None:
    """A 2 MB string attribute with an escape every few characters (xDSL decodes and
    prints strings character by character: about 5 s per MB)."""
    text = ("abc\\22d\\0Ae\\\\") * (STRING_BYTES // 16)
    path = tmp_path / "string.mlir"
    path.write_text(_function(f'note = "{text}"', "dense<1.0>", "tensor<f32>"))
    result = _run_limited(path)
    assert result.returncode == 0, result.stderr
    assert f'note = "{text}"' in result.stdout


def test_escaped_hex_constant(tmp_path: Path) -> None:
    """A hex constant with some digits written as escapes (`\\41` is `A`) is decoded."""
    data = os.urandom(LITERAL_BYTES // 8)
    digits = data.hex().upper()
    count = len(data) // 4
    path = tmp_path / "escaped.mlir"
    path.write_text(
        _function("", 'dense<"0x' + digits.replace("A", "\\41") + '">', f"tensor<{count}xf32>")
    )
    result = _run_limited(path)
    assert result.returncode == 0, result.stderr
    assert f'dense<"0x{digits}"> : tensor<{count}xf32>' in result.stdout


def test_splat_of_a_hundred_million(tmp_path: Path) -> None:
    path = tmp_path / "splat.mlir"
    path.write_text(_function("", "dense<1.0>", "tensor<100000000xf32>"))
    result = _run_limited(path)
    assert result.returncode == 0, result.stderr
    assert "dense<1.000000e+00> : tensor<100000000xf32>" in result.stdout
