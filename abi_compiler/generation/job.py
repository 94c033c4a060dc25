"""A loaded module's generation job, read from what the module records (`abi.generation`
and `abi.tokenizer`, docs/formats.md): the function that computes the logits, the
arguments that take the token ids and their positions, the cache length, the
end-of-sequence ids, the default settings, the tokenizer and the chat template. Read once
per module (`GenerationJob.of`); the tokenizer is built from its `tokenizer.json` with the
`tokenizers` package when first asked for (no torch, no transformers)."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from abi_compiler.attribute_names import ABI_CALL, ABI_GENERATION, ABI_TOKENIZER
from abi_compiler.call_model import Array, Symbol
from abi_compiler.codecs.call_json import decode_call
from abi_compiler.codecs.generation_json import (
    GenerationRecord,
    check_tokenizer_text,
    decode_generation,
)
from abi_compiler.errors import AbiError

__all__ = ["GenerationJob"]

_JOBS: weakref.WeakKeyDictionary[Any, GenerationJob] = weakref.WeakKeyDictionary()


class GenerationJob:
    """What a module records of its generation job (`of`): ``function`` (its name),
    ``ids`` and ``positions`` (the keyword arguments of the token ids and their cache
    positions), ``cache_length``, ``vocabulary``, ``eos_ids``, ``defaults`` (setting →
    value), ``chat_template`` (None: none), ``special_tokens``; ``prompt_tokens_per_call``
    (None: a whole prompt in one call, else that many); ``step_function`` and
    ``prefill_function`` (the functions the steps and the prompt call: ``function``
    where the module has no other); ``chunk_function`` and ``chunk_length`` (the function
    a long prompt is fed to that many tokens a call before the rest goes to the prefill
    function; None: none); ``tokenizer`` (a `tokenizers.Tokenizer`; an
    `AbiError` when the module records none)."""

    def __init__(
        self,
        function: Any,
        record: GenerationRecord,
        tokenizer_text: str | None,
        call: tuple[str, str, int | None],
        chunk_length: int | None = None,
    ):
        self.function: str = function.name
        self.record = record
        self.ids = record.ids
        self.positions = record.positions
        self.cache_length = record.cache
        self.vocabulary = record.vocabulary
        self.eos_ids: tuple[int, ...] = record.eos
        self.defaults: dict[str, Any] = dict(record.defaults)
        self.chat_template = record.chat_template
        self.special_tokens: dict[str, str] = dict(record.special_tokens)
        self._tokenizer_text = tokenizer_text
        self._tokenizer: Any = None
        # (``call``: `_check_call`'s of ``function``)
        self.ids_dtype, self.positions_dtype, self.prompt_tokens_per_call = call
        #: The function each step after the prompt calls (one token on the same cache).
        self.step_function: str = record.step or function.name
        #: The function the prompt is fed to (its last row's logits, on the same cache).
        self.prefill_function: str = record.prefill or function.name
        #: The function a long prompt's chunks are fed to, and their tokens (a static count).
        self.chunk_function: str | None = record.chunk
        self.chunk_length: int | None = chunk_length

    @classmethod
    def of(cls, module: Any) -> GenerationJob:
        """The job ``module`` (a loaded `Module`) records; an `AbiError` when it records
        none, or a malformed one (naming the function and the entry)."""
        job = _JOBS.get(module)
        if job is None:
            job = _JOBS[module] = cls._read(module)
        return job

    @classmethod
    def _read(cls, module: Any) -> GenerationJob:
        found = [
            name for name in module.function_names if ABI_GENERATION in module[name].reflection
        ]
        if not found:
            raise AbiError(
                f"module '{module.name}' records no generation job ('{ABI_GENERATION}'): "
                "compile the model with compile_vmfb(program, tokenizer=…) or abi-compile "
                "--tokenizer"
            )
        if len(found) > 1:
            raise AbiError(
                f"module '{module.name}' records a generation job on several functions "
                f"({', '.join('@' + name for name in found)})"
            )
        function = module[found[0]]
        reflection = function.reflection
        try:
            record = decode_generation(reflection[ABI_GENERATION])
            text = None
            if record.tokenizer is not None:
                text = check_tokenizer_text(record.tokenizer, reflection.get(ABI_TOKENIZER))
            if record.step is not None:
                if record.step not in module.function_names:
                    raise AbiError(f'"step": the module exports no function @{record.step}')
                step = _check_call(module[record.step], record)
                if step[2] not in (1, None):
                    raise AbiError(f'"step": @{record.step} does not take one token a call')
            call = _check_call(function, record)
            if record.prefill is not None:
                if record.prefill not in module.function_names:
                    raise AbiError(f'"prefill": the module exports no function @{record.prefill}')
                prefill = _check_call(module[record.prefill], record)
                if prefill[2] != call[2]:
                    raise AbiError(
                        f'"prefill": @{record.prefill} does not take the prompt as '
                        f"@{function.name} does"
                    )
            chunk_length = None
            if record.chunk is not None:
                if record.chunk not in module.function_names:
                    raise AbiError(f'"chunk": the module exports no function @{record.chunk}')
                chunk_length = _check_call(module[record.chunk], record, chunk=True)[2]
                if chunk_length is None or not 1 < chunk_length <= record.cache:
                    raise AbiError(
                        f'"chunk": @{record.chunk} does not take a static number of tokens '
                        f"in [2, {record.cache}] a call"
                    )
            return cls(function, record, text, call, chunk_length)
        except AbiError as error:
            raise AbiError(
                f"function @{function.name}: malformed reflection '{ABI_GENERATION}': {error}"
            ) from None

    @property
    def has_tokenizer(self) -> bool:
        return self._tokenizer_text is not None

    @property
    def tokenizer(self) -> Any:
        """The recorded tokenizer (`tokenizers.Tokenizer`, no truncation, no padding)."""
        if self._tokenizer is None:
            if self._tokenizer_text is None:
                raise AbiError(
                    "the module records no tokenizer: give token ids, or compile it with "
                    "tokenizer=…"
                )
            try:
                from tokenizers import Tokenizer
            except ImportError as error:
                raise ImportError(
                    "text generation needs the tokenizers package: pip install "
                    "'abi-compiler[generate]'"
                ) from error
            try:
                tokenizer = Tokenizer.from_str(self._tokenizer_text)
            except Exception as error:  # the tokenizers package's own exception type
                raise AbiError(f"the recorded tokenizer cannot be read: {error}") from None
            tokenizer.no_truncation()  # (a recorded truncation would cut a prompt silently)
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return self._tokenizer

    def encode(self, text: str, *, special_tokens: bool = True) -> list[int]:
        """The token ids of ``text``; ``special_tokens``: with those the tokenizer adds
        (a beginning-of-sequence token)."""
        if not isinstance(text, str):
            raise AbiError(f"expected a prompt as str, got {type(text).__name__}")
        ids: list[int] = self.tokenizer.encode(text, add_special_tokens=special_tokens).ids
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids``, special tokens left out."""
        text: str = self.tokenizer.decode(list(ids), skip_special_tokens=True)
        return text

    def render(
        self, messages: Sequence[Mapping[str, Any]], add_generation_prompt: bool = True
    ) -> str:
        """The recorded chat template applied to ``messages`` (each a mapping with
        ``role`` and ``content``), as transformers applies it (Jinja, sandboxed, blocks
        trimmed): an `AbiError` without a template, for malformed messages, and for what
        the template itself refuses."""
        from abi_compiler.generation.chat import render

        if self.chat_template is None:
            raise AbiError("the module records no chat template: give a prompt, not messages")
        return render(self.chat_template, messages, self.special_tokens, add_generation_prompt)

    def __repr__(self) -> str:
        return (
            f"<GenerationJob @{self.function}: {self.ids}, {self.positions}, cache "
            f"{self.cache_length}, eos {list(self.eos_ids)}>"
        )


