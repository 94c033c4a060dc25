"""`abi_compiler.frontends.onnx` and `abi_compiler.iree.compile(model)` on real ONNX
models, compared with ONNX's reference evaluator. Skipped without onnx (the `onnx`
extra)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
pytest.importorskip("onnx")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnx.reference  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import onnx as onnx_frontend  # noqa: E402
from tests.frontends.generate import models  # noqa: E402


def _compile(model: Any) -> abi_iree.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return abi_iree.compile(model)


def _reference(model: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    names = [output.name for output in model.graph.output]
    return dict(zip(names, onnx.reference.ReferenceEvaluator(model).run(None, inputs), strict=True))


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, abi_iree.Module]:
    model = models.onnx_classifier()
    path = tmp_path_factory.mktemp("onnx") / "classifier.onnx"
    onnx.save(model, str(path))
    return model, path, _compile(path)


def test_inputs_by_name_outputs_by_name(classifier: Any) -> None:
    model, _, module = classifier
    assert module.function_names == ["classifier"]
    inputs = models.onnx_inputs()
    result = module.classifier(**inputs)
    expected = _reference(model, inputs)
    assert list(result) == ["logits", "total"]  # the graph's output order
    for name in expected:
        np.testing.assert_allclose(result[name], expected[name], rtol=1e-6)
    # In graph order, the inputs can be given positionally too; the batch is dynamic.
    more = {
        "input_ids": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
        "attention_mask": np.ones((3, 4), np.int64),
    }
    result = module.classifier(more["input_ids"], more["attention_mask"])
    np.testing.assert_allclose(result["logits"], _reference(model, more)["logits"], rtol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"input_ids": np.ones((2, 4), np.float32)}, "argument 'attention_mask': missing value"),
        (
            {
                "input_ids": np.ones((2, 4), np.float32),
                "attention_mask": np.ones((2, 4), np.int64),
                "x": 1,
            },
            "argument 'x': unexpected keyword argument (keywords: 'input_ids', 'attention_mask')",
        ),
        (
            {"input_ids": np.ones((2, 5), np.float32), "attention_mask": np.ones((2, 4), np.int64)},
            "argument 'input_ids': expected float32[?,4], got float32[2,5]",
        ),
    ],
)
def test_calls_that_do_not_fit(classifier: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AbiError) as error:
        classifier[2].classifier(**kwargs)
    assert str(error.value) == message


def test_a_model_proto_and_a_path_give_the_same_mlir(classifier: Any) -> None:
    model, path, _ = classifier
    text = onnx_frontend.to_mlir(model)
    assert text == onnx_frontend.to_mlir(path) == onnx_frontend.to_mlir(str(path))
    assert 'func.func @classifier(%arg0: tensor<?x4xf32> {abi.index_path = ["input_ids"]}' in text


def test_unnamed_graphs_give_main_and_unsigned_outputs_keep_their_dtype() -> None:
    graph = helper.make_graph(
        [helper.make_node("Add", ["pixels", "pixels"], ["doubled"])],
        "",
        [helper.make_tensor_value_info("pixels", TensorProto.UINT8, [3])],
        [helper.make_tensor_value_info("doubled", TensorProto.UINT8, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    module = _compile(model)
    assert module.function_names == ["main"]
    result = module.main(pixels=np.array([1, 100, 200], np.uint8))
    assert result["doubled"].dtype == np.uint8
    assert result["doubled"].tolist() == [2, 200, 144]  # wraps, as uint8 does


def test_integer_inputs_are_checked_by_their_onnx_dtype() -> None:
    # The records say `i8` for a uint8 input: -1 and an int8 array have its bits, and
    # onnxruntime refuses both; the adapter does too.
    graph = helper.make_graph(
        [helper.make_node("Add", ["pixels", "pixels"], ["doubled"])],
        "",
        [helper.make_tensor_value_info("pixels", TensorProto.UINT8, [2])],
        [helper.make_tensor_value_info("doubled", TensorProto.UINT8, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    module = _compile(model)
    assert module.main(pixels=[100, 255])["doubled"].tolist() == [200, 254]
    for value, message in [
        ([-1, 0], "argument 'pixels'[0]: value -1 does not fit in uint8"),
        ([0, 256], "argument 'pixels'[1]: value 256 does not fit in uint8"),
        (
            np.array([-1, 0], np.int8),
            "argument 'pixels': expected an array of uint8, got int8[2] (convert=True converts it)",
        ),
    ]:
        with pytest.raises(AbiError) as error:
            module.main(pixels=value)
        assert str(error.value) == message


def test_inputs_sharing_a_dim_param_have_one_size() -> None:
    # ONNX's same `dim_param` is one size; IREE's code reads both inputs with it (it
    # returned [2, 2, 2] for lengths 3 and 5). The reference evaluator refuses the call.
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"]),
        ],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n"])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    module = _compile(model)
    x = np.arange(4, dtype=np.float32)
    assert module.g(x=x, y=x)["z"].tolist() == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(AbiError) as error:
        module.g(x=np.ones(3, np.float32), y=np.ones(5, np.float32))
    assert str(error.value) == (
        "argument 'y': dimension 0 is 5, but argument 'x' has 3 in dimension 0 for the same "
        "symbol 'n'"
    )
    with pytest.raises(TypeError):
        _reference(model, {"x": np.ones(3, np.float32), "y": np.ones(5, np.float32)})


def _one_node_model(op: str, inputs: list[Any], outputs: list[Any], **attributes: Any) -> Any:
    node = helper.make_node(op, [i.name for i in inputs], [o.name for o in outputs], **attributes)
    node.name = f"the_{op.lower()}"
    graph = helper.make_graph([node], "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_inputs_named_like_python_keywords_or_the_call_paths_parameters() -> None:
    names = ["self", "convert", "abi", "args", "kwargs", "class", "lambda"]
    model = _one_node_model(
        "Sum",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2]) for name in names],
        [helper.make_tensor_value_info("total", TensorProto.FLOAT, [2])],
    )
    module = _compile(model)
    values = {name: np.full(2, position, np.float32) for position, name in enumerate(names)}
    assert module.g(**values)["total"].tolist() == [21.0, 21.0]
    with pytest.raises(AbiError, match=r"^argument 'self': missing"):
        module.g(**{name: value for name, value in values.items() if name != "self"})


def test_a_str_naming_an_onnx_file_is_that_file(classifier: Any, tmp_path: Path) -> None:
    _, path, module = classifier
    from_str = _compile(str(path))
    inputs = models.onnx_inputs()
    expected = module.classifier(**inputs)
    got = from_str.classifier(**inputs)
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])
    missing = str(tmp_path / "missing.onnx")
    with pytest.raises(FileNotFoundError, match=r"missing\.onnx"):
        abi_iree.compile(missing)


def test_a_crash_of_iree_onnx_lowering_is_a_compile_error() -> None:
    # IREE 3.13's ONNX lowering crashes (SIGSEGV) on `Unique`, in iree-compile too: here
    # in iree-opt's child process, not in the caller's.
    model = _one_node_model(
        "Unique",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
    )
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(model)
    assert caught.value.stage == "IREE ONNX input pipeline"
    last = caught.value.diagnostics.splitlines()[-1]
    assert last.startswith("iree-opt: crashed (SIG")
    assert last.endswith(") in the IREE ONNX input pipeline, a defect of IREE")
    assert "Stack dump" not in caught.value.diagnostics


def test_a_failure_of_iree_onnx_lowering_names_the_op_and_the_node() -> None:
    model = _one_node_model(
        "StringNormalizer",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [2])],
        [helper.make_tensor_value_info("y", TensorProto.STRING, [2])],
    )
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(model)
    assert caught.value.stage == "IREE ONNX input pipeline"
    # The op IREE cannot lower, located at the ONNX node by its name.
    assert caught.value.diagnostics.splitlines()[1] == (
        '<unknown>:0: error: loc("the_stringnormalizer"): failed to legalize operation '
        "'torch.operator' that was explicitly marked illegal: %0 = \"torch.operator\"(%arg0) "
        '<{name = "onnx.StringNormalizer"}> : (!torch.vtensor<[2],!torch.str>) -> '
        "!torch.vtensor<[2],!torch.str>"
    )


def test_a_model_onnx_refuses_is_a_compile_error(tmp_path: Path) -> None:
    model = _one_node_model(
        "NoSuchOp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(model)
    assert caught.value.stage == "ONNX import"
    assert caught.value.diagnostics.startswith(
        "No Op registered for NoSuchOp with domain_version of 17\n"
    )
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"\xff" * 16)
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(corrupt)
    assert caught.value.stage == "ONNX import"
