"""Modules compiled once per test session for tests/calling/ (about a second each).

`functions.mlir` holds one function per record kind; it is lowered by both pipelines
and compiled, so every test calls the same functions through the V1 and the legacy ABI.
The test modules skip when IREE's runtime or compiler is not installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.calling.helpers import compile_quietly

if TYPE_CHECKING:
    from abi_compiler import iree as abi_iree


def needs_iree() -> None:
    """Skip the calling test module when IREE's runtime or compiler is missing (each test
    module calls it before importing abi_compiler.iree)."""
    pytest.importorskip("iree.runtime")
    pytest.importorskip("iree.compiler")


FUNCTIONS = Path(__file__).with_name("functions.mlir")


def mlir_string(text: str) -> str:
    """The contents of an MLIR string literal holding ``text`` (ASCII)."""
    return text.replace("\\", "\\5C").replace('"', "\\22")


# Compiled without a pipeline: functions without reflection (the flat, dynamic
# convention), and hand-written reflections, some of which do not match the function.
FLAT_SOURCE = """
func.func @flat(%a: tensor<?xf32>, %n: i32, %l: !util.list<?>) -> (tensor<?xf32>, i32, !util.list<?>) {
  %b = arith.addf %a, %a : tensor<?xf32>
  func.return %b, %n, %l : tensor<?xf32>, i32, !util.list<?>
}
func.func @nothing() {
  func.return
}
""" + "".join(
    f"""func.func @{name}{signature} attributes {{iree.reflection = {{iree.abi = "{mlir_string(abi)}"}}}} {{
  {body}
}}
"""
    for name, signature, abi, body in [
        (
            "malformed",
            "(%a: i32) -> i32",
            '{"a":["i32"],"v":1}',
            "func.return %a : i32",
        ),
        (
            "i4_array",  # numpy has no dtype for i4: only buffer views go in
            "(%a: tensor<2xi8>) -> tensor<2xi8>",
            '{"a":[["ndarray","i4",1,2]],"r":[["ndarray","i4",1,2]],"v":1}',
            "func.return %a : tensor<2xi8>",
        ),
        (
            "int_for_array",
            "(%a: i32) -> i32",
            '{"a":["i32"],"r":[["ndarray","f32",1,2]],"v":1}',
            "func.return %a : i32",
        ),
        (
            "i32_for_f32",
            "(%a: tensor<2xi32>) -> tensor<2xi32>",
            '{"a":[["ndarray","i32",1,2]],"r":[["ndarray","f32",1,2]],"v":1}',
            "func.return %a : tensor<2xi32>",
        ),
        (
            "too_few_results",
            "(%a: i32) -> i32",
            '{"a":["i32"],"r":["i32","i32"],"v":1}',
            "func.return %a : i32",
        ),
        (
            "short_list",
            "(%l: !util.list<?>, %a: i32) -> (!util.list<?>, i32)",
            '{"a":[["py_homogeneous_list","unknown"],"i32"],'
            '"r":[["stuple","i32","i32"],"i32"],"v":1}',
            "func.return %l, %a : !util.list<?>, i32",
        ),
        (
            "records_for_two",  # the VM function takes one argument
            "(%a: i32) -> i32",
            '{"a":["i32","i32"],"r":["i32"],"v":1}',
            "func.return %a : i32",
        ),
        (
            "i64_for_i32",  # the VM function takes an i32
            "(%a: i32) -> i32",
            '{"a":["i64"],"r":["i32"],"v":1}',
            "func.return %a : i32",
        ),
        (
            "dim_beyond_int64",  # IREE's packer reads dims as int64
            "(%a: tensor<2xf32>) -> tensor<2xf32>",
            '{"a":[["ndarray","f32",1,9223372036854775808]],"r":[["ndarray","f32",1,2]],"v":1}',
            "func.return %a : tensor<2xf32>",
        ),
        (
            "int_for_list",
            "(%a: i32) -> (i32, i32)",
            '{"a":["i32"],"r":[["slist","i32"],"i32"],"v":1}',
            "func.return %a, %a : i32, i32",
        ),
    ]
)


@pytest.fixture(scope="session")
def v1_vmfb() -> bytes:
    from abi_compiler import iree as abi_iree

    return abi_iree.compile_vmfb(FUNCTIONS, "iree-abi-v1")


@pytest.fixture(scope="session")
def legacy_vmfb() -> bytes:
    # @named mixes positional and named arguments: its SIP root drops the names.
    return compile_quietly(FUNCTIONS, "iree-abi-legacy", vmfb=True)


@pytest.fixture(scope="session")
def v1(v1_vmfb: bytes) -> abi_iree.Module:
    from abi_compiler import iree as abi_iree

    return abi_iree.load(v1_vmfb)


@pytest.fixture(scope="session")
def legacy(legacy_vmfb: bytes) -> abi_iree.Module:
    from abi_compiler import iree as abi_iree

    return abi_iree.load(legacy_vmfb)


@pytest.fixture(scope="session", params=["iree-abi-v1", "iree-abi-legacy"])
def lowered(request: pytest.FixtureRequest) -> abi_iree.Module:
    """The module of each pipeline in turn."""
    name = "v1" if request.param == "iree-abi-v1" else "legacy"
    module: abi_iree.Module = request.getfixturevalue(name)
    return module


@pytest.fixture(scope="session")
def flat() -> abi_iree.Module:
    from abi_compiler import iree as abi_iree

    return abi_iree.compile(FLAT_SOURCE, pipeline=None)


class CountingContext:
    """Stands in for a module's VM context: counts invocations, forwards them."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.calls = 0

    def invoke(self, *args: Any) -> None:
        self.calls += 1
        self.context.invoke(*args)