def _check_call(
    function: Any, record: GenerationRecord, chunk: bool = False
) -> tuple[str, str, int | None]:
    """The dtypes of the ids and positions and the prompt tokens per call, from the
    function's original call; an `AbiError` when its arguments are not the job's (a
    static number of tokens other than 1 too, unless ``chunk``)."""
    text = function.reflection.get(ABI_CALL)
    if text is None:
        raise AbiError(f"@{function.name} records no original call ('{ABI_CALL}')")
    call = decode_call(text)
    keywords = dict(call.keywords)
    ids, positions = keywords.get(record.ids), keywords.get(record.positions)
    for role, node in ((record.ids, ids), (record.positions, positions)):
        if not isinstance(node, Array) or node.dims is None or node.dtype is None:
            raise AbiError(f"the function takes no array '{role}' by keyword")
    assert isinstance(ids, Array) and isinstance(positions, Array) and ids.dims is not None
    if len(ids.dims) != 2:
        raise AbiError(f"'{record.ids}' is not an array [1, n]")
    length = ids.dims[1]
    per_call: int | None
    if isinstance(length, int):
        per_call = length
    else:
        bounds = {s.name: s for s in call.symbols}
        symbol: Symbol | None = bounds.get(length) if isinstance(length, str) else None
        per_call = None if symbol is None or symbol.high is None else symbol.high
        if per_call is not None and per_call >= record.cache:
            per_call = None
    if per_call is not None and per_call != 1 and isinstance(length, int) and not chunk:
        raise AbiError(f"'{record.ids}' takes {length} tokens a call: expected 1 or any number")
    assert ids.dtype is not None and positions.dtype is not None
    return ids.dtype, positions.dtype, per_call
