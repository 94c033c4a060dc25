"""Big parameters of a torch program leave the text (`abi_compiler.frontends.torch.program`,
`Program.parameters`), and the module reads them from an IREE parameter provider
(`abi_compiler.iree.load(…, parameters=…)`; docs/calling.md, "Big weights"). Skipped
without torch and iree-turbine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine")

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import torch as torch_frontend  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),  # torch's own pytree API
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # numpy 2 __array__ in turbine
    pytest.mark.filterwarnings("ignore::abi_compiler.iree.CompileWarning"),
]


class Model(torch.nn.Module):
    """A 512x64 weight (128 KiB: external by default), smaller ones (16 KiB and less:
    inside the text), and an 80 KB buffer the forward updates (always inside)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.up = torch.nn.Linear(64, 512)
        self.down = torch.nn.Linear(512, 8)
        self.register_buffer("calls", torch.zeros(20000))

    def forward(self, x: Any) -> Any:
        self.calls.add_(1.0)
        return {"y": self.down(torch.relu(self.up(x))), "calls": self.calls[:1].clone()}


@pytest.fixture(scope="module")
def exported() -> tuple[Model, Any, Any]:
    model = Model().eval()
    x = torch.randn(3, 64)
    return model, x, torch.export.export(model, (x,))


def test_parameters_above_the_threshold_leave_the_text(exported: Any) -> None:
    model, _, program = exported
    found = torch_frontend.program(program)
    assert sorted(found.parameters) == ["up.weight"]
    assert found.parameters["up.weight"].nbytes == 512 * 64 * 4
    assert (
        'util.global private @__auto.up.weight = #flow.parameter.named<"model"::"up.weight">'
        in (found.mlir)
    )
    # The buffer the forward updates stays a global inside the module.
    assert '"model"::"calls"' not in found.mlir
    inline = torch_frontend.to_mlir(program)
    assert "#flow.parameter" not in inline
    # The weight's 128 KiB were 256 Ki hex digits of text.
    assert len(inline) - len(found.mlir) > 2 * 512 * 64 * 4
    # The program's own tensors are left as they were.
    assert not hasattr(model.up.weight, "_turbine_external_tensor_trait")
    smaller = torch_frontend.program(program, external_bytes=1 << 20)
    assert smaller.parameters == {} and "#flow.parameter" not in smaller.mlir


def test_compile_loads_the_parameters_with_the_module(exported: Any) -> None:
    _, x, program = exported
    compiled = abi_iree.compile(program)
    assert compiled.parameters is not None
    fresh = Model().eval()
    with torch.no_grad():
        for _ in range(2):
            expected = fresh(x)
            got = compiled.main(x)
            torch.testing.assert_close(got["y"], expected["y"], rtol=1e-4, atol=1e-5)
            torch.testing.assert_close(got["calls"], expected["calls"])


def test_a_vmfb_and_its_archive_load_together(exported: Any, tmp_path: Path) -> None:
    _, x, program = exported
    found = torch_frontend.program(program)
    vmfb = tmp_path / "model.vmfb"
    archive = tmp_path / "model.irpa"
    vmfb.write_bytes(abi_iree.compile_vmfb(found.mlir))
    abi_iree.save_parameters(found.parameters, archive)
    with torch.no_grad():
        expected = Model().eval()(x)["y"].numpy()
    for parameters in (archive, str(archive), found.parameters):
        module = abi_iree.load(vmfb, parameters=parameters)
        got = module.main(x.numpy())["y"]
        assert abs(got - expected).max() < 1e-5
    with pytest.raises(TypeError, match=r"expected an \.irpa path or a mapping"):
        abi_iree.load(vmfb, parameters=3)  # type: ignore[arg-type]


def test_the_module_keeps_the_weights_it_was_compiled_with() -> None:
    model = Model().eval()
    x = torch.randn(3, 64)
    compiled = abi_iree.compile(torch.export.export(model, (x,)))
    with torch.no_grad():
        expected = model(x)["y"]
        model.up.weight.mul_(0.0)  # a later training step, say
        del model
    torch.testing.assert_close(compiled.main(x)["y"], expected, rtol=1e-4, atol=1e-5)


class Head(torch.nn.Module):
    """A second entry: ``up`` is the first model's own layer (the same weight), ``down`` a
    new 512x64 layer whose weight has the first model's name `up.weight` in this export
    but other bytes."""

    def __init__(self, shared: Model) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.shared = shared.up
        self.up = torch.nn.Linear(64, 512)

    def forward(self, x: Any) -> Any:
        return self.shared(x) - self.up(x)


