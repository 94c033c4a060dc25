"""`Module.generate` and `abi-generate` on a language model written in MLIR (no
framework: what CI runs), compiled with a tokenizer trained in the test: the recorded job,
greedy tokens and text, streaming, stop strings, the end of the cache, the chat template,
sessions, seeded sampling, and every bad input refused with an `AbiError`
(docs/calling.md, "Generating text")."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.generation import fixtures

needs_iree()
pytest.importorskip("tokenizers")
pytest.importorskip("jinja2")

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.generation import GenerationJob  # noqa: E402

CACHE = fixtures.CACHE


def _compile(text: str, **options: Any) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        vmfb: bytes = abi_iree.compile_vmfb(text, pipeline=None, **options)
        return vmfb


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return fixtures.train_tokenizer()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, tokenizer: Any) -> Path:
    path: Path = tmp_path_factory.mktemp("generation")
    fixtures.save_tokenizer(tokenizer, path / "tokenizer")
    fixtures.save_tokenizer(tokenizer, path / "plain", chat_template=None)
    return path


PROMPT = [0, 5, 9]


@pytest.fixture(scope="module")
def eos(tokenizer: Any) -> int:
    """An end-of-sequence id the MLIR model reaches 12 tokens after `PROMPT`."""
    ahead = fixtures.rule_tokens(PROMPT, 13, tokenizer.get_vocab_size())
    assert ahead[12] not in ahead[:12]
    return ahead[12]


@pytest.fixture(scope="module")
def vmfb(folder: Path, tokenizer: Any, eos: int) -> Path:
    data = _compile(
        fixtures.mlir_model(tokenizer.get_vocab_size()),
        tokenizer=folder / "tokenizer" / "tokenizer.json",
        generation_config={"eos_token_id": eos, "max_new_tokens": 20},
    )
    path = folder / "model.vmfb"
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def module(vmfb: Path) -> Any:
    return abi_iree.load(vmfb)


def _rule(ids: list[int], count: int, tokenizer: Any, eos: tuple[int, ...] = ()) -> list[int]:
    return fixtures.rule_tokens(ids, count, tokenizer.get_vocab_size(), eos)


def test_the_recorded_job(module: Any, tokenizer: Any, eos: int) -> None:
    job = GenerationJob.of(module)
    assert GenerationJob.of(module) is job  # read once
    assert (job.function, job.ids, job.positions) == ("main", "input_ids", "cache_position")
    assert (job.cache_length, job.vocabulary, job.eos_ids) == (CACHE, 323, (eos,))
    assert job.defaults == {"max_new_tokens": 20}
    assert job.prompt_tokens_per_call is None  # a whole prompt in one call
    assert job.chat_template == fixtures.CHAT_TEMPLATE
    assert job.special_tokens == {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"}
    assert job.tokenizer.to_str() == tokenizer.to_str()


def test_token_ids_in_token_ids_out(module: Any, tokenizer: Any, eos: int) -> None:
    out = module.generate(PROMPT, max_new_tokens=8)
    assert isinstance(out, tuple) and type(out).__name__ == "GeneratedTokens"
    assert list(out) == _rule(PROMPT, 8, tokenizer)
    assert out.finish_reason == "length"
    # The recorded default (20 tokens) and the end of sequence after 12.
    ended = module.generate(np.array(PROMPT))
    assert list(ended) == _rule(PROMPT, 20, tokenizer, (eos,))
    assert len(ended) == 12 and ended.finish_reason == "eos"
    # A stop id ends it too; a token prompt streams ids.
    stop = _rule(PROMPT, 4, tokenizer)[3]
    stopped = module.generate(PROMPT, max_new_tokens=8, stop=[stop])
    assert (list(stopped), stopped.finish_reason) == (_rule(PROMPT, 3, tokenizer), "stop")
    stream = module.generate(PROMPT, max_new_tokens=5, stream=True)
    assert stream.finish_reason is None
    assert list(stream) == _rule(PROMPT, 5, tokenizer)
    assert stream.finish_reason == "length"
    assert module.generate(PROMPT, max_new_tokens=0) == ()


def test_text_in_text_out(module: Any, tokenizer: Any) -> None:
    prompt = "Le café 日本語 🙂"
    ids = tokenizer.encode(prompt).ids
    assert ids[0] == fixtures.BOS  # (the tokenizer's post-processor adds it)
    want = _rule(ids, 16, tokenizer)
    out = module.generate(prompt, max_new_tokens=16)
    assert isinstance(out, str) and type(out).__name__ == "GeneratedText"
    assert out == tokenizer.decode(want, skip_special_tokens=True)
    assert out.token_ids == tuple(want) and out.finish_reason == "length"
    stream = module.generate(prompt, max_new_tokens=16, stream=True)
    pieces = list(stream)
    assert "".join(pieces) == out and all(pieces) and stream.finish_reason == "length"
    assert stream.token_ids == tuple(want)
    # A stop string: the text ends before it.
    stop = out[4:7]
    cut = module.generate(prompt, max_new_tokens=16, stop=[stop])
    assert cut == out[: out.find(stop)] and cut.finish_reason == "stop"
    assert "".join(module.generate(prompt, max_new_tokens=16, stop=stop, stream=True)) == cut


def test_the_end_of_the_cache(module: Any, tokenizer: Any) -> None:
    """A prompt of 61 tokens in a cache of 64 leaves 3 positions: 4 new tokens (the last
    one chosen from the logits of the last position), finish_reason "cache"; a full
    cache gives 1; one more token of prompt is refused."""
    prompt = [(3 * i) % 300 for i in range(CACHE - 3)]
    out = module.generate(prompt, max_new_tokens=10)
    assert list(out) == _rule(prompt, 4, tokenizer) and out.finish_reason == "cache"
    full = module.generate([*prompt, 1, 2, 3], max_new_tokens=10)
    assert len(full) == 1 and full.finish_reason == "cache"
    assert module.generate(prompt, max_new_tokens=4).finish_reason == "length"
    with pytest.raises(AbiError) as error:
        module.generate([*prompt, 1, 2, 3, 4])
    assert str(error.value) == (
        "the prompt (65 tokens) does not fit the model's cache (64 positions)"
    )


def test_messages_through_the_chat_template(module: Any, tokenizer: Any) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Bonjour, ça va ?"},
    ]
    job = GenerationJob.of(module)
    rendered = job.render(messages)
    assert rendered == "<s><|system|>Be brief.</s><|user|>Bonjour, ça va ?</s><|assistant|>"
    ids = tokenizer.encode(rendered, add_special_tokens=False).ids
    assert ids[0] == fixtures.BOS and ids.count(fixtures.BOS) == 1
    out = module.generate(messages=messages, max_new_tokens=6)
    assert out.token_ids == tuple(_rule(ids, 6, tokenizer))


def test_a_session_continues_its_conversation(
    module: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fed = fixtures.spy_on_feeds(monkeypatch)
    session = module.session()
    first = session.generate(PROMPT, max_new_tokens=5)
    second = session.generate([7, 8], max_new_tokens=5)
    # The prompt in one call, 4 steps; then only the last answer token and the new
    # prompt (3 tokens) in one call: what the cache holds is not fed again.
    assert fed == [(3, "main"), *[(1, "main")] * 4, (3, "main"), *[(1, "main")] * 4]
    whole = module.generate(PROMPT + list(first) + [7, 8], max_new_tokens=5)
    assert second == whole and list(second) == _rule(PROMPT + list(first) + [7, 8], 5, tokenizer)
    text = session.generate(" et puis", max_new_tokens=4)
    assert text.token_ids == tuple(
        _rule(
            PROMPT
            + list(first)
            + [7, 8]
            + list(second)
            + tokenizer.encode(" et puis", add_special_tokens=False).ids,
            4,
            tokenizer,
        )
    )
    session.reset()  # a new cache: the conversation starts over
    assert session.generate(PROMPT, max_new_tokens=5) == first
    # A stream never read feeds nothing: the conversation goes on without it.
    session.generate([7], stream=True)
    after = session.generate([8], max_new_tokens=3)
    assert list(after) == _rule([*PROMPT, *first, 8], 3, tokenizer)


def test_a_stream_ends_when_another_generation_starts(module: Any) -> None:
    stream = module.generate(PROMPT, max_new_tokens=5, stream=True)
    next(stream)
    module.generate(PROMPT, max_new_tokens=2)
    with pytest.raises(AbiError) as error:
        list(stream)
    assert str(error.value) == (
        "another generation on this module or session has started since: this stream cannot go on"
    )


def test_sampling_repeats_with_a_seed(module: Any) -> None:
    first = module.generate("Le café", do_sample=True, temperature=2.0, seed=3, max_new_tokens=12)
    again = module.generate("Le café", do_sample=True, temperature=2.0, seed=3, max_new_tokens=12)
    other = module.generate("Le café", do_sample=True, temperature=2.0, seed=4, max_new_tokens=12)
    assert first == again and first.token_ids == again.token_ids
    assert first.token_ids != other.token_ids
    greedy = module.generate("Le café", max_new_tokens=12)
    assert first.token_ids != greedy.token_ids
    top1 = module.generate("Le café", do_sample=True, top_k=1, seed=9, max_new_tokens=12)
    assert top1 == greedy and top1.token_ids == greedy.token_ids


BAD_CALLS = [
    ({"prompt": None}, "generate: give a prompt (text or token ids) or messages"),
    ({"prompt": []}, "the prompt is empty (no token to start from)"),
    ({"prompt": b"hi"}, "prompt: expected text (str) or token ids (a sequence of ints), got bytes"),
    ({"prompt": [1.5]}, "prompt: expected token ids (a sequence of ints)"),
    ({"prompt": [1, 323]}, "prompt[1]: token id 323 is outside the vocabulary [0, 322]"),
    (
        {"prompt": "a", "messages": [{"role": "user", "content": "b"}]},
        "give a prompt or messages, not both",
    ),
    ({"messages": "hi"}, "messages: expected a list of {'role', 'content'} mappings, got str"),
    ({"messages": [{"role": "user"}]}, "messages[0]: expected a 'role' and a 'content' (strings)"),
    ({"prompt": [1], "max_new_tokens": -1}, "max_new_tokens: expected a non-negative int, got -1"),
    (
        {"prompt": [1], "do_sample": True, "temperature": 0},
        "temperature: expected a positive number, got 0",
    ),
    ({"prompt": [1], "top_k": 0}, "top_k: expected a positive int, got 0"),
    ({"prompt": [1], "top_p": 1.5}, "top_p: expected a number in (0, 1], got 1.5"),
    ({"prompt": [1], "seed": -1}, "seed: expected a non-negative int, got -1"),
    (
        {"prompt": [1], "stop": ["x"]},
        "stop: expected token ids, got 'x' (a token prompt stops at token ids)",
    ),
    ({"prompt": "a", "stop": [3]}, "stop: expected strings, got 3"),
]


@pytest.mark.parametrize(("call", "message"), BAD_CALLS, ids=[m for _, m in BAD_CALLS])
def test_bad_calls(module: Any, call: dict[str, Any], message: str) -> None:
    options = dict(call)
    prompt = options.pop("prompt", None)
    with pytest.raises(AbiError) as error:
        module.generate(prompt, **options)
    assert str(error.value) == message


def test_the_job_bounds_the_positions_to_the_cache() -> None:
    """A prompt function whose original call bounds no position (the recipe's program of
    a dynamic prompt length, as the torch frontend records it) gets the job's cache as
    their range: a direct call with a position past the cache is refused before it runs.
    Without the job nothing bounds them."""
    text = fixtures.mlir_model(300, position_ranges=False)
    ids = np.array([[5, 6]])
    bare = abi_iree.load(_compile(text))
    assert bare.main(input_ids=ids, cache_position=np.array([CACHE - 1, CACHE])).shape == (
        1,
        2,
        300,
    )
    module = abi_iree.load(_compile(text, generation=True))
    for positions, where in (([CACHE - 1, CACHE], "value 64 at [1]"), ([-1, 0], "value -1 at [0]")):
        with pytest.raises(AbiError) as error:
            module.main(input_ids=ids, cache_position=np.array(positions))
        assert str(error.value).startswith(
            f"argument 'cache_position': {where} is outside [0, 63]: "
        ), str(error.value)
    logits = module.main(input_ids=ids, cache_position=np.array([CACHE - 2, CACHE - 1]))
    a, b, c = fixtures.RULE
    assert int(np.argmax(logits[0, -1])) == (a * 6 + b * (CACHE - 1) + c) % 300


def test_a_module_without_a_job_or_template(folder: Path, tokenizer: Any) -> None:
    bare = abi_iree.load(_compile(fixtures.mlir_model(tokenizer.get_vocab_size())))
    with pytest.raises(AbiError) as error:
        bare.generate([1, 2])
    assert str(error.value) == (
        "module 'module' records no generation job ('abi.generation'): compile the model "
        "with compile_vmfb(program, tokenizer=…) or abi-compile --tokenizer"
    )
    # Token ids only: no tokenizer; no chat template.
    ids_only = abi_iree.load(
        _compile(fixtures.mlir_model(tokenizer.get_vocab_size()), generation=True)
    )
    assert list(ids_only.generate(PROMPT, max_new_tokens=3)) == _rule(PROMPT, 3, tokenizer)
    with pytest.raises(AbiError) as error:
        ids_only.generate("hi")
    assert str(error.value) == (
        "the module records no tokenizer: give token ids, or compile it with tokenizer=…"
    )
    plain = abi_iree.load(
        _compile(
            fixtures.mlir_model(tokenizer.get_vocab_size()),
            tokenizer=folder / "plain" / "tokenizer.json",
        )
    )
    with pytest.raises(AbiError) as error:
        plain.generate(messages=[{"role": "user", "content": "hi"}])
    assert str(error.value) == "the module records no chat template: give a prompt, not messages"


def test_what_compiling_refuses(folder: Path, tokenizer: Any) -> None:
    path = folder / "tokenizer" / "tokenizer.json"
    with pytest.raises(AbiError) as error:
        _compile(fixtures.mlir_model(300), tokenizer=path)
    assert str(error.value) == (
        "the tokenizer's vocabulary (323 tokens) does not fit the model's embedding (300 "
        "token ids): not this model's tokenizer"
    )
    text = fixtures.mlir_model(323).replace("\\22input_ids\\22", "\\22tokens\\22")
    with pytest.raises(AbiError) as error:
        _compile(text, tokenizer=path)
    assert str(error.value) == (
        "cannot record a generation job: no exported function takes the token ids "
        "'input_ids' and their positions 'cache_position' and returns the logits (@main: it "
        "takes no arrays 'input_ids' and 'cache_position' by keyword)"
    )
    with pytest.raises(AbiError) as error:
        _compile(fixtures.mlir_model(323), generation_config={"eos_token_id": 400})
    assert str(error.value) == (
        "the end-of-sequence id 400 is outside the model's vocabulary [0, 322]"
    )
    with pytest.raises(AbiError) as error:
        _compile(fixtures.mlir_model(323), generation_config={"top_k": "many"})
    assert str(error.value) == 'generation_config: "defaults"."top_k": expected int'


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('{"v":1}', '"ids": expected an argument name (a non-empty string)'),
        (
            '{"v":1,"ids":"input_ids","positions":"cache_position","cache":8,"vocabulary":323,'
            '"tokenizer":{"bytes":3,"sha256":"' + "ab" * 32 + '","vocabulary":3}}',
            "the module records a tokenizer but has no 'abi.tokenizer' entry",
        ),
        (
            '{"v":1,"ids":"tokens","positions":"cache_position","cache":8,"vocabulary":323}',
            "the function takes no array 'tokens' by keyword",
        ),
        (
            '{"v":1,"ids":"input_ids","positions":"cache_position","cache":64,'
            '"vocabulary":323,"prefill":"nowhere"}',
            '"prefill": the module exports no function @nowhere',
        ),
        (
            '{"v":1,"ids":"input_ids","positions":"cache_position","cache":64,'
            '"vocabulary":323,"prefill":"main","chunk":"nowhere"}',
            '"chunk": the module exports no function @nowhere',
        ),
        (
            '{"v":1,"ids":"input_ids","positions":"cache_position","cache":64,'
            '"vocabulary":323,"prefill":"main","chunk":"main"}',
            '"chunk": @main does not take a static number of tokens in [2, 64] a call',
        ),
    ],
)
def test_a_malformed_recorded_job(tokenizer: Any, entry: str, message: str) -> None:
    quoted = entry.replace('"', "\\22")
    text = fixtures.mlir_model(323).replace(
        "abi.call =", f'abi.generation = "{quoted}", abi.call =', 1
    )
    module = abi_iree.load(_compile(text))
    with pytest.raises(AbiError) as error:
        module.generate([1])
    assert str(error.value) == f"function @main: malformed reflection 'abi.generation': {message}"


def test_a_prefill_function_that_takes_the_prompt_otherwise() -> None:
    """A recorded prefill function must take a prompt as the job's function does (here
    at most 8 tokens a call, where @main takes up to the cache's 64)."""
    entry = (
        '{"v":1,"ids":"input_ids","positions":"cache_position","cache":64,'
        '"vocabulary":323,"prefill":"short"}'
    ).replace('"', "\\22")
    main = fixtures.mlir_model(323).replace(
        "abi.call =", f'abi.generation = "{entry}", abi.call =', 1
    )
    short = fixtures.mlir_model(323).replace("[\\22seq\\22,1,64]", "[\\22seq\\22,1,8]")
    assert short != fixtures.mlir_model(323)
    module = abi_iree.load(_compile({"main": main, "short": short}))
    with pytest.raises(AbiError) as error:
        module.generate([1])
    assert str(error.value) == (
        "function @main: malformed reflection 'abi.generation': \"prefill\": @short does "
        "not take the prompt as @main does"
    )


