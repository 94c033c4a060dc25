"""A generated campaign of hostile inputs (docs/formats.md, "The original call:
`abi.call`"; docs/calling.md, "Big weights" and "Errors"; docs/abi-compile.md,
"Diagnostics and exit status"): each input must end as a result, an `AbiError`, a
`TypeError` naming the value, the documented `FileNotFoundError`/`IsADirectoryError` of a
parameters path that is missing or a directory, or — for `abi-compile` — exit status 0 or
a diagnostic (exit 1, no traceback, no internal error); never another exception, a crash
or a hang.

Families (each seeded, deterministic):

* ``entry``: `abi.call` entries built from random nodes with hostile members (keys Python
  reserves or that clash once renamed, dtypes no array has, huge and odd dims, versions,
  symbols, constraints, repeated members, cut or flipped text), looked up on one compiled
  function without compiling (`tests.hardening.test_hostile_entries.look_up`), then called;
* ``mapping``: mappings of parameter name → value for `load(parameters=…)` (strided,
  object, zero-size, wrong-shaped arrays, lists, None, numbers, bytes, non-str names),
  loaded and called;
* ``archive``: parameter archive files (random bytes, a real archive cut or flipped, a
  FIFO, a directory, an empty file) for `load(parameters=path)`;
* ``name``: `abi-compile NAME=INPUT --emit-mlir` with hostile names (reserved by IREE,
  quotes, escapes, line breaks, `=`, `@`, empty, long, non-ASCII);
* ``input``: `abi-compile INPUT --emit-mlir` of hostile files (an example module cut,
  flipped or spliced, random bytes, fake `.pt2`/`.onnx`/`.vmfb`/bytecode).

The test (`tests/hardening/test_hostile_campaign.py`) runs a small sample; the long mode is
this module as a script, printing the counts per family and outcome:

    python -m tests.hardening.hostile_campaign --count 1200 --seed 1

A per-input alarm (``--timeout``, seconds) turns a hang into the outcome ``hang``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import sys
import tempfile
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("entry", "mapping", "archive", "name", "input")
# Outcomes that are not defects (and every "looked up: …" of an entry).
GOOD = ("ok", "AbiError", "TypeError", "FileNotFoundError", "IsADirectoryError", "exit 0", "exit 1")


def good(outcome: str) -> bool:
    return outcome in GOOD or outcome.startswith("looked up: ")


class Hang(Exception):
    pass


@contextlib.contextmanager
def alarm(seconds: int) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise Hang()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- abi.call entries ------------------------------------------------------------------

_KEYS = [
    "a", "b", "x", "_1", "a-b", "1", "__class__", "__dict__", "__weakref__", "__init__",
    "__annotations__", "class", "def", "None", "é", "\ud800", "", " ", "a b", "\n", "_0",
    "to_tuple", "keys", "_fields", "_asdict", "__", "____", "x" * 300,
]  # fmt: skip
_DTYPES = [
    "float32", "float64", "uint8", "int8", "bool", "bfloat16", "complex64", "float16",
    "O", "V8", "S3", "U2", "M8", "m8[s]", "object", "void", "\ud800", "", "float32 ",
    "(float32, (100000, 100000, 1000))", "f4", ">f4", "int128", "float8_e4m3fn", "i" * 70,
]  # fmt: skip
_INTS = [0, 1, 2, 3, -1, -(2**63), 2**63 - 1, 2**63, 2**64, 10**30, 7]


class _Rng(random.Random):
    """A seeded generator with a rate of hostile picks (`bad`)."""

    bad = 0.3

    def hostile(self) -> bool:
        return self.random() < self.bad


def _dim(rng: random.Random) -> Any:
    if isinstance(rng, _Rng) and not rng.hostile():
        return rng.choice([2, 3, "b", "b", None])
    choice = rng.randrange(9)
    if choice < 3:
        return rng.choice([2, 3, 0, 1])
    if choice < 5:
        return rng.choice(["b", "a", "s", "", "\ud800", "b b", "2"])
    if choice == 5:
        return None
    if choice == 6:
        return rng.choice(_INTS)
    if choice == 7:
        symbols = [rng.choice(["b", "a", "c"]) for _ in range(rng.choice([0, 1, 2, 9]))]
        return [[rng.choice(_INTS), symbols] for _ in range(rng.randrange(1, 3))]
    return rng.choice([1.5, float("nan"), True, {}, [[]], [["b"]], "nan"])


def _dims(rng: random.Random) -> Any:
    if rng.random() < 0.1:
        return rng.choice([None, "b", 3, {}])
    return [_dim(rng) for _ in range(rng.choice([0, 1, 2, 2, 2, 3]))]


def _array(rng: random.Random, leaf: int) -> dict[str, Any]:
    node: dict[str, Any] = {"t": "array", "i": leaf if rng.random() < 0.8 else rng.choice(_INTS)}
    if rng.random() < 0.9:
        node["dtype"] = rng.choice(_DTYPES) if _hostile(rng) else "float32"
    if rng.random() < 0.9:
        node["dims"] = ["b", 2] if rng.random() < 0.4 else _dims(rng)
    return node


def _node(rng: random.Random, depth: int, leaves: list[int]) -> Any:
    if depth > 3 or rng.random() < 0.35:
        kind = rng.choice(["array", "array", "unused", "const", "none"])
    else:
        kind = rng.choice(
            ["tuple", "list", "dict", "namedtuple", "dataclass", "node", "model_output"]
        )
    if kind == "array" and leaves[0] >= 1 and not _hostile(rng):
        kind = rng.choice(["unused", "const", "none"])  # (the function has one leaf)
    if kind == "array":
        leaves[0] += 1
        return _array(rng, leaves[0] - 1)
    if kind == "unused":
        node: dict[str, Any] = {"t": "unused"}
        if rng.random() < 0.8:
            node["dtype"] = rng.choice(_DTYPES)
            node["dims"] = _dims(rng)
        return node
    if kind == "const":
        value: Any = rng.choice([1, 2.5, True, "s", None, 2**70, -(2**63), "\ud800", [1], {}])
        node = {"t": "const", "type": rng.choice(["int", "float", "bool", "str", "NoneType"])}
        if not _hostile(rng):
            value = rng.choice([1, 2.5, True, "s", None])
            node["type"] = type(value).__name__
        if rng.random() < 0.2:
            node["repr"] = rng.choice(["nan", "inf", "-inf", "1", "x"])
        else:
            node["value"] = value
        return node
    if kind == "none":
        return {"t": "none"}
    count = rng.choice([0, 1, 2, 2, 3])
    children = [_node(rng, depth + 1, leaves) for _ in range(count)]
    node = {"t": kind, "c": children}
    if kind in ("dict", "namedtuple", "dataclass", "node", "model_output") and rng.random() < 0.9:
        keys: list[Any] = [rng.choice(_KEYS) for _ in range(count)]
        if rng.random() < 0.15:
            keys = [rng.choice([1, 2, -1, 1.5, None]) for _ in range(count)]
        if not _hostile(rng):
            keys = [f"k{i}" for i in range(count)]
        node["k"] = keys
    if (kind != "dict" or rng.random() < 0.2) and rng.random() < 0.9:
        node["name"] = (
            rng.choice(["S", "Pair", "", "__class__", "\ud800", "a.b", 3])
            if _hostile(rng)
            else "Pair"
        )
    if kind == "dataclass" and rng.random() < 0.2:
        node["s"] = [
            [
                rng.choice(_KEYS) if _hostile(rng) else "meta",
                {"t": "const", "type": "int", "value": 1},
            ]
        ]
    return node


def _hostile(rng: random.Random) -> bool:
    return rng.hostile() if isinstance(rng, _Rng) else True


def entry_text(rng: random.Random) -> str:
    """One hostile `abi.call` text (`_Rng.bad` of its picks hostile)."""
    if isinstance(rng, _Rng):
        rng.bad = rng.choice([0.0, 0.02, 0.1, 0.3, 1.0])
    leaves = [0]
    args = [_node(rng, 1, leaves) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
    base = {"t": "array", "i": 0, "dtype": "float32", "dims": ["b", 2]}
    if rng.random() < 0.5 or (leaves[0] == 0 and not _hostile(rng)):
        args = [base, *args[1:]]
    result_leaves = [0]
    result = _node(rng, 1, result_leaves)
    if result_leaves[0] == 0 and not _hostile(rng):
        result = {"t": "tuple", "c": [base, result]}
    call: dict[str, Any] = {"v": 1, "args": args, "kwargs": [], "result": result}
    if rng.random() < 0.2 and _hostile(rng):
        call["kwargs"] = [[rng.choice(_KEYS), _node(rng, 2, leaves)]]
    if rng.random() < 0.1 and _hostile(rng):
        call["v"] = rng.choice([True, 1.0, "1", 2, 0, None, [1]])
    if rng.random() < 0.2 and _hostile(rng):
        call["symbols"] = [
            [rng.choice(["b", "a", "\ud800", 1]), rng.choice([None, 0, 1, 2**64, -1]),
             rng.choice([None, 0, 8, 2**70, 1.5])]
            for _ in range(rng.randrange(1, 3))
        ]  # fmt: skip
    if rng.random() < 0.1 and _hostile(rng):
        call["constraints"] = [[[[1, ["b"]], [-1, [rng.choice(["a", "b", "zz"])]]],
                                rng.choice([">=", "==", "<", 1]), "b >= a"]]  # fmt: skip
    if rng.random() < 0.1 and _hostile(rng):
        call["fixed"] = [[rng.choice(_INTS), rng.choice(_INTS)]]
    if rng.random() < 0.1 and _hostile(rng):
        call["labels"] = rng.choice([["x"], [None], [1], "x", [None] * 5])
    if rng.random() < 0.1 and _hostile(rng):
        call["tensor"] = rng.choice(["numpy", "torch", "jax", "tf", "cupy", 1])
    if rng.random() < 0.05 and _hostile(rng):
        call[rng.choice(["extra", "V", ""])] = 1
    text = json.dumps(call, ensure_ascii=rng.random() < 0.5)
    mutation = rng.random() if _hostile(rng) else 1.0
    if mutation < 0.05:
        text = text[: rng.randrange(len(text) + 1)]
    elif mutation < 0.1:
        at = rng.randrange(len(text))
        text = text[:at] + chr(rng.randrange(32, 127)) + text[at + 1 :]
    elif mutation < 0.13:
        text = text[:-1] + ', "v": 1}'
    elif mutation < 0.15:
        text = "[" * 100_000 + "]" * 100_000
    elif mutation < 0.17:
        text = text.replace('"value": 1', '"value": ' + "9" * rng.choice([10, 4400, 5000]))
    return text


_ARGUMENTS: list[Callable[[], Any]] = [
    lambda: np.ones((3, 2), np.float32),
    lambda: np.ones((3, 2), ">f4"),
    lambda: np.ones((0, 2), np.float32),
    lambda: np.ones((3, 2), np.float64),
    lambda: [[1.0, 2.0]],
    lambda: None,
    lambda: {"a": np.ones((3, 2), np.float32)},
    lambda: (np.ones((3, 2), np.float32), None),
    lambda: np.ones((3, 2), np.float32)[:, ::-1],
    lambda: "x",
]


def value_for(node: Any, rng: random.Random) -> Any:
    """A value a call of ``node`` takes (what the entry says, not always what it means)."""
    if not isinstance(node, dict):
        return None
    kind = node.get("t")
    if kind == "array":
        return np.ones((3, 2), np.float32) if rng.random() < 0.9 else rng.choice(_ARGUMENTS)()
    if kind == "const":
        return node.get("value")
    if kind == "unused":
        return np.ones((2,), np.float32)
    children = [value_for(child, rng) for child in node.get("c", [])]
    keys = node.get("k")
    if kind in ("dict", "model_output") and isinstance(keys, list):
        return dict(zip(keys, children, strict=False))
    if kind == "list":
        return children
    if isinstance(keys, list) and all(isinstance(k, str) and k.isidentifier() for k in keys):
        return type("Given", (), dict(zip(keys, children, strict=False)))()
    return tuple(children)


def run_entry(rng: random.Random, module: Any) -> str:
    """``AbiError`` when the lookup refuses the entry; else ``looked up: `` and what its
    two calls ended as (one with the values the entry describes, one with others)."""
    from abi_compiler.errors import AbiError
    from tests.hardening.test_hostile_entries import look_up

    text = entry_text(rng)
    function = look_up(module, text)
    try:
        call = json.loads(text)
        given = [value_for(node, rng) for node in call["args"]]
        keywords = {str(k): value_for(n, rng) for k, n in call.get("kwargs", [])}
    except Exception:
        given, keywords = [], {}
    others = [rng.choice(_ARGUMENTS)() for _ in range(rng.choice([0, 1, 1, 2]))]
    ended = set()
    for arguments, named in ((given, keywords), (others, {})):
        try:
            function(*arguments, **named)
            ended.add("ok")
        except AbiError:
            ended.add("AbiError")
        except TypeError as error:
            _check_type_error(error)
            ended.add("TypeError")
    return "looked up: " + "+".join(sorted(ended))


def _check_type_error(error: TypeError) -> None:
    """A `TypeError` must name the value (``argument``/``parameter``/``expected``), not be
    one of Python's own (``unhashable type``, a signature dump)."""
    message = str(error)
    if not any(word in message for word in ("argument", "parameter", "expected")):
        raise AssertionError(f"a TypeError that names no value: {message}") from error


