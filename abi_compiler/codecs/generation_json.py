"""What a compiled language model's generation loop needs to know: the `abi.generation`
reflection entry (docs/formats.md, "A model's generation job: `abi.generation`").

`compile_vmfb(…, tokenizer=…)` writes it on the function that computes the logits:
which of its keyword arguments takes the token ids and which their positions in the KV
cache, the cache length, the vocabulary, the end-of-sequence ids, the default settings,
the chat template and the special tokens it names, and the size and sha256 of the
tokenizer's `tokenizer.json`, which travels in an entry of its own (`abi.tokenizer`,
verbatim). JSON as `abi.call` is written: compact, keys sorted, `"v": 1`. Pure: no xDSL,
no framework.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, NoReturn

from abi_compiler.codecs.state_json import read_versioned
from abi_compiler.errors import AbiError

__all__ = [
    "SETTINGS",
    "GenerationRecord",
    "TokenizerRecord",
    "check_tokenizer_text",
    "decode_generation",
    "encode_generation",
    "format_generation",
    "tokenizer_record",
]

VERSION = 1

#: The generation settings a job may give defaults for, and the JSON types each takes.
SETTINGS: dict[str, tuple[type, ...]] = {
    "max_new_tokens": (int,),
    "do_sample": (bool,),
    "temperature": (int, float),
    "top_k": (int,),
    "top_p": (int, float),
}


@dataclass(frozen=True, slots=True)
class TokenizerRecord:
    """The tokenizer's `tokenizer.json` (in the `abi.tokenizer` entry): its size in UTF-8
    bytes, its sha256 (hex), and the number of tokens it knows (added ones included)."""

    size: int
    sha256: str
    vocabulary: int


@dataclass(frozen=True, slots=True)
class GenerationRecord:
    """A function's generation job: ``ids`` and ``positions`` name the keyword arguments
    that take the token ids (``int64[1,n]``) and their cache positions (``int64[n]``);
    the result is the logits (``float[1,n,vocabulary]``); ``cache`` the positions the
    KV cache holds; ``eos`` the token ids that end a sequence; ``defaults`` the settings
    used where a call gives none (`SETTINGS`); ``chat_template`` a Jinja template of
    messages (None: none); ``special_tokens`` the names it may use (``bos_token``…);
    ``tokenizer`` the recorded tokenizer (None: token ids in and out only); ``step`` the
    function that takes one token a call on the same cache, when another one does (None:
    this one, for the prompt and every step); ``prefill`` the function that takes a
    prompt on the same cache and returns its last row's logits only (``float[1,1,
    vocabulary]``), when another one does (None: this one); ``chunk`` a function that
    does so for a static number of a prompt's tokens (``int64[1,k]``, ``k`` > 1), which
    the loop feeds a long prompt to ``k`` tokens at a time before the rest goes to the
    prefill function (None: none)."""

    ids: str
    positions: str
    cache: int
    vocabulary: int
    eos: tuple[int, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    chat_template: str | None = None
    special_tokens: tuple[tuple[str, str], ...] = ()
    tokenizer: TokenizerRecord | None = None
    step: str | None = None
    prefill: str | None = None
    chunk: str | None = None


def tokenizer_record(text: str, vocabulary: int) -> TokenizerRecord:
    """The record of a `tokenizer.json` text of ``vocabulary`` tokens."""
    data = text.encode("utf-8")
    return TokenizerRecord(len(data), hashlib.sha256(data).hexdigest(), vocabulary)


def check_tokenizer_text(record: TokenizerRecord, text: str | None) -> str:
    """``text`` (the `abi.tokenizer` entry) when it is the one ``record`` describes; an
    `AbiError` when it is missing or another."""
    if text is None:
        _fail("the module records a tokenizer but has no 'abi.tokenizer' entry")
    data = text.encode("utf-8")
    if len(data) != record.size or hashlib.sha256(data).hexdigest() != record.sha256:
        _fail(
            "the 'abi.tokenizer' entry is not the tokenizer 'abi.generation' records "
            f"({len(data)} bytes; recorded: {record.size} bytes, sha256 {record.sha256[:12]}…)"
        )
    return text


def encode_generation(record: GenerationRecord) -> str:
    value: dict[str, Any] = {
        "v": VERSION,
        "ids": record.ids,
        "positions": record.positions,
        "cache": record.cache,
        "vocabulary": record.vocabulary,
        "eos": list(record.eos),
        "defaults": dict(record.defaults),
        "chat_template": record.chat_template,
        "special_tokens": dict(record.special_tokens),
        "tokenizer": None
        if record.tokenizer is None
        else {
            "bytes": record.tokenizer.size,
            "sha256": record.tokenizer.sha256,
            "vocabulary": record.tokenizer.vocabulary,
        },
        "step": record.step,
    }
    # (absent when None: what readers before them read)
    if record.prefill is not None:
        value["prefill"] = record.prefill
    if record.chunk is not None:
        value["chunk"] = record.chunk
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _fail(message: str) -> NoReturn:
    raise AbiError(message)


def _count(value: Any, where: str, least: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        _fail(f'"{where}": expected an integer of at least {least}')
    return value


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(f'"{where}": expected an argument name (a non-empty string)')
    return value


_MEMBERS = {
    "v",
    "ids",
    "positions",
    "cache",
    "vocabulary",
    "eos",
    "defaults",
    "chat_template",
    "special_tokens",
    "tokenizer",
    "step",
    "prefill",
    "chunk",
}


def decode_generation(text: str | bytes) -> GenerationRecord:
    """The record of an `abi.generation` text; an `AbiError` naming the member for
    anything malformed (an unknown member too: a newer writer's)."""
    value = read_versioned(text, VERSION)
    unknown = sorted(set(value) - _MEMBERS)
    if unknown:
        _fail(f'unknown member "{unknown[0]}"')
    ids = _name(value.get("ids"), "ids")
    positions = _name(value.get("positions"), "positions")
    if ids == positions:
        _fail('"ids" and "positions" name the same argument')
    cache = _count(value.get("cache"), "cache", 1)
    vocabulary = _count(value.get("vocabulary"), "vocabulary", 1)
    eos = value.get("eos", [])
    if not isinstance(eos, list):
        _fail('"eos": expected a list of token ids')
    for position, token in enumerate(eos):
        if not isinstance(token, int) or isinstance(token, bool) or not 0 <= token < vocabulary:
            _fail(f'"eos"[{position}]: expected a token id in [0, {vocabulary - 1}]')
    defaults = _defaults(value.get("defaults", {}))
    template = value.get("chat_template")
    if template is not None and not isinstance(template, str):
        _fail('"chat_template": expected a string or null')
    special = value.get("special_tokens", {})
    if not isinstance(special, dict) or not all(isinstance(v, str) for v in special.values()):
        _fail('"special_tokens": expected an object of strings')
    tokenizer = value.get("tokenizer")
    record = None
    if tokenizer is not None:
        if not isinstance(tokenizer, dict) or set(tokenizer) != {"bytes", "sha256", "vocabulary"}:
            _fail('"tokenizer": expected an object of "bytes", "sha256" and "vocabulary"')
        digest = tokenizer["sha256"]
        if not isinstance(digest, str) or len(digest) != 64 or digest.strip("0123456789abcdef"):
            _fail('"tokenizer"."sha256": expected 64 lowercase hex digits')
        record = TokenizerRecord(
            _count(tokenizer["bytes"], "tokenizer.bytes", 0),
            digest,
            _count(tokenizer["vocabulary"], "tokenizer.vocabulary", 1),
        )
        if record.vocabulary > vocabulary:
            _fail(
                f'"tokenizer"."vocabulary": {record.vocabulary} tokens do not fit the '
                f"model's vocabulary of {vocabulary}"
            )
    step, prefill, chunk = (_function(value.get(key), key) for key in ("step", "prefill", "chunk"))
    if chunk is not None and prefill is None:
        _fail('"chunk": a chunk function needs a "prefill" function for the rest of a prompt')
    return GenerationRecord(
        ids,
        positions,
        cache,
        vocabulary,
        tuple(eos),
        defaults,
        template,
        tuple(sorted(special.items())),
        record,
        step,
        prefill,
        chunk,
    )


def _function(value: Any, key: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        _fail(f'"{key}": expected a function name (a non-empty string) or null')
    return value


def _defaults(value: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(value, dict):
        _fail('"defaults": expected an object')
    for key, setting in value.items():
        kinds = SETTINGS.get(key)
        if kinds is None:
            _fail(f'"defaults": unknown setting "{key}" (known: {", ".join(SETTINGS)})')
        if setting is None:
            continue
        if not isinstance(setting, kinds) or (bool not in kinds and isinstance(setting, bool)):
            _fail(f'"defaults"."{key}": expected {" or ".join(k.__name__ for k in kinds)}')
        if isinstance(setting, float) and not math.isfinite(setting):
            _fail(f'"defaults"."{key}": expected a finite number')
    return tuple(sorted((k, v) for k, v in value.items() if v is not None))


def format_generation(record: GenerationRecord) -> str:
    """The `generation:` line of `abi-sig show`: ``ids input_ids, positions
    cache_position, cache 32, vocabulary 300, eos [2], steps @step, prompts @main_prefill,
    tokenizer 12345 bytes (300 tokens), chat template``."""
    parts = [
        f"ids {record.ids}",
        f"positions {record.positions}",
        f"cache {record.cache}",
        f"vocabulary {record.vocabulary}",
        f"eos [{', '.join(map(str, record.eos))}]",
    ]
    if record.step is not None:
        parts.append(f"steps @{record.step}")
    if record.prefill is not None:
        parts.append(f"prompts @{record.prefill}")
    if record.chunk is not None:
        parts.append(f"prompt chunks @{record.chunk}")
    if record.defaults:
        parts.append(
            "defaults " + ", ".join(f"{key}={json.dumps(v)}" for key, v in record.defaults)
        )
    if record.tokenizer is not None:
        parts.append(
            f"tokenizer {record.tokenizer.size} bytes ({record.tokenizer.vocabulary} tokens)"
        )
    else:
        parts.append("no tokenizer")
    if record.chat_template is not None:
        parts.append("chat template")
    return ", ".join(parts)
