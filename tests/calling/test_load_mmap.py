"""`load(path, mmap=True)` (docs/calling.md): the `.vmfb` mapped instead of read — the
same calls and results, `save` from the mapping, and the same errors for a file that is
not a module (the child that tries a load first maps the file itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree  # noqa: E402
from abi_compiler.calling.modules import save_parameters  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from tests.calling.helpers import PARAMETER_TEXT  # noqa: E402

TEXT = """
util.global private @scale = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = util.global.load @scale : tensor<4xf32>
  %y = arith.mulf %x, %s : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = tmp_path_factory.mktemp("mmap") / "model.vmfb"
    found.write_bytes(iree.compile_vmfb(TEXT))
    return found


def test_a_mapped_module_calls_as_a_read_one(path: Path, tmp_path: Path) -> None:
    mapped = iree.load(path, mmap=True)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(mapped.main(x), iree.load(path).main(x))
    np.testing.assert_array_equal(mapped.main(x), [0, 2, 6, 12])
    mapped.save(tmp_path / "copy.vmfb")  # (written from the mapping)
    assert (tmp_path / "copy.vmfb").read_bytes() == path.read_bytes()


def test_a_mapped_module_with_its_archive_beside_it(tmp_path: Path) -> None:
    (tmp_path / "p.vmfb").write_bytes(iree.compile_vmfb(PARAMETER_TEXT, archive_name="p.irpa"))
    save_parameters({"w": np.arange(4, dtype=np.float32)}, tmp_path / "p.irpa")
    mapped = iree.load(tmp_path / "p.vmfb", mmap=True)
    assert mapped.parameters is not None  # (the archive named by the module, mapped)
    np.testing.assert_array_equal(mapped.main(np.ones(4, np.float32)), [1, 2, 3, 4])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "cannot load the compiled module: "),
        (b"func.func @f() { return }", "cannot load the compiled module: the file is MLIR text"),
        (b"\x00" * 64 + b"IREE" * 16, "cannot load the compiled module: "),
    ],
)
def test_a_file_that_is_not_a_module(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "bad.vmfb"
    path.write_bytes(data)
    with pytest.raises(AbiError) as read:
        iree.load(path)
    with pytest.raises(AbiError) as mapped:
        iree.load(path, mmap=True)
    assert str(mapped.value) == str(read.value)
    assert str(mapped.value).startswith(message)
