"""The bad-input corpus (docs/design.md#hostile-input), one input at a time, in-process.

* Every chunk of every `tests/filecheck/errors/*.mlir` file that a `--verify-diagnostics`
  RUN line checks is run on its own with that RUN line's options and `-o`: an
  `expected-error` chunk must exit 1 with exactly its diagnostics on stderr (the whole
  message, not a substring, on the annotated line), no traceback, and no output file; a
  chunk without errors must exit 0, print exactly its warnings and write the output.
* Inputs that lit files cannot hold (bytes that are not UTF-8, huge or pathological
  text, pass pipelines) are a table of exact diagnostics; `tests/commands/test_bad_input.py`
  has the basic ones (missing, empty, binary files, …), these extend it.
* Valid inputs at scale: hundreds of arguments, tuples and dicts hundreds wide, and
  structures nested 100 deep (the limit, `abi_compiler.model.MAX_STRUCTURE_DEPTH`) go
  through both pipelines with exactly the expected reflection, twice, re-parsing.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from abi_compiler.commands.opt_main import SPLIT_MARKER, AbiOptMain

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "filecheck" / "errors"

_RUN = re.compile(r"^// RUN: abi-opt ((?:--parse-all )?)%s (.*)$", re.MULTILINE)
_EXPECTATION = re.compile(
    r"expected-(error|warning)[ \t]*(?:@([+-][0-9]+|above|below))?[ \t]*\{\{(.*?)\}\}"
)


@dataclass(frozen=True)
class Run:
    """The outcome of one in-process `abi-opt` run."""

    status: int
    stdout: str
    stderr: str


def run_abi_opt(args: list[str], capsys: pytest.CaptureFixture[str]) -> Run:
    capsys.readouterr()
    status = AbiOptMain.main(args)
    captured = capsys.readouterr()
    return Run(status, captured.out, captured.err)


# -- the lit corpus, chunk by chunk ---------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """One `// -----` chunk of a corpus file under one RUN line's options. ``text`` keeps
    the chunk at its original line numbers (earlier lines are blank)."""

    id: str
    options: tuple[str, ...]
    text: str
    errors: tuple[tuple[int, str], ...]
    warnings: tuple[tuple[int, str], ...]


def _options(run_line: str) -> tuple[str, ...] | None:
    command = run_line.split("|")[0]
    words = shlex.split(command)
    if "--verify-diagnostics" not in words:
        return None
    return tuple(w for w in words if w not in ("--verify-diagnostics", "--split-input-file"))


def _expectations(text: str, start: int, end: int) -> Iterator[tuple[str, int, str]]:
    for match in _EXPECTATION.finditer(text, start, end):
        severity, anchor, message = match.groups()
        line = text.count("\n", 0, match.start()) + 1
        if anchor == "above":
            line -= 1
        elif anchor == "below":
            line += 1
        elif anchor is not None:
            line += int(anchor)
        yield severity, line, message


def corpus_chunks() -> Iterator[Chunk]:
    for path in sorted(CORPUS.glob("*.mlir")):
        text = path.read_text(encoding="utf-8")
        splits = "--split-input-file" in text
        starts = [0] + ([m.end() for m in SPLIT_MARKER.finditer(text)] if splits else [])
        ends = ([m.start() for m in SPLIT_MARKER.finditer(text)] if splits else []) + [len(text)]
        for run_number, (prefix, run_line) in enumerate(_RUN.findall(text)):
            options = _options(prefix + run_line)
            if options is None:
                continue
            for number, (start, end) in enumerate(zip(starts, ends, strict=True)):
                found = list(_expectations(text, start, end))
                yield Chunk(
                    f"{path.stem}-run{run_number}-chunk{number}",
                    options,
                    "\n" * text.count("\n", 0, start) + text[start:end],
                    tuple((line, m) for severity, line, m in found if severity == "error"),
                    tuple((line, m) for severity, line, m in found if severity == "warning"),
                )


CHUNKS = list(corpus_chunks())


def test_corpus_is_large_enough() -> None:
    errors = {chunk.id.split("-run")[0] + chunk.text for chunk in CHUNKS if chunk.errors}
    assert len(errors) >= 60


def _diagnostic_lines(
    path: Path, severity: str, expected: tuple[tuple[int, str], ...]
) -> list[re.Pattern[str]]:
    return [
        re.compile(re.escape(f"{path}:{line}:") + r"[0-9]+" + re.escape(f": {severity}: {text}"))
        for line, text in expected
    ]


@pytest.mark.parametrize("chunk", CHUNKS, ids=[c.id for c in CHUNKS])
def test_corpus_chunk(chunk: Chunk, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(chunk.text, encoding="utf-8")
    output = tmp_path / "out.mlir"

    result = run_abi_opt([str(source), *chunk.options, "-o", str(output)], capsys)

    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    expected = _diagnostic_lines(source, "warning", chunk.warnings) + _diagnostic_lines(
        source, "error", chunk.errors
    )
    lines = result.stderr.splitlines()
    assert len(lines) == len(expected), result.stderr
    unmatched = [line for line in lines if not any(p.fullmatch(line) for p in expected)]
    assert not unmatched, f"unexpected diagnostics: {unmatched}; expected {expected}"
    if chunk.errors:
        assert result.status == 1
        assert sorted(tmp_path.iterdir()) == [source]  # no output, no temporary file
    else:
        assert result.status == 0
        assert output.read_text(encoding="utf-8").startswith("builtin.module")


# -- inputs a lit file cannot hold -----------------------------------------------------------

GOOD = "func.func @f() {\n  func.return\n}\n"


@dataclass(frozen=True)
class Case:
    """``input`` written to `{d}/in.mlir`, run with ``args`` (and `-o {d}/out.mlir`);
    ``stderr`` is the exact expected text (`{d}` is the directory) or a regex."""

    id: str
    input: bytes
    stderr: str
    args: tuple[str, ...] = ()
    regex: bool = False
    output: bool = field(default=True)


def _nested(opening: str, closing: str, depth: int, inner: str) -> str:
    return opening * depth + inner + closing * depth


CASES = [
    # -- files that are not (valid) UTF-8 text
    Case(
        # The byte order mark is skipped (test_byte_order_mark): positions as editors show.
        "utf8-byte-order-mark-then-an-error",
        "\ufeff".encode() + b"func.func @f() -> i32 {\n  func.return %x : i32\n}\n",
        "{d}/in.mlir:2:15: error: use of undeclared SSA value name",
        ("--parse-all",),
    ),
    Case(
        "latin-1-in-a-string",
        b'func.func @f(%a: i32 {abi.name = "caf\xe9"}) {\n  func.return\n}\n',
        "{d}/in.mlir:1:38: error: input is not valid UTF-8 (byte 0xe9)",
    ),
    Case(
        "utf-16-surrogate-as-utf8",
        b'func.func @f(%a: i32 {abi.name = "\xed\xa0\x80"}) {\n  func.return\n}\n',
        "{d}/in.mlir:1:35: error: input is not valid UTF-8 (byte 0xed)",
    ),
    Case(
        "truncated-multibyte-at-end",
        GOOD.encode() + b"// \xc3",
        "{d}/in.mlir:4:4: error: input is not valid UTF-8 (byte 0xc3)",
    ),
    Case(
        "utf-16-file",
        GOOD.encode("utf-16"),
        "{d}/in.mlir:1:1: error: input is not valid UTF-8 (byte 0xff)",
    ),
    # -- text that is not MLIR, in bulk
    Case(
        "megabyte-line",
        b"x" * 1_000_000 + b"\n",
        r"\{d\}/in\.mlir:1:1: error: Operation x{1000000} is not registered and its custom "
        r"syntax cannot be parsed: .*",
        regex=True,
    ),
    Case(
        # xDSL's string regex backtracked exponentially here (xdsl_compat: linear).
        "unterminated-string-on-its-line",
        b'func.func @f() attributes {note = "' + b"a" * 60 + b"} {\n  func.return\n}\n",
        "{d}/in.mlir:1:35: error: End of file reached before closing string literal.",
    ),
    Case(
        "unterminated-string-to-end-of-file",
        b'func.func @f() attributes {note = "' + b"a" * 100_000,
        "{d}/in.mlir:1:35: error: End of file reached before closing string literal.",
    ),
    Case(
        "hundred-thousand-brackets",
        ("func.func @f() attributes {x = " + _nested("[", "]", 100_000, "") + "} {}\n").encode(),
        r"\{d\}/in\.mlir:1:[0-9]+: error: input nested too deeply",
        regex=True,
    ),
    Case(
        "twenty-thousand-nested-tuples",
        ("func.func @f(%a: " + _nested("tuple<", ">", 20_000, "i32") + ") {}\n").encode(),
        r"\{d\}/in\.mlir:1:[0-9]+: error: input nested too deeply",
        regex=True,
    ),
    Case(
        "string-escape-not-utf8-as-symbol",
        b'func.func @"\\FF"() {\n  func.return\n}\n',
        "{d}/in.mlir:1:11: error: symbol name is not valid UTF-8 (byte 0xff)",
    ),
    # -- output: nothing is written when any chunk fails
    Case(
        "second-chunk-fails",
        (GOOD + "// -----\nfunc.func @g(%a: i32) -> f32 {\n  func.return %a : i32\n}\n").encode(),
        "{d}/in.mlir:6:3: error: Expected arguments to have the same types as the function "
        "output types: expected [f32], got [i32]",
        ("--split-input-file", "--parse-all"),
    ),
    # -- pass pipelines
    Case(
        "pipeline-double-comma",
        GOOD.encode(),
        "abi-opt: error: malformed pass pipeline 'materialize-iree-abi,,materialize-raw-abi' "
        "at column 22: Expected pass name here",
        ("-p", "materialize-iree-abi,,materialize-raw-abi"),
    ),
    Case(
        "pipeline-unknown-second-pass",
        GOOD.encode(),
        "abi-opt: error: unknown pass or pipeline 'bogus' (see 'abi-opt --help')",
        ("-p", "materialize-iree-abi,bogus"),
    ),
    Case(
        "pipeline-stray-closing-brace",
        GOOD.encode(),
        "abi-opt: error: malformed pass pipeline 'materialize-iree-abi}' at column 21: "
        "Expected a comma or pass arguments here",
        ("-p", "materialize-iree-abi}"),
    ),
    Case(
        "pipeline-unclosed-quote",
        GOOD.encode(),
        "abi-opt: error: malformed pass pipeline 'wrap-entry-points{x=\"y}' at column 21: "
        "Unknown token",
        ("-p", 'wrap-entry-points{x="y}'),
    ),
    Case(
        "pipeline-mlir-nesting-syntax",
        GOOD.encode(),
        "abi-opt: error: malformed pass pipeline 'builtin.module(iree-abi-v1)' at column 8: "
        "Unknown token",
        ("-p", "builtin.module(iree-abi-v1)"),
    ),
    Case(
        "pipeline-space-separated",
        GOOD.encode(),
        "abi-opt: error: malformed pass pipeline 'iree-abi-v1 iree-abi-legacy' at column 12: "
        "Expected a comma or pass arguments here",
        ("-p", "iree-abi-v1 iree-abi-legacy"),
    ),
    Case(
        "pipeline-wrong-case",
        GOOD.encode(),
        "abi-opt: error: unknown pass or pipeline 'IREE-ABI-V1' (see 'abi-opt --help')",
        ("-p", "IREE-ABI-V1"),
    ),
    Case(
        "pipeline-non-ascii-name",
        GOOD.encode(),
        "abi-opt: error: malformed pass pipeline 'iree-abi-v1,matérialize-raw-abi' "
        "at column 16: Unknown token",
        ("-p", "iree-abi-v1,matérialize-raw-abi"),
    ),
    Case(
        "pipeline-option-on-named-pipeline",
        GOOD.encode(),
        "abi-opt: error: pass 'iree-abi-legacy' has no option 'strict' (it takes no options)",
        ("-p", "iree-abi-legacy{strict=true}"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.mlir"
    source.write_bytes(case.input)

    result = run_abi_opt([str(source), *case.args, "-o", str(tmp_path / "out.mlir")], capsys)

    assert "Traceback" not in result.stderr
    assert result.status == 1
    assert result.stdout == ""
    if case.regex:
        pattern = case.stderr.replace(r"\{d\}", re.escape(str(tmp_path))) + "\n"
        assert re.fullmatch(pattern, result.stderr), result.stderr[:300]
    else:
        assert result.stderr == case.stderr.replace("{d}", str(tmp_path)) + "\n"
    assert sorted(tmp_path.iterdir()) == [source]


def test_byte_order_mark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A UTF-8 byte order mark (as some editors write) is not part of the text."""
    source = tmp_path / "in.mlir"
    source.write_bytes("\ufeff".encode() + GOOD.encode())
    result = run_abi_opt([str(source)], capsys)
    assert (result.status, result.stderr) == (0, "")
    # The function is carried as written, one level deeper inside the implicit module.
    assert result.stdout == "builtin.module {\n  func.func @f() {\n    func.return\n  }\n}\n"


