"""`abi_compiler.frontends.iree_ir.lower_torch`: IREE's torch and ONNX input pipelines run
in a child process (``iree-opt``), so that their failures — a crash included — are a
`CompileError` naming the pipeline, with IREE's located diagnostics.

The torch-dialect modules are what iree-turbine makes of small torch programs (torch is
not needed to run them: IREE's compiler package parses the torch dialect)."""

from __future__ import annotations

import pytest

from tests.calling.conftest import needs_iree

needs_iree()

from iree.compiler import ir  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.frontends import iree_ir  # noqa: E402

# `torch.export` of `lambda a: a * 2` on an int8 tensor, as iree-turbine imports it:
# IREE 3.13's torch lowering reports an error on the multiplication and then crashes
# (SIGSEGV in `arith.muli`'s builder), in iree-compile as in-process.
INT8_TIMES_TWO = """\
func.func @main(%arg0: !torch.vtensor<[3],si8>) -> !torch.vtensor<[3],si8> {
  %int2 = torch.constant.int 2
  %0 = torch.aten.mul.Scalar %arg0, %int2 : !torch.vtensor<[3],si8>, !torch.int -> !torch.vtensor<[3],si8>
  return %0 : !torch.vtensor<[3],si8>
}
"""

# `x & y` on bool tensors: the torch lowering has no pattern for it.
BOOL_AND = """\
func.func @main(%arg0: !torch.vtensor<[3],i1>, %arg1: !torch.vtensor<[3],i1>) -> !torch.vtensor<[3],i1> {
  %0 = torch.aten.__and__.Tensor %arg0, %arg1 : !torch.vtensor<[3],i1>, !torch.vtensor<[3],i1> -> !torch.vtensor<[3],i1>
  return %0 : !torch.vtensor<[3],i1>
}
"""

# What transformers' attention masks make (BertModel, reduced): a 0-d `new_ones` of bool
# and'ed with a comparison. The failure IREE 3.13 reports is the literal's.
BOOL_MASK = """\
func.func @main(%arg0: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3],i1> {
  %int11 = torch.constant.int 11
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %false = torch.constant.bool false
  %shape = torch.prim.ListConstruct  : () -> !torch.list<int>
  %0 = torch.aten.new_ones %arg0, %shape, %int11, %none, %none, %false : !torch.vtensor<[3],si64>, !torch.list<int>, !torch.int, !torch.none, !torch.none, !torch.bool -> !torch.vtensor<[],i1>
  %1 = torch.aten.ge.Scalar %arg0, %int0 : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3],i1>
  %2 = torch.aten.__and__.Tensor %0, %1 : !torch.vtensor<[],i1>, !torch.vtensor<[3],i1> -> !torch.vtensor<[3],i1>
  return %2 : !torch.vtensor<[3],i1>
}
"""

ADD = """\
func.func @main(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %arg0, %int1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
"""


def _parse(text: str) -> object:
    return ir.Module.parse(text, ir.Context())


def test_a_crash_of_the_torch_pipeline_is_a_compile_error_not_the_callers() -> None:
    with pytest.raises(abi_iree.CompileError) as caught:
        iree_ir.lower_torch(_parse(INT8_TIMES_TWO))
    error = caught.value
    assert error.stage == "IREE torch input pipeline"
    lines = error.diagnostics.splitlines()
    # What IREE said before crashing, at its location, then one line for the crash: no
    # stack dump.
    assert lines[0] == (
        "-:3:8: error: unimplemented: for conversion to byte or char type dstOriginalDtype "
        "has to be passed to convertScalarToDtype"
    )
    assert lines[1].startswith("iree-opt: crashed (SIG")
    assert lines[1].endswith(") in the IREE torch input pipeline, a defect of IREE")
    assert len(lines) == 2
    assert str(error).startswith("IREE torch input pipeline failed:\n-:3:8: error: ")


def test_a_failure_of_the_torch_pipeline_names_the_op_and_its_location() -> None:
    with pytest.raises(abi_iree.CompileError) as caught:
        iree_ir.lower_torch(_parse(BOOL_AND))
    assert caught.value.stage == "IREE torch input pipeline"
    first = caught.value.diagnostics.splitlines()[0]
    assert first.startswith(
        "-:2:8: error: failed to legalize operation 'torch.aten.__and__.Tensor'"
    )


def test_the_lowered_module_is_a_new_module_with_builtin_tensors() -> None:
    module = _parse(ADD)
    lowered = iree_ir.lower_torch(module)
    main = iree_ir.find_function(lowered, "main")
    assert str(ir.TypeAttr(main.attributes["function_type"]).value) == (
        "(tensor<3xf32>) -> tensor<3xf32>"
    )
    assert "iree.abi.stub" not in main.attributes  # the mark is gone again
    assert "linalg.generic" in str(lowered)
    # The caller's module is as it was.
    assert "iree.abi.stub" not in str(module) and "torch.aten.add.Tensor" in str(module)


def test_a_known_upstream_defect_gets_a_note() -> None:
    with pytest.raises(abi_iree.CompileError) as caught:
        iree_ir.lower_torch(_parse(BOOL_MASK))
    assert caught.value.diagnostics.splitlines()[0] == (
        "-:7:8: error: failed to legalize operation 'torch.vtensor.literal': %1 = "
        '"torch.vtensor.literal"() <{value = dense<true> : tensor<i1>}> : () -> '
        "!torch.vtensor<[],i1>"
    )
    assert caught.value.diagnostics.splitlines()[-1] == (
        "note: a known upstream defect: torch-mlir cannot lower an i1 tensor literal "
        "(dense<true> : tensor<i1>) combined by `aten.__and__.Tensor`, as transformers' "
        "attention masks make: https://github.com/llvm/torch-mlir/issues/4625"
    )
