"""Greedy generation from transformers' own export recipe for a decoder-only LM
(`TorchExportableModuleForDecoderOnlyLM`: a static KV cache in the module's buffers,
updated by each call), compiled: one call per token, `cache_position` counting up, gives
`generate(do_sample=False)`'s tokens (docs/calling.md, "Generation with a KV cache
(torch)"). Skipped without torch, transformers and iree-turbine."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()
torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine.aot")
transformers = pytest.importorskip("transformers")
executorch = pytest.importorskip("transformers.integrations.executorch")

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

ROOT = Path(__file__).resolve().parents[2]
CACHE = 32
PROMPT = [3, 14, 15, 9, 26]
NEW_TOKENS = 16


def _example() -> Any:
    """examples/generate_llm.py as a module: its tiny models are the ones tested here."""
    spec = importlib.util.spec_from_file_location(
        "generate_llm", ROOT / "examples" / "generate_llm.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _model(kind: str) -> Any:
    """A tiny `LlamaForCausalLM` or `GPT2LMHeadModel` with seeded random weights, set up
    for the recipe's static cache (the example's)."""
    return _example().tiny_model(kind)


def _export(model: Any) -> Any:
    recipe = executorch.TorchExportableModuleForDecoderOnlyLM(
        model, batch_size=1, max_cache_len=CACHE
    )
    return recipe.export(
        input_ids=torch.tensor([[1]], dtype=torch.long),
        cache_position=torch.tensor([0], dtype=torch.long),
    )


def _greedy(step: Any) -> list[int]:
    """One call per token: the prompt's, then each new one's; the argmax of the last
    logits is the next token."""
    tokens: list[int] = []
    for position in range(len(PROMPT) + NEW_TOKENS - 1):
        token = PROMPT[position] if position < len(PROMPT) else tokens[-1]
        logits = step(torch.tensor([[token]]), torch.tensor([position]))
        if position >= len(PROMPT) - 1:
            tokens.append(int(np.asarray(logits)[0, -1].argmax()))
    return tokens


def _generate(model: Any) -> list[int]:
    with torch.no_grad():
        out = model.generate(
            torch.tensor([PROMPT]),
            max_new_tokens=NEW_TOKENS,
            min_new_tokens=NEW_TOKENS,
            do_sample=False,
        )
    return [int(token) for token in out[0, len(PROMPT) :]]


@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_compiled_greedy_loop_gives_generates_tokens(kind: str) -> None:
    model = _model(kind)
    program = _export(model)
    want = _generate(model)
    assert len(set(want)) > 2  # not a degenerate model
    eager = _greedy(lambda i, p: program.module()(input_ids=i, cache_position=p).detach())
    assert eager == want
    compiled = compile_quietly(program)
    assert _greedy(lambda i, p: compiled.main(input_ids=i, cache_position=p)) == want
    # A second sequence on the same module starts again at position 0: what the first
    # left past the current position is masked.
    assert _greedy(lambda i, p: compiled.main(input_ids=i, cache_position=p)) == want


def test_a_steps_attention_reads_the_cache_heads_once() -> None:
    """Each step's attention is written out on the 2 key and value heads themselves, the
    2 query heads of a group as rows (no copy of the cache per group, no
    `iree_linalg_ext.attention`), over the keys the mask allows (a length known at run
    time): docs/calling.md, "What the torch frontend rewrites"."""
    from abi_compiler.frontends import torch as torch_frontend

    text = torch_frontend.program(_export(_model("llama"))).mlir
    assert "iree_linalg_ext.attention" not in text
    assert f"tensor<1x4x{CACHE}x8xf32>" not in text  # a repeated cache
    assert "tensor<1x2x2x?xf32>" in text  # the scores of a layer


def test_the_cache_is_the_modules_state() -> None:
    """The mutated buffers are mutable globals the calls load and store (not constants,
    not dropped): a second loop on the same loaded module starts from the first's cache,
    and stepping the same position twice gives the same logits (the write overwrites)."""
    from abi_compiler.frontends import torch as torch_frontend

    program = _export(_model("llama"))
    text = torch_frontend.program(program).mlir
    assert "util.global private mutable" in text
    assert "util.global.store" in text
    compiled = compile_quietly(program)
    first = np.asarray(
        compiled.main(input_ids=torch.tensor([[5]]), cache_position=torch.tensor([0]))
    )
    again = np.asarray(
        compiled.main(input_ids=torch.tensor([[5]]), cache_position=torch.tensor([0]))
    )
    np.testing.assert_array_equal(first, again)
    other = np.asarray(
        compiled.main(input_ids=torch.tensor([[7]]), cache_position=torch.tensor([0]))
    )
    after = np.asarray(
        compiled.main(input_ids=torch.tensor([[5]]), cache_position=torch.tensor([1]))
    )
    # Position 1 attends to position 0's keys: what was last written there (token 7).
    eager = program.module()
    eager(input_ids=torch.tensor([[7]]), cache_position=torch.tensor([0]))
    want = eager(input_ids=torch.tensor([[5]]), cache_position=torch.tensor([1])).detach().numpy()
    np.testing.assert_allclose(after, want, rtol=1e-4, atol=1e-5)
    assert not np.allclose(other, first)


def test_the_example_generates_without_torch() -> None:
    """examples/generate_llm.py: `compile_vmfb` of the prompt and step functions with the
    tokenizer, then `module.generate` from the `.vmfb` in a process that cannot import
    torch or transformers, checked against `generate`'s decoded text, and a prompt past
    the cache refused."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "generate_llm.py"), "--model", "gpt2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "the texts match"
    # The server's prompt past the cache was refused, from the `.vmfb`, without torch.
    assert (
        "a prompt past the cache: the prompt (400 tokens) does not fit the model's cache "
        "(64 positions)" in done.stdout
    )


