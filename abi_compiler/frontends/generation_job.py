"""Recording a language model's generation job in the module it compiles to
(`abi.generation` and `abi.tokenizer`, docs/formats.md): `compile_vmfb(…, tokenizer=…)`
finds the roles in the lowered text's original calls (`abi.call`) and writes the entries
just before iree-compile reads the text, as it writes `abi.provenance`.

The roles come from the names transformers' export recipe gives its arguments
(`TorchExportableModuleForDecoderOnlyLM`: ``input_ids``, ``cache_position``) and from the
signature (the logits are the one result, ``float[1,n,vocabulary]``; the cache length is
the range the frontend found for the positions): nothing per architecture. The tokenizer
is a transformers tokenizer, a `tokenizers.Tokenizer` or a `tokenizer.json` path.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from abi_compiler.attribute_names import ABI_CALL, ABI_GENERATION, ABI_STATE, ABI_TOKENIZER
from abi_compiler.call_model import Array, OriginalCall, ValueRange
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.codecs.generation_json import (
    SETTINGS,
    GenerationRecord,
    decode_generation,
    encode_generation,
    tokenizer_record,
)
from abi_compiler.errors import AbiError
from abi_compiler.text.reflection_entry import add_reflection_entries, update_reflection_entries

__all__ = [
    "CHUNK_SUFFIX",
    "IDS",
    "POSITIONS",
    "PREFILL_CHUNK",
    "PREFILL_SUFFIX",
    "Roles",
    "TokenizerSource",
    "generation_roles",
    "read_tokenizer",
    "with_generation",
    "with_position_range",
    "with_prefill_entries",
]

#: The names of the arguments that take the token ids and their positions (the recipe's).
IDS = "input_ids"
POSITIONS = "cache_position"


@dataclass(frozen=True, slots=True)
class Roles:
    """What a function's original call says of its job: the cache length, the number of
    logits per token, the rows of the token embedding (None: not recorded), whether it
    takes one token a call (a step function) rather than a prompt of any length, whether
    it returns the last position's logits only of a prompt of any length (a prefill
    function), and whether it does so for a static number of tokens other than 1 (a chunk
    function)."""

    cache: int
    vocabulary: int
    embedding: int | None
    step: bool = False
    last: bool = False
    chunk: bool = False


def generation_roles(call: OriginalCall) -> Roles | str:
    """The roles of a function whose original call takes ``input_ids`` (``int[1,n]``)
    and ``cache_position`` (``int[n]``) by keyword and returns the logits
    (``float[1,n,vocabulary]``); else why not (a sentence)."""
    keywords = dict(call.keywords)
    ids, positions = keywords.get(IDS), keywords.get(POSITIONS)
    if not isinstance(ids, Array) or not isinstance(positions, Array):
        return f"it takes no arrays '{IDS}' and '{POSITIONS}' by keyword"
    if not _integers(ids) or ids.dims is None or len(ids.dims) != 2 or ids.dims[0] != 1:
        return f"'{IDS}' is not an integer array of shape [1, n]"
    if not _integers(positions) or positions.dims is None or len(positions.dims) != 1:
        return f"'{POSITIONS}' is not an integer array of shape [n]"
    logits = call.result
    if (
        not isinstance(logits, Array)
        or logits.dtype is None
        or not logits.dtype.startswith(("float", "bfloat"))
        or logits.dims is None
        or len(logits.dims) != 3
        or not isinstance(logits.dims[2], int)
    ):
        return "its result is not one float array of logits [1, n, vocabulary]"
    cache = _cache_length(call, ids, positions)
    if cache is None:
        return (
            f"the program records no bound of '{POSITIONS}' or of the prompt's length (the "
            "cache length): export it with transformers' TorchExportableModuleForDecoderOnlyLM, "
            "a dynamic prompt length bounded by the cache (Dim(max=max_cache_len))"
        )
    rows = [r.high + 1 for r in ids.ranges if r.elements is None and r.high is not None]
    step = ids.dims[1] == 1
    last_only = not step and logits.dims[1] == 1
    static = isinstance(ids.dims[1], int)
    return Roles(
        cache,
        logits.dims[2],
        rows[0] if rows else None,
        step,
        last_only and not static,
        last_only and static,
    )


def _cache_length(call: OriginalCall, ids: Array, positions: Array) -> int | None:
    """The positions the cache holds: one past the highest position the frontend found
    the program may write (a static prompt length: `abi.call`'s ``ranges``), else the
    bound of a dynamic prompt length (the export's ``Dim(max=…)``), else None."""
    assert ids.dims is not None and positions.dims is not None
    length = positions.dims[0]
    for bound in positions.ranges:
        if bound.high is None:
            continue
        if bound.elements is None:
            return bound.high + 1
        if bound.elements == (0,) and isinstance(length, int):
            return bound.high + length  # (the first position; the others follow it)
    symbol = ids.dims[1]
    for found in call.symbols:
        if found.name == symbol and found.high is not None:
            return found.high
    return None


@dataclass(frozen=True, slots=True)
class _Functions:
    """The functions of a job: ``prompt`` (every row's logits: the one that records the
    job), ``step`` (one token a call; None: the prompt function), ``prefill`` (a prompt
    of any length, the last row's logits; None: the prompt function), ``chunk`` (a
    static number of a prompt's tokens, the last row's logits; None: none)."""

    prompt: str
    step: str | None = None
    prefill: str | None = None
    chunk: str | None = None


def _job_functions(text: str, found: dict[str, Roles]) -> _Functions:
    """The functions that do the job: one, or several on one cache (the same cache
    length, vocabulary and state: `compile_vmfb(…, shared_state=True)`) — a prompt
    function, a step function taking one token a call, a prefill function returning
    the last row's logits of a prompt and a chunk function doing so for a static number
    of a prompt's tokens (`with_prefill_entries`)."""
    if len(found) == 1:
        return _Functions(next(iter(found)))
    names = ", ".join("@" + name for name in found)
    steps = [name for name, roles in found.items() if roles.step]
    prefills = [name for name, roles in found.items() if roles.last]
    chunks = [name for name, roles in found.items() if roles.chunk]
    prompts = [name for name in found if name not in (*steps, *prefills, *chunks)]
    if len(steps) > 1 or len(prefills) > 1 or len(chunks) > 1 or len(prompts) != 1:
        raise AbiError(
            f"cannot record a generation job: several functions do it ({names}); up to "
            "four may, one taking a prompt of any length, one a token a call, one a prompt "
            "for its last logits only and one a static number of a prompt's tokens for "
            "their last logits"
        )
    if chunks and not prefills:
        raise AbiError(
            f"cannot record a generation job: @{chunks[0]} takes a prompt a chunk at a "
            "time, but no function takes the rest of it for its last logits only"
        )
    prompt = prompts[0]
    others = [*steps, *prefills, *chunks]
    for other in others:
        if (found[prompt].cache, found[prompt].vocabulary) != (
            found[other].cache,
            found[other].vocabulary,
        ):
            raise AbiError(
                f"cannot record a generation job: @{prompt} and @{other} differ in cache "
                "length or vocabulary"
            )
    state: dict[str, str] = {}

    def collect(name: str, value: str) -> None:
        state[name] = value
        return None

    update_reflection_entries(text, ABI_STATE, collect)
    for other in others:
        if state.get(prompt) is None or state.get(prompt) != state.get(other):
            raise AbiError(
                f"cannot record a generation job: @{prompt} and @{other} do not share one "
                "cache (their state differs): compile them with shared_state=True "
                "(abi-compile --shared-state)"
            )
    return _Functions(
        prompt,
        steps[0] if steps else None,
        prefills[0] if prefills else None,
        chunks[0] if chunks else None,
    )


#: The name of a prompt entry's prefill function is the entry's with this after it.
PREFILL_SUFFIX = "_prefill"
#: The name of a prompt entry's chunk function is the entry's with this after it.
CHUNK_SUFFIX = "_chunk"
#: The prompt tokens a chunk function takes a call: a prompt program whose length may
#: reach it gets one (`with_prefill_entries`).
PREFILL_CHUNK = 128


def with_prefill_entries(sources: Mapping[str, object]) -> dict[str, object]:
    """``sources`` (a mapping of entries sharing their state) with, after each torch
    prompt program (a prompt of any length, every row's logits), that program cut to the
    last row's logits (`abi_compiler.frontends.torch_last_logits`) as the entry
    ``<key>_prefill``, and, where the prompt's length may reach `PREFILL_CHUNK`, the cut
    program exported again at that static length as ``<key>_chunk`` (``_2``… appended
    while a name is taken): the functions the generation loop feeds a prompt to
    (docs/design.md, "Generation"). A program whose logits cannot be cut that way gets
    neither."""
    from abi_compiler.frontends import frontend_name

    added: dict[str, object] = {}

    def add(name: str, program: object) -> None:
        chosen, count = name, 1
        while chosen in sources or chosen in added:
            count += 1
            chosen = f"{name}_{count}"
        added[chosen] = program

    source: Any  # (a torch ExportedProgram where it is cut)
    for key, source in sources.items():
        if frontend_name(source) != "torch":
            continue
        from abi_compiler.frontends.torch_last_logits import (
            last_logits_program,
            static_length_program,
        )

        cut = last_logits_program(source, IDS)
        if cut is None:
            continue
        add(f"{key}{PREFILL_SUFFIX}", cut)
        chunk = static_length_program(cut, IDS, POSITIONS, PREFILL_CHUNK)
        if chunk is not None:
            add(f"{key}{CHUNK_SUFFIX}", chunk)
    return {**sources, **added}


def with_position_range(text: str, functions: set[str], cache: int) -> str:
    """``text`` with the positions of each of ``functions`` bounded to the cache, ``[0,
    cache)``, in its original call where nothing records that bound yet (a prompt of
    dynamic length: the frontend cannot follow its positions into the cache): a call
    with a position outside the cache is then refused before it runs, naming the value
    (docs/formats.md, "A model's generation job: `abi.generation`, `abi.tokenizer`")."""

    def update(name: str, value: str) -> str | None:
        if name not in functions:
            return None
        call = decode_call(value)
        positions = dict(call.keywords)[POSITIONS]
        assert isinstance(positions, Array)  # (`generation_roles` found it)
        every = (
            None
            if positions.dims is None or not isinstance(positions.dims[0], int)
            else set(range(positions.dims[0]))
        )
        if any(
            (found.elements is None or set(found.elements) == every)
            and found.low is not None
            and found.low >= 0
            and found.high is not None
            and found.high < cache
            for found in positions.ranges
        ):
            return None  # (every position bounded within the cache already: a step's)
        bounded = dataclasses.replace(
            positions, ranges=(*positions.ranges, ValueRange(0, cache - 1))
        )
        keywords = tuple(
            (key, bounded if key == POSITIONS else node) for key, node in call.keywords
        )
        return encode_call(dataclasses.replace(call, keywords=keywords))

    return update_reflection_entries(text, ABI_CALL, update)


def _integers(array: Array) -> bool:
    return array.dtype is not None and array.dtype.startswith(("int", "uint"))


# --------------------------------------------------------------------------------------
# The tokenizer and the generation settings, from what the caller gives.
# --------------------------------------------------------------------------------------

#: A transformers tokenizer (fast), a `tokenizers.Tokenizer`, or a `tokenizer.json` path.
TokenizerSource = Any


@dataclass(frozen=True, slots=True)
class _Tokenizer:
    text: str
    vocabulary: int
    chat_template: str | None
    special_tokens: dict[str, str]
    eos: tuple[int, ...]


def read_tokenizer(source: TokenizerSource) -> _Tokenizer:
    """The `tokenizer.json` text of ``source``, its vocabulary, chat template, special
    tokens and end-of-sequence ids. A path's chat template and special tokens come from
    the `tokenizer_config.json` (or `chat_template.jinja`) beside it, as transformers
    saves them."""
    try:
        from tokenizers import Tokenizer
    except ImportError as error:
        raise ImportError(
            "recording a tokenizer needs the tokenizers package: pip install "
            "'abi-compiler[generate]'"
        ) from error
    template: Any = None
    special: dict[str, str] = {}
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        template, special = _beside(os.path.dirname(path))
    elif hasattr(source, "backend_tokenizer"):  # transformers' (fast) tokenizer
        text = source.backend_tokenizer.to_str()
        template = getattr(source, "chat_template", None)
        for name in ("bos_token", "eos_token", "unk_token", "pad_token"):
            token = getattr(source, name, None)
            if isinstance(token, str):
                special[name] = token
    elif hasattr(source, "to_str"):
        text = source.to_str()
    else:
        raise TypeError(
            "tokenizer: expected a transformers tokenizer (a fast one), a "
            f"tokenizers.Tokenizer or a tokenizer.json path, got {type(source).__name__}"
        )
    if template is not None and not isinstance(template, str):
        raise AbiError("tokenizer: its chat template is not one text (several named ones?)")
    try:
        tokenizer = Tokenizer.from_str(text)
    except Exception as error:  # the tokenizers package's own exception type
        raise AbiError(
            f"tokenizer: not a tokenizer.json the tokenizers package reads: {error}"
        ) from None
    eos = special.get("eos_token")
    found = None if eos is None else tokenizer.token_to_id(eos)
    return _Tokenizer(
        text,
        tokenizer.get_vocab_size(with_added_tokens=True),
        template,
        special,
        () if found is None else (found,),
    )


def _beside(folder: str) -> tuple[str | None, dict[str, str]]:
    """The chat template and special tokens transformers saves beside a `tokenizer.json`."""
    template: str | None = None
    special: dict[str, str] = {}
    config = os.path.join(folder, "tokenizer_config.json")
    if os.path.isfile(config):
        with open(config, encoding="utf-8") as stream:
            try:
                value = json.load(stream)
            except ValueError as error:
                raise AbiError(f"{config}: not JSON: {error}") from None
        if isinstance(value, dict):
            if isinstance(value.get("chat_template"), str):
                template = value["chat_template"]
            for name in ("bos_token", "eos_token", "unk_token", "pad_token"):
                token = value.get(name)
                if isinstance(token, dict):  # an AddedToken as saved
                    token = token.get("content")
                if isinstance(token, str):
                    special[name] = token
    jinja = os.path.join(folder, "chat_template.jinja")
    if template is None and os.path.isfile(jinja):
        with open(jinja, encoding="utf-8") as stream:
            template = stream.read()
    return template, special


def _settings(config: Any) -> dict[str, Any]:
    """The generation settings of a transformers `GenerationConfig` (those it sets apart
    from transformers' defaults), a mapping or a `generation_config.json` path."""
    if config is None:
        return {}
    if isinstance(config, (str, os.PathLike)):
        with open(config, encoding="utf-8") as stream:
            try:
                config = json.load(stream)
            except ValueError as error:
                raise AbiError(f"{os.fspath(config)}: not JSON: {error}") from None
    elif hasattr(config, "to_diff_dict"):
        config = config.to_diff_dict()
    if not isinstance(config, Mapping):
        raise TypeError(
            "generation_config: expected a transformers GenerationConfig, a mapping or a "
            f"generation_config.json path, got {type(config).__name__}"
        )
    return dict(config)


def _eos(settings: Mapping[str, Any], tokenizer: _Tokenizer | None) -> tuple[int, ...]:
    eos = settings.get("eos_token_id")
    if eos is None:
        return () if tokenizer is None else tokenizer.eos
    found = [eos] if isinstance(eos, int) else eos
    if not isinstance(found, list) or not all(
        isinstance(t, int) and not isinstance(t, bool) for t in found
    ):
        raise AbiError(f"generation_config: eos_token_id: expected token ids, got {eos!r}")
    return tuple(dict.fromkeys(found))


# --------------------------------------------------------------------------------------
# The entries in the lowered text.
# --------------------------------------------------------------------------------------


def with_generation(
    text: str, tokenizer: TokenizerSource = None, generation_config: Any = None
) -> str:
    """``text`` (lowered MLIR) with `abi.generation` (and `abi.tokenizer`, given a
    tokenizer) on the one exported function whose original call does the job; an
    `AbiError` when none does, when several do, or when the tokenizer's vocabulary does
    not fit the model's."""
    calls: dict[str, OriginalCall] = {}

    def collect(name: str, value: str) -> None:
        with contextlib.suppress(AbiError):  # (its reader says so when the module loads)
            calls[name] = decode_call(value)
        return None  # (the entry kept as it is)

    update_reflection_entries(text, ABI_CALL, collect)
    found: dict[str, Roles] = {}
    why: list[str] = []
    for name, call in calls.items():
        roles = generation_roles(call)
        if isinstance(roles, Roles):
            found[name] = roles
        else:
            why.append(f"@{name}: {roles}")
    if not found:
        raise AbiError(
            "cannot record a generation job: no exported function takes the token ids "
            f"'{IDS}' and their positions '{POSITIONS}' and returns the logits"
            + (f" ({'; '.join(why)})" if why else " (no function records its original call)")
        )
    functions = _job_functions(text, found)
    function = functions.prompt
    roles = found[function]
    read = None if tokenizer is None else read_tokenizer(tokenizer)
    if read is not None:
        fits = min(roles.vocabulary, roles.embedding or roles.vocabulary)
        if read.vocabulary > fits:
            raise AbiError(
                f"the tokenizer's vocabulary ({read.vocabulary} tokens) does not fit the "
                f"model's embedding ({fits} token ids): not this model's tokenizer"
            )
    settings = _settings(generation_config)
    eos = _eos(settings, read)
    for token in eos:
        if not 0 <= token < roles.vocabulary:
            raise AbiError(
                f"the end-of-sequence id {token} is outside the model's vocabulary "
                f"[0, {roles.vocabulary - 1}]"
            )
    defaults = tuple(sorted((k, v) for k, v in settings.items() if k in SETTINGS and v is not None))
    record = GenerationRecord(
        IDS,
        POSITIONS,
        roles.cache,
        roles.vocabulary,
        eos,
        defaults,
        None if read is None else read.chat_template,
        () if read is None else tuple(sorted(read.special_tokens.items())),
        None if read is None else tokenizer_record(read.text, read.vocabulary),
        functions.step,
        functions.prefill,
        functions.chunk,
    )
    entry = encode_generation(record)
    try:  # checked as its reader checks it: a setting of the wrong type is refused here
        decode_generation(entry)
    except AbiError as error:
        raise AbiError(f"generation_config: {error}") from None
    every = (functions.prompt, functions.step, functions.prefill, functions.chunk)
    text = with_position_range(text, {name for name in every if name is not None}, roles.cache)
    text = add_reflection_entries(text, ABI_GENERATION, {function: entry}.get)
    if read is not None:
        text = add_reflection_entries(text, ABI_TOKENIZER, {function: read.text}.get)
    return text