def test_a_mapping_shares_the_parameters_of_its_entries(exported: Any) -> None:
    model, x, program = exported
    head = Head(model).eval()
    entries = {"step": program, "again": program, "head": torch.export.export(head, (x,))}
    compiled = abi_iree.compile(entries)
    # `up.weight` of both exports of the model is one parameter; the head's own
    # `up.weight` (other bytes) is renamed, its `shared.weight` is the model's bytes
    # under another name.
    assert compiled.parameter_buffers is not None
    assert sorted(compiled.parameter_buffers) == ["head/up.weight", "shared.weight", "up.weight"]
    with torch.no_grad():
        torch.testing.assert_close(compiled.head(x), head(x), rtol=1e-5, atol=1e-5)
        expected = Model().eval()(x)
    torch.testing.assert_close(compiled.step(x)["y"], expected["y"], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(compiled.again(x)["y"], expected["y"], rtol=1e-5, atol=1e-5)


def test_a_vmfb_of_a_mapping_keeps_the_weights_inside(exported: Any) -> None:
    _, x, program = exported
    module = abi_iree.load(abi_iree.compile_vmfb({"step": program}))
    assert module.parameters is None
    assert module.step(x)["y"].shape == (3, 8)


def test_a_vmfb_embeds_the_parameters_of_a_program(exported: Any) -> None:
    model, x, program = exported
    found = torch_frontend.program(program)
    assert sorted(found.parameters) == ["up.weight"]
    for source in (program, found.mlir, {"step": found}, {"step": program}):
        parameters = None if source is not found.mlir else found.parameters
        vmfb = abi_iree.compile_vmfb(source, parameters=parameters)
        loaded = abi_iree.load(vmfb)
        assert loaded.parameters is None
        step = loaded["step"] if isinstance(source, dict) else loaded.main
        torch.testing.assert_close(step(x)["y"], model(x)["y"], rtol=1e-5, atol=1e-5)
    module = abi_iree.compile({"step": found})
    assert sorted(module.parameter_buffers or ()) == ["up.weight"]


def _abi_compile(*args: str, cwd: Path) -> Any:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.compile_main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_abi_compile_embeds_the_weights_or_writes_them_beside(
    exported: Any, tmp_path: Path
) -> None:
    import subprocess
    import sys

    model, _, program = exported
    torch.export.save(program, tmp_path / "model.pt2")
    whole = _abi_compile("model.pt2", "-o", "whole.vmfb", "-q", cwd=tmp_path)
    assert (whole.returncode, whole.stderr) == (0, "")
    beside = _abi_compile("model.pt2", "-o", "m.vmfb", "--parameters", "w.irpa", cwd=tmp_path)
    assert (beside.returncode, beside.stderr) == (0, "")
    assert (tmp_path / "w.irpa").stat().st_mode & 0o777 == 0o666 & ~_umask()
    # The .vmfb holds the weights, or names the archive, which load finds beside it.
    assert (
        (tmp_path / "whole.vmfb").stat().st_size > 128 * 1024 > (tmp_path / "m.vmfb").stat().st_size
    )
    call = (
        "import sys; sys.modules['torch'] = None; import numpy as np; "
        "from abi_compiler import iree; "
        "x = np.linspace(-1, 1, 3 * 64, dtype=np.float32).reshape(3, 64); "
        "print([float(iree.load(f).main(x)['y'].sum()) for f in ('whole.vmfb', 'm.vmfb')])"
    )
    done = subprocess.run(
        [sys.executable, "-c", call], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    with torch.no_grad():
        expected = float(model(torch.linspace(-1, 1, 3 * 64).reshape(3, 64))["y"].sum())
    for got in eval(done.stdout):
        assert got == pytest.approx(expected, rel=1e-4)
    assert abi_iree.load(tmp_path / "m.vmfb").main.reflection["abi.parameters"] == "w.irpa"
    (tmp_path / "w.irpa").rename(tmp_path / "other.irpa")
    with pytest.raises(AbiError, match=r"keep its archive beside it as '.*w\.irpa'"):
        abi_iree.load(tmp_path / "m.vmfb")


def test_abi_compile_parameters_are_never_an_input_or_the_output(
    exported: Any, tmp_path: Path
) -> None:
    _, _, program = exported
    torch.export.save(program, tmp_path / "model.pt2")
    same = _abi_compile("model.pt2", "-o", "m.vmfb", "--parameters", "m.vmfb", cwd=tmp_path)
    assert (same.returncode, same.stderr) == (
        1,
        "abi-compile: error: the parameters 'm.vmfb' and the output are one file\n",
    )
    before = (tmp_path / "model.pt2").read_bytes()
    input_ = _abi_compile("model.pt2", "-o", "m.vmfb", "--parameters", "model.pt2", cwd=tmp_path)
    assert (input_.returncode, input_.stderr) == (
        1,
        "abi-compile: error: the parameters 'model.pt2' is the input\n",
    )
    assert (tmp_path / "model.pt2").read_bytes() == before
    assert not (tmp_path / "m.vmfb").exists()


def test_abi_compile_parameters_of_a_module_without_weights(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = _abi_compile(
        str(root / "examples" / "classifier.onnx"),
        "-o",
        "c.vmfb",
        "--parameters",
        "w.irpa",
        cwd=tmp_path,
    )
    assert done.returncode == 0
    assert done.stderr == (
        "abi-compile: warning: no weights to write to 'w.irpa': the module holds every weight "
        "of its inputs (--parameters takes a torch program's big weights)\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["c.vmfb"]


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask
