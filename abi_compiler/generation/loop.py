"""The generation loop of a module that records its job (`abi_compiler.generation.job`):
the prompt in as few calls as the function takes (one, for a prompt of any length), then
one token per call on the same KV cache, each chosen from the last logits
(`abi_compiler.generation.sampling`), until an end-of-sequence id, a stop string,
``max_new_tokens`` or the end of the cache (docs/calling.md, "Generating text").

A session's generation continues its conversation: what the session's cache holds is
remembered (the tokens at its positions), and a new prompt is fed from the first token
that differs from it (the cache's later positions are masked by the model and
overwritten). A module's own `generate` starts from position 0 each time."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from abi_compiler.errors import AbiError
from abi_compiler.generation.job import GenerationJob
from abi_compiler.generation.sampling import Sampling, next_token
from abi_compiler.generation.text import TextPieces

__all__ = ["FinishReason", "GeneratedText", "GeneratedTokens", "GenerationStream", "generate_on"]

#: Why a generation stopped: an end-of-sequence id, a stop string (or stop id),
#: ``max_new_tokens``, or the cache full (no position left for the next token).
FinishReason = Literal["eos", "stop", "length", "cache"]


class GeneratedText(str):
    """The generated text (a `str`), with ``token_ids`` (the tokens generated, the
    end-of-sequence one left out) and ``finish_reason``."""

    token_ids: tuple[int, ...]
    finish_reason: FinishReason

    def __new__(cls, text: str, token_ids: Sequence[int], finish_reason: FinishReason) -> Any:
        made = super().__new__(cls, text)
        made.token_ids = tuple(token_ids)
        made.finish_reason = finish_reason
        return made


class GeneratedTokens(tuple[int, ...]):
    """The generated token ids (a `tuple`; the end-of-sequence or stop id left out), with
    ``finish_reason``."""

    finish_reason: FinishReason

    def __new__(cls, token_ids: Sequence[int], finish_reason: FinishReason) -> Any:
        made = super().__new__(cls, token_ids)
        made.finish_reason = finish_reason
        return made


class GenerationStream:
    """The generation as it goes (``stream=True``): an iterator of text pieces (`str`,
    for a text prompt or messages) or of token ids (`int`, for a token prompt);
    ``finish_reason`` is None until it is exhausted, ``token_ids`` the tokens so far."""

    def __init__(self, run: _Run) -> None:
        self._run = run
        self._steps = run.steps()

    @property
    def finish_reason(self) -> FinishReason | None:
        return self._run.finish_reason

    @property
    def token_ids(self) -> tuple[int, ...]:
        return tuple(self._run.output)

    def __iter__(self) -> GenerationStream:
        return self

    def __next__(self) -> Any:
        return next(self._steps)


@dataclass
class _Conversation:
    """What a target's cache holds: ``cached`` the tokens at its positions 0…, in the
    VM ``context`` they were fed in; ``pending`` a generated token not fed yet;
    ``owner`` the generation that may go on using it."""

    context: Any = None
    cached: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    owner: object = None


_CONVERSATIONS: weakref.WeakKeyDictionary[Any, _Conversation] = weakref.WeakKeyDictionary()


def generate_on(
    target: Any,
    module: Any,
    on_session: bool,
    prompt: Any = None,
    *,
    messages: Any = None,
    max_new_tokens: int | None = None,
    do_sample: bool | None = None,
    temperature: float | None = None,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    stop: Any = (),
    stream: bool = False,
) -> Any:
    """Generate on ``target``: the loaded `Module` ``module`` itself, or a `Session` of it
    (``on_session``), as the caller's side tells (`abi_compiler.calling.sessions.
    generate_text`, behind ``Module.generate``, ``Session.generate`` and
    `abi_compiler.generation.generate`; docs/calling.md, "Generating text")."""
    job = GenerationJob.of(module)
    settings = {
        "max_new_tokens": max_new_tokens,
        "do_sample": do_sample,
        "temperature": temperature,
        "top_k": top_k,
        "top_p": top_p,
    }
    for key, value in settings.items():
        if value is None:
            settings[key] = job.defaults.get(key)
    limit = _max_new_tokens(settings["max_new_tokens"])
    sampling = _sampling(settings)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise AbiError(f"seed: expected a non-negative int, got {seed!r}")
    conversation = _conversation(target)
    session = on_session  # (its conversation goes on; a module starts afresh)
    if messages is not None:
        if prompt is not None:
            raise AbiError("give a prompt or messages, not both")
        # The messages are the whole conversation (a session reuses what its cache holds
        # of their tokens).
        ids = job.encode(job.render(messages), special_tokens=False)
        full, text = ids, True
    elif isinstance(prompt, str):
        held = conversation.cached + conversation.pending if session else []
        full, text = held + job.encode(prompt, special_tokens=not held), True
    elif prompt is None:
        raise AbiError("generate: give a prompt (text or token ids) or messages")
    else:
        held = conversation.cached + conversation.pending if session else []
        full, text = held + _token_ids(prompt, job.vocabulary), False
    stops = _stops(stop, text)
    if not full:
        raise AbiError("the prompt is empty (no token to start from)")
    if len(full) > job.cache_length:
        raise AbiError(
            f"the prompt ({len(full)} tokens) does not fit the model's cache "
            f"({job.cache_length} positions)"
        )
    run = _Run(
        target,
        job,
        conversation,
        full,
        limit,
        sampling,
        np.random.default_rng(seed),
        None if not text else TextPieces(job.decode, [s for s in stops if isinstance(s, str)]),
        {s for s in stops if isinstance(s, int)},
        session,
    )
    if stream:
        return GenerationStream(run)
    pieces = list(run.steps())
    assert run.finish_reason is not None
    if text:
        return GeneratedText("".join(pieces), run.output, run.finish_reason)
    return GeneratedTokens(run.output, run.finish_reason)


class _Run:
    """One generation: `steps` yields its pieces (text) or token ids, calling the model."""

    def __init__(
        self,
        target: Any,
        job: GenerationJob,
        conversation: _Conversation,
        full: list[int],
        limit: int | None,
        sampling: Sampling,
        generator: np.random.Generator,
        pieces: TextPieces | None,
        stop_ids: set[int],
        session: bool,
    ) -> None:
        self.target, self.job, self.conversation = target, job, conversation
        self.full, self.limit, self.sampling, self.generator = full, limit, sampling, generator
        self.pieces, self.stop_ids = pieces, stop_ids
        self.prefill = target[job.prefill_function]
        self.chunk = None if job.chunk_function is None else target[job.chunk_function]
        self.step = target[job.step_function]
        self.output: list[int] = []
        self.finish_reason: FinishReason | None = None
        # This generation owns the conversation from now on (an earlier stream of the
        # same target can no longer go on).
        self.owner = conversation.owner = object()
        if not session:
            conversation.cached, conversation.pending = [], []

    def _feed(self, tokens: list[int], function: Any) -> Any:
        """The last logits after feeding ``tokens`` at the cache's next positions."""
        conversation = self.conversation
        if conversation.owner is not self.owner:
            raise AbiError(
                "another generation on this module or session has started since: this "
                "stream cannot go on"
            )
        start = len(conversation.cached)
        job = self.job
        logits = function(
            **{
                job.ids: np.asarray([tokens], dtype=job.ids_dtype),
                job.positions: np.arange(start, start + len(tokens), dtype=job.positions_dtype),
            }
        )
        conversation.cached.extend(tokens)
        return np.asarray(logits)[0, -1]

    def steps(self) -> Iterator[Any]:
        conversation, full = self.conversation, self.full
        if self.limit == 0:
            self.finish_reason = "length"
            return
        common = 0
        for held, new in zip(conversation.cached, full, strict=False):
            if held != new:
                break
            common += 1
        # (at least one token is fed: the logits after it choose the next)
        del conversation.cached[min(common, len(full) - 1) :]
        rest = full[len(conversation.cached) :]
        per_call = self.job.prompt_tokens_per_call
        if per_call is not None:
            for start in range(0, len(rest), per_call):
                logits = self._feed(rest[start : start + per_call], self.prefill)
        else:
            # Whole chunks to the chunk function (a static number of tokens: faster), the
            # rest, if any, to the prefill function.
            whole, size = 0, self.job.chunk_length
            if self.chunk is not None and size is not None:
                whole = len(rest) // size * size
                for start in range(0, whole, size):
                    logits = self._feed(rest[start : start + size], self.chunk)
            if whole < len(rest):
                logits = self._feed(rest[whole:], self.prefill)
        conversation.pending = []  # (it was the prompt's: fed now)
        while True:
            token = next_token(logits, self.sampling, self.generator)
            conversation.pending = [token]
            if token in self.job.eos_ids:
                self.finish_reason = "eos"
                break
            if token in self.stop_ids:
                self.finish_reason = "stop"
                break
            self.output.append(token)
            if self.pieces is None:
                yield token
            else:
                piece = self.pieces.add(token)
                if piece:
                    yield piece
                if self.pieces.stopped:
                    self.finish_reason = "stop"
                    break
            if self.limit is not None and len(self.output) >= self.limit:
                self.finish_reason = "length"
                break
            if len(conversation.cached) >= self.job.cache_length:
                self.finish_reason = "cache"
                break
            logits = self._feed([token], self.step)
            conversation.pending = []
        if self.pieces is not None:
            rest_text = self.pieces.finish()
            if rest_text:
                yield rest_text


def _conversation(target: Any) -> _Conversation:
    """The record of what ``target``'s cache holds (empty again after a reset: another
    VM context)."""
    found = _CONVERSATIONS.get(target)
    context = target.context
    if found is None or found.context is not context:
        found = _CONVERSATIONS[target] = _Conversation(context)
    return found


def _max_new_tokens(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise AbiError(f"max_new_tokens: expected a non-negative int, got {value!r}")
    return value


def _sampling(settings: dict[str, Any]) -> Sampling:
    """The `Sampling` of the settings (None: transformers' defaults: greedy,
    temperature 1, no top-k, top-p 1)."""
    do_sample = settings["do_sample"]
    if do_sample is not None and not isinstance(do_sample, bool):
        raise AbiError(f"do_sample: expected a bool, got {do_sample!r}")
    temperature = 1.0 if settings["temperature"] is None else settings["temperature"]
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not 0 < temperature < float("inf")
    ):
        raise AbiError(f"temperature: expected a positive number, got {temperature!r}")
    top_k = settings["top_k"]
    if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1):
        raise AbiError(f"top_k: expected a positive int, got {top_k!r}")
    top_p = 1.0 if settings["top_p"] is None else settings["top_p"]
    if isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 < top_p <= 1:
        raise AbiError(f"top_p: expected a number in (0, 1], got {top_p!r}")
    return Sampling(not do_sample, float(temperature), top_k, float(top_p))


def _token_ids(prompt: Any, vocabulary: int) -> list[int]:
    """A token prompt (a sequence of ints, or a 1-D integer array) as a list; an
    `AbiError` for anything else and for an id outside the vocabulary."""
    if isinstance(prompt, bytes) or not isinstance(prompt, (Sequence, np.ndarray)):
        raise AbiError(
            f"prompt: expected text (str) or token ids (a sequence of ints), got "
            f"{type(prompt).__name__}"
        )
    array = np.asarray(prompt)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise AbiError("prompt: expected token ids (a sequence of ints)")
    ids = [int(token) for token in array]
    for position, token in enumerate(ids):
        if not 0 <= token < vocabulary:
            raise AbiError(
                f"prompt[{position}]: token id {token} is outside the vocabulary "
                f"[0, {vocabulary - 1}]"
            )
    return ids


def _stops(stop: Any, text: bool) -> list[str | int]:
    """The stop strings (a text generation) or stop ids (a token generation)."""
    items = [stop] if isinstance(stop, (str, int)) else stop
    if not isinstance(items, (list, tuple)):
        raise AbiError(f"stop: expected a sequence of {'strings' if text else 'token ids'}")
    kind = str if text else int
    for item in items:
        if not isinstance(item, kind) or isinstance(item, bool):
            raise AbiError(
                f"stop: expected {'strings' if text else 'token ids'}, got {item!r}"
                + (" (a token prompt stops at token ids)" if not text else "")
            )
    return list(items)
