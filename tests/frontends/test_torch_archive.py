"""A `.pt2` archive is read as data (`abi_compiler.frontends.torch_archive`,
docs/abi-compile.md#what-is-read): real `torch.export.save` archives, some with a part
made hostile — a sample-inputs pickle, a pickled weight, an opaque or TorchScript constant
whose unpickling would create a marker file, a size expression that would run Python, a
tree spec that names a module whose import would create the marker. Each still compiles
(the sample inputs are never read) or is refused with a message; the marker never
appears. Also transformers' output classes, which a transformers program returns."""

from __future__ import annotations

import builtins
import collections
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine")

from abi_compiler.commands.compile_main import main  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import torch_archive  # noqa: E402


class Payload:
    """Unpickled, creates the file ``path`` (what a hostile archive would do)."""

    def __init__(self, path: Path) -> None:
        self.path = os.fspath(path)

    def __reduce__(self) -> tuple[Any, ...]:
        return (builtins.open, (self.path, "w"))


class Linear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: Any) -> Any:
        return self.linear(x)


class FromDict(Linear):
    def forward(self, d: Any) -> Any:  # type: ignore[override]
        return self.linear(d["x"])


def _save(path: Path, sample_inputs: Any = None) -> Path:
    torch.manual_seed(0)
    exported = torch.export.export(
        Linear(), (torch.ones(2, 4),), dynamic_shapes=({0: torch.export.Dim("batch")},)
    )
    if sample_inputs is not None:
        # What a hostile file holds: torch.export.save pickles them as they are.
        exported._example_inputs = sample_inputs
    torch.export.save(exported, path)
    return path


def _rewrite(path: Path, edits: dict[str, Callable[[bytes | None], bytes]]) -> Path:
    """``path`` with the records named (after the archive's root folder) edited, or
    added when absent (the edit is given None)."""
    with zipfile.ZipFile(path) as archive:
        records = {info.filename: archive.read(info) for info in archive.infolist()}
    root = next(iter(records)).split("/", 1)[0]
    for name, edit in edits.items():
        key = f"{root}/{name}"
        records[key] = edit(records.get(key))
    path.unlink()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in records.items():
            archive.writestr(name, data)
    return path


def _json_edit(change: Callable[[Any], None]) -> Callable[[bytes | None], bytes]:
    def edit(data: bytes | None) -> bytes:
        assert data is not None
        document = json.loads(data)
        change(document)
        return json.dumps(document).encode()

    return edit


def _compile(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, Path]:
    out = tmp_path / "out.mlir"
    status = main([os.fspath(archive), "--emit-mlir", "-o", os.fspath(out)])
    return status, capsys.readouterr().err, out


def test_hostile_sample_inputs_are_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_iree()
    marker = tmp_path / "marker"
    archive = _save(tmp_path / "model.pt2", ((Payload(marker),), {}))
    out = tmp_path / "model.vmfb"
    assert main([os.fspath(archive), "-o", os.fspath(out)]) == 0
    assert capsys.readouterr().err == ""
    assert not marker.exists()
    from abi_compiler import iree as abi_iree

    torch.manual_seed(0)
    model = Linear()
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    torch.testing.assert_close(abi_iree.load(out).main(x), model(x).detach())
    assert torch_archive.load(archive).example_inputs is None


