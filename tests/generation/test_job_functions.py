"""The functions of a generation job (`with_generation`, docs/formats.md, "A model's
generation job"): a prompt function (every position's logits) records the job, a step
function (one token a call), a prefill function (a prompt of any length, the last
position's logits) and a chunk function (a static number of a prompt's tokens, the last
position's logits) join it when they share its state; what does not pair is refused.
Pure text, no IREE."""

from __future__ import annotations

import dataclasses

import pytest

from abi_compiler.call_model import Array, OriginalCall, Symbol, ValueRange
from abi_compiler.codecs.call_json import encode_call
from abi_compiler.codecs.generation_json import decode_generation
from abi_compiler.errors import AbiError
from abi_compiler.frontends.generation_job import generation_roles, with_generation
from abi_compiler.text.reflection_entry import update_reflection_entries


def _call(ids: int | str, rows: int | str) -> OriginalCall:
    positions = (ValueRange(0, 15, (0,)),) if ids == 1 else ()
    return OriginalCall(
        (),
        (
            ("input_ids", Array(0, "int64", (1, ids))),
            ("cache_position", Array(1, "int64", (ids,), positions)),
        ),
        Array(0, "float32", (1, rows, 8)),
        symbols=(Symbol("seq", 1, 16),) if ids == "seq" else (),
    )


PROMPT, STEP, PREFILL = _call("seq", "seq"), _call(1, 1), _call("seq", 1)
# (a chunk's first position is at most the cache's length less its tokens)
CHUNK = dataclasses.replace(
    _call(4, 1),
    keywords=(
        ("input_ids", Array(0, "int64", (1, 4))),
        ("cache_position", Array(1, "int64", (4,), (ValueRange(0, 12, (0,)),))),
    ),
)
_UP_TO_FOUR = (
    "up to four may, one taking a prompt of any length, one a token a call, one a prompt "
    "for its last logits only and one a static number of a prompt's tokens for their last "
    "logits"
)


def _text(functions: dict[str, tuple[OriginalCall, str]]) -> str:
    def quoted(text: str) -> str:
        return text.replace("\\", "\\5C").replace('"', "\\22")

    return "".join(
        f"func.func @{name}() attributes {{iree.reflection = {{abi.call = "
        f'"{quoted(encode_call(call))}", abi.state = "{quoted(state)}"}}}} {{\n  return\n}}\n'
        for name, (call, state) in functions.items()
    )


def _job(text: str) -> dict[str, str]:
    found: dict[str, str] = {}

    def read(name: str, value: str) -> None:
        found[name] = value

    update_reflection_entries(text, "abi.generation", read)
    return found


def test_the_roles() -> None:
    roles = [generation_roles(call) for call in (PROMPT, STEP, PREFILL, CHUNK)]
    assert [(r.step, r.last, r.chunk, r.cache) for r in roles if not isinstance(r, str)] == [
        (False, False, False, 16),
        (True, False, False, 16),
        (False, True, False, 16),
        (False, False, True, 16),
    ]


def test_a_prompt_a_step_and_a_prefill_function() -> None:
    text = _text({"main": (PROMPT, "s"), "step": (STEP, "s"), "main_prefill": (PREFILL, "s")})
    entries = _job(with_generation(text, generation_config={}))
    assert list(entries) == ["main"]
    record = decode_generation(entries["main"])
    assert (record.step, record.prefill, record.cache) == ("step", "main_prefill", 16)
    # Without the step: the prompt function takes the steps, the prefill function the prompt.
    text = _text({"main": (PROMPT, "s"), "main_prefill": (PREFILL, "s")})
    record = decode_generation(_job(with_generation(text))["main"])
    assert (record.step, record.prefill) == (None, "main_prefill")


def test_a_chunk_function_joins_a_prefill_function() -> None:
    functions = {"main": (PROMPT, "s"), "step": (STEP, "s"), "main_prefill": (PREFILL, "s")}
    text = _text({**functions, "main_chunk": (CHUNK, "s")})
    record = decode_generation(_job(with_generation(text))["main"])
    assert (record.step, record.prefill, record.chunk) == ("step", "main_prefill", "main_chunk")
    assert decode_generation(_job(with_generation(_text(functions)))["main"]).chunk is None


@pytest.mark.parametrize(
    ("functions", "message"),
    [
        (
            {"main": (PROMPT, "s"), "a": (PREFILL, "s"), "b": (PREFILL, "s")},
            "cannot record a generation job: several functions do it (@main, @a, @b); "
            + _UP_TO_FOUR,
        ),
        (
            {"a": (PREFILL, "s"), "step": (STEP, "s")},
            "cannot record a generation job: several functions do it (@a, @step); " + _UP_TO_FOUR,
        ),
        (
            {"main": (PROMPT, "s"), "step": (STEP, "s"), "main_prefill": (PREFILL, "t")},
            "cannot record a generation job: @main and @main_prefill do not share one cache "
            "(their state differs): compile them with shared_state=True (abi-compile "
            "--shared-state)",
        ),
        (
            {
                "main": (PROMPT, "s"),
                "main_prefill": (
                    dataclasses.replace(PREFILL, result=Array(0, "float32", (1, 1, 9))),
                    "s",
                ),
            },
            "cannot record a generation job: @main and @main_prefill differ in cache length "
            "or vocabulary",
        ),
    ],
)
def test_what_does_not_pair(functions: dict[str, tuple[OriginalCall, str]], message: str) -> None:
    with pytest.raises(AbiError) as error:
        with_generation(_text(functions), generation_config={})
    assert str(error.value) == message


_CHUNKS = {"main": (PROMPT, "s"), "main_prefill": (PREFILL, "s"), "main_chunk": (CHUNK, "s")}


@pytest.mark.parametrize(
    ("functions", "message"),
    [
        (
            {**_CHUNKS, "other": (CHUNK, "s")},
            "cannot record a generation job: several functions do it (@main, @main_prefill, "
            "@main_chunk, @other); " + _UP_TO_FOUR,
        ),
        (
            {"main": (PROMPT, "s"), "main_chunk": (CHUNK, "s")},
            "cannot record a generation job: @main_chunk takes a prompt a chunk at a time, "
            "but no function takes the rest of it for its last logits only",
        ),
        (
            {**_CHUNKS, "main_chunk": (CHUNK, "t")},
            "cannot record a generation job: @main and @main_chunk do not share one cache "
            "(their state differs): compile them with shared_state=True (abi-compile "
            "--shared-state)",
        ),
    ],
)
def test_a_chunk_function_that_does_not_pair(
    functions: dict[str, tuple[OriginalCall, str]], message: str
) -> None:
    with pytest.raises(AbiError) as error:
        with_generation(_text(functions), generation_config={})
    assert str(error.value) == message
