"""A torch program's results and dims as the program gave them (docs/calling.md, "From
PyTorch"): `torch.export.register_dataclass` results keep their class (the program's in
memory, a dataclass of the recorded fields from a file), a transformers `ModelOutput`
rebuilt from a file indexes as transformers' own, and `Dim("seqlen")` is `seqlen` in the
original call and its errors. Skipped without torch, iree-turbine and transformers;
test_generated_outputs.py runs the same model's committed MLIR without them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine")
pytest.importorskip("transformers")

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.codecs.call_json import format_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import torch as torch_frontend  # noqa: E402
from tests.calling.helpers import compile_quietly  # noqa: E402
from tests.frontends.generate import models  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:iree.turbine"),
]


@pytest.fixture(scope="module")
def outputs() -> Any:
    module, args, kwargs, dynamic_shapes = models.torch_outputs()
    exported = torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes)
    with torch.no_grad():
        expected = module(*args, **kwargs)
    return exported, args, expected, compile_quietly(exported)


def test_in_memory_the_programs_own_classes(outputs: Any) -> None:
    _, args, expected, module = outputs
    scores, pooled = module.main(*args)
    assert type(scores) is models.Scores and scores.note is None
    torch.testing.assert_close(scores.logits, expected[0].logits)
    assert type(pooled) is type(expected[1])
    assert list(pooled.keys()) == list(expected[1].keys())
    torch.testing.assert_close(pooled[1][1], expected[1][1][1])


def test_from_a_file_a_dataclass_and_a_model_output(outputs: Any) -> None:
    _, args, expected, module = outputs
    scores, pooled = abi_iree.load(module.vmfb).main(*args)
    assert dataclasses.is_dataclass(scores) and type(scores) is not models.Scores
    assert [f.name for f in dataclasses.fields(scores)] == ["logits", "total", "note"]
    torch.testing.assert_close(scores.total, expected[0].total)
    want = expected[1]
    assert type(pooled) is not type(want) and type(pooled).__name__ == type(want).__name__
    assert list(pooled.keys()) == list(want.keys())
    torch.testing.assert_close(pooled[0], want[0])
    torch.testing.assert_close(pooled["last_hidden_state"], want["last_hidden_state"])
    torch.testing.assert_close(pooled.last_hidden_state, want.last_hidden_state)
    assert len(pooled.to_tuple()) == len(want.to_tuple())
    assert pooled.pooler_output is None and want.pooler_output is None
    for out in (pooled, want):
        with pytest.raises(KeyError):
            out["pooler_output"]


def test_dims_keep_the_users_names(outputs: Any) -> None:
    exported, _, _, module = outputs
    call = torch_frontend.program(exported, external_bytes=None).call
    assert call is not None and call.symbols[0].name == "seqlen"
    assert format_call(call).startswith("(x: float32[seqlen,4]) -> (Scores(")
    with pytest.raises(AbiError, match=r"^argument x: dimension 0 is 17, but symbol 'seqlen' "):
        module.main(torch.zeros(17, 4))


def test_a_shared_dim_keeps_its_name() -> None:
    class Pair(torch.nn.Module):
        def forward(self, x: Any, y: Any) -> Any:
            return x[:, :4] + y

    batch = torch.export.Dim("batch", max=8)
    exported = torch.export.export(
        Pair(),
        (torch.ones(3, 4), torch.ones(3, 4)),
        dynamic_shapes=({0: batch}, {0: batch}),
    )
    call = torch_frontend.program(exported, external_bytes=None).call
    assert call is not None
    assert format_call(call) == "(x: float32[batch,4], y: float32[batch,4]) -> float32[batch,4]"
