"""The bounds checks a compiled module runs itself (`abi_compiler.frontends.index_checks`,
docs/calling.md "What the original call checks"): the checks written into a torch-dialect
module, and ONNX programs whose `Gather` index is out of the table (IREE 3.13's gather
read outside it: wrong numbers, or a crash of the caller) refused with an `AbiError`
naming the op and the argument, the module usable after it. Needs IREE's compiler (and
onnx for the ONNX programs), no framework: CI runs it. The campaign over index forms of
torch, JAX and ONNX programs is tests/hardening/test_index_campaign.py."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from abi_compiler.calling.value_ranges import index_check_failure
from abi_compiler.errors import AbiError
from tests.calling.conftest import needs_iree

TORCH_TEXT = """
func.func @main(%arg0: !torch.vtensor<[2],si64>, %arg1: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %t = torch.vtensor.literal(dense<1.0> : tensor<10x4xf32>) : !torch.vtensor<[10,4],f32>
  %i = torch.aten.rsub.Scalar %arg0, %int3, %int1 : !torch.vtensor<[2],si64>, !torch.int, !torch.int -> !torch.vtensor<[2],si64>
  %0 = torch.aten.index_select %t, %int0, %i : !torch.vtensor<[10,4],f32>, !torch.int, !torch.vtensor<[2],si64> -> !torch.vtensor<[2,4],f32>
  %1 = torch.aten.embedding %arg1, %arg0, %int0, %false, %false : !torch.vtensor<[?,4],f32>, !torch.vtensor<[2],si64>, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[2,4],f32>
  return %0, %1 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>
}
"""


def _checked(text: str, names: list[str] | None = None) -> tuple[int, list[str]]:
    """The checks written into ``text`` (a torch-dialect module): how many, and the
    module's lines after, stripped."""
    needs_iree()
    from iree.compiler import ir

    from abi_compiler.frontends.index_checks import insert_index_checks

    module = ir.Module.parse(text, ir.Context())
    count = insert_index_checks(module, names)
    module.operation.verify()
    return count, [line.strip() for line in str(module).splitlines()]


def _ops(lines: list[str]) -> list[str]:
    """The op name of each line of a function body (``torch.aten.min``)."""
    found = []
    for line in lines:
        words = line.split(" = ", 1)[-1].split()
        if words and words[0].startswith("torch."):
            found.append(words[0])
    return found


def test_checks_merged_before_the_first_indexing_op() -> None:
    count, lines = _checked(TORCH_TEXT, ["ids", "table"])
    assert count == 2
    ops = _ops(lines)
    first = ops.index("torch.aten.index_select")
    # Both indices exist before the first op: one read-back (`item`) for the two checks,
    # the table's dynamic size read with `size.int`.
    assert ops[ops.index("torch.aten.rsub.Scalar") + 1 : first] == [
        "torch.aten.min",
        "torch.aten.max",
        "torch.constant.int",
        "torch.aten.ge.Scalar",
        "torch.constant.int",
        "torch.aten.lt.Scalar",
        "torch.aten.logical_and",
        "torch.aten.min",
        "torch.aten.max",
        "torch.aten.ge.Scalar",
        "torch.aten.size.int",
        "torch.aten.lt.Scalar",
        "torch.aten.logical_and",
        "torch.constant.int",
        "torch.aten.where.Scalar",
        "torch.constant.int",
        "torch.aten.where.Scalar",
        "torch.aten.minimum",
        "torch.aten.item",
        "torch.aten.ne.int",
        "torch.runtime.assert",
        "torch.aten.ne.int",
        "torch.runtime.assert",
    ]
    asserts = [line for line in lines if line.startswith("torch.runtime.assert")]
    assert [line.split(", ", 1)[1] for line in asserts] == [
        '"index out of bounds: aten.index_select got an index outside [0, 10) for dim 0, '
        "computed from argument 'ids'\"",
        '"index out of bounds: aten.embedding got an index outside [0, size) for dim 0, '
        "computed from argument 'ids'\"",
    ]
    assert "%int10 = torch.constant.int 10" in lines


