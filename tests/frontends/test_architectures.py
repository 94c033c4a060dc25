"""Every decoder-only architecture of tests/frontends/architectures.py (Llama, GPT-2,
Qwen2, Mistral, Phi-3 with and without LongRoPE, Gemma, Gemma 2, Gemma 3, Qwen3), exported
with transformers' recipe both one token a call and the prompt in one call, compiled, and
run from the `.vmfb`s in a process that cannot import torch or transformers: the greedy
tokens of each equal `model.generate(..., do_sample=False)`'s 32, and the prompt's logits
are eager's to float rounding (docs/calling.md, "Architectures"). Skipped without torch,
transformers and iree-turbine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly
from tests.frontends import architectures

needs_iree()
torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine.aot")
pytest.importorskip("transformers")
pytest.importorskip("transformers.integrations.executorch")

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

ROOT = Path(__file__).resolve().parents[2]

# The loops on the `.vmfb`s, with numpy and abi_compiler only: torch and transformers
# are refused on import.
WITHOUT_TORCH = """
import importlib.abc, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers"):
            raise ImportError(f"{name} is not installed here")
        return None

sys.meta_path.insert(0, Refuse())

import numpy as np
from abi_compiler import iree as abi_iree
from tests.frontends import architectures

step, prompt = abi_iree.load(sys.argv[1]), abi_iree.load(sys.argv[2])
by_step = architectures.greedy_steps(lambda i, p: step.main(input_ids=i, cache_position=p))
by_prompt, logits = architectures.greedy_prompt(
    lambda i, p: prompt.main(input_ids=i, cache_position=p)
)
np.save(sys.argv[3], logits)
print(json.dumps([by_step, by_prompt]))
"""


@pytest.mark.parametrize("name", architectures.ARCHITECTURES)
def test_the_vmfbs_generate_generates_tokens(name: str, tmp_path: Path) -> None:
    model = architectures.tiny_model(name)
    want = architectures.generate(model)
    assert len(want) == architectures.NEW_TOKENS  # no end of sequence on the way
    assert len(set(want)) > 6  # a model that says something
    step, prompt = architectures.export_step(model), architectures.export_prompt(model)
    eager = prompt.module()
    with torch.no_grad():
        eager_logits = eager(
            input_ids=torch.tensor([architectures.PROMPT]),
            cache_position=torch.arange(len(architectures.PROMPT)),
        ).numpy()
    paths = [tmp_path / "step.vmfb", tmp_path / "prompt.vmfb"]
    for path, program in zip(paths, (step, prompt), strict=True):
        path.write_bytes(compile_quietly(program, vmfb=True))
    logits_path = tmp_path / "logits.npy"
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH, *map(str, paths), str(logits_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    by_step, by_prompt = json.loads(done.stdout.splitlines()[-1])
    assert by_step == want
    assert by_prompt == want
    # Float rounding: a few units in the last place of the largest logit (before the tanh
    # GELU was rewritten, a Gemma's were 50 times that).
    scale = np.abs(eager_logits).max()
    np.testing.assert_allclose(np.load(logits_path), eager_logits, rtol=0, atol=4e-6 * scale)
