"""The `abi-sig` command as a user runs it (a subprocess each): decoding one signature
(`raw`, `sip`, `json`), `show` and `diff` on modules; output, `--format json`, exit
status, diagnostics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

RAW_EXAMPLE = "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64"
JSON_EXAMPLE = (
    '{"a":[["ndarray","f32",2,null,4],["named","x","i32"]],'
    '"r":[["stuple",["ndarray","f32",1,4],["ndarray","f32",1,4]]],"v":1}'
)


OLD = """
func.func @main(%params: tensor<4x3xf32>, %x: tensor<8x4xf32>) -> tensor<8x3xf32> attributes {iree.reflection = {iree.abi = "{\\22a\\22:[[\\22sdict\\22,[\\22kernel\\22,[\\22ndarray\\22,\\22f32\\22,2,4,3]]],[\\22named\\22,\\22x\\22,[\\22ndarray\\22,\\22f32\\22,2,8,4]]],\\22r\\22:[[\\22ndarray\\22,\\22f32\\22,2,8,3]],\\22v\\22:1}"}} {
  %0 = stablehlo.dot %x, %params : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
func.func @"main$async"(%a: !hal.buffer_view) {
  return
}
"""


def abi_sig(
    *args: str, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.sig_main", *args],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=120,
        cwd=cwd,
    )


# -- Decoding one signature: raw, sip, json ------------------------------------------------


def test_raw() -> None:
    done = abi_sig("raw", RAW_EXAMPLE)
    assert done.returncode == 0
    assert done.stdout == (
        b"(RefObject<?>, Buffer<float32[?x128x64]>, sint32) -> (Buffer<uint64[32x?x64]>)\n"
    )
    assert done.stderr == b""


def test_sip() -> None:
    done = abi_sig("sip", "I12!S9!k0_0k1_1R3!_0")
    assert done.returncode == 0
    assert done.stdout == b"inputs:\n:[\n  0=raw(0),\n  1=raw(1),\n],\nresults:\n=raw(0),\n"


def test_sip_empty_roots() -> None:
    assert abi_sig("sip", "I1!R1!").stdout == b"inputs:\nresults:\n"


def test_sip_empty_structure_as_root_value() -> None:
    # Distinct from an empty root: the visitor opens and closes the structure (docs/spec.md §9).
    done = abi_sig("sip", "I4!S1!R9!S6!k0D1!")
    assert done.returncode == 0
    assert done.stdout == b"inputs:\n:[\n],\nresults:\n:[\n  0:{\n  },\n],\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # IREE's Function ABI: `null` (untyped) and "unknown" are records wherever a record stands
        ('{"a":[null],"r":[],"v":1}', b"(None) -> ()\n"),
        ('{"a":["unknown"],"r":["unknown"],"v":1}', b"(?) -> (?)\n"),
        ('{"a":["i32",null],"r":[null],"v":1}', b"(i32, None) -> (None)\n"),
        ('{"a":[["named","x",null]],"r":[],"v":1}', b"(x: None) -> ()\n"),
        ('{"a":[["sdict",["k",null]]],"r":[],"v":1}', b"(dict{k: None}) -> ()\n"),
        ('{"a":[["slist",null,"i8"]],"r":[["stuple"]],"v":1}', b"(list[None, i8]) -> ()\n"),
        ('{"a":[["slist"]],"r":[["sdict"]],"v":1}', b"(list[]) -> ()\n"),
        (
            '{"a":[["stuple"],["sdict"]],"r":[["stuple"],["slist"]],"v":1}',
            b"(tuple[], dict{}) -> (tuple[], list[])\n",
        ),
    ],
)
def test_json_every_record_form(text: str, expected: bytes) -> None:
    done = abi_sig("json", text)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, b"")


def test_json() -> None:
    done = abi_sig("json", JSON_EXAMPLE)
    assert done.returncode == 0
    assert done.stdout == b"(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>, tensor<4xf32>)\n"


@pytest.mark.parametrize(
    ("encoding", "text", "expected"),
    [
        ("raw", RAW_EXAMPLE + "\n", b"(RefObject<?>, "),
        ("sip", "I1!R1!\r\n", b"inputs:\nresults:\n"),
        ("json", JSON_EXAMPLE + "\n", b"(tensor<?x4xf32>, x: i32)"),
    ],
)
def test_stdin(encoding: str, text: str, expected: bytes) -> None:
    done = abi_sig(encoding, "-", stdin=text.encode())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(expected)


def test_stdin_keeps_other_trailing_text() -> None:
    done = abi_sig("raw", "-", stdin=b"I1!R1! \n")
    assert done.returncode == 1
    assert done.stderr == (
        b"abi-sig: error: unexpected trailing text after the results span (at offset 6)\n"
    )


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (("raw", "I1!R1!U1!"), "unexpected trailing text after the results span (at offset 6)"),
        (
            ("raw", "I5!B3!tR1!"),
            "span length 3 runs past the end of the enclosing text (2 bytes left) (at offset 4)",
        ),
        (("sip", "I4!_-1R1!"), "negative raw index -1 (at offset 4)"),
        (("json", '{"a":[],"r":[],"v":2}'), "unsupported version 2 (expected 1) (at offset 19)"),
        (
            ("json", "{"),
            "invalid JSON: Expecting property name enclosed in double quotes (at offset 1)",
        ),
        (
            ("--format", "json", "raw", ""),
            "unexpected end of signature, expected the inputs span 'I' (at offset 0)",
        ),
    ],
)
def test_malformed_input(args: tuple[str, ...], stderr: str) -> None:
    done = abi_sig(*args)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode() == f"abi-sig: error: {stderr}\n"


def test_control_characters_in_names_and_keys_are_escaped() -> None:
    """A name or key holding a line break (or any control character) stays on its line
    of the readable form, as a Python escape."""
    done = abi_sig(
        "json",
        '{"a":[["sdict",["a\\nb",["ndarray","f32",0]]],["named","\\u0001\\u2028","i32"]],'
        '"r":[],"v":1}',
    )
    assert (done.returncode, done.stdout.decode()) == (
        0,
        "(dict{a\\nb: tensor<f32>}, \\x01\\u2028: i32) -> ()\n",
    )
    # I14!D10!K5!a<LF>b<SOH>_0R1!: one dict key with a line break
    done = abi_sig("sip", "-", stdin=b"I14!D10!K5!a\nb\x01_0R1!")
    assert (done.returncode, done.stdout.decode()) == (
        0,
        "inputs:\n:{\n  a\\nb\\x01=raw(0),\n},\nresults:\n",
    )


def test_malformed_stdin_bytes() -> None:
    done = abi_sig("json", "-", stdin=b'{"a":["\xff"],"r":[],"v":1}')
    assert done.returncode == 1
    assert done.stderr == b"abi-sig: error: invalid UTF-8 (at offset 7)\n"
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [(), ("raw",), ("yaml", "x"), ("--format", "xml", "raw", "I1!R1!"), ("raw", "a", "b")],
)
def test_usage_errors(args: tuple[str, ...]) -> None:
    done = abi_sig(*args)
    assert done.returncode == 2
    assert done.stderr.startswith(b"usage: abi-sig")
    assert b"Traceback" not in done.stderr


def test_format_json_raw() -> None:
    done = abi_sig("--format", "json", "raw", RAW_EXAMPLE)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "encoding": "raw",
        "inputs": [
            {"type": "list", "element": {"type": "unknown"}},
            {
                "type": "ndarray",
                "element": {"type": "scalar", "kind": "f", "width": 32},
                "dims": [None, 128, 64],
            },
            {"type": "scalar", "kind": "i", "width": 32},
        ],
        "results": [
            {
                "type": "ndarray",
                "element": {"type": "scalar", "kind": "ui", "width": 64},
                "dims": [32, None, 64],
            }
        ],
    }


def test_format_json_sip() -> None:
    done = abi_sig("--format", "json", "sip", "I17!D13!K2!x_1K2!y_0R1!")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "encoding": "sip",
        "inputs": {
            "node": "dict",
            "items": [
                ["x", {"node": "leaf", "index": 1, "type": None}],
                ["y", {"node": "leaf", "index": 0, "type": None}],
            ],
        },
        "results": None,
    }


def test_format_json_json() -> None:
    done = abi_sig(
        "--format",
        "json",
        "json",
        '{"a":[["named","n",["slist",null,"i8"]]],"r":["unknown"],"v":1}',
    )
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "encoding": "json",
        "arguments": [
            {
                "key": 0,
                "name": "n",
                "node": {
                    "node": "sequence",
                    "kind": "list",
                    "items": [
                        None,
                        {
                            "node": "leaf",
                            "index": 0,
                            "type": {"type": "scalar", "kind": "i", "width": 8},
                        },
                    ],
                },
            }
        ],
        "results": [{"node": "leaf", "index": 0, "type": {"type": "unknown"}}],
    }


def test_non_ascii_output() -> None:
    done = abi_sig("json", '{"a":[["named","\\u00e9\\ud800","i32"]],"r":[],"v":1}')
    assert done.returncode == 0
    assert done.stdout == "(\u00e9\\ud800: i32) -> ()\n".encode()


def test_importing_loads_neither_xdsl_nor_the_driver() -> None:
    """`abi-sig` (the decoders, `show`, `diff`, bytecode reading) imports no xDSL and no
    other command."""
    code = (
        "import sys, abi_compiler.commands.sig_main, abi_compiler.codecs.json_abi, "
        "abi_compiler.codecs.raw, abi_compiler.codecs.sip, "
        "abi_compiler.signatures.module_signatures, abi_compiler.signatures.signature_diff, "
        "abi_compiler.text.bytecode; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'xdsl' "
        "or m.startswith('abi_compiler.commands.') "
        "and m not in ('abi_compiler.commands.output', 'abi_compiler.commands.status', "
        "'abi_compiler.commands.sig_main')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout == b"[]\n"


def test_console_script_is_declared() -> None:
    from importlib.metadata import entry_points

    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("abi-sig") == "abi_compiler.commands.sig_main:main"


# -- Modules: show and diff -----------------------------------------------------------------


@pytest.fixture
def modules(tmp_path: Path) -> Path:
    (tmp_path / "old.mlir").write_text(OLD)
    (tmp_path / "same.mlir").write_text(OLD.replace("%params", "%p"))
    # x takes any batch: compatible.
    (tmp_path / "wider.mlir").write_text(OLD.replace("\\22,2,8,4]", "\\22,2,null,4]"))
    # The kernel becomes 4x5 and the result 8x5: breaking.
    (tmp_path / "new.mlir").write_text(
        OLD.replace("\\22,2,4,3]", "\\22,2,4,5]").replace("\\22,2,8,3]", "\\22,2,8,5]")
    )
    (tmp_path / "bad.mlir").write_text(
        'func.func @f() attributes {iree.reflection = {iree.abi = "[]"}} {\n  return\n}\n'
    )
    return tmp_path


def test_show(modules: Path) -> None:
    done = abi_sig("show", "old.mlir", cwd=modules)
    assert (done.returncode, done.stderr) == (0, b"")
    assert (
        done.stdout
        == b"main(dict{kernel: tensor<4x3xf32>}, x: tensor<8x4xf32>) -> (tensor<8x3xf32>)\n"
    )


def test_show_all(modules: Path) -> None:
    done = abi_sig("show", "--all", "old.mlir", cwd=modules)
    assert done.stdout.decode().splitlines() == [
        "main(dict{kernel: tensor<4x3xf32>}, x: tensor<8x4xf32>) -> (tensor<8x3xf32>)",
        "main$async(?) -> ()  (no reflection)",
    ]


def test_show_several_files_and_stdin(modules: Path) -> None:
    done = abi_sig(
        "show", "old.mlir", "-", stdin=b"func.func @f(%a: i32) {\n  return\n}\n", cwd=modules
    )
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == [
        "old.mlir:",
        "main(dict{kernel: tensor<4x3xf32>}, x: tensor<8x4xf32>) -> (tensor<8x3xf32>)",
        "<stdin>:",
        "f(i32) -> ()  (no reflection)",
    ]


def test_show_json(modules: Path) -> None:
    done = abi_sig("--format", "json", "show", "--all", "old.mlir", cwd=modules)
    assert done.returncode == 0
    document = json.loads(done.stdout)
    f32 = {"type": "scalar", "kind": "f", "width": 32}
    assert document == {
        "files": [
            {
                "file": "old.mlir",
                "functions": [
                    {
                        "name": "main",
                        "source": "iree.abi",
                        "caller_visible": True,
                        "declaration": "(dict{kernel: tensor<4x3xf32>}, x: tensor<8x4xf32>) -> (tensor<8x3xf32>)",
                        "arguments": [
                            {
                                "key": 0,
                                "name": None,
                                "node": {
                                    "node": "dict",
                                    "items": [
                                        [
                                            "kernel",
                                            {
                                                "node": "leaf",
                                                "index": 0,
                                                "type": {
                                                    "type": "ndarray",
                                                    "element": f32,
                                                    "dims": [4, 3],
                                                },
                                            },
                                        ]
                                    ],
                                },
                            },
                            {
                                "key": 1,
                                "name": "x",
                                "node": {
                                    "node": "leaf",
                                    "index": 1,
                                    "type": {"type": "ndarray", "element": f32, "dims": [8, 4]},
                                },
                            },
                        ],
                        "results": [
                            {
                                "node": "leaf",
                                "index": 0,
                                "type": {"type": "ndarray", "element": f32, "dims": [8, 3]},
                            }
                        ],
                    },
                    {
                        "name": "main$async",
                        "source": "type",
                        "caller_visible": False,
                        "declaration": "(?) -> ()",
                        "arguments": [
                            {
                                "key": 0,
                                "name": None,
                                "node": {"node": "leaf", "index": 0, "type": {"type": "unknown"}},
                            }
                        ],
                        "results": [],
                    },
                ],
            }
        ]
    }
    # The option is also taken after the command.
    assert (
        abi_sig("show", "--format", "json", "--all", "old.mlir", cwd=modules).stdout == done.stdout
    )


def test_show_errors_write_nothing(modules: Path) -> None:
    done = abi_sig("show", "old.mlir", "bad.mlir", "missing.mlir", cwd=modules)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        "bad.mlir:1:1: error: @f: malformed reflection 'iree.abi': expected a JSON object "
        '{"a": [...], "r": [...], "v": 1}, got an array (at offset 0)',
        "abi-sig: error: could not open input file 'missing.mlir': No such file or directory",
    ]


def test_show_a_structure_nested_too_deeply(tmp_path: Path) -> None:
    """Deeper than the passes take (an internal RecursionError, before the limit, once
    the nesting was more than the interpreter's recursion limit walks: 300 here; type
    aliases nest a type as deeply as they like)."""
    deep = "tuple<" * 300 + "i32" + ">" * 300
    aliases = "".join(f"!t{i} = tuple<!t{i - 1}>\n" for i in range(1, 3000))
    (tmp_path / "deep.mlir").write_text(f"func.func @f(%a: i32, %b: {deep}) {{\n  return\n}}\n")
    (tmp_path / "aliases.mlir").write_text(
        f"!t0 = i32\n{aliases}func.func @g() -> !t2999 {{\n  return\n}}\n"
    )
    done = abi_sig("show", "deep.mlir", "aliases.mlir", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode().splitlines() == [
        "deep.mlir:1:1: error: @f: argument 1: structure nested deeper than 100 levels",
        "aliases.mlir:3001:1: error: @g: result 0: structure nested deeper than 100 levels",
    ]


def test_names_with_line_breaks_stay_on_their_line(tmp_path: Path) -> None:
    """A function name, argument name or key with a line break cannot make `show` print
    two lines for a function, nor `diff` a finding it did not find."""
    (tmp_path / "old.mlir").write_text(
        'func.func @"f\\0Acompatible: g"(%a: !abi.dict<"k\\0A\\09": i32>) {\n  return\n}\n'
    )
    (tmp_path / "new.mlir").write_text("func.func @h() {\n  return\n}\n")
    done = abi_sig("show", "old.mlir", cwd=tmp_path)
    assert (done.returncode, done.stdout.decode()) == (
        0,
        "f\\ncompatible: g(dict{k\\n\\t: i32}) -> ()  (no reflection)\n",
    )
    done = abi_sig("diff", "old.mlir", "new.mlir", cwd=tmp_path)
    assert (done.returncode, done.stdout.decode()) == (
        1,
        "breaking: f\\ncompatible: g: function removed\ncompatible: h: function added\n",
    )
    (tmp_path / "twice.mlir").write_text('func.func @"x\\0Ay"() {\n  return\n}\n' * 2)
    done = abi_sig("show", "twice.mlir", cwd=tmp_path)
    assert (done.returncode, done.stderr.decode()) == (
        1,
        "twice.mlir:4:1: error: redefinition of symbol named 'x\\ny'\n"
        "twice.mlir:1:1: note: see existing symbol definition here\n",
    )


def test_standard_input_given_twice(modules: Path) -> None:
    """The second '-' read what the first left of standard input, nothing: 'input
    <stdin> is empty'."""
    for args, status in ((("show", "-", "old.mlir", "-"), 1), (("diff", "-", "-"), 2)):
        done = abi_sig(*args, stdin=(modules / "old.mlir").read_bytes(), cwd=modules)
        assert (done.returncode, done.stdout, done.stderr.decode()) == (
            status,
            b"",
            "abi-sig: error: standard input ('-') is given more than once\n",
        )


def test_show_needs_a_file() -> None:
    done = abi_sig("show")
    assert done.returncode == 2
    assert done.stderr.startswith(b"usage: abi-sig show")


def test_diff_compatible(modules: Path) -> None:
    done = abi_sig("diff", "old.mlir", "wider.mlir", cwd=modules)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == b"compatible: main: argument x: shape 8x4 -> ?x4\n"


def test_diff_identical(modules: Path) -> None:
    done = abi_sig("diff", "old.mlir", "same.mlir", cwd=modules)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_diff_breaking(modules: Path) -> None:
    done = abi_sig("diff", "old.mlir", "new.mlir", cwd=modules)
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "breaking: main: argument 0['kernel']: shape 4x3 -> 4x5",
        "breaking: main: result: shape 8x3 -> 8x5",
    ]
    # `$async` variants only with --all; here the same in both.
    assert abi_sig("diff", "--all", "old.mlir", "new.mlir", cwd=modules).stdout == done.stdout