def test_an_index_computed_later_is_checked_there() -> None:
    # The embedding's index is computed by hoisted arithmetic (one read-back for all)
    # unless it comes from an op that indexes (which runs after its own check).
    text = TORCH_TEXT.replace(
        "%1 = torch.aten.embedding %arg1, %arg0,",
        "%j = torch.aten.mul.Scalar %arg0, %int1 : !torch.vtensor<[2],si64>, !torch.int -> "
        "!torch.vtensor<[2],si64>\n  %1 = torch.aten.embedding %arg1, %j,",
    )
    count, lines = _checked(text)
    ops = _ops(lines)
    assert count == 2 and ops.count("torch.aten.item") == 1
    assert ops.index("torch.aten.mul.Scalar") < ops.index("torch.aten.item")
    later = TORCH_TEXT.replace(
        "%1 = torch.aten.embedding %arg1, %arg0,",
        "%k = torch.aten.index_select %arg0, %int0, %i : !torch.vtensor<[2],si64>, !torch.int,"
        " !torch.vtensor<[2],si64> -> !torch.vtensor<[2],si64>\n"
        "  %1 = torch.aten.embedding %arg1, %k,",
    )
    count, lines = _checked(later)
    ops = _ops(lines)
    assert count == 3
    # index_select's two checks at the first; the embedding's after the second.
    assert ops.count("torch.aten.item") == 1 and ops.count("torch.aten.Bool.Tensor") == 1
    selects = [at for at, op in enumerate(ops) if op == "torch.aten.index_select"]
    assert ops.index("torch.aten.item") < selects[0] < selects[1]
    assert selects[1] < ops.index("torch.aten.Bool.Tensor") < ops.index("torch.aten.embedding")
    asserts = [line for line in lines if line.startswith("torch.runtime.assert")]
    assert [line.split('"')[1] for line in asserts] == [
        "index out of bounds: aten.index_select got an index outside [0, 10) for dim 0, "
        "computed from argument 0",
        "index out of bounds: aten.index_select got an index outside [0, 2) for dim 0, "
        "computed from argument 0",
        "index out of bounds: aten.embedding got an index outside [0, size) for dim 0, "
        "computed from argument 0",
    ]


def test_constant_indices_are_not_checked() -> None:
    text = TORCH_TEXT.replace(
        "%i = torch.aten.rsub.Scalar %arg0,", "%i = torch.aten.rsub.Scalar %c,"
    ).replace(
        "%t = torch.vtensor.literal",
        "%c = torch.vtensor.literal(dense<[1, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>\n"
        "  %t = torch.vtensor.literal",
    )
    count, lines = _checked(text)
    assert count == 1  # the embedding's, from the argument
    assert sum(line.startswith("torch.runtime.assert") for line in lines) == 1


def test_index_put_counts_negative_indices_from_the_end() -> None:
    text = """
func.func @main(%arg0: !torch.vtensor<[1],si64>) -> !torch.vtensor<[10,4],f32> {
  %false = torch.constant.bool false
  %t = torch.vtensor.literal(dense<1.0> : tensor<10x4xf32>) : !torch.vtensor<[10,4],f32>
  %v = torch.vtensor.literal(dense<5.0> : tensor<f32>) : !torch.vtensor<[],f32>
  %l = torch.prim.ListConstruct %arg0 : (!torch.vtensor<[1],si64>) -> !torch.list<optional<vtensor>>
  %0 = torch.aten.index_put %t, %l, %v, %false : !torch.vtensor<[10,4],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[],f32>, !torch.bool -> !torch.vtensor<[10,4],f32>
  return %0 : !torch.vtensor<[10,4],f32>
}
"""
    count, lines = _checked(text, ["position"])
    assert count == 1
    assert (
        'torch.runtime.assert %8, "index out of bounds: aten.index_put got an index outside '
        "[-10, 10) for dim 0, computed from argument 'position'\"" in lines
    )
    # The op takes `index + 10` where the index is negative (IREE's lowering wrote nothing
    # for -1, where torch writes the last row).
    put = next(line for line in lines if "torch.aten.index_put" in line)
    assert put.startswith("%13 = torch.aten.index_put %0, %12, %1, %false")
    assert any(line.startswith("%12 = torch.prim.ListConstruct %11 :") for line in lines)
    assert any(line.startswith("%11 = torch.aten.where.self %9, %10, %arg0") for line in lines)


