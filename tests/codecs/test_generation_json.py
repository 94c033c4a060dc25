"""The `abi.generation` codec (docs/formats.md, "A model's generation job"): what it
writes, that it reads it back, and every malformed entry refused with the member named."""

from __future__ import annotations

import dataclasses
import json

import pytest

from abi_compiler.codecs.generation_json import (
    GenerationRecord,
    TokenizerRecord,
    check_tokenizer_text,
    decode_generation,
    encode_generation,
    format_generation,
    tokenizer_record,
)
from abi_compiler.errors import AbiError

TOKENIZER = '{"model": {"type": "BPE"}, "added": "café"}'

RECORD = GenerationRecord(
    "input_ids",
    "cache_position",
    64,
    323,
    (1, 2),
    (("max_new_tokens", 20), ("temperature", 0.7)),
    "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}",
    (("bos_token", "<s>"), ("eos_token", "</s>")),
    tokenizer_record(TOKENIZER, 300),
)


def test_the_entry_as_written() -> None:
    text = encode_generation(RECORD)
    assert json.loads(text) == {
        "v": 1,
        "ids": "input_ids",
        "positions": "cache_position",
        "cache": 64,
        "vocabulary": 323,
        "eos": [1, 2],
        "defaults": {"max_new_tokens": 20, "temperature": 0.7},
        "chat_template": RECORD.chat_template,
        "special_tokens": {"bos_token": "<s>", "eos_token": "</s>"},
        "tokenizer": {
            "bytes": 44,  # (UTF-8: é is two bytes)
            "sha256": RECORD.tokenizer.sha256 if RECORD.tokenizer else "",
            "vocabulary": 300,
        },
        "step": None,
    }
    assert text.startswith('{"cache":64,"chat_template":')  # compact, keys sorted
    assert decode_generation(text) == RECORD
    bare = GenerationRecord("ids", "pos", 8, 10)
    assert decode_generation(encode_generation(bare)) == bare
    two = GenerationRecord("ids", "pos", 8, 10, step="step")
    assert decode_generation(encode_generation(two)) == two
    assert format_generation(two) == (
        "ids ids, positions pos, cache 8, vocabulary 10, eos [], steps @step, no tokenizer"
    )
    # A prefill function: written only when there is one (what earlier readers read).
    three = GenerationRecord("ids", "pos", 8, 10, step="step", prefill="main_prefill")
    assert json.loads(encode_generation(three))["prefill"] == "main_prefill"
    assert "prefill" not in json.loads(encode_generation(two))
    assert decode_generation(encode_generation(three)) == three
    assert format_generation(three) == (
        "ids ids, positions pos, cache 8, vocabulary 10, eos [], steps @step, prompts "
        "@main_prefill, no tokenizer"
    )
    # A chunk function beside it: likewise.
    four = dataclasses.replace(three, chunk="main_chunk")
    assert json.loads(encode_generation(four))["chunk"] == "main_chunk"
    assert "chunk" not in json.loads(encode_generation(three))
    assert decode_generation(encode_generation(four)) == four
    assert format_generation(four) == (
        "ids ids, positions pos, cache 8, vocabulary 10, eos [], steps @step, prompts "
        "@main_prefill, prompt chunks @main_chunk, no tokenizer"
    )


def test_the_line_abi_sig_show_prints() -> None:
    assert format_generation(RECORD) == (
        "ids input_ids, positions cache_position, cache 64, vocabulary 323, eos [1, 2], "
        "defaults max_new_tokens=20, temperature=0.7, tokenizer 44 bytes (300 tokens), "
        "chat template"
    )
    assert format_generation(GenerationRecord("ids", "pos", 8, 10)) == (
        "ids ids, positions pos, cache 8, vocabulary 10, eos [], no tokenizer"
    )