def test_diff_all(modules: Path) -> None:
    (modules / "sync-only.mlir").write_text(OLD[: OLD.index('func.func @"main$async"')])
    done = abi_sig("diff", "old.mlir", "sync-only.mlir", cwd=modules)
    assert (done.returncode, done.stdout) == (0, b"")
    done = abi_sig("diff", "--all", "old.mlir", "sync-only.mlir", cwd=modules)
    assert (done.returncode, done.stdout) == (1, b"breaking: main$async: function removed\n")


def test_diff_json(modules: Path) -> None:
    done = abi_sig("diff", "--format", "json", "old.mlir", "wider.mlir", cwd=modules)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "breaking": False,
        "findings": [
            {
                "severity": "compatible",
                "function": "main",
                "side": "argument",
                "path": ["x"],
                "what": "shape",
                "old": "8x4",
                "new": "?x4",
                "line": "compatible: main: argument x: shape 8x4 -> ?x4",
            }
        ],
        "information": [],
    }
    done = abi_sig("--format", "json", "diff", "old.mlir", "new.mlir", cwd=modules)
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert document["breaking"] is True
    assert [finding["path"] for finding in document["findings"]] == [[0, "kernel"], []]


def test_diff_function_removed_and_added(modules: Path) -> None:
    (modules / "renamed.mlir").write_text(OLD.replace("@main(", "@predict("))
    done = abi_sig("diff", "old.mlir", "renamed.mlir", cwd=modules)
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "breaking: main: function removed",
        "compatible: predict: function added",
    ]