# -- parameters ------------------------------------------------------------------------

_VALUES: list[Callable[[], Any]] = [
    lambda: np.ones(4, np.float32),
    lambda: np.arange(8, dtype=np.float32)[::2],
    lambda: np.ones((2, 2), np.float32).T,
    lambda: np.ones(4, np.float64),
    lambda: np.ones(3, np.float32),
    lambda: np.ones(0, np.float32),
    lambda: np.ones(4, ">f4"),
    lambda: np.array([None] * 4, dtype=object),
    lambda: np.array(["a"] * 4),
    lambda: np.ones(4, np.int8),
    lambda: np.float32(1),
    lambda: [1.0, 2.0, 3.0, 4.0],
    lambda: None,
    lambda: 3.0,
    lambda: b"\x00" * 16,
    lambda: bytearray(16),
    lambda: memoryview(cast(Any, np.ones(4, np.float32))),
    lambda: "w",
    lambda: {"w": np.ones(4, np.float32)},
    lambda: np.ones((4, 1), np.float32)[:, 0],
    lambda: np.ones(8, np.uint8).view(np.float32),
    lambda: np.ones(1_000_000, np.float32),
]
_NAMES: list[Any] = ["w", "w", "w", "v", "", "model", "w\x00", "\ud800", 1, None, ("w",), b"w"]


