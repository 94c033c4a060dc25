"""Generation from a tiny Llama exported with transformers' recipe (a dynamic prompt
length: the whole prompt in one call) and compiled with its tokenizer: from the `.vmfb`
in a process that cannot import torch or transformers, `Module.generate` gives
`tokenizer.decode(model.generate(..., do_sample=False))` for 32 new tokens; the prompt's
logits in one call are eager torch's; a session continues a conversation as one call over
all of it would; `abi-compile --tokenizer` records the same job. The child process runs
with ``ABI_GENERATE_ONLY_PYTHON`` where it names a Python (a venv with only the `generate`
extra: docs/testing.md). Skipped without torch, transformers and iree-turbine."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.generation import fixtures

torch = fixtures.needs_the_recipe()
pytest.importorskip("jinja2")

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.call_model import Array, ValueRange  # noqa: E402
from abi_compiler.codecs.call_json import decode_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends.generation_job import PREFILL_CHUNK  # noqa: E402
from abi_compiler.generation import GenerationJob  # noqa: E402

pytestmark = [pytest.mark.filterwarnings(warning) for warning in fixtures.FRAMEWORK_WARNINGS]

PROMPTS = ["The quick brown fox", "Le café est très chaud, naïve", "日本語のテキスト 🙂"]
NEW_TOKENS = 32


class Built:
    def __init__(self, tmp: Path) -> None:
        self.tokenizer = fixtures.train_tokenizer()
        self.hf_tokenizer = fixtures.transformers_tokenizer(self.tokenizer)
        self.model = fixtures.tiny_llama(self.tokenizer.get_vocab_size())
        self.program = fixtures.export_prompt_recipe(self.model)
        # The prompt function and the step function on one cache.
        self.vmfb = fixtures.compile_for_generation(self.model, self.hf_tokenizer)
        self.path = tmp / "llama.vmfb"
        self.path.write_bytes(self.vmfb)
        self.module = abi_iree.load(self.vmfb)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return Built(tmp_path_factory.mktemp("llama"))


def test_generate_without_torch_gives_transformers_text(built: Built) -> None:
    calls: list[dict[str, Any]] = [
        {"prompt": prompt, "max_new_tokens": NEW_TOKENS} for prompt in PROMPTS
    ]
    ids = built.hf_tokenizer.encode(PROMPTS[0])
    calls.append({"prompt": ids, "max_new_tokens": NEW_TOKENS})
    got = fixtures.generate_without_torch(built.path, calls)
    for prompt, (text, reason) in zip(PROMPTS, got, strict=False):
        want = fixtures.hf_generate(built.model, built.hf_tokenizer.encode(prompt), NEW_TOKENS)
        assert len(set(want)) > 4  # not a degenerate model
        assert text == built.hf_tokenizer.decode(want, skip_special_tokens=True), prompt
        assert reason == ("eos" if fixtures.EOS in want else "length")
    assert got[-1][0] == fixtures.hf_generate(built.model, ids, NEW_TOKENS)


def test_the_prompt_in_one_call_gives_eager_logits(built: Built) -> None:
    ids = built.hf_tokenizer.encode(" ".join(PROMPTS))
    assert len(ids) > 20
    session = built.module.session()
    logits = np.asarray(session.main(input_ids=np.array([ids]), cache_position=np.arange(len(ids))))
    with torch.no_grad():
        eager = built.model(torch.tensor([ids])).logits.numpy()
    np.testing.assert_allclose(logits, eager, rtol=1e-4, atol=1e-5)
    # Then one token per call on the same cache: the next token's logits.
    following = np.asarray(
        session.main(input_ids=np.array([[7]]), cache_position=np.array([len(ids)]))
    )
    with torch.no_grad():
        eager = built.model(torch.tensor([[*ids, 7]])).logits.numpy()[:, -1:]
    np.testing.assert_allclose(following, eager, rtol=1e-4, atol=1e-5)


def test_the_prompt_goes_to_its_prefill_function(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recording the job beside the prompt program added its prefill function (the same
    program, the last position's logits only: docs/design.md, "Generation"), which the
    loop feeds the prompt to; `main` still returns every row."""
    module = built.module
    assert module.function_names == ["main", "step", "main_prefill"]
    job = GenerationJob.of(module)
    assert (job.function, job.step_function, job.prefill_function) == (
        "main",
        "step",
        "main_prefill",
    )
    ids = built.hf_tokenizer.encode(PROMPTS[1])
    positions = np.arange(len(ids))
    session = module.session()
    every = np.asarray(session.main(input_ids=np.array([ids]), cache_position=positions))
    last = np.asarray(session.main_prefill(input_ids=np.array([ids]), cache_position=positions))
    assert every.shape == (1, len(ids), job.vocabulary) and last.shape == (1, 1, job.vocabulary)
    np.testing.assert_allclose(last, every[:, -1:], rtol=1e-5, atol=1e-6)
    fed = fixtures.spy_on_feeds(monkeypatch)
    out = module.generate(ids, max_new_tokens=3)
    assert fed == [(len(ids), "main_prefill"), (1, "step"), (1, "step")]
    assert list(out) == fixtures.hf_generate(built.model, ids, 3)


#: A cache that holds more than one chunk (`PREFILL_CHUNK` tokens) of a prompt.
LONG_CACHE = 160


@pytest.fixture(scope="module")
def long(built: Built) -> tuple[Any, Any]:
    """A tiny Llama on a cache of `LONG_CACHE` positions and its module (the job records a
    chunk function), with the same tokenizer."""
    model = fixtures.tiny_llama(built.tokenizer.get_vocab_size(), positions=LONG_CACHE)
    vmfb = fixtures.compile_for_generation(model, built.hf_tokenizer, cache=LONG_CACHE)
    return model, abi_iree.load(vmfb)


def test_a_long_prompt_goes_a_chunk_at_a_time(
    long: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the prompt's length may reach `PREFILL_CHUNK`, recording the job added a chunk
    function too (the prefill function at that static length, docs/design.md,
    "Generation"): the loop feeds it a long prompt's whole chunks, the rest to the prefill
    function, and the tokens are transformers' — in a session continued past a chunk too."""
    model, module = long
    assert module.function_names == ["main", "step", "main_prefill", "main_chunk"]
    job = GenerationJob.of(module)
    assert (job.chunk_function, job.chunk_length) == ("main_chunk", PREFILL_CHUNK)
    ids = [(7 * i + 3) % 300 + 3 for i in range(150)]
    session = module.session()
    every = np.asarray(session.main(input_ids=np.array([ids[:128]]), cache_position=np.arange(128)))
    session.reset()
    last = session.main_chunk(input_ids=np.array([ids[:128]]), cache_position=np.arange(128))
    np.testing.assert_allclose(np.asarray(last), every[:, -1:], rtol=1e-5, atol=1e-6)
    fed = fixtures.spy_on_feeds(monkeypatch)
    assert list(module.generate(ids, max_new_tokens=3)) == fixtures.hf_generate(model, ids, 3)
    assert fed == [(128, "main_chunk"), (22, "main_prefill"), (1, "step"), (1, "step")]
    del fed[:]
    assert list(module.generate(ids[:128], max_new_tokens=2)) == fixtures.hf_generate(
        model, ids[:128], 2
    )
    assert fed == [(128, "main_chunk"), (1, "step")]
    # A session: 20 tokens, then 130 more after its answer (a chunk from position 21).
    del fed[:]
    session = module.session()
    answer = list(session.generate(ids[:20], max_new_tokens=2))
    conversation = [*ids[:20], *answer, *ids[20:150]]
    assert list(session.generate(ids[20:150], max_new_tokens=3)) == fixtures.hf_generate(
        model, conversation, 3
    )
    assert fed == [
        *((20, "main_prefill"), (1, "step")),
        *((128, "main_chunk"), (3, "main_prefill"), (1, "step"), (1, "step")),
    ]


def test_a_position_past_the_cache_is_refused_before_the_call(built: Built) -> None:
    """The prompt function (a dynamic prompt length: the frontend records no range of its
    positions) gets the job's cache as their range: a position at the cache's end is an
    `AbiError` naming it, before the module runs, and the session goes on."""

    def positions(function: Any) -> Any:
        found = dict(decode_call(function.reflection["abi.call"]).keywords)["cache_position"]
        assert isinstance(found, Array)
        return found.ranges

    assert positions(built.module.main) == (ValueRange(0, fixtures.CACHE - 1),)
    assert positions(built.module.main_prefill) == (ValueRange(0, fixtures.CACHE - 1),)
    # (the step function's one position was bounded by the frontend: kept as it is)
    assert positions(built.module.step) == (ValueRange(0, fixtures.CACHE - 1),)
    session = built.module.session()
    with pytest.raises(AbiError) as error:
        session.main(
            input_ids=np.array([[5, 7]]),
            cache_position=np.array([fixtures.CACHE - 1, fixtures.CACHE]),
        )
    assert str(error.value) == (
        "argument 'cache_position': value 64 at [1] is outside [0, 63]: the compiled module "
        "indexes a buffer with it"
    )
    logits = session.main(input_ids=np.array([[5]]), cache_position=np.array([0]))
    assert np.asarray(logits).shape == (1, 1, built.tokenizer.get_vocab_size())


def test_a_session_continues_as_one_call_over_the_conversation(built: Built) -> None:
    module = built.module
    session = module.session()
    first = session.generate(PROMPTS[0], max_new_tokens=6)
    second = session.generate(" et " + PROMPTS[1], max_new_tokens=6)
    conversation = [
        *built.hf_tokenizer.encode(PROMPTS[0]),
        *first.token_ids,
        *built.hf_tokenizer.encode(" et " + PROMPTS[1], add_special_tokens=False),
    ]
    whole = module.generate(conversation, max_new_tokens=6)
    assert second.token_ids == tuple(whole)
    assert second.token_ids == tuple(fixtures.hf_generate(built.model, conversation, 6))
    # Messages: the whole conversation each time; the session feeds what its cache lacks.
    turns = [{"role": "user", "content": PROMPTS[2]}]
    chat = module.session()
    answer = chat.generate(messages=turns, max_new_tokens=5)
    turns += [{"role": "assistant", "content": answer}, {"role": "user", "content": "Et ?"}]
    assert chat.generate(messages=turns, max_new_tokens=5) == module.generate(
        messages=turns, max_new_tokens=5
    )
    pieces = list(chat.generate(messages=turns, max_new_tokens=5, stream=True))
    assert "".join(pieces) == module.generate(messages=turns, max_new_tokens=5)


def test_a_tokenizer_of_another_model_is_refused(built: Built) -> None:
    small = fixtures.tiny_llama(200)
    program = fixtures.export_prompt_recipe(small, cache=16)
    with pytest.raises(AbiError) as error, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        abi_iree.compile_vmfb(program, tokenizer=built.hf_tokenizer)
    assert str(error.value) == (
        "the tokenizer's vocabulary (323 tokens) does not fit the model's embedding (200 "
        "token ids): not this model's tokenizer"
    )


def test_one_function_for_the_prompt_and_the_steps(built: Built) -> None:
    """The prompt program alone (its steps at its own speed: docs/design.md) records the
    job too, and gives the same text, and so does the one-token program alone; two
    functions that do not share their cache are refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = abi_iree.compile(built.program, tokenizer=built.hf_tokenizer)
        step = fixtures.export_step_recipe(built.model)
        with pytest.raises(AbiError) as error:
            abi_iree.compile_vmfb(
                {"main": built.program, "step": step}, tokenizer=built.hf_tokenizer
            )
    assert str(error.value) == (
        "cannot record a generation job: @main and @step do not share one cache (their "
        "state differs): compile them with shared_state=True (abi-compile --shared-state)"
    )
    want = built.module.generate(PROMPTS[0], max_new_tokens=12)
    assert module.generate(PROMPTS[0], max_new_tokens=12) == want
    # One token a call alone: the prompt is fed token by token.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps = abi_iree.compile(step, tokenizer=built.hf_tokenizer)
    assert GenerationJob.of(steps).prompt_tokens_per_call == 1
    assert steps.generate(PROMPTS[0], max_new_tokens=12) == want


def test_abi_compile_records_the_job(built: Built, tmp_path: Path) -> None:
    from abi_compiler.commands.compile_main import main as abi_compile

    torch.export.save(built.program, tmp_path / "model.pt2")
    folder = tmp_path / "tokenizer"
    path = fixtures.save_tokenizer(built.tokenizer, folder)
    config = tmp_path / "generation_config.json"
    config.write_text('{"eos_token_id": 1, "max_new_tokens": 9}')
    out = tmp_path / "model.vmfb"
    argv = [str(tmp_path / "model.pt2"), "-o", str(out), "-q", "--tokenizer", str(path)]
    assert abi_compile([*argv, "--generation-config", str(config)]) == 0
    module = abi_iree.load(out)
    got = module.generate(PROMPTS[1])
    assert got == built.module.generate(PROMPTS[1], max_new_tokens=9)
    assert len(got.token_ids) == 9 or got.finish_reason == "eos"
    assert abi_compile([*argv[:-1], str(tmp_path / "missing.json")]) == 1