def test_failed_run_leaves_its_input_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.mlir"
    text = "func.func @f(%a: i32 {abi.index_path = [0]}, %b: i32) {\n  func.return\n}\n"
    source.write_text(text)
    out = tmp_path / "out.mlir"
    out.write_text("old\n")

    result = run_abi_opt([str(source), "-p", "iree-abi-v1", "-o", str(out)], capsys)

    assert result.status == 1
    assert result.stderr == (
        f"{source}:1:46: error: Missing argument attribute abi.index_path on argument 1\n"
    )
    assert source.read_text() == text
    assert out.read_text() == "old\n"
    assert sorted(tmp_path.iterdir()) == [source, out]

    # The input as the output is refused before any work (docs/abi-compile.md#options).
    result = run_abi_opt([str(source), "-p", "iree-abi-v1", "-o", str(source)], capsys)
    assert result.status == 1
    assert result.stderr == f"abi-opt: error: the output '{source}' is the input\n"
    assert source.read_text() == text


# -- valid inputs at scale ------------------------------------------------------------------


def test_out_of_memory_while_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dense<0> : tensor<4294967296xi8>` runs xDSL's parser out of memory (it stores
    every element of a splat): a located error at the op being parsed, not an internal
    error. Simulated, since how a machine runs out of memory varies (an allocation that
    fails at once, or the kernel's OOM killer)."""
    from abi_compiler.xdsl_boundary.xdsl_fixes import FixedParser as Parser

    real = Parser.parse_dense_int_or_fp_elements_attr
    raised: list[int] = []

    def expand(self: Parser, type: object) -> object:
        # Never let the real parser try: the rest of this line holds the huge type.
        if "4294967296" in self.lexer.input.content[self.pos :].split("\n", 1)[0]:
            raised.append(self.pos)
            raise MemoryError
        return real(self, type)  # type: ignore[arg-type]

    monkeypatch.setattr(Parser, "parse_dense_int_or_fp_elements_attr", expand)
    source = tmp_path / "in.mlir"
    source.write_text(
        "func.func @f() -> tensor<4294967296xi8> {\n"
        "  %0 = arith.constant dense<0> : tensor<4294967296xi8>\n"
        "  func.return %0 : tensor<4294967296xi8>\n"
        "}\n"
    )
    result = run_abi_opt([str(source), "--parse-all", "-o", str(tmp_path / "out.mlir")], capsys)
    assert (result.status, result.stdout) == (1, "")
    assert result.stderr == f"{source}:2:3: error: out of memory while parsing\n"
    assert sorted(tmp_path.iterdir()) == [source]
    assert len(raised) == 1


def test_banner_comment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The driver's empty-input check backtracked exponentially on a line of slashes.
    source = tmp_path / "in.mlir"
    source.write_text("/" * 100 + "\n// " + "/" * 100 + " banner\n" + GOOD)

    result = run_abi_opt([str(source), "-p", "iree-abi-v1"], capsys)

    assert (result.status, result.stderr) == (0, "")
    assert result.stdout.startswith("builtin.module {\n  func.func @f()")


def _span(tag: str, body: str) -> str:
    return f"{tag}{len(body.encode()) + 1}!{body}"


def _escaped(value: str) -> str:
    """A string attribute value as abi-opt prints it."""
    out = []
    for byte in value.encode():
        if byte == 0x5C:
            out.append("\\\\")
        elif byte < 0x20 or byte > 0x7E or byte == 0x22:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


def _reflection(output: str, function: str) -> dict[str, str]:
    line = next(line for line in output.splitlines() if f"func.func @{function}(" in line)
    entries = re.search(r"iree\.reflection = \{(.*)\}\} \{$", line)
    assert entries is not None, line
    found = {}
    for key, value in re.findall(r'([a-z.]+) = ("(?:[^"\\]|\\.)*")', entries.group(1)):
        found[key] = value
    return found


def _json_attr(document: object) -> str:
    text = json.dumps(document, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return _escaped(text)


def _pipelines_twice(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, str]:
    """Run each pipeline on ``text``, then again on its output: the second run must give
    the same bytes (docs/spec.md §7) with no diagnostics. Returns the outputs by pipeline."""
    source = tmp_path / "in.mlir"
    source.write_text(text, encoding="utf-8")
    outputs = {}
    for pipeline in ("iree-abi-v1", "iree-abi-legacy"):
        once, twice = tmp_path / f"{pipeline}.1.mlir", tmp_path / f"{pipeline}.2.mlir"
        first = run_abi_opt([str(source), "-p", pipeline, "-o", str(once)], capsys)
        assert (first.status, first.stderr) == (0, "")
        second = run_abi_opt([str(once), "-p", pipeline, "-o", str(twice)], capsys)
        assert (second.status, second.stderr) == (0, "")
        assert twice.read_bytes() == once.read_bytes()
        outputs[pipeline] = once.read_text(encoding="utf-8")
    return outputs


def test_hundreds_of_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    count = 300
    arguments = ", ".join(f"%a{i}: i32" for i in range(count))
    text = f"func.func @many({arguments}) -> i32 {{\n  func.return %a{count - 1} : i32\n}}\n"

    outputs = _pipelines_twice(text, tmp_path, capsys)

    legacy = _reflection(outputs["iree-abi-legacy"], "many")
    assert legacy["f"] == _escaped(_span("I", "S3!t6" * count) + _span("R", "S3!t6"))
    inputs = _span("S", "".join(f"k{i}_{i}" for i in range(count)))
    assert legacy["sip"] == _escaped(_span("I", inputs) + _span("R", "_0"))
    v1 = _reflection(outputs["iree-abi-v1"], "many")
    assert v1["iree.abi"] == _json_attr({"a": ["i32"] * count, "r": ["i32"], "v": 1})


def test_wide_tuples_and_dicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    width = 300
    tuple_type = "tuple<" + ", ".join(["f32"] * width) + ">"
    keys = [f"k{i}" for i in range(width)]
    dict_type = "!abi.dict<" + ", ".join(f'"{k}": i8' for k in reversed(keys)) + ">"
    text = (
        f"func.func @wide(%t: {tuple_type}, %d: {dict_type}) -> {dict_type} {{\n"
        f"  func.return %d : {dict_type}\n}}\n"
    )

    outputs = _pipelines_twice(text, tmp_path, capsys)

    ordered = sorted(keys, key=str.encode)
    legacy = _reflection(outputs["iree-abi-legacy"], "wide")
    assert legacy["f"] == _escaped(
        _span("I", "S1!" * width + "S3!t4" * width) + _span("R", "S3!t4" * width)
    )
    tuple_sip = _span("S", "".join(f"k{i}_{i}" for i in range(width)))
    dict_sip = _span("D", "".join(f"{_span('K', k)}_{width + n}" for n, k in enumerate(ordered)))
    result_sip = _span("D", "".join(f"{_span('K', k)}_{n}" for n, k in enumerate(ordered)))
    assert legacy["sip"] == _escaped(
        _span("I", _span("S", f"k0{tuple_sip}k1{dict_sip}")) + _span("R", result_sip)
    )
    dict_record = ["sdict", *[[k, "i8"] for k in ordered]]
    v1 = _reflection(outputs["iree-abi-v1"], "wide")
    assert v1["iree.abi"] == _json_attr(
        {"a": [["stuple", *["f32"] * width], dict_record], "r": [dict_record], "v": 1}
    )


def _deep(depth: int, make: Callable[[str, int], str], leaf: str) -> str:
    text = leaf
    for level in range(depth):
        text = make(text, level)
    return text


def test_structures_nested_at_the_depth_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    depth = 100  # MAX_STRUCTURE_DEPTH
    tuple_type = _deep(depth, lambda inner, _: f"tuple<{inner}>", "i32")
    dict_type = _deep(depth, lambda inner, level: f'!abi.dict<"l{level}": {inner}>', "f32")
    text = (
        f'func.func @deep(%t: {tuple_type} {{abi.name = "t"}}, %d: {dict_type} {{abi.name = "d"}})'
        f" -> {tuple_type} {{\n  func.return %t : {tuple_type}\n}}\n"
    )

    outputs = _pipelines_twice(text, tmp_path, capsys)

    # Every argument is named, so the SIP input root is a dict keyed by name (a level on
    # top of the 100, as is the JSON `named` record); the single result's paths start at
    # its own structure.
    tuple_sip = _deep(depth, lambda inner, _: _span("S", f"k0{inner}"), "_0")
    dict_sip = _deep(depth, lambda inner, level: _span("D", _span("K", f"l{level}") + inner), "_1")
    result_sip = _deep(depth, lambda inner, _: _span("S", f"k0{inner}"), "_0")
    legacy = _reflection(outputs["iree-abi-legacy"], "deep")
    assert legacy["sip"] == _escaped(
        _span("I", _span("D", f"K2!d{dict_sip}K2!t{tuple_sip}")) + _span("R", result_sip)
    )
    assert legacy["f"] == _escaped(_span("I", "S3!t6S1!") + _span("R", "S3!t6"))

    tuple_record: object = "i32"
    dict_record: object = "f32"
    for level in range(depth):
        tuple_record = ["stuple", tuple_record]
        dict_record = ["sdict", [f"l{level}", dict_record]]
    v1 = _reflection(outputs["iree-abi-v1"], "deep")
    assert v1["iree.abi"] == _json_attr(
        {
            "a": [["named", "t", tuple_record], ["named", "d", dict_record]],
            "r": [tuple_record],
            "v": 1,
        }
    )
