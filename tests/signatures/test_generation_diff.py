"""`diff_generation` (`abi-sig diff` on the generation job, docs/formats.md, "Comparing
two versions"): each member of `abi.generation` compared, breaking where a `generate`
call the old module answered is refused or its token ids change meaning. The CLI's
output is pinned by tests/filecheck/abi-sig/diff-generation.mlir."""

from __future__ import annotations

import dataclasses

import pytest

from abi_compiler.codecs.generation_json import GenerationRecord, TokenizerRecord
from abi_compiler.signatures.generation_diff import diff_generation

TOKENIZER = TokenizerRecord(4861, "5d0c" + "1" * 60, 323)
JOB = GenerationRecord(
    "input_ids",
    "cache_position",
    64,
    323,
    (1,),
    (("max_new_tokens", 20),),
    "{{ messages }}",
    (("bos_token", "<s>"),),
    TOKENIZER,
    None,
)


def _lines(old: GenerationRecord | None, new: GenerationRecord | None) -> list[str]:
    return [
        finding.line()
        for finding in diff_generation(
            None if old is None else ("main", old), None if new is None else ("main", new)
        )
    ]


def test_the_same_job_and_no_job_are_no_change() -> None:
    assert _lines(JOB, dataclasses.replace(JOB)) == []
    assert _lines(None, None) == []


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ({"ids": "tokens"}, "breaking: main: generation ids: input_ids -> tokens"),
        ({"positions": "pos"}, "breaking: main: generation positions: cache_position -> pos"),
        ({"cache": 32}, "breaking: main: generation cache: 64 -> 32"),
        ({"cache": 128}, "compatible: main: generation cache: 64 -> 128"),
        ({"vocabulary": 400}, "breaking: main: generation vocabulary: 323 -> 400"),
        ({"eos": (1, 2)}, "compatible: main: generation eos: [1] -> [1, 2]"),
        (
            {"defaults": (("do_sample", True),)},
            "compatible: main: generation defaults: max_new_tokens=20 -> do_sample=true",
        ),
        ({"defaults": ()}, "compatible: main: generation defaults: max_new_tokens=20 -> none"),
        ({"step": "step"}, "compatible: main: generation step: none -> @step"),
        (
            {"prefill": "main_prefill"},
            "compatible: main: generation prefill: none -> @main_prefill",
        ),
        ({"chunk": "main_chunk"}, "compatible: main: generation chunk: none -> @main_chunk"),
        (
            {"tokenizer": TokenizerRecord(4861, "9f1e" + "1" * 60, 323)},
            "breaking: main: generation tokenizer: 4861 bytes, sha256 5d0c11111111… (323 "
            "tokens) -> 4861 bytes, sha256 9f1e11111111… (323 tokens)",
        ),
        (
            {"tokenizer": None},
            "breaking: main: generation tokenizer: removed 4861 bytes, sha256 5d0c11111111… "
            "(323 tokens)",
        ),
        (
            {"chat_template": "{{ bos_token }}"},
            "compatible: main: generation chat_template: 14 characters, sha256 "
            "f24189f08c85… -> 15 characters, sha256 38924663eb3d…",
        ),
        (
            {"chat_template": None},
            "breaking: main: generation chat_template: removed 14 characters, sha256 f24189f08c85…",
        ),
        (
            {"special_tokens": ()},
            'compatible: main: generation special_tokens: {"bos_token": "<s>"} -> {}',
        ),
    ],
)
def test_each_member(change: dict[str, object], line: str) -> None:
    assert _lines(JOB, dataclasses.replace(JOB, **change)) == [line]  # type: ignore[arg-type]


def test_a_tokenizer_or_template_added_is_compatible() -> None:
    bare = dataclasses.replace(JOB, tokenizer=None, chat_template=None)
    assert _lines(bare, JOB) == [
        "compatible: main: generation tokenizer: added 4861 bytes, sha256 5d0c11111111… "
        "(323 tokens)",
        "compatible: main: generation chat_template: added 14 characters, sha256 f24189f08c85…",
    ]


def test_the_job_added_removed_or_moved() -> None:
    text = (
        "ids input_ids, positions cache_position, cache 64, vocabulary 323, eos [1], "
        "defaults max_new_tokens=20, tokenizer 4861 bytes (323 tokens), chat template"
    )
    assert _lines(JOB, None) == [f"breaking: main: generation: removed {text}"]
    assert _lines(None, JOB) == [f"compatible: main: generation: added {text}"]
    moved = diff_generation(("main", JOB), ("prefill", JOB))
    assert [(f.function, f.line()) for f in moved] == [
        ("prefill", "compatible: prefill: generation function: @main -> @prefill")
    ]
