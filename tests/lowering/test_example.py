"""The bundled example (`examples/structured.mlir`): both named
pipelines give verified modules, and every exported function behaves the same in the
interpreter before and after lowering, called with nested Python values through the
runtime marshalling (docs/spec.md §10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy
from tests.lowering.helpers import (
    Lowered,
    as_unpacked,
    assert_same,
    call,
    function,
    parse,
    reflection,
    run_passes,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "structured.mlir"

weights = np.arange(256, dtype=np.float32).reshape(16, 16)
bias = np.linspace(-1, 1, 16, dtype=np.float32)
pair = (np.array([1, 2, 3, 4], dtype=np.float32), np.array([7, 8, 9], dtype=np.int32))
prompt = np.array([5, 6, 7], dtype=np.int32)

# name -> (positional, keyword arguments, expected result as `unpack` returns it)
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any], Any]] = {
    "predict": (
        (np.ones((2, 224, 224, 3), dtype=np.float32), 0.5),
        {},
        np.zeros((2, 1000), dtype=np.float32),
    ),
    "swap": ((pair,), {}, (pair[1], pair[0])),
    "update": (
        ({"weights": weights, "bias": bias}, 41, [1, 2.5, prompt]),
        {},
        ({"bias": bias, "weights": weights}, 42),
    ),
    "generate": ((prompt,), {"temperature": 0.75, "top_k": 40}, prompt),
}


@pytest.fixture(scope="module")
def example_text() -> str:
    return EXAMPLE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def v1(example_text: str) -> Lowered:
    return run_passes(example_text, ["iree-abi-v1"])


@pytest.fixture(scope="module")
def legacy(example_text: str) -> Lowered:
    return run_passes(example_text, ["iree-abi-legacy"])


def test_every_exported_function_is_exercised(example_text: str) -> None:
    module = parse(example_text)
    public = [
        op.sym_name.data
        for op in module.body.ops
        if getattr(op, "sym_visibility", None) is None and hasattr(op, "sym_name")
    ]
    assert sorted(public) == sorted(CALLS)


def test_both_pipelines_give_verified_lowered_modules(v1: Lowered, legacy: Lowered) -> None:
    # run_passes verifies after every pass and reparses (and verifies) the printed text.
    for lowered in (v1, legacy):
        assert "tuple<" not in lowered.text and "!abi.dict" not in lowered.text
    assert "iree.abi.stub" in function(v1.module, "swap").attributes
    assert function(v1.module, "_update").sym_visibility is not None
    assert v1.warnings == []
    assert legacy.warnings == [
        "argument names dropped: a SIP root cannot mix positional and named arguments"
    ]


def test_pipelines_are_idempotent_on_the_example(v1: Lowered, legacy: Lowered) -> None:
    assert run_passes(v1.text, ["iree-abi-v1"]).text == v1.text
    assert run_passes(legacy.text, ["iree-abi-legacy"]).text == legacy.text


@pytest.mark.parametrize("name", sorted(CALLS))
def test_original_behaviour(example_text: str, name: str) -> None:
    args, kwargs, expected = CALLS[name]
    module = parse(example_text)
    # The original takes its arguments positionally: names are only ABI metadata.
    values = (*args, *kwargs.values())
    assert_same(as_unpacked(call(module, name, values)), expected, f"original @{name}")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_v1_behaviour(v1: Lowered, name: str) -> None:
    args, kwargs, expected = CALLS[name]
    abi = reflection(v1.module, name)["iree.abi"]
    results = call(v1.module, name, pack(abi, *args, **kwargs))
    assert_same(unpack(abi, results), expected, f"iree-abi-v1 @{name}")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_legacy_behaviour(legacy: Lowered, name: str) -> None:
    args, kwargs, expected = CALLS[name]
    entries = reflection(legacy.module, name)
    # `generate` mixes positional and named arguments: its SIP root is a sequence, the
    # names are dropped (docs/spec.md §6), so every argument is positional.
    flat = pack_legacy(entries["f"], entries["sip"], *args, *kwargs.values())
    results = call(legacy.module, name, flat)
    assert_same(unpack_legacy(entries["f"], entries["sip"], results), expected, f"legacy @{name}")
