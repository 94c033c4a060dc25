"""`abi-compile`'s errors for the inputs people have (docs/abi-compile.md#inputs): a
compiled module given as a model, and `--import MODULE` that cannot be imported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abi_compiler.commands.compile_main import main
from tests.calling.conftest import needs_iree

ROOT = Path(__file__).resolve().parents[2]
V1 = ROOT / "examples" / "jax_predict_v1.mlir"


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 1
    return capsys.readouterr().err


def test_a_vmfb_is_named_as_a_compiled_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_iree()
    vmfb = tmp_path / "model.vmfb"
    assert main([os.fspath(V1), "-o", os.fspath(vmfb)]) == 0
    assert vmfb.read_bytes().startswith(b"PK\x03\x04")  # iree-compile's ZIP wrapper
    capsys.readouterr()
    out = tmp_path / "out.vmfb"
    assert _error([os.fspath(vmfb), "-o", os.fspath(out)], capsys) == (
        f"abi-compile: error: '{vmfb}' is a compiled module, not a model: load it with "
        "abi_compiler.iree.load, or list its functions with abi-sig show\n"
    )
    assert not out.exists()


def test_a_bare_vmfb_flatbuffer_is_named_as_a_compiled_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vmfb = tmp_path / "model.bin"
    vmfb.write_bytes(b"\x20\x00\x00\x00IREE" + bytes(56))  # IREE's file identifier
    err = _error([os.fspath(vmfb), "-o", os.fspath(tmp_path / "out.vmfb")], capsys)
    assert err.startswith(f"abi-compile: error: '{vmfb}' is a compiled module, not a model: ")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (None, "--import abi_test_missing_module: No module named 'abi_test_missing_module'"),
        ("raise ValueError('bad')\n", "--import abi_test_missing_module: ValueError: bad"),
        ("raise SystemExit(3)\n", "--import abi_test_missing_module: SystemExit: 3"),
    ],
)
def test_an_import_that_fails_is_one_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    source: str | None,
    message: str,
) -> None:
    if source is not None:
        (tmp_path / "abi_test_missing_module.py").write_text(source)
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    out = tmp_path / "out.mlir"
    args = [
        os.fspath(V1),
        "--import",
        "abi_test_missing_module",
        "--emit-mlir",
        "-o",
        os.fspath(out),
    ]
    assert _error(args, capsys) == f"abi-compile: error: {message}\n"
    assert not out.exists()


def test_import_runs_the_module_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "abi_test_user_module.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    out = tmp_path / "out.mlir"
    args = [os.fspath(V1), "--import", "abi_test_user_module", "--emit-mlir", "-o", os.fspath(out)]
    assert main(args) == 0
    assert capsys.readouterr().err == ""
    assert marker.exists() and out.exists()


def _onnx_with_external_data(folder: Path, location: str) -> Path:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.ones(2, np.float32), "w")
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    for key, value in {"location": location, "offset": "0", "length": "8"}.items():
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [weight],
    )
    model = folder / "model.onnx"
    model.write_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    )
    return model


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("../secret.bin", "'../secret.bin' points outside the directory"),
        ("{secret}", "should be a relative path, but it is an absolute path"),
        ("link.bin", "but it is a symbolic link"),
    ],
)
def test_onnx_external_data_outside_the_model_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], location: str, message: str
) -> None:
    """onnx's own checks, kept: a model's external data is read only from its folder."""
    needs_iree()
    pytest.importorskip("onnx")
    secret = tmp_path / "secret.bin"
    secret.write_bytes(bytes(8))
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "link.bin").symlink_to(secret)
    model = _onnx_with_external_data(folder, location.format(secret=secret))
    out = tmp_path / "out.mlir"
    err = _error([os.fspath(model), "--emit-mlir", "-o", os.fspath(out)], capsys)
    assert err.startswith(f"abi-compile: error: '{model}': ONNX import failed: ") and message in err
    assert not out.exists()


def test_help_says_what_is_read_and_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for said in [
        "A model file is data: nothing in it is run.",
        "A .pt2's sample inputs are never read",
        "torch.load(weights_only=True)",
        "pickled objects, TorchScript objects, modules its tree specs name and size "
        "expressions that are not arithmetic are refused",
        "A SavedModel whose restore or init ops would act outside the model",
        "ONNX external data is read only from the model's folder",
        "--import MODULE",
        "never one of the inputs",
    ]:
        assert said in text, said
