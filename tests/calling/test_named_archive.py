"""A module that names its parameter archive (`abi.parameters`, written by `abi-compile
--parameters`): `load(path)` looks for that file name beside the module, and refuses a
name that is not a plain file name (a module is data: it never points elsewhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402

TEXT = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {{iree.reflection = {{abi.parameters = {name}}}}} {{
  func.return %x : tensor<4xf32>
}}
"""


@pytest.mark.parametrize("name", ['"../w.irpa"', '"/tmp/w.irpa"', '"sub/w.irpa"', '".."', '""'])
def test_a_name_that_is_not_a_file_name_is_refused(name: str, tmp_path: Path) -> None:
    vmfb = compile_quietly(TEXT.format(name=name), vmfb=True)
    (tmp_path / "m.vmfb").write_bytes(vmfb)
    with pytest.raises(AbiError) as caught:
        abi_iree.load(tmp_path / "m.vmfb")
    assert str(caught.value) == (
        f"function @f: malformed reflection 'abi.parameters': {name[1:-1]!r} is not a file name"
    )


def test_a_module_that_reads_no_parameters_ignores_its_name(tmp_path: Path) -> None:
    (tmp_path / "m.vmfb").write_bytes(compile_quietly(TEXT.format(name='"w.irpa"'), vmfb=True))
    module = abi_iree.load(tmp_path / "m.vmfb")
    assert module.parameters is None
    assert module.f([1.0, 2.0, 3.0, 4.0]).tolist() == [1.0, 2.0, 3.0, 4.0]
