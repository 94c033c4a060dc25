"""Every decoder-only architecture of tests/frontends/architectures.py (Llama, GPT-2,
Qwen2, Mistral, Phi-3 with and without LongRoPE, Gemma, Gemma 2, Gemma 3, Qwen3), exported
with transformers' recipe as the generation `.vmfb` is compiled (the prompt in one call and
one token a call on one cache, the test tokenizer and the generation config inside:
tests/generation/fixtures.py), each compiled once for the file:

* in a child process where importing torch or transformers raises (a `sys.meta_path`
  finder installed before anything else), `module.generate(prompt, max_new_tokens=32,
  do_sample=False)` from the `.vmfb` gives exactly `tokenizer.decode(model.generate(ids,
  max_new_tokens=32, do_sample=False)[new tokens], skip_special_tokens=True)`, computed
  here, and stops for the same reason;
* here, the prompt function's logits are eager's to float rounding, and the one-token
  function fed the prompt token by token gives `generate`'s tokens.

With ``ABI_GENERATE_ONLY_PYTHON=/path/to/venv/bin/python`` (a venv with only
``pip install 'abi-compiler[generate]'``, not editable) the child runs with that Python in
isolated mode beside the `.vmfb`, and must import the installed package, not this checkout
(docs/testing.md). Skipped without torch, transformers and iree-turbine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.frontends import architectures
from tests.generation import fixtures

torch = fixtures.needs_the_recipe()

from abi_compiler import iree as abi_iree  # noqa: E402

pytestmark = [pytest.mark.filterwarnings(warning) for warning in fixtures.FRAMEWORK_WARNINGS]

#: 13 tokens with the BOS: longer than a sliding window (8), and with 32 new tokens below
#: the position where LongRoPE switches to its long factors (48).
PROMPT = "The quick brown fox"


class Built:
    """One architecture's model, its `.vmfb` (written to ``tmp``) and the text transformers
    generates from `PROMPT`."""

    def __init__(self, name: str, tokenizer: Any, tmp: Path) -> None:
        self.ids: list[int] = tokenizer.encode(PROMPT)
        self.model = architectures.tiny_model(name, len(tokenizer))
        self.want = fixtures.hf_generate(self.model, self.ids, architectures.NEW_TOKENS)
        self.text = tokenizer.decode(self.want, skip_special_tokens=True)
        self.programs = fixtures.generation_programs(self.model)
        self.path = tmp / f"{name}.vmfb"
        vmfb = fixtures.compile_for_generation(self.model, tokenizer, programs=self.programs)
        self.path.write_bytes(vmfb)


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return fixtures.transformers_tokenizer(fixtures.train_tokenizer())


@pytest.fixture(scope="module", params=architectures.ARCHITECTURES)
def built(request: pytest.FixtureRequest, tokenizer: Any, tmp_path_factory: Any) -> Built:
    return Built(request.param, tokenizer, tmp_path_factory.mktemp(request.param))


def test_generate_from_the_vmfb_without_torch_gives_transformers_text(built: Built) -> None:
    assert architectures.WINDOW < len(built.ids) <= 13
    assert len(built.want) == architectures.NEW_TOKENS  # no end of sequence on the way
    assert len(set(built.want)) > 6  # a model that says something
    call = {"prompt": PROMPT, "max_new_tokens": architectures.NEW_TOKENS, "do_sample": False}
    [(text, reason)] = fixtures.generate_without_torch(built.path, [call])
    assert text == built.text
    assert reason == "length"


def test_the_functions_give_eager_logits_and_generate_tokens(built: Built) -> None:
    module = abi_iree.load(built.path)
    ids = np.array([built.ids])
    positions = np.arange(len(built.ids))
    logits = np.asarray(module.session().main(input_ids=ids, cache_position=positions))
    eager = built.programs["main"].module()
    with torch.no_grad():
        want = eager(input_ids=torch.from_numpy(ids), cache_position=torch.from_numpy(positions))
    # Float rounding: a few units in the last place of the largest logit (before the tanh
    # GELU was rewritten, a Gemma's were 50 times that).
    scale = np.abs(want.numpy()).max()
    np.testing.assert_allclose(logits, want.numpy(), rtol=0, atol=4e-6 * scale)
    step = module.session().step
    tokens = architectures.greedy_steps(lambda i, p: step(input_ids=i, cache_position=p), built.ids)
    assert tokens == built.want
    # The prompt's prefill function (docs/design.md, "Generation"): the
    # last row of those logits, found through each architecture's head (Gemma's capping).
    last = np.asarray(module.session().main_prefill(input_ids=ids, cache_position=positions))
    np.testing.assert_allclose(last, want.numpy()[:, -1:], rtol=0, atol=4e-6 * scale)


#: A cache that holds more than a chunk of a prompt (`PREFILL_CHUNK`), and a prompt longer
#: than a chunk: its first 128 tokens go to the chunk function, the rest to the prefill one.
LONG_CACHE, LONG_PROMPT = 160, 150


@pytest.mark.parametrize("name", ["gpt2", "mistral", "gemma3"])
def test_a_long_prompt_in_chunks_generates_transformers_tokens(name: str) -> None:
    """The chunk function (the prefill function exported again at a static length:
    docs/design.md, "Generation") of architectures whose positions work otherwise
    (GPT-2's learned positions, Mistral's sliding window, Gemma 3's sliding and full
    layers): a prompt fed a chunk and a rest, then steps, gives transformers' tokens."""
    model = architectures.tiny_model(name, positions=LONG_CACHE)
    module = abi_iree.load(fixtures.compile_for_generation(model, None, cache=LONG_CACHE))
    assert module.function_names == ["main", "step", "main_prefill", "main_chunk"]
    ids = [(7 * i + 3) % 150 + 3 for i in range(LONG_PROMPT)]
    assert list(module.generate(ids, max_new_tokens=8)) == fixtures.hf_generate(model, ids, 8)