def parameter_mapping(rng: random.Random) -> Any:
    if rng.random() < 0.05:
        return rng.choice([[("w", np.ones(4, np.float32))], 3, "", b"", object()])
    return {rng.choice(_NAMES): rng.choice(_VALUES)() for _ in range(rng.choice([0, 1, 1, 2, 3]))}


def run_mapping(rng: random.Random, vmfb: bytes) -> str:
    from abi_compiler import iree as abi_iree

    mapping = parameter_mapping(rng)
    try:
        module = abi_iree.load(vmfb, parameters=mapping, isolate=False)
    except TypeError as error:
        _check_type_error(error)
        return "TypeError"
    except FileNotFoundError:
        if not isinstance(mapping, str):
            raise
        return "FileNotFoundError"  # (a str is a path: a missing one is documented so)
    module.main(np.ones(4, np.float32))
    return "ok"


def archive_bytes(rng: random.Random, real: bytes) -> bytes:
    choice = rng.randrange(6)
    if choice == 0:
        return rng.randbytes(rng.choice([0, 1, 16, 64, 512]))
    if choice == 1:
        return real[: rng.randrange(len(real))]
    if choice in (2, 3):
        data = bytearray(real)
        for _ in range(rng.choice([1, 1, 2, 8])):
            at = rng.randrange(min(len(data), 256) if rng.random() < 0.7 else len(data))
            data[at] = rng.randrange(256)
        return bytes(data)
    if choice == 4:
        data = bytearray(real)
        at = rng.randrange(0, min(len(data), 128) - 8)
        data[at : at + 8] = rng.choice([b"\xff" * 8, b"\x00" * 8, (2**62).to_bytes(8, "little")])
        return bytes(data)
    return real + rng.randbytes(rng.choice([1, 100]))


