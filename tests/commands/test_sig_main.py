"""The `abi-sig` command, run as a subprocess: output, exit status, stderr."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

RAW_EXAMPLE = "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64"
JSON_EXAMPLE = (
    '{"a":[["ndarray","f32",2,null,4],["named","x","i32"]],'
    '"r":[["stuple",["ndarray","f32",1,4],["ndarray","f32",1,4]]],"v":1}'
)


def abi_sig(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.sig_main", *args],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=60,
    )


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


def test_does_not_import_xdsl() -> None:
    code = (
        "import sys, abi_compiler.commands.sig_main, abi_compiler.codecs.json_abi, "
        "abi_compiler.codecs.raw, abi_compiler.codecs.sip; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'xdsl'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout == b"[]\n"


def test_console_script_is_declared() -> None:
    from importlib.metadata import entry_points

    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("abi-sig") == "abi_compiler.commands.sig_main:main"
