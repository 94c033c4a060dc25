"""What transformers' decoder-only architectures needed of the torch frontend, each on a
small module of its own (docs/calling.md, "Architectures"): the tanh GELU written out
(`abi_compiler.frontends.torch_rewrites_models.gelu_tanh_as_math`), and a buffer the program
writes but never reads left out of the module's state. Skipped without torch and
iree-turbine."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()
torch = pytest.importorskip("torch")
aot = pytest.importorskip("iree.turbine.aot")

from abi_compiler.frontends import torch_rewrites_models  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


class Gelus(torch.nn.Module):  # type: ignore[name-defined,misc]
    """Both GELUs of one tensor."""

    def forward(self, x: Any) -> Any:
        tanh = torch.nn.functional.gelu(x, approximate="tanh")
        return tanh, torch.nn.functional.gelu(x)


def _inputs(dtype: Any) -> Any:
    # The values GELU's argument takes in a model, and the far tails.
    torch.manual_seed(0)
    x = torch.randn(4, 256, dtype=dtype) * 4
    tails = torch.tensor([[-30.0, -9.0, -0.0, 1e-8, 9.0, 30.0]] * 4, dtype=dtype)
    return torch.cat([x, tails], 1)


def test_the_tanh_gelu_becomes_its_math() -> None:
    module = aot.export(torch.export.export(Gelus(), (_inputs(torch.float32),))).mlir_module
    before = str(module)
    assert before.count("torch.aten.gelu ") == 2
    assert torch_rewrites_models.gelu_tanh_as_math(module) == 1
    after = str(module)
    # The exact GELU stays; the tanh one is torch's kernel: x * x * x, one tanh.
    assert after.count("torch.aten.gelu ") == 1 and '"tanh"' not in after.split("gelu ")[1]
    assert after.count("torch.aten.tanh ") == 1
    assert after.count("torch.aten.mul.Tensor ") == 3
    assert "0.79788456080286541" in after and "4.471500e-02" in after
    assert torch_rewrites_models.gelu_tanh_as_math(module) == 0


class TanhGelu(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any) -> Any:
        return torch.nn.functional.gelu(x, approximate="tanh")


def test_the_compiled_tanh_gelu_is_eagers() -> None:
    """To the rounding of ``x * (1 + tanh(…))`` (two units of ``x``'s last place: where
    tanh nears -1 the sum cancels, and IREE's tanh and torch's differ in their last
    bit); torch-mlir's own lowering, with sqrt(2/pi) written 0.79772, was 5e-5 off at
    ``x`` = 2 in float32, 100 times that."""
    x = _inputs(torch.float32)
    want = TanhGelu()(x).numpy()
    got = np.asarray(compile_quietly(torch.export.export(TanhGelu(), (x,))).main(x))
    bound = 2 * np.finfo(want.dtype).eps * np.maximum(np.abs(x.numpy()), 1)
    assert np.all(np.abs(got - want) <= bound)


def test_the_exact_gelu_stays_eagers() -> None:
    x = _inputs(torch.float32)
    _, want = (value.numpy() for value in Gelus()(x))
    _, got = compile_quietly(torch.export.export(Gelus(), (x,))).main(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float64])
def test_a_gelu_of_another_precision_stays(dtype: Any) -> None:
    """torch computes a bfloat16 GELU in float32 and rounds once, which ops in bfloat16
    would not; IREE's llvm-cpu has no float64 `tanh` (`undefined symbol: tanh`): the op
    is left to IREE."""
    program = torch.export.export(TanhGelu(), (_inputs(dtype),))
    module = aot.export(program).mlir_module
    assert torch_rewrites_models.gelu_tanh_as_math(module) == 0


class WritesUnread(torch.nn.Module):  # type: ignore[name-defined,misc]
    """Phi-3's LongRoPE in small: a buffer overwritten from others (`copy_`) each call, the
    new value used, the old one never read."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("frequencies", torch.ones(4), persistent=False)
        self.register_buffer("short", torch.arange(4.0), persistent=False)

    def forward(self, x: Any) -> Any:
        chosen = torch.where(x.max() > 2, self.short * 2, self.short)
        self.frequencies.copy_(chosen)
        return x * self.frequencies


def test_a_buffer_written_and_never_read_is_no_state() -> None:
    """iree-turbine stores only to a buffer it has loaded (`Cannot store value to unmapped
    global`): the write, which no call can see, is left out, and the calls give eager's."""
    from abi_compiler.frontends import torch as torch_frontend

    model = WritesUnread()
    program = torch.export.export(model, (torch.ones(4),))
    assert "util.global private mutable" not in torch_frontend.program(program).mlir
    compiled = compile_quietly(program)
    for value in (1.0, 3.0, 1.0):
        x = torch.full((4,), value)
        np.testing.assert_array_equal(np.asarray(compiled.main(x)), model(x).numpy())


class Counts(torch.nn.Module):  # type: ignore[name-defined,misc]
    """A Mixtral router's count of tokens per expert."""

    def forward(self, experts: Any) -> Any:
        return torch.histc(experts.float(), bins=4, min=0, max=3)


def test_an_op_iree_cannot_lower_is_named() -> None:
    """`aten.histc`, which torch-mlir has no op for, is refused naming it and the line
    that calls it, not with IREE's page of notes on `torch.operator`."""
    from abi_compiler.errors import AbiError

    program = torch.export.export(Counts(), (torch.tensor([0, 3, 1, 3]),))
    with pytest.raises(AbiError) as caught:
        compile_quietly(program)
    assert str(caught.value) == (
        f"the program calls aten.histc ({__file__}:{Counts.forward.__code__.co_firstlineno + 1}), "
        "which IREE's torch lowering has no op for: export the model without it "
        '(docs/calling.md, "Architectures")'
    )