def run_archive(rng: random.Random, vmfb: bytes, real: bytes, folder: Path) -> str:
    from abi_compiler import iree as abi_iree

    path = folder / f"p{rng.randrange(10**9)}.irpa"
    special = rng.random()
    if special < 0.03 and hasattr(os, "mkfifo"):
        os.mkfifo(path)
    elif special < 0.05:
        path.mkdir()
    else:
        path.write_bytes(archive_bytes(rng, real))
    try:
        module = abi_iree.load(vmfb, parameters=path)
        module.main(np.ones(4, np.float32))
    except IsADirectoryError:
        return "IsADirectoryError"  # (Python's own OSError for a directory, as documented)
    finally:
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink()
    return "ok"


# -- abi-compile -----------------------------------------------------------------------

_NAME_PARTS = [
    "main", "f", "__init", "__deinit", "__notify", "main$async", "global$w$get",
    "global$w$set", "$async", "global$", '"', "\\", "\\0A", "\n", "\r", "\t", "=", "@",
    "%", "#", "{", "}", "(", ")", " ", "", "é", "\u202e", "\x00", ".", "-", "0", "x" * 500,
    "a.b", "$", "::", "//", "/*", "loc(", "module",
]  # fmt: skip


def compile_name(rng: random.Random) -> str:
    return "".join(rng.choice(_NAME_PARTS) for _ in range(rng.choice([1, 1, 2, 3, 4])))


