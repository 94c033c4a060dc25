"""`abi-compile` (docs/abi-compile.md): one test per input kind — MLIR text, MLIR
bytecode and ONNX here (IREE and onnx are in the test extra), a serialized JAX export, a
`torch.export.save` program and a SavedModel when the framework is installed (they skip
otherwise; their inputs are made by the framework in the test, since only the framework
can read them) — each giving a `.vmfb` that `abi_compiler.iree.load` calls; `NAME=INPUT`
and several inputs in one module; the diagnostics and exit status."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abi_compiler.commands.compile_main import detect, main
from tests.calling.conftest import needs_iree

ROOT = Path(__file__).resolve().parents[2]
V1 = ROOT / "examples" / "jax_predict_v1.mlir"
V2 = ROOT / "examples" / "jax_predict_v2.mlir"
CLASSIFIER = ROOT / "examples" / "classifier.onnx"
PARAMS = {"dense": {"bias": np.ones(3, np.float32), "kernel": np.ones((4, 3), np.float32)}}
X = np.arange(32, dtype=np.float32).reshape(8, 4)


def _run(args: list[str | os.PathLike[str]], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main([os.fspath(arg) for arg in args])
    return status, capsys.readouterr().err


def _load(path: Path) -> Any:
    from abi_compiler import iree as abi_iree

    return abi_iree.load(path)


# -- the input kinds --------------------------------------------------------------------


def test_mlir_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_iree()
    out = tmp_path / "predict.vmfb"
    assert _run([V1, "-o", out], capsys) == (0, "")
    module = _load(out)
    np.testing.assert_allclose(module.main(PARAMS, X), X @ PARAMS["dense"]["kernel"] + 1)


def test_mlir_bytecode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_iree()
    from iree.compiler import ir

    bytecode = tmp_path / "predict.mlirbc"
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(V1.read_text())
        with open(bytecode, "wb") as stream:
            module.operation.write_bytecode(stream)
    assert detect(os.fspath(bytecode)) == "mlir"
    out = tmp_path / "predict.vmfb"
    assert _run([bytecode, "-o", out], capsys) == (0, "")
    called = _load(out).main(PARAMS, X)
    np.testing.assert_allclose(called, X @ PARAMS["dense"]["kernel"] + 1)


@pytest.mark.parametrize("name", ["classifier.onnx", "model.bin"])
def test_onnx(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    needs_iree()
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    model = tmp_path / name  # by its extension, or by its content
    model.write_bytes(CLASSIFIER.read_bytes())
    assert detect(os.fspath(model)) == "onnx"
    out = tmp_path / "classifier.vmfb"
    assert _run([model, "-o", out], capsys) == (0, "")
    features = np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4)
    result = _load(out).classify(features=features)
    logits, probabilities = ReferenceEvaluator(str(CLASSIFIER)).run(None, {"features": features})
    assert list(result) == ["logits", "probabilities"]
    np.testing.assert_allclose(result["logits"], logits, rtol=1e-6)
    np.testing.assert_allclose(result["probabilities"], probabilities, rtol=1e-6)


def test_serialized_jax_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_iree()
    jax = pytest.importorskip("jax")
    from jax import export

    def predict(params: dict[str, Any], x: Any) -> dict[str, Any]:
        return {"y": x @ params["w"] + params["b"], "total": x.sum()}

    params = {"w": np.ones((4, 3), np.float32), "b": np.arange(3, dtype=np.float32)}
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    exported = export.export(jax.jit(predict))(params, x)
    serialized = tmp_path / "predict.export"  # any name: read by its content
    serialized.write_bytes(exported.serialize())
    assert detect(os.fspath(serialized)) == "jax"
    out = tmp_path / "predict.vmfb"
    status, err = _run([serialized, "-o", out], capsys)
    assert status == 0, err
    result = _load(out).main(params, x)
    expected = exported.call(params, x)
    assert sorted(result) == ["total", "y"]
    for key in result:
        np.testing.assert_allclose(result[key], np.asarray(expected[key]), rtol=1e-6)


def test_torch_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_iree()
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")

    class Scaled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x: Any, *, scale: Any) -> dict[str, Any]:
            return {"out": self.linear(x) * scale}

    torch.manual_seed(0)
    model = Scaled()
    x, scale = torch.ones(2, 4), torch.tensor(2.0)
    saved = tmp_path / "scaled.pt2"
    torch.export.save(torch.export.export(model, (x,), {"scale": scale}), saved)
    assert detect(os.fspath(saved)) == "torch"
    out = tmp_path / "scaled.vmfb"
    status, err = _run([saved, "-o", out], capsys)
    assert status == 0, err
    result = _load(out).main(x.numpy(), scale=scale.numpy())
    with torch.no_grad():
        expected = model(x, scale=scale)["out"].numpy()
    np.testing.assert_allclose(np.asarray(result["out"]), expected, rtol=1e-6)


def test_torch_program_big_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A weight the frontend would leave out as a named parameter (`EXTERNAL_BYTES` or
    more) is compiled into the `.vmfb`: `load` needs nothing beside the file."""
    needs_iree()
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    from abi_compiler.frontends.torch import EXTERNAL_BYTES

    torch.manual_seed(0)
    model = torch.nn.Linear(128, 128)
    assert model.weight.numel() * model.weight.element_size() >= EXTERNAL_BYTES
    x = torch.ones(2, 128)
    saved = tmp_path / "big.pt2"
    torch.export.save(torch.export.export(model, (x,)), saved)
    out = tmp_path / "big.vmfb"
    status, err = _run([saved, "-o", out], capsys)
    assert status == 0, err
    with torch.no_grad():
        expected = model(x).numpy()
    result = np.asarray(_load(out).main(x.numpy()))
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)  # sums of 128 products


