"""Hostile `abi.call` entries and parameters (docs/formats.md, "The original call: `abi.call`"; docs/calling.md): each is an `AbiError` (or a `TypeError` naming the
value) when the function is looked up or the module loaded, never Python's or IREE's
own exception, a crash or a hang. The entries are looked up on one compiled function
(``main(x: float32[b, 2]) -> float32[b, 2]``) under other reflections."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.calling.modules import Function  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from tests.calling.helpers import PARAMETER_TEXT  # noqa: E402

TEXT = """
func.func @main(%x: tensor<?x2xf32> {abi.index_path = [0]}) -> (tensor<?x2xf32> {abi.index_path = []}) {
  return %x : tensor<?x2xf32>
}
"""
ARRAY = {"t": "array", "i": 0, "dtype": "float32", "dims": ["b", 2]}
BASE: dict[str, Any] = {"v": 1, "args": [ARRAY], "kwargs": [], "result": ARRAY}


def compiled(text: str) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        return abi_iree.compile_vmfb(text)


@pytest.fixture(scope="module")
def module() -> abi_iree.Module:
    return abi_iree.load(compiled(TEXT))


class Reflected:
    """The module's VM function under another `abi.call` (its calling convention, which
    `Function` checks the records against, is the real one's)."""

    def __init__(self, module: abi_iree.Module, call: str) -> None:
        self._real = module.vm_module.lookup_function("main")
        self.name = "main"
        self.reflection = {**dict(self._real.reflection), "abi.call": call}

    def __repr__(self) -> str:
        return repr(self._real)


def look_up(module: abi_iree.Module, call: str) -> Function:
    reflected = Reflected(module, call)
    function = Function(module, reflected)
    function.vm_function = reflected._real  # (called as the real one)
    return function


def with_result(node: dict[str, Any]) -> str:
    return json.dumps({**BASE, "result": node})


def with_unused(dtype: str) -> str:
    return json.dumps({**BASE, "args": [ARRAY, {"t": "unused", "dtype": dtype, "dims": [2]}]})


MALFORMED = "function @main: malformed reflection: abi.call: "


@pytest.mark.parametrize("field", ["__class__", "__weakref__", "__dict__", "__annotations__"])
@pytest.mark.parametrize("kind", ["dataclass", "namedtuple", "node"])
def test_fields_python_reserves(module: abi_iree.Module, kind: str, field: str) -> None:
    call = with_result({"t": kind, "name": "S", "k": [field], "c": [ARRAY]})
    with pytest.raises(AbiError) as caught:
        look_up(module, call)
    assert str(caught.value) == f"{MALFORMED}{kind} 'S': field '{field}' is a name Python reserves"


def test_fields_that_clash_once_renamed(module: abi_iree.Module) -> None:
    call = with_result(
        {"t": "dataclass", "name": "S", "k": ["_1", "a-b"], "c": [ARRAY, {"t": "none"}]}
    )
    with pytest.raises(AbiError) as caught:
        look_up(module, call)
    assert str(caught.value) == (
        f"{MALFORMED}dataclass 'S': field 'a-b' would be named '_1', as another field is"
    )


@pytest.mark.parametrize(
    ("dtype", "message"),
    [
        ("\ud800", "dtype: expected a numpy dtype name or null, got '\\ud800'"),
        (
            "(float32, (100000, 100000, 1000))",
            "dtype: expected a numpy dtype name or null, got '(float32, (100000, 100000, 1000))'",
        ),
        ("O", "dtype 'O' is not an array element type"),
        ("V8", "dtype 'V8' is not an array element type"),
    ],
)
def test_dtypes_no_array_has(module: abi_iree.Module, dtype: str, message: str) -> None:
    with pytest.raises(AbiError) as caught:
        look_up(module, with_unused(dtype))
    assert str(caught.value) == MALFORMED + message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"args": [{**ARRAY, "dims": [[[10**4200, ["b"] * 8]], 2]}]},
            "terms: an int of 4201 digits (at most 2**63 - 1)",
        ),
        (
            {"args": [{**ARRAY, "dims": [[[1, ["b"] * 1000]], 2]}]},
            "terms: a term has more than 8 symbols",
        ),
        (
            {"args": [ARRAY, {"t": "const", "type": "int", "value": 2**64}]},
            "const: an int of 20 digits (at most 2**63 - 1)",
        ),
        ({"symbols": [["b", 0, 2**70]]}, "symbols: an int of 22 digits (at most 2**63 - 1)"),
        ({"fixed": [[2**63, 0]]}, "fixed: an int of 19 digits (at most 2**63 - 1)"),
    ],
)
def test_huge_ints(module: abi_iree.Module, change: dict[str, Any], message: str) -> None:
    with pytest.raises(AbiError) as caught:
        look_up(module, json.dumps({**BASE, **change}))
    assert str(caught.value) == MALFORMED + message