def test_the_tokenizer_entry_is_checked_against_the_record() -> None:
    assert RECORD.tokenizer is not None
    assert check_tokenizer_text(RECORD.tokenizer, TOKENIZER) == TOKENIZER
    with pytest.raises(AbiError) as missing:
        check_tokenizer_text(RECORD.tokenizer, None)
    assert str(missing.value) == "the module records a tokenizer but has no 'abi.tokenizer' entry"
    with pytest.raises(AbiError) as other:
        check_tokenizer_text(RECORD.tokenizer, TOKENIZER.replace("BPE", "bpe"))
    assert str(other.value).startswith(
        "the 'abi.tokenizer' entry is not the tokenizer 'abi.generation' records (44 bytes; "
        f"recorded: 44 bytes, sha256 {RECORD.tokenizer.sha256[:12]}…)"
    )
    assert isinstance(tokenizer_record("x", 1), TokenizerRecord)


def _changed(**members: object) -> str:
    value = json.loads(encode_generation(RECORD))
    for key, member in members.items():
        if member is ...:
            del value[key]
        else:
            value[key] = member
    return json.dumps(value)


MALFORMED = [
    ("{", "not JSON"),
    ("[]", 'expected an object with "v": 1'),
    (_changed(v=2), 'expected an object with "v": 1'),
    (_changed(extra=1), 'unknown member "extra"'),
    (_changed(ids=...), '"ids": expected an argument name (a non-empty string)'),
    (_changed(positions=""), '"positions": expected an argument name (a non-empty string)'),
    (_changed(positions="input_ids"), '"ids" and "positions" name the same argument'),
    (_changed(cache=0), '"cache": expected an integer of at least 1'),
    (_changed(cache=True), '"cache": expected an integer of at least 1'),
    (_changed(vocabulary="323"), '"vocabulary": expected an integer of at least 1'),
    (_changed(eos=1), '"eos": expected a list of token ids'),
    (_changed(eos=[1, 323]), '"eos"[1]: expected a token id in [0, 322]'),
    (_changed(defaults=[]), '"defaults": expected an object'),
    (
        _changed(defaults={"beams": 4}),
        '"defaults": unknown setting "beams" (known: max_new_tokens, do_sample, '
        "temperature, top_k, top_p)",
    ),
    (_changed(defaults={"top_k": 2.5}), '"defaults"."top_k": expected int'),
    (_changed(defaults={"do_sample": 1}), '"defaults"."do_sample": expected bool'),
    (_changed(defaults={"temperature": True}), '"defaults"."temperature": expected int or float'),
    (_changed(chat_template=3), '"chat_template": expected a string or null'),
    (_changed(step=""), '"step": expected a function name (a non-empty string) or null'),
    (_changed(prefill=7), '"prefill": expected a function name (a non-empty string) or null'),
    (_changed(chunk=""), '"chunk": expected a function name (a non-empty string) or null'),
    (
        _changed(chunk="main_chunk"),
        '"chunk": a chunk function needs a "prefill" function for the rest of a prompt',
    ),
    (_changed(special_tokens={"bos_token": 1}), '"special_tokens": expected an object of strings'),
    (
        _changed(tokenizer={"bytes": 1}),
        '"tokenizer": expected an object of "bytes", "sha256" and "vocabulary"',
    ),
    (
        _changed(tokenizer={"bytes": 1, "sha256": "AB" * 32, "vocabulary": 3}),
        '"tokenizer"."sha256": expected 64 lowercase hex digits',
    ),
    (
        _changed(tokenizer={"bytes": -1, "sha256": "ab" * 32, "vocabulary": 3}),
        '"tokenizer.bytes": expected an integer of at least 0',
    ),
    (
        _changed(tokenizer={"bytes": 1, "sha256": "ab" * 32, "vocabulary": 324}),
        '"tokenizer"."vocabulary": 324 tokens do not fit the model\'s vocabulary of 323',
    ),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_a_malformed_entry_is_refused(text: str, message: str) -> None:
    with pytest.raises(AbiError) as error:
        decode_generation(text)
    assert str(error.value) == message