def _abi_compile(args: list[str]) -> str:
    from abi_compiler.commands.compile_main import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(args)
    text = err.getvalue()
    if "Traceback" in text or "internal error" in text:
        raise AssertionError(f"abi-compile {args}: {text}")
    if status == 1:
        lines = [line for line in text.splitlines() if line]
        if not lines or not all(_diagnostic_line(line) for line in lines):
            raise AssertionError(f"abi-compile {args}: not diagnostics: {text!r}")
    if status not in (0, 1):
        raise AssertionError(f"abi-compile {args}: exit {status}: {text}")
    return f"exit {status}"


def _diagnostic_line(line: str) -> bool:
    return (
        line.startswith(("abi-compile: ", "iree-"))
        or ": error: " in line
        or (": note: " in line or ": warning: " in line)
    )


def run_name(rng: random.Random, folder: Path) -> str:
    name = compile_name(rng)
    source = ROOT / "examples" / rng.choice(["jax_predict_v1.mlir", "structured.mlir"])
    out = folder / "out.mlir"
    outcome = _abi_compile([f"{name}={source}", "--emit-mlir", "-o", str(out)])
    out.unlink(missing_ok=True)
    return outcome


_SOURCES = ["jax_predict_v1.mlir", "jax_train_step.mlir", "structured.mlir", "classifier.onnx"]


def input_file(rng: random.Random) -> tuple[str, bytes]:
    real = (ROOT / "examples" / rng.choice(_SOURCES)).read_bytes()
    choice = rng.randrange(8)
    suffix = rng.choice([".mlir", ".mlir", ".onnx", ".pt2", ".vmfb", ".mlirbc", ".jax", ""])
    if choice == 0:
        return suffix, rng.randbytes(rng.choice([0, 1, 8, 200]))
    if choice == 1:
        return suffix, real[: rng.randrange(len(real))]
    if choice in (2, 3):
        data = bytearray(real)
        for _ in range(rng.choice([1, 1, 3])):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return suffix, bytes(data)
    if choice == 4:
        other = (ROOT / "examples" / rng.choice(_SOURCES)).read_bytes()
        at = rng.randrange(len(real))
        return suffix, real[:at] + other[rng.randrange(len(other)) :]
    if choice == 5:
        header = rng.choice([b"PK\x03\x04", b"ML\xefR", b"IREE", b"\x08\x07\x12", b"\xef\xbb\xbf"])
        return suffix, header + rng.randbytes(rng.choice([0, 4, 100]))
    if choice == 6:
        text = real.decode("utf-8", "replace")
        lines = text.splitlines(keepends=True)
        rng.shuffle(lines)
        return suffix, "".join(lines[: rng.randrange(1, len(lines) + 1)]).encode()
    return suffix, real