def test_abi_sig_show_prints_the_job(
    vmfb: Path, folder: Path, eos: int, capsys: pytest.CaptureFixture[str]
) -> None:
    from abi_compiler.commands.sig_main import main as abi_sig

    assert abi_sig(["show", str(vmfb)]) == 0
    lines = capsys.readouterr().out.splitlines()
    size = (folder / "tokenizer" / "tokenizer.json").stat().st_size
    # The function's lines, then the module's (its targets: docs/formats.md).
    targets = next(i for i, line in enumerate(lines) if line.startswith("targets: "))
    assert lines[targets - 1] == (
        f"  generation: ids input_ids, positions cache_position, cache 64, vocabulary 323, "
        f"eos [{eos}], defaults max_new_tokens=20, tokenizer {size} bytes (323 tokens), "
        "chat template"
    )
    assert abi_sig(["show", "--format", "json", str(vmfb)]) == 0
    shown = json.loads(capsys.readouterr().out)["files"][0]["functions"][0]["generation"]
    assert shown["cache"] == 64 and shown["eos"] == [eos]


def _abi_generate(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    import contextlib
    import sys

    from abi_compiler.commands.generate_main import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        sys.stdin = old
    return status, out.getvalue(), err.getvalue()


def test_abi_generate(vmfb: Path, module: Any, folder: Path, tokenizer: Any) -> None:
    want = module.generate("Le café", max_new_tokens=10)
    assert _abi_generate([str(vmfb), "Le café", "--max-new-tokens", "10"]) == (0, want + "\n", "")
    sampled = module.generate("Le café", max_new_tokens=10, do_sample=True, temperature=1.5, seed=2)
    assert _abi_generate(
        [str(vmfb), "Le café", "--max-new-tokens", "10", "--temperature", "1.5", "--seed", "2"]
    ) == (0, sampled + "\n", "")
    # --chat: each line a user turn, answered in one session.
    turns = [{"role": "user", "content": "Bonjour"}]
    first = module.generate(messages=turns, max_new_tokens=4)
    turns += [{"role": "assistant", "content": first}, {"role": "user", "content": "Et toi ?"}]
    second = module.generate(messages=turns, max_new_tokens=4)
    status, out, _ = _abi_generate(
        [str(vmfb), "--chat", "--max-new-tokens", "4"], "Bonjour\n\nEt toi ?\n"
    )
    assert (status, out) == (0, f"{first}\n{second}\n")
    long = " ".join(["café"] * 80)
    assert _abi_generate([str(vmfb), long]) == (
        1,
        "",
        f"abi-generate: error: the prompt ({len(tokenizer.encode(long).ids)} tokens) does not "
        "fit the model's cache (64 positions)\n",
    )
    bare = folder / "bare.vmfb"
    bare.write_bytes(_compile(fixtures.mlir_model(323)))
    status, out, err = _abi_generate([str(bare), "hi"])
    assert (status, out) == (1, "")
    assert err.startswith("abi-generate: error: module 'module' records no generation job")
    assert _abi_generate([str(vmfb)])[2] == (
        "abi-generate: error: give a PROMPT or --chat (turns on stdin)\n"
    )
    status, _, err = _abi_generate([str(vmfb), "x", "--top-p", "2"])
    assert (status, err) == (
        1,
        "abi-generate: error: top_p: expected a number in (0, 1], got 2.0\n",
    )


def test_abi_compile_records_the_job_of_mlir(
    folder: Path, tokenizer: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from abi_compiler.commands.compile_main import main as abi_compile

    source = tmp_path / "model.mlir"
    source.write_text(fixtures.mlir_model(323))
    config = tmp_path / "generation_config.json"
    config.write_text('{"eos_token_id": [1, 2], "do_sample": false}')
    out = tmp_path / "model.vmfb"
    path = str(folder / "tokenizer" / "tokenizer.json")
    argv = [str(source), "-o", str(out), "-q", "--tokenizer", path]
    assert abi_compile([*argv, "--generation-config", str(config)]) == 0
    job = GenerationJob.of(abi_iree.load(out))
    assert (job.eos_ids, job.defaults, job.has_tokenizer) == ((1, 2), {"do_sample": False}, True)
    capsys.readouterr()
    small = tmp_path / "small.mlir"
    small.write_text(fixtures.mlir_model(300))
    refused = tmp_path / "refused.vmfb"
    assert abi_compile([str(small), "-o", str(refused), "-q", "--tokenizer", path]) == 1
    assert capsys.readouterr().err == (
        "abi-compile: error: the tokenizer's vocabulary (323 tokens) does not fit the "
        "model's embedding (300 token ids): not this model's tokenizer\n"
    )
    assert not refused.exists()
    assert abi_compile([str(small), "-o", str(refused), "--tokenizer", "missing.json"]) == 1
    assert (
        capsys.readouterr().err == "abi-compile: error: cannot read 'missing.json': no such file\n"
    )


def test_a_tokenizer_of_megabytes() -> None:
    """A `tokenizer.json` of 2 MB (a word-level vocabulary of 120 000 words) travels in the
    module's reflection and generates text (docs/design.md, "Generation")."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = 120_000
    big = Tokenizer(models.WordLevel({f"wörd{i}": i for i in range(words)}, unk_token="wörd0"))
    big.pre_tokenizer = pre_tokenizers.Whitespace()
    assert len(big.to_str().encode()) > 2_000_000
    module = abi_iree.load(_compile(fixtures.mlir_model(words), tokenizer=big))
    out = module.generate("wörd5 wörd7", max_new_tokens=4)
    want = fixtures.rule_tokens([5, 7], 4, words)
    assert out.token_ids == tuple(want)
    assert out == " ".join(f"wörd{i}" for i in want)


def test_a_function_named_generate_comes_first(tokenizer: Any) -> None:
    """A module that exports its own `generate` keeps it as `module.generate` (its
    functions come first); the generation package still generates from it."""
    from abi_compiler.generation import generate

    text = fixtures.mlir_model(323).replace("func.func @main(", "func.func @generate(")
    module = abi_iree.load(_compile(text, generation=True))
    assert module.generate.__name__ == "generate" and module.generate.convention == "v1"
    logits = module.generate(input_ids=np.array([[5]]), cache_position=np.array([0]))
    assert int(np.argmax(logits[0, -1])) == _rule([5], 1, tokenizer)[0]
    assert list(generate(module, PROMPT, max_new_tokens=3)) == _rule(PROMPT, 3, tokenizer)
    session = module.session()
    assert session.generate.__name__ == "generate"
    assert list(generate(session, PROMPT, max_new_tokens=3)) == _rule(PROMPT, 3, tokenizer)