def test_abi_compile_takes_the_saved_program(tmp_path: Path) -> None:
    """`abi-compile model.pt2 -o model.vmfb` of the recipe's program (torch.export.save):
    the loaded `.vmfb` generates `generate`'s tokens."""
    from abi_compiler import iree as abi_iree
    from abi_compiler.commands.compile_main import main as abi_compile

    model = _model("llama")
    torch.export.save(_export(model), tmp_path / "model.pt2")
    assert abi_compile([str(tmp_path / "model.pt2"), "-o", str(tmp_path / "model.vmfb")]) == 0
    module = abi_iree.load(tmp_path / "model.vmfb")
    got = _greedy(lambda i, p: module.main(input_ids=i.numpy(), cache_position=p.numpy()))
    assert got == _generate(model)


def test_sessions_interleaved_give_the_tokens_each_gives_alone() -> None:
    """Two sessions of one loaded module (docs/calling.md, "State and sessions"), stepped
    token by token in turn on two prompts, each with its own KV cache: each gives what it
    gives alone (the first prompt: `generate`'s tokens); `reset()` starts a cache over."""
    model = _model("llama")
    want = _generate(model)
    module = compile_quietly(_export(model))
    other = PROMPT[::-1][:2]

    def run(pairs: list[tuple[Any, list[int]]]) -> list[list[int]]:
        runs: list[list[int]] = [[] for _ in pairs]
        for position in range(len(PROMPT) + NEW_TOKENS - 1):
            for (session, prompt), tokens in zip(pairs, runs, strict=True):
                if position >= len(prompt) + NEW_TOKENS - 1:
                    continue
                token = prompt[position] if position < len(prompt) else tokens[-1]
                logits = session.main(
                    input_ids=torch.tensor([[token]]), cache_position=torch.tensor([position])
                )
                if position >= len(prompt) - 1:
                    tokens.append(int(np.asarray(logits)[0, -1].argmax()))
        return runs

    alone = [run([(module.session(), PROMPT)])[0], run([(module.session(), other)])[0]]
    assert alone[0] == want and alone[1] != want
    first, second = module.session(), module.session()
    assert run([(first, PROMPT), (second, other)]) == alone
    first.reset()
    assert run([(first, PROMPT)]) == [want]


OUTSIDE = ": the compiled module indexes a buffer with it"


