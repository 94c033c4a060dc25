"""No tool overwrites its input: `abi-compile` and `abi-opt` refuse an output that is one of
their inputs — the same path, a symbolic link to it, a hard link, a file inside a SavedModel
directory — with `<tool>: error: the output 'X' is the input`, exit status 1, the input
untouched (docs/abi-compile.md#options). (`abi-sig` writes only to standard output.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from abi_compiler.commands import compile_main, opt_main

ROOT = Path(__file__).resolve().parents[2]
V1 = ROOT / "examples" / "jax_predict_v1.mlir"
V2 = ROOT / "examples" / "jax_predict_v2.mlir"

Tool = Callable[[list[str]], int]


def _model(tmp_path: Path, source: Path = V1, name: str = "model.mlir") -> Path:
    model = tmp_path / name
    model.write_bytes(source.read_bytes())
    return model


def _output(tmp_path: Path, model: Path, way: str) -> Path:
    """The `-o` path that is ``model`` itself, by ``way``."""
    if way == "same path":
        return model
    link = tmp_path / "link.mlir"
    if way == "symbolic link":
        link.symlink_to(model.name)
    else:
        os.link(model, link)
    return link


def _refused(
    tool: Tool,
    prog: str,
    args: list[str],
    model: Path,
    out: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = model.read_bytes()
    assert tool(args) == 1
    err = capsys.readouterr().err
    named = "" if os.fspath(out) == os.fspath(model) else f" '{model}'"
    assert err == f"{prog}: error: the output '{out}' is the input{named}\n"
    assert model.read_bytes() == before


WAYS = ["same path", "symbolic link", "hard link"]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("emit_mlir", [False, True])
def test_abi_compile_refuses_its_input_as_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], way: str, emit_mlir: bool
) -> None:
    model = _model(tmp_path)
    out = _output(tmp_path, model, way)
    flags = ["--emit-mlir"] if emit_mlir else []
    args = [os.fspath(model), *flags, "-o", os.fspath(out)]
    _refused(compile_main.main, "abi-compile", args, model, out, capsys)


def test_abi_compile_refuses_one_of_several_inputs_as_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _model(tmp_path, V1, "first.mlir")
    second = _model(tmp_path, V2, "second.mlir")
    args = [f"a={first}", f"b={second}", "--emit-mlir", "-o", os.fspath(second)]
    _refused(compile_main.main, "abi-compile", args, second, second, capsys)
    assert first.read_bytes() == V1.read_bytes()


def test_abi_compile_refuses_a_file_of_a_saved_model_as_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "saved_model"
    folder.mkdir()
    (folder / "variables").mkdir()
    graph = folder / "saved_model.pb"
    graph.write_bytes(b"\x08\x01")
    before = graph.read_bytes()
    assert compile_main.main([os.fspath(folder), "-o", os.fspath(graph)]) == 1
    err = capsys.readouterr().err
    assert err == f"abi-compile: error: the output '{graph}' is the input '{folder}'\n"
    assert graph.read_bytes() == before


def test_abi_compile_writes_a_new_output_beside_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _model(tmp_path)
    out = tmp_path / "other.mlir"
    out.write_text("old\n")
    assert compile_main.main([os.fspath(model), "--emit-mlir", "-o", os.fspath(out)]) == 0
    assert capsys.readouterr().err == ""
    assert "func.func @main(" in out.read_text()
    assert model.read_bytes() == V1.read_bytes()


@pytest.mark.parametrize("way", WAYS)
def test_abi_opt_refuses_its_input_as_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], way: str
) -> None:
    model = _model(tmp_path)
    out = _output(tmp_path, model, way)
    args = [os.fspath(model), "-p", "iree-abi-v1", "-o", os.fspath(out)]
    _refused(opt_main.main, "abi-opt", args, model, out, capsys)


def test_abi_opt_writes_an_output_that_is_another_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _model(tmp_path)
    out = tmp_path / "copy.mlir"
    out.write_bytes(model.read_bytes())  # the same bytes, another file
    assert opt_main.main([os.fspath(model), "-o", os.fspath(out)]) == 0
    assert capsys.readouterr().err == ""
    assert model.read_bytes() == V1.read_bytes()