def run_input(rng: random.Random, folder: Path) -> str:
    suffix, data = input_file(rng)
    path = folder / f"in{suffix}"
    path.write_bytes(data)
    out = folder / "out.mlir"
    try:
        return _abi_compile([str(path), "--emit-mlir", "-o", str(out)])
    finally:
        path.unlink()
        out.unlink(missing_ok=True)


# -- the campaign ----------------------------------------------------------------------


class Campaign:
    """Compiled modules and a scratch folder shared by the inputs of one run."""

    def __init__(self, folder: Path) -> None:
        from abi_compiler import iree as abi_iree
        from tests.hardening.test_hostile_entries import PARAMETER_TEXT, TEXT, compiled

        self.folder = folder
        self.module = abi_iree.load(compiled(TEXT))
        self.vmfb = compiled(PARAMETER_TEXT)
        archive = folder / "real.irpa"
        abi_iree.save_parameters({"w": np.arange(4, dtype=np.float32)}, archive)
        self.archive = archive.read_bytes()

    def run(self, family: str, rng: random.Random) -> str:
        if family == "entry":
            return run_entry(rng, self.module)
        if family == "mapping":
            return run_mapping(rng, self.vmfb)
        if family == "archive":
            return run_archive(rng, self.vmfb, self.archive, self.folder)
        if family == "name":
            return run_name(rng, self.folder)
        return run_input(rng, self.folder)


def outcome_of(campaign: Campaign, family: str, seed: int, timeout: int) -> tuple[str, str]:
    """The outcome of input ``seed`` of ``family``, and a report of a defect ("": none)."""
    from abi_compiler.errors import AbiError

    rng = _Rng(f"{family}:{seed}")
    try:
        with alarm(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return campaign.run(family, rng), ""
    except AbiError:
        return "AbiError", ""
    except Hang:
        return "hang", f"{family} {seed}: no answer in {timeout} s"
    except Exception as error:  # the defects the campaign looks for
        return type(error).__name__, f"{family} {seed}: " + "".join(
            traceback.format_exception(error)
        )


def run_campaign(
    counts: dict[str, int], seed: int = 0, timeout: int = 60, trace: bool = False
) -> tuple[Counter[tuple[str, str]], list[str]]:
    found: Counter[tuple[str, str]] = Counter()
    defects: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        campaign = Campaign(Path(folder))
        for family, count in counts.items():
            for index in range(count):
                if trace:  # (the input a crash stopped at)
                    print(family, seed * 1_000_000 + index, file=sys.stderr, flush=True)
                outcome, report = outcome_of(campaign, family, seed * 1_000_000 + index, timeout)
                found[family, outcome] += 1
                if report:
                    defects.append(report)
    return found, defects


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.hardening.hostile_campaign", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--count", type=int, default=1200, help="inputs in all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--timeout", type=int, default=60, help="seconds per input")
    parser.add_argument("--trace", action="store_true", help="name each input on stderr")
    options = parser.parse_args(argv)
    families = options.families.split(",")
    counts = {family: options.count // len(families) for family in families}
    found, defects = run_campaign(counts, options.seed, options.timeout, options.trace)
    for report in defects:
        print(report, file=sys.stderr)
    for family in families:
        outcomes = {o: n for (f, o), n in sorted(found.items()) if f == family}
        print(f"{family}: {sum(outcomes.values())} inputs: {outcomes}")
    print(f"defects: {len(defects)}")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
