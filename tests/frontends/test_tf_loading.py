"""A SavedModel is read as data (docs/abi-compile.md#what-is-read): TensorFlow's loader
runs the meta graph's restore and init ops, so a SavedModel whose init op writes a file
(`tf.io.write_file`), prints (`tf.print`) or calls other ops that act outside the model is
refused before TensorFlow loads it; the file is never written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("iree.compiler")
tf = pytest.importorskip("tensorflow")

from abi_compiler.commands.compile_main import main  # noqa: E402


def _v1_saved_model(folder: Path, main_op: Callable[[], Any]) -> Path:
    """A TF1 SavedModel (`y = x * v`) whose init op is ``main_op()``."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        v = tf.compat.v1.get_variable("v", initializer=tf.ones([2]))
        y = tf.identity(x * v, name="y")
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            builder = tf.compat.v1.saved_model.Builder(os.fspath(folder))
            signature = tf.compat.v1.saved_model.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(
                session,
                ["serve"],
                signature_def_map={"serving_default": signature},
                main_op=main_op(),
            )
            builder.save()
    return folder


@pytest.mark.parametrize(
    ("op", "main_op"),
    [
        ("WriteFile", lambda marker: tf.io.write_file(os.fspath(marker), "written")),
        ("PrintV2", lambda marker: tf.print("loaded", output_stream=f"file://{marker}")),
    ],
)
def test_an_init_op_that_acts_outside_the_model_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str, main_op: Any
) -> None:
    marker = tmp_path / "marker"
    folder = _v1_saved_model(tmp_path / "saved_model", lambda: main_op(marker))
    assert not marker.exists()
    out = tmp_path / "out.mlir"
    assert main([os.fspath(folder), "--emit-mlir", "-o", os.fspath(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"abi-compile: error: '{folder}': {folder}: the SavedModel runs {op} (")
    assert "when it is loaded, which could act outside the model" in err
    assert not marker.exists()
    assert not out.exists()


def test_an_init_op_that_initializes_variables_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _v1_saved_model(tmp_path / "saved_model", tf.compat.v1.global_variables_initializer)
    out = tmp_path / "out.mlir"
    assert main([os.fspath(folder), "--emit-mlir", "-o", os.fspath(out)]) == 0
    assert "func.func @serving_default(" in out.read_text()