def test_a_constant_beyond_the_int_string_limit(module: abi_iree.Module) -> None:
    text = json.dumps({**BASE, "args": [ARRAY, {"t": "const", "type": "int", "value": 0}]})
    with pytest.raises(AbiError) as caught:
        look_up(module, text.replace('"value": 0', '"value": ' + "9" * 5000))
    assert str(caught.value).startswith(MALFORMED + "not JSON: Exceeds the limit")


@pytest.mark.parametrize("version", ["true", "1.0", '"1"', "2"])
def test_the_version_is_the_integer_one(module: abi_iree.Module, version: str) -> None:
    text = json.dumps(BASE).replace('"v": 1', '"v": ' + version)
    with pytest.raises(AbiError) as caught:
        look_up(module, text)
    shown = {"true": "True", '"1"': "'1'"}.get(version, version)
    assert str(caught.value) == f"{MALFORMED}unsupported version {shown} (this reader knows 1)"


@pytest.mark.parametrize(
    ("text", "member"),
    [
        (json.dumps(BASE)[:-1] + ', "v": 1}', "v"),
        (json.dumps(BASE)[:-1] + ', "args": []}', "args"),
        (json.dumps(BASE).replace('"i": 0,', '"i": 0, "i": 1,', 1), "i"),
    ],
)
def test_repeated_members(module: abi_iree.Module, text: str, member: str) -> None:
    with pytest.raises(AbiError) as caught:
        look_up(module, text)
    assert str(caught.value) == f"{MALFORMED}member '{member}' is repeated"


@pytest.mark.parametrize("text", ["nan", "inf", "-inf"])
def test_a_float_constant_json_cannot_hold(module: abi_iree.Module, text: str) -> None:
    result = {"t": "tuple", "c": [ARRAY, {"t": "const", "type": "float", "repr": text}]}
    x = np.ones((3, 2), np.float32)
    _, constant = look_up(module, with_result(result))(x)
    assert type(constant) is float and repr(constant) == text


@pytest.fixture(scope="module")
def parameter_vmfb() -> bytes:
    return compiled(PARAMETER_TEXT)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_parameters_from_a_fifo(parameter_vmfb: bytes, tmp_path: Path) -> None:
    """Refused, not read: IREE's parser (and the child `load` tries the module in) waited
    for a writer forever. In a child process, so that a hang fails the test."""
    (tmp_path / "m.vmfb").write_bytes(parameter_vmfb)
    os.mkfifo(tmp_path / "p.irpa")
    script = (
        "import sys\nfrom abi_compiler import iree\nfrom abi_compiler.errors import AbiError\n"
        "try:\n    iree.load(sys.argv[1], parameters=sys.argv[2])\n"
        "except AbiError as error:\n    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "m.vmfb"), str(tmp_path / "p.irpa")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (
        done.stdout == f"cannot load the parameters '{tmp_path / 'p.irpa'}': not a regular file\n"
    )


def test_parameter_values(parameter_vmfb: bytes) -> None:
    x = np.ones(4, np.float32)
    strided = np.arange(8, dtype=np.float32)[::2]
    module = abi_iree.load(parameter_vmfb, parameters={"w": strided})
    np.testing.assert_array_equal(module.main(x), strided + 1)
    for value, shown in [([1.0, 2.0, 3.0, 4.0], "list"), (None, "None"), (3.0, "float")]:
        with pytest.raises(TypeError) as caught:
            abi_iree.load(parameter_vmfb, parameters={"w": value})
        assert str(caught.value) == (
            f"parameter 'w': expected an array (a buffer of numbers), got {shown}"
        )


class ShapeRaises:
    dtype = np.dtype("float32")

    @property
    def shape(self) -> tuple[int, ...]:
        raise RuntimeError("no shape today")


class NanShape:
    dtype = np.dtype("float32")
    shape = (float("nan"), 2)


