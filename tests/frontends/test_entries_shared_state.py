"""Entries that share their state (`link(…, shared_state=True)`,
`compile_vmfb(mapping, shared_state=True)`): a mutable global of one name and text is one
global that both functions read and write (a language model's prompt and step functions
on one KV cache); the same name otherwise defined is an error; without the option each
entry keeps its own."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from abi_compiler.errors import AbiError
from abi_compiler.frontends.entries import Entry, link

WRITE = """
util.global private mutable @cache = dense<0> : tensor<4xi32>
func.func @write(%x: tensor<4xi32>) -> tensor<4xi32> {
  util.global.store %x, @cache : tensor<4xi32>
  return %x : tensor<4xi32>
}
"""

READ = """
util.global private mutable @cache = dense<0> : tensor<4xi32>
util.global private @weights = dense<1> : tensor<4xi32>
func.func @read() -> tensor<4xi32> {
  %c = util.global.load @cache : tensor<4xi32>
  %w = util.global.load @weights : tensor<4xi32>
  %r = arith.addi %c, %w : tensor<4xi32>
  return %r : tensor<4xi32>
}
"""


def test_a_mutable_global_of_one_name_is_one() -> None:
    text = link([Entry("write", WRITE), Entry("read", READ)], shared_state=True)
    assert text.count("util.global private mutable @cache") == 1
    assert "@read_cache" not in text and "util.global.load @cache" in text
    apart = link([Entry("write", WRITE), Entry("read", READ)])
    assert "util.global private mutable @read_cache" in apart


def test_a_shared_name_otherwise_defined_is_an_error() -> None:
    other = READ.replace("dense<0> : tensor<4xi32>", "dense<3> : tensor<4xi32>", 1)
    with pytest.raises(AbiError) as error:
        link([Entry("write", WRITE), Entry("read", other)], shared_state=True)
    assert str(error.value) == (
        "<source>: entry 'read' defines the shared global @cache otherwise than an earlier "
        "entry: util.global private mutable @cache = dense<3> : tensor<4xi32> vs. "
        "util.global private mutable @cache = dense<0> : tensor<4xi32>"
    )


def test_compiled_the_functions_use_one_global() -> None:
    from tests.calling.helpers import compile_quietly

    module = compile_quietly({"write": WRITE, "read": READ}, shared_state=True)
    module.write(np.array([1, 2, 3, 4], dtype=np.int32))
    assert module.read().tolist() == [2, 3, 4, 5]
    apart = compile_quietly({"write": WRITE, "read": READ})
    apart.write(np.array([1, 2, 3, 4], dtype=np.int32))
    assert apart.read().tolist() == [1, 1, 1, 1]


def test_abi_compile_shared_state(tmp_path: Any) -> None:
    """`abi-compile write=… read=… --shared-state`: the inputs' cache is one global (as
    `compile_vmfb(…, shared_state=True)`); without the flag, each keeps its own."""
    from abi_compiler import iree as abi_iree
    from abi_compiler.commands.compile_main import main
    from tests.calling.conftest import needs_iree

    needs_iree()
    (tmp_path / "write.mlir").write_text(WRITE)
    (tmp_path / "read.mlir").write_text(READ)
    inputs = [f"write={tmp_path / 'write.mlir'}", f"read={tmp_path / 'read.mlir'}"]
    for flags, expected in (([], [1, 1, 1, 1]), (["--shared-state"], [2, 3, 4, 5])):
        out = tmp_path / f"model{len(flags)}.vmfb"
        assert main([*inputs, "-o", str(out), "-q", *flags]) == 0
        module = abi_iree.load(out)
        module.write(np.array([1, 2, 3, 4], dtype=np.int32))
        assert module.read().tolist() == expected
