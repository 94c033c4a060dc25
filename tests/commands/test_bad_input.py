"""Bad input to `abi-opt` (docs/spec.md §11): every kind gives exactly one diagnostic line on
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
    """A bad input and the exact stderr it gives. The command is `<input> <options> -o
    <output>` in a fresh directory `{d}` holding `source` as `in.mlir` (when given) and
    `files`; `input=None` reads stdin."""

    id: str
    options: list[str]
    stderr: str
    source: bytes | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    input: str | None = "{d}/in.mlir"
    output: str = "{d}/out.mlir"
    stdin: bytes | None = None

    @property
    def args(self) -> list[str]:
        return [*([] if self.input is None else [self.input]), *self.options, "-o", self.output]

    def all_files(self) -> dict[str, bytes]:
        return self.files if self.source is None else {"in.mlir": self.source, **self.files}


CASES = [
    Case(
        "missing-file",
        [],
        "abi-opt: error: could not open input file '{d}/missing.mlir': No such file or directory",
        input="{d}/missing.mlir",
    ),
    Case(
        # We run as root, where chmod 000 does not stop reading: a directory is unreadable.
        "unreadable-file",
        [],
        "abi-opt: error: could not open input file '{d}/sub': Is a directory",
        files={"sub/keep.txt": b""},
        input="{d}/sub",
    ),
    Case("empty-file", [], "abi-opt: error: input '{d}/in.mlir' is empty", b""),
    Case(
        # An argument's location `loc(` never closed (a module cut short): xDSL's own
        # diagnostic, not the lexer's internal error.
        "unclosed-argument-location",
        [],
        "{d}/in.mlir:2:1: error: Unexpected location syntax.",
        b"func.func @f(%a: i32 loc(\n",
    ),
    Case("whitespace-only", [], "abi-opt: error: input '{d}/in.mlir' is empty", b" \n\t\r\n  \n"),
    Case(
        "comments-only",
        [],
        "abi-opt: error: input '{d}/in.mlir' is empty",
        b"// nothing here\n  // nor here\n",
    ),
    Case(
        "binary-garbage",
        [],
        "{d}/in.mlir:2:3: error: input is not valid UTF-8 (byte 0xff)",
        b"\x7fELF\x02\x01\n\x01\x00\xff\xfe\x00\x00",
    ),
    Case(
        "control-characters",
        [],
        "{d}/in.mlir:1:1: error: Unexpected character: \x01",
        b"\x01\x02\x03",
    ),
    Case(
        "syntax-error",
        ["--parse-all"],
        "{d}/in.mlir:2:22: error: Expected ','",
        b"func.func @f(%a: i32) {\n  %x = arith.addi %a %a : i32\n  func.return\n}\n",
    ),
    Case(
        "unknown-op",
        ["--parse-all"],
        "{d}/in.mlir:2:4: error: Operation foo.bar is not registered "
        "(--allow-unregistered-dialect accepts it in generic form)",
        b'func.func @f() {\n  "foo.bar"() : () -> ()\n  func.return\n}\n',
    ),
    Case(
        "verifier-error", ["--parse-all"], "{d}/in.mlir:2:3: error: " + SAME_TYPES, VERIFIER_ERROR
    ),
    Case(
        "pass-error-at-argument",
        ["-p", "materialize-iree-abi"],
        "{d}/in.mlir:2:14: error: bound input on argument 1 must be resolved before ABI processing",
        BOUND_INPUT,
    ),
    Case(
        "empty-split-chunk",
        ["--split-input-file"],
        "{d}/in.mlir:5:1: error: empty input chunk",
        # (a file that ends with the marker has no last chunk, as in mlir-opt)
        GOOD + b"// -----\n// -----\n" + GOOD,
    ),
    Case(
        "unknown-pass",
        ["-p", "no-such-pass"],
        "abi-opt: error: unknown pass or pipeline 'no-such-pass' (see 'abi-opt --help')",
        GOOD,
    ),
    Case(
        "malformed-pass-option",
        ["-p", "materialize-iree-abi{"],
        "abi-opt: error: malformed pass pipeline 'materialize-iree-abi{' at column 22: "
        "Expected argument name here",
        GOOD,
    ),
    Case(
        "malformed-pass-option-value",
        ["-p", "materialize-iree-abi{x=}"],
        "abi-opt: error: malformed pass pipeline 'materialize-iree-abi{x=}' at column 24: "
        "Unknown argument value, wrap argument in quotes to pass arbitrary string values",
        GOOD,
    ),
    Case(
        "unknown-pass-option",
        ["-p", "materialize-iree-abi{bogus=1}"],
        "abi-opt: error: pass 'materialize-iree-abi' has no option 'bogus' (it takes no options)",
        GOOD,
    ),
    Case(
        "options-on-pipeline",
        ["-p", "iree-abi-v1{x=1}"],
        "abi-opt: error: pass 'iree-abi-v1' has no option 'x' (it takes no options)",
        GOOD,
    ),
    Case(
        "unknown-command-line-option",
        ["--bogus"],
        "abi-opt: error: unrecognized arguments: --bogus",
        GOOD,
    ),
    Case(
        "unknown-option-value",
        ["--split-input-file=yes"],
        "abi-opt: error: argument --split-input-file: ignored explicit argument 'yes'",
        GOOD,
    ),
    Case(
        "bad-output-directory",
        [],
        "abi-opt: error: could not open output file '{d}/no/such/dir/out.mlir': "
        "No such file or directory",
        GOOD,
        output="{d}/no/such/dir/out.mlir",
    ),
    Case(
        "output-is-a-directory",
        [],
        "abi-opt: error: could not open output file '{d}/sub': Is a directory",
        GOOD,
        files={"sub/keep.txt": b""},
        output="{d}/sub",
    ),
    Case(
        "stdin-is-named",
        ["--parse-all"],
        "<stdin>:2:3: error: " + SAME_TYPES,
        input=None,
        stdin=VERIFIER_ERROR,
    ),
    Case(
        "stdin-dash",
        ["--parse-all"],
        "<stdin>:2:3: error: " + SAME_TYPES,
        input="-",
        stdin=VERIFIER_ERROR,
    ),
    Case("empty-stdin", [], "abi-opt: error: input '<stdin>' is empty", input=None),
    # Edges of the output and of the input (docs/design.md#hostile-input)
    Case(
        "output-name-too-long",
        [],
        "abi-opt: error: could not open output file '{d}/" + "n" * 256 + "': File name too long",
        GOOD,
        output="{d}/" + "n" * 256,
    ),
    Case(
        "index-path-key-too-large",
        ["-p", "iree-abi-v1"],
        "{d}/in.mlir:1:14: error: sequence key 2147483648 in structure path is out of range "
        "(at most 1048576)",
        b"func.func @f(%a: i32 {abi.index_path = [0, 2147483648]}) {\n  func.return\n}\n",
    ),
    Case(
        "empty-exported-name",
        ["-p", "iree-abi-legacy"],
        "{d}/in.mlir:2:3: error: tf_saved_model.exported_names must not contain an empty name",
        b"module attributes {tf_saved_model.semantics} {\n"
        b'  func.func @f() attributes {tf_saved_model.exported_names = [""]} {\n'
        b"    func.return\n  }\n}\n",
    ),
    Case(
        "verifier-reason-on-one-line",
        ["--parse-all"],
        "{d}/in.mlir:2:3: error: result 'result' at position 0 does not verify: "
        "i32 should be of base attribute index",
        b"func.func @f(%l: !util.list<?>) {\n"
        b'  %0 = "util.list.size"(%l) : (!util.list<?>) -> i32\n  func.return\n}\n',
    ),
    Case(
        "verify-diagnostics-huge-line-offset",
        ["--verify-diagnostics"],
        '{d}/in.mlir:1:4: error: expected error "far" was not produced',
        b"// expected-error @+" + b"9" * 5000 + b" {{far}}\n" + GOOD,
    ),
    Case(
        "symbol-name-not-utf8",
        [],
        "{d}/in.mlir:1:11: error: symbol name is not valid UTF-8 (byte 0xff)",
        b'func.func @"\\00\\FF"() {\n  func.return\n}\n',
    ),
    # Type and attribute aliases nest deeper than parsing recursed: a pass, the verifier
    # or the printer walks them (a RecursionError before).
    Case(
        "type-aliases-nested-too-deeply",
        ["-p", "iree-abi-v1"],
        "{d}/in.mlir:1:1: error: input nested too deeply",
        b"!t0 = i32\n"
        + b"".join(b"!t%d = tuple<!t%d>\n" % (i, i - 1) for i in range(1, 3000))
        + b"func.func @f(%x: !t2999) {\n  func.return\n}\n",
    ),
    Case(
        "attribute-aliases-nested-too-deeply",
        ["-p", "iree-abi-v1"],
        "{d}/in.mlir:1:1: error: input nested too deeply",
        b"#a0 = 1\n"
        + b"".join(b"#a%d = [#a%d]\n" % (i, i - 1) for i in range(1, 3000))
        + b"func.func @f() attributes {x = #a2999} {\n  func.return\n}\n",
    ),
]


def run_abi_opt(args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the installed driver in a fresh process (no stdin unless given, as in CI)."""
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.opt_main", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        check=False,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path) -> None:
    for name, content in case.all_files().items():
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
