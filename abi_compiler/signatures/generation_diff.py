"""Can a new version of a language model replace the old one under its generation loop?
The module's generation job (`abi.generation`, docs/formats.md, "Comparing two versions")
compared member by member, as `abi-sig diff` reports it: `Finding`s on the side
``"generation"``, the member as the path.

A change *breaks* when a `generate` call the old module answered is refused by the new
one, or its token ids mean something else: the job removed, the token ids or positions
taken by other arguments, a shorter cache, another vocabulary, the tokenizer removed or
another one (compared by its recorded size and sha256, never its text), the chat
template removed. The others are *compatible* (every old call is still taken, its
answer of the same kind): the job added or on another function, a longer cache, the
tokenizer or chat template added, another chat template, end-of-sequence ids, default
settings, step, prefill or chunk function — the text may differ, as it does with other
weights.

Pure Python: the records in, findings out.
"""

from __future__ import annotations

import hashlib
import json

from abi_compiler.codecs.generation_json import (
    GenerationRecord,
    TokenizerRecord,
    format_generation,
)
from abi_compiler.signatures.signature_diff import Finding, What

__all__ = ["Job", "diff_generation"]

#: A module's job: the function that records it and the record.
Job = tuple[str, GenerationRecord]


def diff_generation(old: Job | None, new: Job | None) -> list[Finding]:
    """The changes of a module's generation job (None: the module records none), in
    member order; each finding is on the function that records the new job (the old
    one's when the job is removed)."""
    if new is None:
        if old is None:
            return []
        text = format_generation(old[1])
        return [Finding(old[0], True, "generation", (), "removed", text, None)]
    if old is None:
        text = format_generation(new[1])
        return [Finding(new[0], False, "generation", (), "added", None, text)]
    (old_function, before), (function, after) = old, new
    found: list[Finding] = []

    def change(member: str, breaking: bool, a: str | None, b: str | None) -> None:
        what: What = (
            "job" if a is not None and b is not None else "added" if a is None else "removed"
        )
        found.append(Finding(function, breaking, "generation", (member,), what, a, b))

    if old_function != function:
        change("function", False, f"@{old_function}", f"@{function}")
    for member in ("ids", "positions"):
        a, b = getattr(before, member), getattr(after, member)
        if a != b:
            change(member, True, a, b)
    if before.cache != after.cache:
        change("cache", after.cache < before.cache, str(before.cache), str(after.cache))
    if before.vocabulary != after.vocabulary:
        change("vocabulary", True, str(before.vocabulary), str(after.vocabulary))
    if before.eos != after.eos:
        change("eos", False, _ids(before.eos), _ids(after.eos))
    if before.defaults != after.defaults:
        change("defaults", False, _defaults(before), _defaults(after))
    if before.step != after.step:
        change("step", False, _step(before.step), _step(after.step))
    for member in ("prefill", "chunk"):
        a, b = getattr(before, member), getattr(after, member)
        if a != b:
            change(member, False, _step(a), _step(b))
    a_tokenizer, b_tokenizer = _tokenizer(before.tokenizer), _tokenizer(after.tokenizer)
    if a_tokenizer != b_tokenizer:
        change(
            "tokenizer", b_tokenizer is None or a_tokenizer is not None, a_tokenizer, b_tokenizer
        )
    a_template, b_template = _template(before.chat_template), _template(after.chat_template)
    if a_template != b_template:
        change("chat_template", b_template is None, a_template, b_template)
    if before.special_tokens != after.special_tokens:
        change(
            "special_tokens",
            False,
            json.dumps(dict(before.special_tokens), ensure_ascii=False),
            json.dumps(dict(after.special_tokens), ensure_ascii=False),
        )
    return found


def _ids(ids: tuple[int, ...]) -> str:
    return f"[{', '.join(map(str, ids))}]"


def _defaults(record: GenerationRecord) -> str:
    return ", ".join(f"{key}={json.dumps(v)}" for key, v in record.defaults) or "none"


def _step(step: str | None) -> str:
    return "none" if step is None else f"@{step}"


def _tokenizer(record: TokenizerRecord | None) -> str | None:
    """A tokenizer as the diff names it: its size and sha256 (the text is not read)."""
    if record is None:
        return None
    return f"{record.size} bytes, sha256 {record.sha256[:12]}… ({record.vocabulary} tokens)"


def _template(template: str | None) -> str | None:
    if template is None:
        return None
    digest = hashlib.sha256(template.encode("utf-8")).hexdigest()
    return f"{len(template)} characters, sha256 {digest[:12]}…"