def test_positions_outside_the_cache_are_refused_before_the_vm_runs() -> None:
    """A `cache_position` outside the cache, or a token id outside the vocabulary, is an
    `AbiError` before the call (the scatter and gather IREE makes of the cache write and
    the embedding have no bounds check: a position far past the cache crashed the
    process); the calling process and the module carry on (docs/calling.md, "What the
    original call checks")."""
    from abi_compiler.call_model import ValueRange
    from abi_compiler.errors import AbiError
    from abi_compiler.frontends import torch as torch_frontend

    model = _model("llama")
    program = _export(model)
    call = torch_frontend.program(program).call
    assert call is not None
    ranges = {name: node.ranges for name, node in call.keywords}  # type: ignore[union-attr]
    assert ranges == {
        "input_ids": (ValueRange(0, 96),),
        "cache_position": (ValueRange(0, CACHE - 1),),
    }
    compiled = compile_quietly(program)

    def refused(ids: list[list[int]], position: list[int]) -> str:
        with pytest.raises(AbiError) as caught:
            compiled.main(input_ids=torch.tensor(ids), cache_position=torch.tensor(position))
        return str(caught.value)

    for position in (-1, CACHE, 10**6):
        assert refused([[1]], [position]) == (
            f"argument 'cache_position': value {position} at [0] is outside [0, 31]{OUTSIDE}"
        )
    assert refused([[97]], [0]) == (
        f"argument 'input_ids': value 97 at [0, 0] is outside [0, 96]{OUTSIDE}"
    )
    # A prompt longer than the cache: in one call, the program's shape refuses it; token
    # by token, the step past the cache's last position is refused.
    assert refused([list(range(CACHE + 8))], [0]) == (
        "argument 'input_ids': expected int64[1,1], got int64[1,40]"
    )
    long_prompt = [token % 97 for token in range(CACHE + 8)]
    with pytest.raises(AbiError, match=r"value 32 at \[0\] is outside \[0, 31\]"):
        for position, token in enumerate(long_prompt):
            compiled.main(
                input_ids=torch.tensor([[token]]), cache_position=torch.tensor([position])
            )
    # The same module generates as before.
    assert _greedy(lambda i, p: compiled.main(input_ids=i, cache_position=p)) == _generate(model)


def test_a_step_of_several_tokens_bounds_its_first_position() -> None:
    """The recipe exported for 3 tokens a call: the cache rows are `arange(3) +
    cache_position[0]`, so only the first position is bounded, by the cache less 2."""
    from abi_compiler.call_model import ValueRange
    from abi_compiler.errors import AbiError
    from abi_compiler.frontends import torch as torch_frontend

    recipe = executorch.TorchExportableModuleForDecoderOnlyLM(
        _model("llama"), batch_size=1, max_cache_len=CACHE
    )
    program = recipe.export(input_ids=torch.tensor([[1, 2, 3]]), cache_position=torch.arange(3))
    call = torch_frontend.program(program).call
    assert call is not None
    ranges = {name: node.ranges for name, node in call.keywords}  # type: ignore[union-attr]
    assert ranges["cache_position"] == (ValueRange(0, CACHE - 3, (0,)),)
    compiled = compile_quietly(program)
    ids = torch.tensor([[4, 5, 6]])
    last = torch.tensor([CACHE - 3, CACHE - 2, CACHE - 1])
    want = program.module()(input_ids=ids, cache_position=last).detach().numpy()
    got = compiled.main(input_ids=ids, cache_position=last)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)
    with pytest.raises(AbiError) as caught:
        compiled.main(input_ids=ids, cache_position=last + 1)
    assert str(caught.value) == (
        f"argument 'cache_position': value 30 at [0] is outside [0, 29]{OUTSIDE}"
    )


@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_a_model_called_with_input_ids_alone_compiles(kind: str) -> None:
    """Without an `attention_mask`, transformers' masks look for packed sequences with
    `torch.diff(position_ids, prepend=…)` (which IREE 3.13 refused: `failed to legalize
    … torch.aten.diff`; the torch frontend spells it as subtractions, docs/calling.md,
    "What the torch frontend rewrites"): the logits are eager's."""
    model = _model(kind)
    model.config.use_cache = False
    ids = torch.tensor([PROMPT])
    program = torch.export.export(model, (), {"input_ids": ids})
    compiled = compile_quietly(program)
    with torch.no_grad():
        want = model(input_ids=ids).logits
    torch.testing.assert_close(
        torch.as_tensor(compiled.main(input_ids=ids).logits), want, rtol=1e-4, atol=1e-5
    )
