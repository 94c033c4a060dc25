"""Every device IREE's compiler here builds for (docs/calling.md, "Devices and targets"):
the README's classifier compiled for each backend holds executables of that backend's
format (read back with `iree-dump-module`), and a torch model for all of them at once;
what the module records of its targets; vmvx and a portable CPU level run here with the
results of `cpu:host`; a module this machine cannot run is refused at `load` (in the
child-checked load too); GPU calls where a GPU is present."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import PARAMETER_TEXT, compile_quietly

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.calling import placement  # noqa: E402
from abi_compiler.calling.placement import (  # noqa: E402
    LOCAL_TASK_BYTES,
    choose_driver,
    local_driver,
    present_drivers,
)
from abi_compiler.codecs.provenance_json import Provenance  # noqa: E402
from abi_compiler.devices.host import cpu_features, executable_format  # noqa: E402
from abi_compiler.devices.targets import portable_target  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.signatures.module_signatures import read_module  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CLASSIFIER = ROOT / "examples" / "classifier.onnx"
FEATURES = np.array([[1.0, 2.0, 0.0, -1.0], [0.5, -0.5, 3.0, 1.0]], np.float32)

#: Per target: the executable format iree-compile writes for it.
FORMATS = {
    "cpu:host": executable_format(),
    "vmvx": "vmvx-bytecode-fb",
    "cuda:sm_80": "cuda-nvptx-fb",
    "rocm:gfx942": "rocm-hsaco-fb",
    "vulkan": "vulkan-spirv-fb",
    "metal": "metal-msl-fb",
}


def _dumped_formats(vmfb: bytes, tmp_path: Path) -> set[str]:
    """The executable formats the module holds, as `iree-dump-module` shows them (the
    formats it lists for each executable a device cannot create)."""
    spec = importlib.util.find_spec("iree._runtime_libs")
    assert spec is not None and spec.origin is not None
    tool = Path(spec.origin).with_name("iree-dump-module")
    path = tmp_path / "module.vmfb"
    path.write_bytes(vmfb)
    dumped = subprocess.run([str(tool), str(path)], capture_output=True, text=True, check=True)
    found: set[str] = set()
    for listed in re.findall(r"available formats: \[([^\]]*)\]", dumped.stdout):
        found.update(item.strip() for item in listed.split(","))
    return found


@pytest.fixture(scope="module")
def classifiers() -> dict[str, bytes]:
    """The classifier compiled for each target of `FORMATS` (shared by the tests)."""
    pytest.importorskip("onnx")
    built = {target: compile_quietly(CLASSIFIER, target=target, vmfb=True) for target in FORMATS}
    built["portable"] = compile_quietly(CLASSIFIER, vmfb=True)  # compile_vmfb's default
    return built


@pytest.mark.parametrize("target", list(FORMATS))
def test_each_backend_holds_its_format(
    classifiers: dict[str, bytes], target: str, tmp_path: Path
) -> None:
    assert _dumped_formats(classifiers[target], tmp_path) == {FORMATS[target]}


def _recorded(vmfb: bytes) -> Provenance:
    made = read_module(vmfb, "module.vmfb")[0].provenance
    assert made is not None
    return made


def test_targets_are_recorded(classifiers: dict[str, bytes]) -> None:
    gpu = _recorded(classifiers["cuda:sm_80"])
    assert gpu.target == "cuda:sm_80"
    assert [(t.backend, t.format, t.arch, t.cpu) for t in gpu.targets] == [
        ("cuda", "cuda-nvptx-fb", "sm_80", None)
    ]
    rocm = _recorded(classifiers["rocm:gfx942"]).targets
    assert [(t.backend, t.arch) for t in rocm] == [("rocm", "gfx942")]
    host = _recorded(classifiers["cpu:host"]).targets
    assert [(t.backend, t.format) for t in host] == [("llvm-cpu", executable_format())]
    assert host[0].cpu not in (None, "host")  # LLVM's name for this CPU
    present, known = cpu_features()
    assert set(host[0].features) & known <= present  # what this CPU has


def test_a_portable_level_records_its_features_only(classifiers: dict[str, bytes]) -> None:
    if executable_format() != "embedded-elf-x86_64":
        pytest.skip("the x86-64-v3 level's features are those of an x86-64 CPU")
    made = _recorded(classifiers["portable"])
    assert made.target == portable_target() == "cpu:x86-64-v3"
    (target,) = made.targets
    assert (target.cpu, target.triple) == ("x86-64-v3", "x86_64-unknown-unknown-eabi-elf")
    assert target.features == tuple(
        sorted(
            [
                "avx",
                "avx2",
                "bmi",
                "bmi2",
                "cmov",
                "crc32",
                "cx16",
                "cx8",
                "f16c",
                "fma",
                "fxsr",
                "lzcnt",
                "mmx",
                "movbe",
                "popcnt",
                "sahf",
                "sse",
                "sse2",
                "sse3",
                "sse4.1",
                "sse4.2",
                "ssse3",
                "x87",
                "xsave",
            ]
        )
    )


def test_a_torch_model_for_every_backend_at_once(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")

    class Scale(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.tanh(x) * 3 + 1

    program = torch.export.export(Scale(), (torch.ones(2, 3),))
    vmfb = compile_quietly(program, target=list(FORMATS), vmfb=True)
    assert _dumped_formats(vmfb, tmp_path) == set(FORMATS.values())
    made = _recorded(vmfb)
    assert [t.format for t in made.targets] == list(FORMATS.values())
    # The device select takes the local device here (no GPU), its CPU executable.
    module = abi_iree.load(vmfb, device="local-sync")
    x = torch.linspace(-1, 1, 6).reshape(2, 3)
    np.testing.assert_allclose(np.asarray(module.main(x)), (torch.tanh(x) * 3 + 1).numpy(), 1e-6)


@pytest.mark.parametrize("target", ["vmvx", "portable"])
def test_runs_here_as_host_does(classifiers: dict[str, bytes], target: str) -> None:
    vmfb = classifiers[target]
    expected = abi_iree.load(classifiers["cpu:host"]).classify(features=FEATURES)
    for device in ("local-sync", "local-task", None):
        got = abi_iree.load(vmfb, device=device).classify(features=FEATURES)
        for key in ("logits", "probabilities"):
            np.testing.assert_allclose(got[key], expected[key], rtol=1e-6, atol=1e-6)


def _lacking_cpu() -> tuple[str, list[str]]:
    """An LLVM CPU of this machine's architecture with features this CPU lacks, and
    those features (read from this machine's own flags)."""
    present, known = cpu_features()
    if executable_format() != "embedded-elf-x86_64" or not known:
        pytest.skip("needs an x86-64 CPU whose features /proc/cpuinfo names")
    # Per candidate, features it has (LLVM's names): AMD's own, Intel's own, AVX-512's.
    candidates = {
        "znver3": ["clzero", "mwaitx", "sse4a"],
        "graniterapids": ["amx-fp16", "amx-tile", "avx512fp16"],
        "x86-64-v4": ["avx512f", "avx512bw", "avx512vl"],
    }
    for cpu, features in candidates.items():
        missing = [feature for feature in features if feature not in present]
        if missing:
            return cpu, missing
    pytest.skip("this CPU has every feature of the candidates")


@pytest.fixture(scope="module")
def lacking() -> tuple[str, list[str], bytes]:
    """A CPU with features this one lacks, those features, and the classifier for it."""
    pytest.importorskip("onnx")
    cpu, missing = _lacking_cpu()
    return cpu, missing, compile_quietly(CLASSIFIER, target=f"cpu:{cpu}", vmfb=True)


@pytest.mark.parametrize("isolate", [True, False])
def test_a_cpu_this_one_is_not_is_refused_at_load(
    lacking: tuple[str, list[str], bytes], isolate: bool
) -> None:
    cpu, missing, vmfb = lacking
    with pytest.raises(AbiError) as caught:
        abi_iree.load(vmfb, isolate=isolate)
    message = str(caught.value)
    assert message.startswith(
        "the module cannot run on this machine: its targets: llvm-cpu (embedded-elf-x86_64), "
        f"cpu {cpu}; on the CPU: llvm-cpu (embedded-elf-x86_64), cpu {cpu} needs CPU "
        "features this CPU lacks: "
    )
    listed = message.split("this CPU lacks: ")[1].split(";")[0].split(", ")
    assert set(missing) <= set(listed)
    assert f"; drivers present: {', '.join(present_drivers())} (" in message


def test_a_cpu_of_another_architecture_is_refused(tmp_path: Path) -> None:
    other = "x86_64-unknown-linux-gnu" if executable_format() != "embedded-elf-x86_64" else None
    triple = other or "aarch64-linux-android"
    vmfb = compile_quietly(CLASSIFIER, target=f"cpu:{triple}:generic", vmfb=True)
    path = tmp_path / "other.vmfb"
    path.write_bytes(vmfb)
    with pytest.raises(AbiError, match=r"is not for this machine \(embedded-elf-"):
        abi_iree.load(path)  # (a path: the child-checked load)


def test_a_gpu_module_without_its_gpu_names_the_drivers(classifiers: dict[str, bytes]) -> None:
    if "cuda" in present_drivers():
        pytest.skip("a CUDA device is present: test_gpu_calls runs it")
    with pytest.raises(AbiError) as caught:
        abi_iree.load(classifiers["cuda:sm_80"])
    assert str(caught.value) == (
        "the module cannot run on this machine: its targets: cuda (cuda-nvptx-fb), arch "
        "sm_80; on the CPU: it has no CPU or vmvx executable; drivers present: "
        f"{', '.join(present_drivers())} (compile it for one of them: docs/calling.md, "
        "'Devices and targets')"
    )


def test_a_driver_the_module_has_no_target_for(classifiers: dict[str, bytes]) -> None:
    with pytest.raises(AbiError, match=r"^the module cannot run on the driver 'cuda': its tar"):
        abi_iree.load(classifiers["vmvx"], device="cuda")
    with pytest.raises(AbiError, match=r"^the module cannot run on the driver 'local-sync'"):
        abi_iree.load(classifiers["rocm:gfx942"], device="local-sync")


@pytest.mark.parametrize(("target", "driver"), [("cuda:sm_80", "cuda"), ("vulkan", "vulkan")])
def test_gpu_calls(target: str, driver: str) -> None:
    """Where the GPU is present, the module compiled for it runs there and agrees with
    the CPU (its architecture: the CUDA device's own, `sm_80` and up)."""
    if driver not in present_drivers():
        pytest.skip(f"no {driver} device on this machine (drivers present: {present_drivers()})")
    pytest.importorskip("onnx")
    expected = abi_iree.load(compile_quietly(CLASSIFIER, target="cpu:host", vmfb=True))
    module = abi_iree.load(compile_quietly(CLASSIFIER, target=target, vmfb=True))
    got = module.classify(features=FEATURES)
    want = expected.classify(features=FEATURES)
    np.testing.assert_allclose(got["logits"], want["logits"], rtol=1e-5, atol=1e-5)


def test_a_module_made_before_targets_were_recorded_loads() -> None:
    """No `targets` in its provenance (as every module made before they were recorded):
    loaded on the local CPU's driver for its size (``local-sync``: a small one),
    unchecked."""
    old = '{"abi-compiler":"0","flags":[],"inputs":[],"iree-compiler":"3","target":"host","v":1}'
    text = (
        "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> attributes {iree.reflection = "
        '{abi.provenance = "' + old.replace('"', "\\22") + '"}} {\n'
        "  %y = arith.addf %x, %x : tensor<2xf32>\n  return %y : tensor<2xf32>\n}\n"
    )
    vmfb = compile_quietly(text, target="vmvx", vmfb=True)
    assert _recorded(vmfb).targets == ()
    module = abi_iree.load(vmfb)
    assert repr(module.device) == "local-sync"
    np.testing.assert_array_equal(module.f(np.array([1, 2], np.float32)), [2, 4])


def test_the_local_driver_follows_the_module_size() -> None:
    assert local_driver(LOCAL_TASK_BYTES - 1, cpus=2) == "local-sync"
    assert local_driver(LOCAL_TASK_BYTES, cpus=2) == "local-task"
    assert local_driver(LOCAL_TASK_BYTES, cpus=1) == "local-sync"  # (no second CPU)
    assert choose_driver((), None, 0) == "local-sync"
    assert choose_driver((), None, LOCAL_TASK_BYTES) == local_driver(LOCAL_TASK_BYTES)
    assert choose_driver((), "local-task", 0) == "local-task"  # (given: kept)
    assert choose_driver((), "local-sync", LOCAL_TASK_BYTES) == "local-sync"


def _reading(floats: int) -> str:
    """A function that reads a parameter `w` of ``floats`` floats and adds its first 4."""
    kind = f"tensor<{floats}xf32>"
    return f"""
util.global private @w = #flow.parameter.named<"model"::"w"> : {kind}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %w = util.global.load @w : {kind}
  %head = tensor.extract_slice %w[0] [4] [1] : {kind} to tensor<4xf32>
  %r = arith.addf %x, %head : tensor<4xf32>
  return %r : tensor<4xf32>
}}
"""


@pytest.mark.parametrize("device", [None, "local-sync", "local-task"])
def test_the_default_cpu_driver_is_chosen_by_the_weights(
    device: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By default a module runs on ``local-sync`` (its calls too short for IREE's task
    system to pay for a second thread) unless it and the parameters it reads hold
    `LOCAL_TASK_BYTES` or more (1 MiB here, for a small test); a driver given is used as
    given."""
    monkeypatch.setattr(placement, "LOCAL_TASK_BYTES", 1 << 20)
    x = np.arange(4, dtype=np.float32)
    small = abi_iree.load(
        compile_quietly(PARAMETER_TEXT, target="cpu:host", vmfb=True),
        device=device,
        parameters={"w": np.ones(4, np.float32)},
    )
    weights = np.zeros(1 << 18, np.float32)  # 1 MiB: with the .vmfb, over the line
    weights[:4] = 2
    big = abi_iree.load(
        compile_quietly(_reading(weights.size), target="cpu:host", vmfb=True),
        device=device,
        parameters={"w": weights},
    )
    assert repr(small.device) == (device or "local-sync")
    assert repr(big.device) == (device or local_driver(1 << 20))
    np.testing.assert_array_equal(small.main(x), x + 1)
    np.testing.assert_array_equal(big.main(x), x + 2)


@pytest.mark.parametrize(
    ("target", "error", "message"),
    [
        (3, TypeError, "target must be a str or a sequence of str, not int"),
        (["vmvx", 3], TypeError, "target must be a str or a sequence of str, not list"),
        ("host", AbiError, "unknown target 'host' (a CPU is named cpu:host): expected cpu[:CPU]"),
        ("cpu:nosuch", AbiError, "target 'cpu:nosuch': LLVM does not know the CPU 'nosuch': "),
        ("cuda:sm_1", AbiError, "target 'cuda:sm_1': iree-compile knows no cuda architecture "),
        ("cuda:bogus", AbiError, "target 'cuda:bogus': iree-compile refused it (Unknown CUDA "),
        ("cpu:nosuch-linux:generic", AbiError, "target 'cpu:nosuch-linux:generic': iree-compi"),
    ],
)
def test_bad_targets(target: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        compile_quietly("func.func @f() {\n  return\n}\n", target=target, vmfb=True)
    assert str(caught.value).startswith(message)


def test_abi_sig_show_prints_the_targets(
    classifiers: dict[str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from abi_compiler.commands.sig_main import main

    path = tmp_path / "c.vmfb"
    path.write_bytes(classifiers["cuda:sm_80"])
    assert main(["show", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == ["targets: cuda (cuda-nvptx-fb), arch sm_80"]
    both = tmp_path / "both.vmfb"
    both.write_bytes(compile_quietly(CLASSIFIER, target=["vmvx", "rocm:gfx942"], vmfb=True))
    assert main(["show", str(both)]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == [
        "targets: vmvx (vmvx-bytecode-fb); rocm (rocm-hsaco-fb), arch gfx942"
    ]
    assert main(["diff", str(path), str(both)]) == 0
    assert capsys.readouterr().out.splitlines() == ["info: target: cuda:sm_80 -> vmvx,rocm:gfx942"]