@pytest.mark.parametrize(
    ("files", "stderr"),
    [
        (
            ("old.mlir", "missing.mlir"),
            ["abi-sig: error: could not open input file 'missing.mlir': No such file or directory"],
        ),
        (
            ("bad.mlir", "old.mlir"),
            [
                "bad.mlir:1:1: error: @f: malformed reflection 'iree.abi': expected a JSON object "
                '{"a": [...], "r": [...], "v": 1}, got an array (at offset 0)'
            ],
        ),
    ],
)
def test_diff_unreadable_input_is_status_2(
    modules: Path, files: tuple[str, str], stderr: list[str]
) -> None:
    done = abi_sig("diff", *files, cwd=modules)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode().splitlines() == stderr


def test_diff_usage_error_is_status_2() -> None:
    done = abi_sig("diff", "only-one.mlir")
    assert done.returncode == 2
    assert done.stderr.startswith(b"usage: abi-sig diff")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_diff_output_that_cannot_be_written_is_status_2(modules: Path) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "abi_compiler.commands.sig_main",
                "diff",
                "old.mlir",
                "new.mlir",
            ],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
            cwd=modules,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr.startswith(b"abi-sig: error: ")


def test_show_prints_the_original_call() -> None:
    """A framework's function: its records, then the call it takes (`abi.call`)."""
    inputs = Path(__file__).resolve().parents[1] / "frontends" / "inputs"
    done = abi_sig("show", str(inputs / "torch_mlp.mlir"))
    assert (done.returncode, done.stderr) == (0, b"")
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 2 and lines[0].startswith("main(dict{features: tensor<2x4xf32>}")
    assert lines[1] == (
        "  called as main({'features': float32[2,4]}, (float32[3], int32[3]), =2, *, "
        "mask: bool[3], ids: uint8[3]) -> ({'y': float32[2,3], 'rest': (float32[3], "
        "[int64[3], uint8[3]])}, Pair(first=float32[3], second=int32[3]))"
    )
    shown = json.loads(abi_sig("show", "--format", "json", str(inputs / "torch_mlp.mlir")).stdout)
    assert shown["files"][0]["functions"][0]["call"] == lines[1].removeprefix("  called as main")


def test_diff_compares_original_calls(tmp_path: Path) -> None:
    """Renaming a namedtuple's field leaves the records as they are and breaks the
    original call: a caller's object no longer has the field, a result has another."""
    inputs = Path(__file__).resolve().parents[1] / "frontends" / "inputs"
    text = (inputs / "torch_mlp.mlir").read_text(encoding="utf-8")
    renamed = text.replace("\\22first\\22,\\22second\\22", "\\22first\\22,\\22other\\22")
    assert renamed != text
    (tmp_path / "old.mlir").write_text(text, encoding="utf-8")
    (tmp_path / "new.mlir").write_text(renamed, encoding="utf-8")
    (tmp_path / "const.mlir").write_text(
        text.replace(
            "\\22type\\22:\\22int\\22,\\22value\\22:2", "\\22type\\22:\\22int\\22,\\22value\\22:3"
        ),
        encoding="utf-8",
    )
    same = abi_sig("diff", "old.mlir", "old.mlir", cwd=tmp_path)
    assert (same.returncode, same.stdout) == (0, b"")
    done = abi_sig("diff", "old.mlir", "new.mlir", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.decode() == (
        "breaking: main: result[1]: keys ['first', 'second'] -> ['first', 'other']\n"
    )
    done = abi_sig("diff", "old.mlir", "const.mlir", cwd=tmp_path)
    assert done.stdout.decode() == "breaking: main: argument 2: value 2 -> 3\n"


def _called(call: dict[str, Any], records: dict[str, Any], arguments: str, results: str) -> str:
    """A module of one function ``main`` with records and an original call."""
    from tests.calling.conftest import mlir_string

    return (
        f"func.func @main({arguments}) -> ({results}) attributes {{iree.abi = "
        f'"{mlir_string(json.dumps(records, separators=(",", ":")))}", iree.reflection = '
        f'{{abi.call = "{mlir_string(json.dumps(call, separators=(",", ":")))}"}}}}\n'
    )


def _array(index: int, *dims: Any) -> dict[str, Any]:
    return {"t": "array", "i": index, "dtype": "float32", "dims": list(dims)}


def _record(*dims: int | None) -> list[Any]:
    return ["ndarray", "f32", len(dims), *dims]


def _version(
    count: int = 2,
    second: Any = "b",
    result_keys: tuple[str, ...] = ("y",),
    symbols: list[Any] | None = None,
    constraints: list[Any] | None = None,
    first: str = "a",
) -> str:
    """``main(x: float32[<first>, 2], y: float32[<second>], …) -> {'y': …, …}``."""
    args = [_array(0, first, 2), _array(1, second)] + [_array(i, 4) for i in range(2, count)]
    result = {
        "t": "dict",
        "k": list(result_keys),
        "c": [_array(i, 2) for i in range(len(result_keys))],
    }
    call = {"v": 1, "args": args, "kwargs": [], "result": result}
    if symbols:
        call["symbols"] = symbols
    if constraints:
        call["constraints"] = constraints
    records = {
        "a": [_record(None, 2), _record(None)] + [_record(4)] * (count - 2),
        "r": [["sdict", *[[key, _record(2)] for key in sorted(result_keys)]]],
        "v": 1,
    }
    arguments = ", ".join(
        ["%x: tensor<?x2xf32>", "%y: tensor<?xf32>"]
        + [f"%z{i}: tensor<4xf32>" for i in range(2, count)]
    )
    results = ", ".join("tensor<2xf32>" for _ in result_keys)
    body = "  %r = arith.constant dense<0.0> : tensor<2xf32>\n"
    body += f"  return {', '.join('%r' for _ in result_keys)} : {results}\n}}\n"
    return _called(call, records, arguments, results).replace("\n", " {\n", 1) + body


def _diff(tmp_path: Path, old: str, new: str, *options: str) -> tuple[int, str]:
    (tmp_path / "old.mlir").write_text(old, encoding="utf-8")
    (tmp_path / "new.mlir").write_text(new, encoding="utf-8")
    done = abi_sig("diff", *options, "old.mlir", "new.mlir", cwd=tmp_path)
    assert done.stderr == b""
    return done.returncode, done.stdout.decode()


def test_diff_says_each_change_once(tmp_path: Path) -> None:
    """An added result key is compatible (one line, exit 0; `--strict`: breaking); an
    added argument is one line with its value (the call's and the records' findings of
    one change are one)."""
    old = _version()
    assert _diff(tmp_path, old, _version(result_keys=("y", "loss"))) == (
        0,
        "compatible: main: result: keys ['y'] -> ['loss', 'y']\n",
    )
    assert _diff(tmp_path, old, _version(result_keys=("y", "loss")), "--strict") == (
        1,
        "breaking: main: result: keys ['y'] -> ['loss', 'y']\n",
    )
    assert _diff(tmp_path, old, _version(count=3)) == (
        1,
        "breaking: main: argument 2: added tensor<4xf32>\n",
    )
    assert _diff(tmp_path, _version(count=3), old) == (
        1,
        "breaking: main: argument 2: removed tensor<4xf32>\n",
    )


def test_diff_compares_the_dims_relations(tmp_path: Path) -> None:
    """A symbol newly shared, bounds tightened, a constraint added break (the new module
    refuses calls the old one took); the other way they are compatible."""
    old = _version(symbols=[["a", 1, 100]])
    shared = _version(second="a", symbols=[["a", 1, 100]])
    tight = _version(symbols=[["a", 1, 50]])
    constrained = _version(
        symbols=[["a", 1, 100]], constraints=[[[[1, ["a"]], [-1, ["b"]]], ">=", "a >= b"]]
    )
    assert _diff(tmp_path, old, shared) == (
        1,
        "breaking: main: argument 1: relation dim 0 free -> dim 0 = argument 0 dim 0\n",
    )
    assert _diff(tmp_path, shared, old) == (
        0,
        "compatible: main: argument 1: relation dim 0 = argument 0 dim 0 -> dim 0 free\n",
    )
    assert _diff(tmp_path, old, tight) == (
        1,
        "breaking: main: argument 0: bounds dim 0 in [1, 100] -> dim 0 in [1, 50]\n",
    )
    assert _diff(tmp_path, tight, old) == (
        0,
        "compatible: main: argument 0: bounds dim 0 in [1, 50] -> dim 0 in [1, 100]\n",
    )
    assert _diff(tmp_path, old, constrained) == (1, "breaking: main: constraint added 'a >= b'\n")
    assert _diff(tmp_path, constrained, old) == (
        0,
        "compatible: main: constraint removed 'a >= b'\n",
    )
    # Renaming a symbol everywhere is no change.
    renamed = _version(first="n", second="n", symbols=[["n", 1, 100]])
    assert _diff(tmp_path, shared, renamed) == (0, "")


def test_show_prints_bounds_and_constraints(tmp_path: Path) -> None:
    text = _version(
        symbols=[["a", 1, 100], ["b", 2, None]],
        constraints=[[[[1, ["a"]], [-1, ["b"]]], ">=", "a >= b"]],
    )
    (tmp_path / "m.mlir").write_text(text, encoding="utf-8")
    done = abi_sig("show", "m.mlir", cwd=tmp_path)
    lines = done.stdout.decode().splitlines()
    assert lines[1:] == [
        "  called as main(float32[a,2], float32[b]) -> {'y': float32[2]}",
        "  where a in [1, 100], b in [2, inf), a >= b",
    ]
    shown = json.loads(abi_sig("show", "--format", "json", "m.mlir", cwd=tmp_path).stdout)
    assert shown["files"][0]["functions"][0]["where"] == "a in [1, 100], b in [2, inf), a >= b"
