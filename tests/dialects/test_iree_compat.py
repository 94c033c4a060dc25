"""The util and hal ops print exactly as IREE 3.13 prints them, and IREE parses what we
print. Needs `iree-opt` (the optional `iree-base-compiler`); skipped without it."""

from __future__ import annotations

import re
import shutil
import subprocess
from io import StringIO

import pytest
from xdsl.printer import Printer

from tests.dialects.helpers import parse

IREE_OPT = shutil.which("iree-opt")

pytestmark = pytest.mark.skipif(IREE_OPT is None, reason="iree-opt is not installed")

MODULE = """
func.func @f(%l: !util.list<?>, %m: !util.list<i32>, %i: index, %x: i32,
             %bv: !hal.buffer_view, %t: tensor<?x4xf32>, %s: tensor<4xf32>) {
  %c = util.list.create : !util.list<?>
  %cc = util.list.create %i {tag} : !util.list<i32>
  %n = util.list.size %l : !util.list<?>
  util.list.resize %l, %n : !util.list<?>
  %a = util.list.get %m[%i] : !util.list<i32>
  %b = util.list.get %m[%i] : !util.list<i32> -> i32
  %v = util.list.get %l[%i] {tag} : !util.list<?> -> i32
  %vb = util.list.get %l[%i] : !util.list<?> -> !hal.buffer_view
  util.list.set %m[%i], %x : !util.list<i32>
  util.list.set %m[%i], %x : i32 -> !util.list<i32>
  util.list.set %l[%i], %x {tag} : i32 -> !util.list<?>
  util.list.set %l[%i], %bv : !hal.buffer_view -> !util.list<?>
  %d0 = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index
  %d1 = hal.buffer_view.dim<%bv : !hal.buffer_view>[1] : index attributes {tag}
  %i0 = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32>
  %i1 = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%d0}
  %i2 = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x?xi8>{%d0, %d1}
  %e0 = hal.tensor.export %s : tensor<4xf32> -> !hal.buffer_view
  %e1 = hal.tensor.export %t : tensor<?x4xf32>{%d0} -> !hal.buffer_view {tag}
  func.return
}
"""


def op_lines(text: str) -> list[str]:
    """The util/hal op lines, with SSA names normalized (IREE renames values)."""
    return [
        re.sub(r"%[\w]+", "%_", line.strip())
        for line in text.splitlines()
        if re.search(r"\b(util|hal)\.[a-z_.]+[ <]", line) and "func.func" not in line
    ]


def test_iree_prints_our_ops_as_we_do() -> None:
    stream = StringIO()
    Printer(stream=stream).print_op(parse(MODULE))
    ours = stream.getvalue()
    assert IREE_OPT is not None
    result = subprocess.run([IREE_OPT], input=ours, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert op_lines(ours) == op_lines(result.stdout)
    assert len(op_lines(ours)) == 19


UTIL_MODULE = """
func.func @f(%l: !util.list<?>, %m: !util.list<i32>, %i: index, %x: i32) -> i32 {
  %c = util.list.create %i : !util.list<?>
  %n = util.list.size %l : !util.list<?>
  util.list.resize %c, %n : !util.list<?>
  %a = util.list.get %m[%i] : !util.list<i32>
  %v = util.list.get %l[%i] : !util.list<?> -> i32
  util.list.set %m[%i], %a : !util.list<i32>
  util.list.set %l[%i], %v : i32 -> !util.list<?>
  func.return %a : i32
}
"""


def test_iree_parses_our_generic_util_ops() -> None:
    """The util ops' generic form is IREE's too (the hal ops' is not, see dialects/hal.py)."""
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(parse(UTIL_MODULE))
    assert IREE_OPT is not None
    result = subprocess.run([IREE_OPT], input=stream.getvalue(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert len(op_lines(result.stdout)) == 7