def test_sample_inputs_of_torch_s_older_archives_are_never_unpickled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The format `torch.export.load` still reads (`serialized_*.pt` at the root)."""
    from torch._export.serde.schema import SCHEMA_VERSION
    from torch._export.serde.serialize import serialize

    marker = tmp_path / "marker"
    torch.manual_seed(0)
    artifact = serialize(torch.export.export(Linear(), (torch.ones(2, 4),)))
    archive = tmp_path / "model.pt2"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("version", ".".join(map(str, SCHEMA_VERSION)))
        zipped.writestr("serialized_exported_program.json", artifact.exported_program)
        zipped.writestr("serialized_state_dict.pt", artifact.state_dict)
        zipped.writestr("serialized_constants.pt", artifact.constants)
        zipped.writestr("serialized_example_inputs.pt", _torch_pickle(Payload(marker)))
    status, err, out = _compile(archive, tmp_path, capsys)
    assert (status, err) == (0, "")
    assert "func.func @main(" in out.read_text()
    assert not marker.exists()


def _torch_pickle(value: Any) -> bytes:
    stream = io.BytesIO()
    torch.save(value, stream)
    return stream.getvalue()


def _pickled_weight(marker: Path) -> dict[str, Callable[[bytes | None], bytes]]:
    def config(document: Any) -> None:
        document["config"]["linear.weight"]["use_pickle"] = True

    return {
        "data/weights/model_weights_config.json": _json_edit(config),
        "data/weights/weight_0": lambda _: _torch_pickle(Payload(marker)),
    }


def _constant(prefix: str, marker: Path) -> dict[str, Callable[[bytes | None], bytes]]:
    def config(document: Any) -> None:
        document["config"]["hostile"] = {
            "path_name": f"{prefix}0",
            "is_param": False,
            "use_pickle": True,
            "tensor_meta": None,
        }

    return {
        "data/constants/model_constants_config.json": _json_edit(config),
        f"data/constants/{prefix}0": lambda _: pickle.dumps(Payload(marker)),
    }


def _size_expression(marker: Path) -> dict[str, Callable[[bytes | None], bytes]]:
    def change(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "expr_str":
                    node[key] = f"Max({value}, __import__('builtins').open({str(marker)!r}, 'w'))"
                else:
                    change(value)
        elif isinstance(node, list):
            for value in node:
                change(value)

    return {"models/model.json": _json_edit(change)}


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        (
            _pickled_weight,
            "the archive's 'data/weights/weight_0' is a pickle that holds more than tensors, "
            "which abi-compile does not unpickle (Unsupported global: GLOBAL io.open was not "
            "an allowed global by default)\n",
        ),
        (
            lambda marker: _constant("opaque_obj_", marker),
            "the archive holds a pickled object, which abi-compile does not unpickle",
        ),
        (
            lambda marker: _constant("custom_obj_", marker),
            "the archive holds a TorchScript object, which abi-compile does not unpickle",
        ),
        (_size_expression, "is not arithmetic on sizes (abi-compile evaluates no code"),
    ],
    ids=["pickled weight", "opaque constant", "TorchScript constant", "size expression"],
)
def test_a_hostile_archive_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edits: Any, message: str
) -> None:
    from torch.export.pt2_archive import constants

    assert constants.OPAQUE_OBJ_FILENAME_PREFIX == "opaque_obj_"
    assert constants.CUSTOM_OBJ_FILENAME_PREFIX == "custom_obj_"
    marker = tmp_path / "marker"
    archive = _rewrite(_save(tmp_path / "model.pt2"), edits(marker))
    status, err, out = _compile(archive, tmp_path, capsys)
    assert (status, err.count("\n")) == (1, 1), err
    assert err.startswith(f"abi-compile: error: '{archive}': ") and message in err, err
    assert not marker.exists()
    assert not out.exists()
    assert os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD") is None  # put back


def test_a_module_named_by_a_tree_spec_is_not_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "marker"
    (tmp_path / "hostile_factory.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nfactory = list\n"
    )
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    d = collections.defaultdict(list, x=torch.ones(2, 4))
    archive = tmp_path / "model.pt2"
    torch.export.save(torch.export.export(FromDict(), (d,)), archive)

    def name_the_module(data: bytes | None) -> bytes:
        assert data is not None
        old = b'default_factory_module\\": \\"builtins\\", \\"default_factory_name\\": \\"list'
        assert old in data
        return data.replace(
            old, old.replace(b"builtins", b"hostile_factory").replace(b"list", b"factory")
        )

    _rewrite(archive, {"models/model.json": name_the_module})
    status, err, _ = _compile(archive, tmp_path, capsys)
    assert status == 1
    assert err == (
        f"abi-compile: error: '{archive}': the archive names module 'hostile_factory', which "
        "is not imported: a model file imports nothing (import it first: abi-compile "
        "--import hostile_factory)\n"
    )
    assert not marker.exists()
    assert "hostile_factory" not in sys.modules


@pytest.mark.parametrize(
    "text",
    [
        "Symbol('s60', positive=True, integer=True)",
        "Mul(Integer(2), Symbol('s0', integer=True, positive=True))",
        "FloorDiv(Symbol('s0', integer=True), Integer(2))",
        "Pow(Symbol('s0'), Integer(-2))",
        "Float('1.5', precision=53)",
        "2*s0 + Max(1, s1) - 3 // s2",
        "Eq(s0, 4) & (s1 <= 8)",
    ],
)
def test_size_expressions_torch_writes_are_read(text: str) -> None:
    torch_archive._check_size_expression(text, {"FloorDiv": None})


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "s0.__class__",
        "Max('s0')",  # sympify would parse (evaluate) the string
        "open('x', 'w')",
        "preview(s0)",
        "lambdify(s0, s0)",
        "Symbol('a', integer=s0)",
        "Pow(Integer(10), Integer(100000))",
        "s0 ** s0 ** 1000",
        "Integer(" + "9" * 200 + ")",
        "(lambda: 0)()",
        "[s0][0]",
        "s0 if s1 else s2",
    ],
)
def test_size_expressions_that_are_code_are_refused(text: str) -> None:
    with pytest.raises(torch_archive._Refused, match="size expression"):
        torch_archive._check_size_expression(text, {"FloorDiv": None})


def test_a_bad_archive_is_an_abi_error(tmp_path: Path) -> None:
    archive = tmp_path / "model.pt2"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("model/other.txt", "x")
    with pytest.raises(AbiError, match="cannot load the torch program: "):
        torch_archive.load(archive)


# -- the classes a program's pytree names ---------------------------------------------------


def test_a_transformers_program_is_read(tmp_path: Path) -> None:
    """A `BertModel` returns transformers' `BaseModelOutputWithPoolingAndCrossAttentions`,
    which torch reads only once transformers registered it: `abi-compile` (a fresh
    process, where nothing imported transformers) registers it first."""
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
    )
    torch.manual_seed(0)
    model = transformers.BertModel(config).eval()
    archive = tmp_path / "bert.pt2"
    exported = torch.export.export(model, (torch.tensor([[1, 2, 3, 4]]),), strict=False)
    torch.export.save(exported, archive)
    out = tmp_path / "bert.mlir"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "abi_compiler.commands.compile_main",
            archive,
            "--emit-mlir",
            "-o",
            out,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.fspath(root)},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "BaseModelOutputWithPoolingAndCrossAttentions" in out.read_text()


def test_an_unregistered_class_names_its_module_and_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def rename(data: bytes | None) -> bytes:
        assert data is not None
        old = b'in_spec": "[1, {\\"type\\": \\"builtins.tuple'
        assert old in data
        return data.replace(old, old.replace(b"builtins.tuple", b"nosuchpackage.outputs.Out"))

    archive = _rewrite(_save(tmp_path / "model.pt2"), {"models/model.json": rename})
    status, err, _ = _compile(archive, tmp_path, capsys)
    assert status == 1
    assert err == (
        f"abi-compile: error: '{archive}': the program's pytree holds "
        "nosuchpackage.outputs.Out, a class that is not registered: nosuchpackage is not "
        "installed (pip install nosuchpackage); then import nosuchpackage.outputs first "
        "(abi-compile --import nosuchpackage.outputs)\n"
    )