def test_an_argument_whose_shape_is_no_shape(module: abi_iree.Module) -> None:
    for function in (look_up(module, json.dumps(BASE)), module.main):
        with pytest.raises(AbiError) as caught:
            function(ShapeRaises())
        assert str(caught.value) == (
            "argument 0: expected float32[?,2], ShapeRaises.shape raised RuntimeError: "
            "no shape today"
        )
        with pytest.raises(AbiError) as caught:
            function(NanShape())
        assert str(caught.value) == "argument 0: expected float32[?,2], got NanShape"


I8_TEXT = """
func.func @main(%x: tensor<3xi8> {abi.index_path = [0]}) -> (tensor<3xi8> {abi.index_path = []}) {
  return %x : tensor<3xi8>
}
"""


def test_messages_say_the_difference(module: abi_iree.Module) -> None:
    """A byte order, the framework's dtype (not its signless record's), a key's type."""
    big_endian = np.ones((2, 3), ">f4")
    with pytest.raises(AbiError) as caught:
        module.main(big_endian)
    assert str(caught.value) == ("argument 0: expected float32[?,2], got big-endian float32[2,3]")
    u8 = abi_iree.load(compiled(I8_TEXT))
    array = {"t": "array", "i": 0, "dtype": "uint8", "dims": [3]}
    function = look_up(u8, json.dumps({**BASE, "args": [array], "result": array}))
    function.vm_function = u8.vm_module.lookup_function("main")
    with pytest.raises(AbiError) as caught:
        function(np.array([True, False, True]))
    assert str(caught.value) == (
        "argument 0: expected uint8[3], got bool[3] (convert=True converts it)"
    )
    keyed = {"t": "dict", "k": ["1", "2"], "c": [ARRAY, {"t": "none"}]}
    function = look_up(module, json.dumps({**BASE, "args": [keyed]}))
    with pytest.raises(AbiError) as caught:
        function({1: np.ones((3, 2), np.float32), 2: None})
    assert str(caught.value) == (
        "argument 0: expected a dict with keys ['1', '2'], got keys [1, 2] (int)"
    )


def test_a_corrupted_archive_is_parsed_in_a_child(parameter_vmfb: bytes, tmp_path: Path) -> None:
    """IREE's parser of a parameter archive crashes (SIGSEGV) on an entry whose offsets
    are all ones: given an archive path, `load` first creates the context in a child
    process even for a module this process compiled (an archive is anyone's file). Run in
    a child process here, so that a crash fails the test instead of ending the run."""
    archive = tmp_path / "p.irpa"
    abi_iree.save_parameters({"w": np.arange(4, dtype=np.float32)}, archive)
    data = bytearray(archive.read_bytes())
    data[46:54] = b"\xff" * 8
    archive.write_bytes(bytes(data))
    script = (
        "import sys, warnings\nfrom abi_compiler import iree\n"
        "from abi_compiler.errors import AbiError\n"
        "warnings.simplefilter('ignore')\n"
        "from tests.hardening.test_hostile_entries import PARAMETER_TEXT\n"
        "vmfb = iree.compile_vmfb(PARAMETER_TEXT)\n"
        "try:\n    iree.load(vmfb, parameters=sys.argv[1])\n"
        "except AbiError as error:\n    print(error)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script, str(archive)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert (done.returncode, done.stdout) == (
        0,
        "cannot load the compiled module: IREE's runtime crashed (SIGSEGV) creating its "
        f"context in a child process; the module or its parameters '{archive}' are "
        "corrupted, or not built for this machine (load(…, isolate=False) skips this check)\n",
    )


def test_an_archive_the_child_refuses_is_not_parsed_here(
    parameter_vmfb: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """IREE's parser reads a corrupted index differently from one run to the next (a
    refusal in the child, then a SIGSEGV here): what the child refuses is refused with its
    message, the archive never parsed in this process."""
    from abi_compiler.calling import modules

    archive = tmp_path / "p.irpa"
    abi_iree.save_parameters({"w": np.arange(4, dtype=np.float32)}, archive)
    data = bytearray(archive.read_bytes())
    data[42:50] = b"\xff" * 8
    archive.write_bytes(bytes(data))

    def parsed_here(parameters: Any) -> Any:
        raise AssertionError("parsed in this process")

    monkeypatch.setattr(modules, "parameter_index", parsed_here)
    with pytest.raises(AbiError) as caught:
        abi_iree.load(parameter_vmfb, parameters=archive)
    assert str(caught.value) == (
        f"cannot load the parameters '{archive}': Could not parse parameter file index: "
        "c/runtime/src/iree/io/formats/irpa/irpa_parser.c:215: OUT_OF_RANGE; entry table "
        "truncated; insufficient bytes for sized header"
    )