def test_a_failed_check_is_found_in_ireess_error() -> None:
    error = RuntimeError(
        "Error invoking function: <vm>:0: FAILED_PRECONDITION; index out of bounds: "
        "aten.embedding got an index outside [0, 10) for dim 0, computed from argument "
        "'ids'; \n[ 0] bytecode module@2:69 -"
    )
    assert index_check_failure(error) == (
        "index out of bounds: aten.embedding got an index outside [0, 10) for dim 0, "
        "computed from argument 'ids'"
    )
    assert index_check_failure(RuntimeError("<vm>:0: FAILED_PRECONDITION; other")) is None


TABLE = np.arange(40, dtype=np.float32).reshape(10, 4)


def _gather_model() -> Any:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node("Gather", ["table", "i"], ["out"])
    graph = helper.make_graph(
        [node],
        "main",
        [helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(TABLE, "table")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


@pytest.fixture(scope="module", params=["numpy", "device"])
def gather(request: pytest.FixtureRequest) -> Any:
    needs_iree()
    model = _gather_model()
    from abi_compiler import iree as abi_iree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        return abi_iree.compile(model, results=request.param)


def _host(value: Any) -> Any:
    return value.to_host() if hasattr(value, "to_host") else np.asarray(value)


@pytest.mark.parametrize("indices", [[0, 9], [3, -1], [-10, 5]])
def test_onnx_gather_in_range(gather: Any, indices: list[int]) -> None:
    got = _host(gather.main(i=np.array(indices, dtype=np.int64))["out"])
    np.testing.assert_array_equal(got, TABLE[indices])


@pytest.mark.parametrize("indices", [[0, 10], [-11, 0], [100000, 1], [2**40, 0], [-(2**62), 0]])
def test_onnx_gather_out_of_range(gather: Any, indices: list[int]) -> None:
    with pytest.raises(AbiError) as caught:
        gather.main(i=np.array(indices, dtype=np.int64))
    assert str(caught.value) == (
        "@main: index out of bounds: onnx.Gather got an index outside [-10, 10) for dim 0, "
        "computed from argument 'i'"
    )
    # The module, and the process, go on.
    got = _host(gather.main(i=np.array([2, -2], dtype=np.int64))["out"])
    np.testing.assert_array_equal(got, TABLE[[2, -2]])


def test_onnx_gather_device_array_index(gather: Any) -> None:
    """A device array for the index (what `results="device"` passes on) is checked by the
    module itself: no read-back on the caller's side, the same refusal."""
    from iree import runtime as rt

    inside = rt.asdevicearray(gather.device, np.array([1, -1], dtype=np.int64))
    got = _host(gather.main(i=inside)["out"])
    np.testing.assert_array_equal(got, TABLE[[1, -1]])
    outside = rt.asdevicearray(gather.device, np.array([0, 2**40], dtype=np.int64))
    with pytest.raises(AbiError, match=r"^@main: index out of bounds: onnx\.Gather got an index"):
        gather.main(i=outside)
    np.testing.assert_array_equal(_host(gather.main(i=inside)["out"]), TABLE[[1, -1]])


def test_torch_device_results_and_device_index() -> None:
    """A torch program with `results="device"`, its index a device array: the module's own
    check refuses `t[p * 1]` out of the table (no recorded range bounds a product)."""
    needs_iree()
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    from iree import runtime as rt

    from tests.calling.helpers import compile_quietly

    table = torch.arange(40, dtype=torch.float32).reshape(10, 4)

    class Rows(torch.nn.Module):
        def forward(self, p: Any) -> Any:
            return table[p * 1] * 2

    exported = torch.export.export(Rows(), (torch.tensor([2]),))
    module = compile_quietly(exported, results="device")
    outside = rt.asdevicearray(module.device, np.array([100000], dtype=np.int64))
    with pytest.raises(AbiError) as caught:
        module.main(outside)
    assert str(caught.value) == (
        "@main: index out of bounds: aten.index.Tensor got an index outside [-10, 10) for "
        "dim 0, computed from argument 'p'"
    )
    inside = rt.asdevicearray(module.device, np.array([-1], dtype=np.int64))
    np.testing.assert_array_equal(_host(module.main(inside)), TABLE[[-1]] * 2)


JAX_TEXT = """
func.func @main(%t: tensor<10x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<10x4xf32>) {
  %0 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  %1 = "stablehlo.scatter"(%t, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<10x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<10x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<10x4xf32>
}
"""


def test_jax_gathers_clamp_and_scatters_pad() -> None:
    pytest.importorskip("jax")
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir

    from abi_compiler.frontends.jax_bounds import bound_indexing

    with jax_mlir.make_ir_context():
        module = ir.Module.parse(JAX_TEXT)
        assert bound_indexing(module) == 2
        module.operation.verify()
        lines = [line.strip() for line in str(module).splitlines()]
    text = "\n".join(lines)
    # The gather reads rows [0, 9]; the scatter's window of one row goes to row 10 of a
    # padded operand when its index is outside [0, 9], and the result is rows 0..9.
    assert "stablehlo.constant dense<9> : tensor<2x1xi32>" in text
    assert "stablehlo.constant dense<10> : tensor<2x1xi32>" in text
    assert "stablehlo.clamp %c, %arg1, %c_0 : tensor<2x1xi32>" in text
    assert (
        "stablehlo.pad %arg0, %cst, low = [0, 0], high = [1, 0], interior = [0, 0] : "
        "(tensor<10x4xf32>, tensor<f32>) -> tensor<11x4xf32>"
    ) in text
    assert (
        "stablehlo.slice %" in text
        and "[0:10, 0:4] : (tensor<11x4xf32>) -> tensor<10x4xf32>" in text
    )
    gather = next(line for line in lines if "stablehlo.gather" in line)
    assert '"stablehlo.gather"(%arg0, %0)' in gather


SELECT_TEXT = """
func.func @main(%arg0: !torch.vtensor<[],si64>) -> !torch.vtensor<[],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %t = torch.vtensor.literal(dense<1.0> : tensor<4xf32>) : !torch.vtensor<[4],f32>
  %i = torch.aten.rsub.Scalar %arg0, %int3, %int1 : !torch.vtensor<[],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
  %n = torch.aten.item %i : !torch.vtensor<[],si64> -> !torch.int
  %0 = torch.aten.select.int %t, %int0, %n : !torch.vtensor<[4],f32>, !torch.int, !torch.int -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}
"""


def test_a_number_index_is_checked_where_it_is() -> None:
    """`t[3 - pos]` with a 0-d `pos` exports as `aten.item` then `aten.select.int`: the
    number is checked against [-4, 4) before the select (no read-back: it is on the host),
    a constant number is not."""
    count, lines = _checked(SELECT_TEXT, ["pos"])
    assert count == 1
    message = (
        '"index out of bounds: aten.select.int got an index outside [-4, 4) for dim 0, '
        "computed from argument 'pos'\""
    )
    assert _ops(lines)[4:] == [  # (after the constants and the table)
        "torch.aten.rsub.Scalar",
        "torch.aten.item",
        "torch.constant.int",
        "torch.aten.ge.int",
        "torch.runtime.assert",
        "torch.constant.int",
        "torch.aten.lt.int",
        "torch.runtime.assert",
        "torch.aten.select.int",
    ]
    asserts = [line for line in lines if line.startswith("torch.runtime.assert")]
    assert [line.split(", ", 1)[1] for line in asserts] == [message, message]
    constant = SELECT_TEXT.replace(
        "%n = torch.aten.item %i : !torch.vtensor<[],si64> -> !torch.int",
        "%n = torch.constant.int 2",
    )
    assert _checked(constant)[0] == 0


def test_torch_number_index_refused_as_eager_torch_refuses() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    from abi_compiler import iree as abi_iree

    class Pick(torch.nn.Module):
        def forward(self, t: Any, pos: Any) -> Any:
            return t[3 - pos]

    table = torch.arange(4.0) + 10
    module = abi_iree.compile(torch.export.export(Pick(), (table, torch.tensor(1))))
    for pos in (0, 3, 4, 5, 7):  # 3 - pos in [-4, 4): as eager torch reads it
        expected = Pick()(table, torch.tensor(pos))
        assert module.main(table, torch.tensor(pos)).item() == expected.item()
    for pos in (8, -1, 100, -100, 2**40):
        with pytest.raises(IndexError):
            Pick()(table, torch.tensor(pos))
        with pytest.raises(AbiError, match=r"aten\.select\.int got an index outside \[-4, 4\)"):
            module.main(table, torch.tensor(pos))
