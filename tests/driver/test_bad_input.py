"""Bad input to `abi-opt` (SPEC §11): every kind gives exactly one diagnostic line on
stderr, exit status 1, no traceback, and no output file (not even a temporary one)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

VERIFIER_ERROR = b"""\
func.func @f(%a: i32) -> f32 {
  func.return %a : i32
}
"""

BOUND_INPUT = b"""\
func.func @f(%a: i32,
             %b: i32 {tf_saved_model.bound_input = @v}) -> i32 {
  func.return %b : i32
}
"""

GOOD = b"func.func @f() {\n  func.return\n}\n"

SAME_TYPES = (
    "Expected arguments to have the same types as the function output types: "
    "expected [f32], got [i32]"
)


@dataclass
class Case:
    """Files created in a fresh directory `{d}`, the command line (output to `{d}/out.mlir`
    unless the case is about `-o`), optional stdin, and the exact expected stderr."""

    id: str
    args: list[str]
    stderr: str
    files: dict[str, bytes] = field(default_factory=dict)
    stdin: bytes | None = None


CASES = [
    Case(
        "missing-file",
        ["{d}/missing.mlir", "-o", "{d}/out.mlir"],
        "abi-opt: error: could not open input file '{d}/missing.mlir': No such file or directory",
    ),
    Case(
        # We run as root, where chmod 000 does not stop reading: a directory is unreadable.
        "unreadable-file",
        ["{d}/sub", "-o", "{d}/out.mlir"],
        "abi-opt: error: could not open input file '{d}/sub': Is a directory",
        {"sub/keep.txt": b""},
    ),
    Case(
        "empty-file",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "abi-opt: error: input '{d}/in.mlir' is empty",
        {"in.mlir": b""},
    ),
    Case(
        "whitespace-only",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "abi-opt: error: input '{d}/in.mlir' is empty",
        {"in.mlir": b" \n\t\r\n  \n"},
    ),
    Case(
        "comments-only",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "abi-opt: error: input '{d}/in.mlir' is empty",
        {"in.mlir": b"// nothing here\n  // nor here\n"},
    ),
    Case(
        "binary-garbage",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:2:3: error: input is not valid UTF-8 (byte 0xff)",
        {"in.mlir": b"\x7fELF\x02\x01\n\x01\x00\xff\xfe\x00\x00"},
    ),
    Case(
        "control-characters",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:1:1: error: Unexpected character: \x01",
        {"in.mlir": b"\x01\x02\x03"},
    ),
    Case(
        "syntax-error",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:2:22: error: Expected ','",
        {"in.mlir": b"func.func @f(%a: i32) {\n  %x = arith.addi %a %a : i32\n  func.return\n}\n"},
    ),
    Case(
        "unknown-op",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:2:4: error: Operation foo.bar is not registered",
        {"in.mlir": b'func.func @f() {\n  "foo.bar"() : () -> ()\n  func.return\n}\n'},
    ),
    Case(
        "verifier-error",
        ["{d}/in.mlir", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:2:3: error: " + SAME_TYPES,
        {"in.mlir": VERIFIER_ERROR},
    ),
    Case(
        "pass-error-at-argument",
        ["{d}/in.mlir", "-p", "materialize-iree-abi", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:2:14: error: bound input on argument 1 must be resolved before ABI processing",
        {"in.mlir": BOUND_INPUT},
    ),
    Case(
        "empty-split-chunk",
        ["{d}/in.mlir", "--split-input-file", "-o", "{d}/out.mlir"],
        "{d}/in.mlir:5:1: error: empty input chunk",
        {"in.mlir": GOOD + b"// -----\n"},
    ),
    Case(
        "unknown-pass",
        ["{d}/in.mlir", "-p", "no-such-pass", "-o", "{d}/out.mlir"],
        "abi-opt: error: unknown pass or pipeline 'no-such-pass' (see 'abi-opt --help')",
        {"in.mlir": GOOD},
    ),
    Case(
        "malformed-pass-option",
        ["{d}/in.mlir", "-p", "materialize-iree-abi{", "-o", "{d}/out.mlir"],
        "abi-opt: error: malformed pass pipeline 'materialize-iree-abi{' at column 22: "
        "Expected argument name here",
        {"in.mlir": GOOD},
    ),
    Case(
        "malformed-pass-option-value",
        ["{d}/in.mlir", "-p", "materialize-iree-abi{x=}", "-o", "{d}/out.mlir"],
        "abi-opt: error: malformed pass pipeline 'materialize-iree-abi{x=}' at column 24: "
        "Unknown argument value, wrap argument in quotes to pass arbitrary string values",
        {"in.mlir": GOOD},
    ),
    Case(
        "unknown-pass-option",
        ["{d}/in.mlir", "-p", "materialize-iree-abi{bogus=1}", "-o", "{d}/out.mlir"],
        "abi-opt: error: pass 'materialize-iree-abi' has no option 'bogus' (it takes no options)",
        {"in.mlir": GOOD},
    ),
    Case(
        "options-on-pipeline",
        ["{d}/in.mlir", "-p", "iree-abi-v1{x=1}", "-o", "{d}/out.mlir"],
        "abi-opt: error: pass 'iree-abi-v1' has no option 'x' (it takes no options)",
        {"in.mlir": GOOD},
    ),
    Case(
        "unknown-command-line-option",
        ["{d}/in.mlir", "--bogus", "-o", "{d}/out.mlir"],
        "abi-opt: error: unrecognized arguments: --bogus",
        {"in.mlir": GOOD},
    ),
    Case(
        "unknown-option-value",
        ["{d}/in.mlir", "--split-input-file=yes", "-o", "{d}/out.mlir"],
        "abi-opt: error: argument --split-input-file: ignored explicit argument 'yes'",
        {"in.mlir": GOOD},
    ),
    Case(
        "bad-output-directory",
        ["{d}/in.mlir", "-o", "{d}/no/such/dir/out.mlir"],
        "abi-opt: error: could not open output file '{d}/no/such/dir/out.mlir': "
        "No such file or directory",
        {"in.mlir": GOOD},
    ),
    Case(
        "output-is-a-directory",
        ["{d}/in.mlir", "-o", "{d}/sub"],
        "abi-opt: error: could not open output file '{d}/sub': Is a directory",
        {"in.mlir": GOOD, "sub/keep.txt": b""},
    ),
    Case(
        "stdin-is-named",
        ["-o", "{d}/out.mlir"],
        "<stdin>:2:3: error: " + SAME_TYPES,
        stdin=VERIFIER_ERROR,
    ),
    Case(
        "stdin-dash",
        ["-", "-o", "{d}/out.mlir"],
        "<stdin>:2:3: error: " + SAME_TYPES,
        stdin=VERIFIER_ERROR,
    ),
    Case("empty-stdin", ["-o", "{d}/out.mlir"], "abi-opt: error: input '<stdin>' is empty"),
]


def run_abi_opt(args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the installed driver in a fresh process (no stdin unless given, as in CI)."""
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.opt_main", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        check=False,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path) -> None:
    for name, content in case.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    d = str(tmp_path)

    result = run_abi_opt([a.replace("{d}", d) for a in case.args], case.stdin)

    stderr = result.stderr.decode("utf-8")
    assert "Traceback" not in stderr
    assert stderr == case.stderr.replace("{d}", d) + "\n"
    assert result.returncode == 1
    assert result.stdout == b""
    # No output file and no left-over temporary file.
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
