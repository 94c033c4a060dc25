"""A torch program's result classes and `Dim` names from its MLIR, without torch or
transformers (docs/calling.md, "From a framework's object"): tests/frontends/inputs/
torch_outputs.mlir (`python -m tests.frontends.generate torch_outputs`) returns a
dataclass registered with `torch.export.register_dataclass` and a transformers
`BaseModelOutputWithPooling`, each with a None field, for an input whose first dim is
`Dim("seqlen", max=16)`."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from tests.frontends.generate.values import decode  # noqa: E402

INPUT = Path(__file__).resolve().parent / "inputs" / "torch_outputs.mlir"


@pytest.fixture(scope="module")
def module() -> abi_iree.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return abi_iree.compile(INPUT, results="numpy")


def _example() -> dict[str, Any]:
    record = json.loads(INPUT.with_suffix(".json").read_text(encoding="utf-8"))
    return {key: decode(value) if key != "function" else value for key, value in record.items()}


def test_a_registered_dataclass_is_a_dataclass_with_its_fields(module: abi_iree.Module) -> None:
    example = _example()
    scores, _ = module.main(*example["args"])
    expected, _ = example["results"]
    assert dataclasses.is_dataclass(scores) and type(scores).__name__ == "Scores"
    assert [field.name for field in dataclasses.fields(scores)] == ["logits", "total", "note"]
    np.testing.assert_allclose(scores.logits, expected.logits, rtol=1e-6)
    np.testing.assert_allclose(scores.total, expected.total, rtol=1e-6)
    assert scores.note is None


def test_a_model_output_behaves_like_one(module: abi_iree.Module) -> None:
    example = _example()
    _, out = module.main(*example["args"])
    expected = example["results"][1]
    assert type(out).__name__ == "BaseModelOutputWithPooling"
    assert list(out.keys()) == ["last_hidden_state", "hidden_states"]  # None: no key
    for got in (out[0], out["last_hidden_state"], out.last_hidden_state, out.to_tuple()[0]):
        np.testing.assert_allclose(got, expected.last_hidden_state, rtol=1e-6)
    np.testing.assert_allclose(out[1][1], expected.hidden_states[1], rtol=1e-6)
    assert out.pooler_output is None and out.attentions is None and len(out.to_tuple()) == 2
    with pytest.raises(KeyError):
        out["pooler_output"]


def test_dims_are_named_as_the_user_named_them(module: abi_iree.Module) -> None:
    x = np.zeros((17, 4), np.float32)
    with pytest.raises(AbiError) as info:
        module.main(x)
    assert str(info.value) == "argument 0: dimension 0 is 17, but symbol 'seqlen' is at most 16"
    done = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.sig_main", "show", str(INPUT)],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().splitlines()[1] == (
        "  called as main(float32[seqlen,4]) -> (Scores(logits=float32[seqlen,4], "
        "total=float32[], note=None), BaseModelOutputWithPooling("
        "last_hidden_state=float32[seqlen,4], hidden_states=(float32[seqlen,4], "
        "float32[seqlen,4]), pooler_output=None, attentions=None))"
    )