def _compile_in_a_process(
    args: list[str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process (a framework's logger writes to the stderr it found)."""
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.compile_main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_torch_logs_nothing_on_stderr(tmp_path: Path) -> None:
    """torch.export.load logs a warning for a name that does not end in .pt2 and the
    traceback of a bad archive: neither reaches stderr, the error is one line with what
    torch logged."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")

    class Twice(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x * 2

    torch.export.save(torch.export.export(Twice(), (torch.ones(2),)), tmp_path / "program.bin")
    done = _compile_in_a_process(["program.bin", "--emit-mlir", "-o", "out.mlir"], tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    with zipfile.ZipFile(tmp_path / "other.pt2", "w") as archive:
        archive.writestr("a.txt", "not a torch program")
    done = _compile_in_a_process(["other.pt2", "--emit-mlir", "-o", "bad.mlir"], tmp_path)
    assert (done.returncode, done.stderr) == (
        1,
        "abi-compile: error: 'other.pt2': cannot load the torch program: [enforce fail at "
        "inline_container.cc:180] . file in archive is not in a subdirectory: a.txt\n",
    )
    assert not (tmp_path / "bad.mlir").exists()


def test_saved_model_signatures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_iree()
    tf = pytest.importorskip("tensorflow")
    from tests.frontends.generate import models

    directory = tmp_path / "scorer"
    models.tf_two_signatures(directory)
    assert detect(os.fspath(directory)) == "tf"
    out = tmp_path / "scorer.vmfb"
    args = [directory, "--signature", "serving_default", "--signature", "score", "-o", out]
    status, err = _run(args, capsys)
    assert status == 0, err
    module = _load(out)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    y = np.ones((2, 3), np.float32)
    loaded = tf.saved_model.load(str(directory))
    for name, inputs in [("serving_default", {"x": x}), ("score", {"x": x, "y": y})]:
        got = module[name](**inputs)
        expected = loaded.signatures[name](**{k: tf.constant(v) for k, v in inputs.items()})
        assert sorted(got) == sorted(expected)
        for key, value in expected.items():
            np.testing.assert_allclose(got[key], value.numpy(), rtol=1e-6)


# -- several inputs, names, --emit-mlir ----------------------------------------------------


def test_named_inputs_make_one_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_iree()
    out = tmp_path / "both.vmfb"
    assert _run([f"old={V1}", f"new={V2}", CLASSIFIER, "-o", out], capsys) == (0, "")
    module = _load(out)
    assert module.function_names == ["old", "new", "classify"]
    np.testing.assert_allclose(module.old(PARAMS, X), X @ PARAMS["dense"]["kernel"] + 1)
    params = {"dense": {"bias": np.zeros(5, np.float32), "kernel": np.ones((4, 5), np.float32)}}
    np.testing.assert_allclose(module.new(params, X[:3]), X[:3] @ params["dense"]["kernel"])
    assert sorted(module.classify(features=X)) == ["logits", "probabilities"]


def test_emit_mlir_writes_the_lowered_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"predict={V1}", "--emit-mlir"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(
        "module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
        "  func.func @predict(%params: !util.list<?>, %x: tensor<8x4xf32>) -> tensor<8x3xf32>"
        " attributes {iree.abi.stub, iree.reflection = {iree.abi = "
    )
    assert "func.call @_main(" in text


# -- diagnostics -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.mlir", "-o", "{out}"], "could not open input file 'missing.mlir': "),
        ([str(V1)], "the output file is missing: -o OUT.vmfb"),
        ([str(V1), "--signature", "x", "-o", "{out}"], "--signature applies to a SavedModel"),
        ([f"a={V1}", f"a={V2}", "-o", "{out}"], "entry names repeat: a"),
        ([str(V1), str(V1), "-o", "{out}"], "entry names repeat: main"),
        ([f"={V1}", "-o", "{out}"], "the function's name before '=' is empty"),
        (["{tmp}", "-o", "{out}"], "is a directory without saved_model.pb"),
        ([str(V1), "-o", "{out}", "--target", "host"], "unknown target 'host' (a CPU is named"),
        ([str(V1), "-o", "{out}", "--target", "vmvx", "--target", "vmvx"], "one module holds"),
        ([str(V1), "-o", "{out}", "--target", "cpu:nosuch"], "LLVM does not know the CPU 'nos"),
        ([str(V1), "-o", "{out}", "--target", "cuda:sm_1"], "knows no cuda architecture 'sm_1'"),
        (["{empty}", "-o", "{out}"], "is empty"),
    ],
)
def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (tmp_path / "empty").write_bytes(b"")
    out = tmp_path / "out.vmfb"
    names = {"out": out, "tmp": tmp_path, "empty": tmp_path / "empty"}
    status, err = _run([arg.format(**names) for arg in args], capsys)
    assert status == 1
    assert err.startswith("abi-compile: error: ") and message in err, err
    assert err.count("\n") == 1
    assert not out.exists()


def test_a_frontend_error_is_one_diagnostic_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A frontend's `CompileError` spans lines ("ONNX import failed:" and the importer's
    message, which may have lines of its own): one line when its message is one, else a
    note per line of it; never a line without the `abi-compile:` prefix."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(CLASSIFIER.read_bytes()[:100])
    unknown_op = tmp_path / "unknown_op.onnx"
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("NoSuchOp", ["x"], ["y"])],
        "g",
        [value("x", TensorProto.FLOAT, [2])],
        [value("y", TensorProto.FLOAT, [2])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), unknown_op)
    out = tmp_path / "out.mlir"
    assert _run([truncated, "--emit-mlir", "-o", out], capsys) == (
        1,
        f"abi-compile: error: '{truncated}': ONNX import failed: Error parsing message with "
        "type 'onnx.ModelProto': Wire format was corrupt\n",
    )
    assert _run([unknown_op, "--emit-mlir", "-o", out], capsys) == (
        1,
        f"abi-compile: error: '{unknown_op}': ONNX import failed\n"
        "abi-compile: note: No Op registered for NoSuchOp with domain_version of 17\n"
        "abi-compile: note: ==> Context: Bad node spec for node. Name:  OpType: NoSuchOp\n",
    )
    assert not out.exists()


def test_a_pipe_is_read_once(tmp_path: Path) -> None:
    """An input that can be read only once (`<(…)`, a FIFO, here /dev/stdin given a
    pipe): its bytes are copied once and read from the copy (its kind was told from bytes
    that were then gone: 'is empty'); diagnostics name it as given."""
    text = V1.read_text()
    done = _compile_in_a_process(["/dev/stdin", "--emit-mlir", "-o", "piped.mlir"], tmp_path, text)
    assert (done.returncode, done.stderr) == (0, "")
    assert main([str(V1), "--emit-mlir", "-o", str(tmp_path / "file.mlir")]) == 0
    assert (tmp_path / "piped.mlir").read_text() == (tmp_path / "file.mlir").read_text()
    done = _compile_in_a_process(
        ["/dev/stdin", "--emit-mlir", "-o", "bad.mlir"], tmp_path, "func.func @f("
    )
    assert (done.returncode, done.stderr) == (
        1,
        "/dev/stdin:1:14: error: Expected argument or type\n",
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file.mlir", "piped.mlir"]


def test_text_with_a_byte_that_is_not_utf8_is_mlir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A text file (no NUL byte) with a stray Latin-1 byte is MLIR, whose reader locates
    the byte (it was read as a serialized JAX export and refused as 'not MLIR, …')."""
    latin1 = tmp_path / "model.mlir"
    latin1.write_bytes(b"func.func @f() {\n  return\n}\n// caf\xe9\n")
    assert detect(os.fspath(latin1)) == "mlir"
    assert _run([latin1, "--emit-mlir", "-o", tmp_path / "out.mlir"], capsys) == (
        1,
        f"{latin1}:4:7: error: input is not valid UTF-8 (byte 0xe9)\n",
    )


def test_a_located_error_writes_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        "func.func @f(%x: i32) -> i32 {\n  return %x : i32\n}\nfunc.func @g(%x: tensor<?xfoo>)\n"
    )
    out = tmp_path / "out.vmfb"
    out.write_bytes(b"old")
    status, err = _run([bad, "-o", out], capsys)
    assert status == 1
    assert err == f"{bad}:4:27: error: Expected shape type.\n"
    assert out.read_bytes() == b"old"


@pytest.mark.parametrize(
    ("kind", "modules", "message"),
    [
        ("jax", ["jax", "abi_compiler.frontends.jax"], "pip install 'abi-compiler[jax]'"),
        ("torch", ["torch", "abi_compiler.frontends.torch"], "pip install 'abi-compiler[torch]'"),
        ("onnx", ["onnx", "abi_compiler.frontends.onnx"], "pip install 'abi-compiler[onnx]'"),
    ],
)
def test_a_missing_framework_names_the_extra(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    modules: list[str],
    message: str,
) -> None:
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)
    path = tmp_path / "input"
    if kind == "jax":
        path.write_bytes(b"\x3c\x00\x00\x00\x38\x00\x60\x00\xff\xfe")
    elif kind == "torch":
        path.write_bytes(b"PK\x03\x04 a zip archive")
    else:
        path.write_bytes(CLASSIFIER.read_bytes())
    assert detect(os.fspath(path)) == kind
    status, err = _run([path, "-o", tmp_path / "out.vmfb"], capsys)
    assert status == 1
    assert err.startswith("abi-compile: error: ") and err.endswith(message + "\n"), err
    assert err.count("\n") == 1


def test_a_missing_module_jax_reads_exports_with_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """jax reads a serialized export with `flatbuffers`, which it does not install: without
    it, the message names the module and the extra (which installs it), not 'not MLIR,
    … (ImportError when read as one)'."""
    jax = pytest.importorskip("jax")
    from jax import export

    serialized = tmp_path / "model.jax"
    serialized.write_bytes(export.export(jax.jit(lambda x: x + 1))(np.zeros(2)).serialize())
    monkeypatch.setitem(sys.modules, "flatbuffers", None)
    monkeypatch.delitem(sys.modules, "jax._src.export.serialization", raising=False)
    status, err = _run([serialized, "-o", tmp_path / "out.vmfb"], capsys)
    assert (status, err) == (
        1,
        f"abi-compile: error: '{serialized}' is not MLIR, an ONNX model, a SavedModel or a "
        "torch program; reading it as a serialized JAX export needs JAX (no module named "
        "'flatbuffers'): pip install 'abi-compiler[jax]'\n",
    )
    assert not (tmp_path / "out.vmfb").exists()


def test_the_command_exits_1_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(\n")
    process = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.compile_main", str(bad), "-o", "x.vmfb"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert process.returncode == 1
    assert process.stderr.startswith(f"{bad}:2:1: error: "), process.stderr
    assert "Traceback" not in process.stderr
    assert not (tmp_path / "x.vmfb").exists()


def test_help_names_the_input_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: abi-compile [-h] [-o OUTPUT_FILE] [--signature NAME]")
    assert "SPEC" not in text and "§" not in text
    for kind in ["ONNX", "SavedModel", "Exported.serialize()", "torch.export.save", "bytecode"]:
        assert kind in text


def test_warnings_are_printed_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warnings.simplefilter("default")
    source = tmp_path / "w.mlir"
    source.write_text(
        'func.func @main(%x: tensor<4xf32> {jax.arg_info = "x"}) -> '
        '(tensor<4xf32> {jax.result_info = "[0]"}, tensor<4xf32> {jax.result_info = "[2]"}) {\n'
        "  return %x, %x : tensor<4xf32>, tensor<4xf32>\n}\n"
    )
    status, err = _run([source, "--emit-mlir", "-o", tmp_path / "w.out"], capsys)
    assert status == 0
    assert err.startswith(f"{source}:1:") and ": warning: " in err, err
    assert err.count(": warning: ") == 1


def test_an_iree_compile_error_is_printed_and_writes_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The body is carried by the pipeline: iree-compile is the first to read it.
    needs_iree()
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%x: i32) -> i32 {\n  return %y : i32\n}\n")
    out = tmp_path / "out.vmfb"
    status, err = _run([bad, "-o", out], capsys)
    assert status == 1
    assert err.startswith("<stdin>:3:12: error: use of undeclared SSA value name"), err
    assert not out.exists()


def test_the_example_model_is_what_its_script_writes() -> None:
    pytest.importorskip("onnx")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from make_classifier_onnx import classifier
    finally:
        sys.path.remove(str(ROOT / "examples"))
    assert classifier().SerializeToString() == CLASSIFIER.read_bytes()


def test_a_jax_export_and_a_saved_model_signature_in_one_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_iree()
    jax = pytest.importorskip("jax")
    tf = pytest.importorskip("tensorflow")
    from jax import export

    from tests.frontends.generate import models

    directory = tmp_path / "scorer"
    models.tf_two_signatures(directory)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    exported = export.export(jax.jit(lambda v: {"twice": v * 2}))(x)
    serialized = tmp_path / "twice.bin"
    serialized.write_bytes(exported.serialize())
    out = tmp_path / "both.vmfb"
    args = [f"double={serialized}", f"loss={directory}", "--signature", "score", "-o", out]
    status, err = _run(args, capsys)
    assert status == 0, err
    module = _load(out)
    assert module.function_names == ["double", "session_initializer", "loss"]
    np.testing.assert_allclose(module.double(x)["twice"], x * 2)
    y = np.ones((2, 3), np.float32)
    expected = tf.saved_model.load(str(directory)).signatures["score"](
        x=tf.constant(x), y=tf.constant(y)
    )
    np.testing.assert_allclose(module.loss(x=x, y=y)["loss"], expected["loss"].numpy(), rtol=1e-6)
    # One name for several signatures is refused.
    args = [f"s={directory}", "--signature", "score", "--signature", "serving_default", "-o", out]
    status, err = _run(args, capsys)
    assert status == 1
    assert err.endswith("names one function: give one --signature\n"), err


@pytest.mark.parametrize("name", ["__init", "main$async", "global$w$set"])
def test_reserved_function_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """`NAME=INPUT` with a name IREE reserves, or an input whose function has one: one
    error, no output (the `.vmfb` would not load, or its function could not be called);
    the input's own reserved name given another by `NAME=` compiles."""
    reserved = tmp_path / "reserved.mlir"
    reserved.write_text(
        f'func.func @"{name}"(%a: i32) -> i32 {{\n  func.return %a : i32\n}}\n', encoding="utf-8"
    )
    out = tmp_path / "out.vmfb"
    why = (
        f"the function name '{name}' is one IREE reserves (the VM's __init, __deinit and "
        "__notify, a function's $async variant, a global's global$<name>$get/$set accessors): "
        "the module would not load, or nobody could call the function; give it another name\n"
    )
    assert _run([f"{name}={V1}", "-o", out], capsys) == (
        1,
        f"abi-compile: error: '{name}={V1}': {why}",
    )
    assert _run([reserved, "--emit-mlir", "-o", out], capsys) == (
        1,
        f"abi-compile: error: '{reserved}': {why}",
    )
    assert not out.exists()
    needs_iree()
    assert _run([f"main={reserved}", "-o", out], capsys) == (0, "")
    assert _load(out).main(3) == 3


def test_an_indented_line_of_a_framework_message_is_a_note() -> None:
    """ONNX's checker breaks a sentence at a node's fields (a line starting with a space):
    each line is `abi-compile: note: …`; only the source excerpt below a located
    diagnostic of a tool keeps its indentation."""
    from abi_compiler.commands.compile_main import _error_lines

    message = (
        "'m.onnx': ONNX import failed\nNodes in a graph must be topologically sorted, "
        "however input 'logits' of node: \nname:  OpType: Softmax\n is not output of any "
        "previous nodes.\n"
    )
    assert _error_lines(message) == [
        "abi-compile: error: 'm.onnx': ONNX import failed",
        "abi-compile: note: Nodes in a graph must be topologically sorted, however input "
        "'logits' of node:",
        "abi-compile: note: name:  OpType: Softmax",
        "abi-compile: note: is not output of any previous nodes.",
    ]
    located = "failed\nm.py:3:1: error: bad op\n  %0 = op\n  ^\n indented after"
    assert _error_lines(located) == [
        "abi-compile: error: failed",
        "m.py:3:1: error: bad op",
        "  %0 = op",
        "  ^",
        " indented after",
    ]


def test_an_input_path_with_a_nul_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not from a shell, but `main(argv)` takes any string: a NUL in a path is a usage
    error, not Python's ValueError reported as an internal error."""
    out = tmp_path / "out.mlir"
    assert _run([f"0=\x00/*={V1}", "--emit-mlir", "-o", out], capsys) == (
        1,
        f"abi-compile: error: could not open input file '\\x00/*={V1}': a path has no NUL "
        "character\n",
    )
    assert not out.exists()
