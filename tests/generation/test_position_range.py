"""`with_position_range` (recording a generation job, docs/formats.md, "A model's
generation job"): the positions of the job's functions are bounded to the cache in their
original call where no recorded range bounds every position already; other functions and
a step function whose one position is bounded keep their call as it is. Pure text, no
IREE."""

from __future__ import annotations

from abi_compiler.call_model import Array, OriginalCall, Symbol, ValueRange
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.frontends.generation_job import with_position_range
from abi_compiler.text.reflection_entry import update_reflection_entries


def _call(dims: tuple[int | str, ...], ranges: tuple[ValueRange, ...]) -> OriginalCall:
    return OriginalCall(
        (),
        (
            ("input_ids", Array(0, "int64", (1, *dims))),
            ("cache_position", Array(1, "int64", dims, ranges)),
        ),
        Array(0, "float32", (1, *dims, 8)),
        symbols=(Symbol("seq", 1, 16),) if "seq" in dims else (),
    )


def _text(calls: dict[str, OriginalCall]) -> str:
    def quoted(call: OriginalCall) -> str:
        return encode_call(call).replace("\\", "\\5C").replace('"', "\\22")

    return "".join(
        f'func.func @{name}() attributes {{iree.reflection = {{abi.call = "{quoted(call)}"}}}} '
        "{\n  return\n}\n"
        for name, call in calls.items()
    )


def _positions(text: str) -> dict[str, tuple[ValueRange, ...]]:
    found: dict[str, tuple[ValueRange, ...]] = {}

    def read(name: str, value: str) -> None:
        node = dict(decode_call(value).keywords)["cache_position"]
        assert isinstance(node, Array)
        found[name] = node.ranges

    update_reflection_entries(text, "abi.call", read)
    return found


def test_a_prompt_of_dynamic_length_gets_the_cache_as_its_range() -> None:
    text = _text({"main": _call(("seq",), ()), "other": _call(("seq",), ())})
    assert _positions(with_position_range(text, {"main"}, 16)) == {
        "main": (ValueRange(0, 15),),
        "other": (),
    }


def test_a_range_within_the_cache_is_kept_and_a_wider_one_narrowed() -> None:
    step = (ValueRange(0, 15, (0,)),)  # (the torch frontend's of a one-token step)
    first = (ValueRange(0, 12, (0,)),)  # (a static prompt of 4: its first position only)
    text = _text(
        {
            "step": _call((1,), step),
            "prompt": _call((4,), first),
            "within": _call(("seq",), (ValueRange(0, 9),)),
            "wider": _call(("seq",), (ValueRange(0, 99),)),
            "unbounded_below": _call(("seq",), (ValueRange(None, 9),)),
        }
    )
    functions = {"step", "prompt", "within", "wider", "unbounded_below"}
    assert _positions(with_position_range(text, functions, 16)) == {
        "step": step,
        "prompt": (*first, ValueRange(0, 15)),
        "within": (ValueRange(0, 9),),
        "wider": (ValueRange(0, 99), ValueRange(0, 15)),
        "unbounded_below": (ValueRange(None, 9), ValueRange(0, 15)),
    }
