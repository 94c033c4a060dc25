"""Real-runtime check (docs/spec.md §8.2's promise): the output of
`-p iree-abi-v1` compiles with IREE's `iree-compile` (llvm-cpu, host CPU) and is callable
from `iree.runtime` with nested Python values — dicts, tuples, numpy arrays with static
and dynamic dims, scalars, a keyword argument — giving nested results (tuples for
`stuple`, dicts for `sdict`, `DeviceArray`s for tensors).

The same results are computed three more ways: by numpy, by xDSL's interpreter on the
same lowered module called through this project's `runtime.pack` / `unpack`, and — for
the legacy pipeline, whose flat output IREE also compiles and runs without `iree.abi`
reflection (dynamic mode) — through `pack_legacy` / `unpack_legacy`.

Skipped when `iree.compiler` or `iree.runtime` (the optional `iree` extra) is missing.
Finally, hypothesis generates random structured functions restricted to what IREE's
native ABI takes (the generator of test_equivalence.py), compiles them as one module and
checks IREE's results against the generator's: 2 modules of 6 functions in the normal
run, 20 with `ABI_SLOW=1`.

One compile per module, about a second each.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy
from tests.lowering.generators import (
    IREE_LEAF_TYPES,
    function_specs,
    function_texts,
    values_of,
)
from tests.lowering.helpers import (
    Lowered,
    as_unpacked,
    assert_same,
    call,
    reflection,
    run_passes,
)

iree_compiler = pytest.importorskip("iree.compiler")
rt = pytest.importorskip("iree.runtime")
from iree.compiler.tools import binaries  # noqa: E402

COMPILE_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    # IREE demotes f64 to f32 by default; the values here must come back unchanged.
    "--iree-input-demote-f64-to-f32=false",
]

# A dict with static and dynamic tensors and a scalar, a nested tuple, a plain tensor, a
# scalar and a named argument; results nest a tuple in a dict. `@inlined` returns a single
# structure (its items are the wrapper's results, docs/spec.md §4.2); `@plain` needs no wrapper;
# `@via_helper` passes structures to a private helper with func.call.
MODULE = """
func.func @combine(
    %params: !abi.dict<"weights": tensor<2x3xf32>, "bias": tensor<?xf32>, "count": i32>,
    %pair: tuple<tensor<?x2xi32>, tuple<f32, tensor<4xi64>>>,
    %x: tensor<3xf32>, %step: i64, %scale: f32 {abi.name = "scale"})
    -> (!abi.dict<"doubled": tensor<3xf32>, "nested": tuple<i32, tensor<?xf32>>, "weights": tensor<2x3xf32>>,
        tuple<tensor<?x2xi32>, i64, tensor<4xi64>>, f32) {
  %w = abi.dict.get %params["weights"] : !abi.dict<"weights": tensor<2x3xf32>, "bias": tensor<?xf32>, "count": i32> -> tensor<2x3xf32>
  %bias = abi.dict.get %params["bias"] : !abi.dict<"weights": tensor<2x3xf32>, "bias": tensor<?xf32>, "count": i32> -> tensor<?xf32>
  %count = abi.dict.get %params["count"] : !abi.dict<"weights": tensor<2x3xf32>, "bias": tensor<?xf32>, "count": i32> -> i32
  %ints = abi.tuple.get %pair[0] : tuple<tensor<?x2xi32>, tuple<f32, tensor<4xi64>>> -> tensor<?x2xi32>
  %inner = abi.tuple.get %pair[1] : tuple<tensor<?x2xi32>, tuple<f32, tensor<4xi64>>> -> tuple<f32, tensor<4xi64>>
  %f = abi.tuple.get %inner[0] : tuple<f32, tensor<4xi64>> -> f32
  %longs = abi.tuple.get %inner[1] : tuple<f32, tensor<4xi64>> -> tensor<4xi64>
  %doubled = arith.addf %x, %x : tensor<3xf32>
  %one = arith.constant 1 : i64
  %next = arith.addi %step, %one : i64
  %twice = arith.addi %count, %count : i32
  %scaled = arith.mulf %f, %scale : f32
  %nested = abi.tuple.pack %twice, %bias : (i32, tensor<?xf32>) -> tuple<i32, tensor<?xf32>>
  %out = abi.dict.pack %doubled, %nested, %w : (tensor<3xf32>, tuple<i32, tensor<?xf32>>, tensor<2x3xf32>) -> !abi.dict<"doubled": tensor<3xf32>, "nested": tuple<i32, tensor<?xf32>>, "weights": tensor<2x3xf32>>
  %t = abi.tuple.pack %ints, %next, %longs : (tensor<?x2xi32>, i64, tensor<4xi64>) -> tuple<tensor<?x2xi32>, i64, tensor<4xi64>>
  func.return %out, %t, %scaled : !abi.dict<"doubled": tensor<3xf32>, "nested": tuple<i32, tensor<?xf32>>, "weights": tensor<2x3xf32>>, tuple<tensor<?x2xi32>, i64, tensor<4xi64>>, f32
}

func.func @inlined(%a: tuple<tensor<2xf32>, i32>) -> tuple<i32, !abi.dict<"t": tensor<2xf32>>> {
  %t = abi.tuple.get %a[0] : tuple<tensor<2xf32>, i32> -> tensor<2xf32>
  %n = abi.tuple.get %a[1] : tuple<tensor<2xf32>, i32> -> i32
  %d = abi.dict.pack %t : (tensor<2xf32>) -> !abi.dict<"t": tensor<2xf32>>
  %r = abi.tuple.pack %n, %d : (i32, !abi.dict<"t": tensor<2xf32>>) -> tuple<i32, !abi.dict<"t": tensor<2xf32>>>
  func.return %r : tuple<i32, !abi.dict<"t": tensor<2xf32>>>
}

func.func @plain(%a: tensor<?x3xf32>, %b: i32) -> (tensor<?x3xf32>, i32) {
  %s = arith.addf %a, %a : tensor<?x3xf32>
  func.return %s, %b : tensor<?x3xf32>, i32
}

func.func @via_helper(%d: !abi.dict<"a": tensor<?xi32>, "b": i64>) -> tuple<i64, tensor<?xi32>> {
  %r = func.call @swap(%d) : (!abi.dict<"a": tensor<?xi32>, "b": i64>) -> tuple<i64, tensor<?xi32>>
  func.return %r : tuple<i64, tensor<?xi32>>
}

func.func private @swap(%d: !abi.dict<"a": tensor<?xi32>, "b": i64>) -> tuple<i64, tensor<?xi32>> {
  %a = abi.dict.get %d["a"] : !abi.dict<"a": tensor<?xi32>, "b": i64> -> tensor<?xi32>
  %b = abi.dict.get %d["b"] : !abi.dict<"a": tensor<?xi32>, "b": i64> -> i64
  %t = abi.tuple.pack %b, %a : (i64, tensor<?xi32>) -> tuple<i64, tensor<?xi32>>
  func.return %t : tuple<i64, tensor<?xi32>>
}
"""

weights = np.arange(6, dtype=np.float32).reshape(2, 3)
bias = np.array([0.5, -1.5, 2.0, 4.0, 8.0], dtype=np.float32)  # dynamic: 5
ints = np.arange(6, dtype=np.int32).reshape(3, 2)  # dynamic: 3 x 2
longs = np.array([1, -2, 2**40, 7], dtype=np.int64)
x = np.array([1.0, 2.5, -3.0], dtype=np.float32)
vector = np.array([3.0, 4.0], dtype=np.float32)
matrix = np.ones((4, 3), dtype=np.float32)
keys = np.array([9, 8, 7], dtype=np.int32)

# name -> (positional args, keyword args, expected result: what IREE's invoker returns,
# host arrays in place of DeviceArrays)
CASES: dict[str, tuple[tuple[Any, ...], dict[str, Any], Any]] = {
    "combine": (
        ({"weights": weights, "bias": bias, "count": 21}, (ints, (1.5, longs)), x, 41),
        {"scale": 2.0},
        (
            {"doubled": x + x, "nested": (42, bias), "weights": weights},
            (ints, 42, longs),
            3.0,
        ),
    ),
    "inlined": (((vector, 7),), {}, (7, {"t": vector})),
    "plain": ((matrix, 5), {}, (matrix + matrix, 5)),
    "via_helper": (({"a": keys, "b": 3},), {}, (3, keys)),
}


def compile_module(text: str, tmp: Path, *extra: str) -> bytes:
    source = tmp / "in.mlir"
    output = tmp / "out.vmfb"
    source.write_text(text, encoding="utf-8")
    tool = binaries.find_tool("iree-compile")
    result = subprocess.run(
        [tool, *COMPILE_FLAGS, *extra, str(source), "-o", str(output)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"iree-compile failed:\n{result.stderr}\n{text}"
    return output.read_bytes()


def load(vmfb: bytes) -> Any:
    config = rt.Config("local-sync")
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
    return context.modules.module


def to_host(value: Any) -> Any:
    """IREE's results with every `DeviceArray` copied to a numpy array."""
    if isinstance(value, tuple):
        return tuple(to_host(item) for item in value)
    if isinstance(value, list):
        return [to_host(item) for item in value]
    if isinstance(value, dict):
        return {key: to_host(item) for key, item in value.items()}
    if hasattr(value, "to_host"):
        return value.to_host()
    return value


def same_numbers(actual: Any, expected: Any, what: str) -> None:
    """`assert_same`, but a float scalar compares with float32 tolerance (IREE computes
    `f32` in single precision; Python in double)."""
    if isinstance(expected, float):
        assert isinstance(actual, float) and np.isclose(actual, expected), what
        return
    assert_same(actual, expected, what)


@pytest.fixture(scope="module")
def v1() -> Lowered:
    return run_passes(MODULE, ["iree-abi-v1"])


@pytest.fixture(scope="module")
def legacy() -> Lowered:
    return run_passes(MODULE, ["iree-abi-legacy"])


@pytest.fixture(scope="module")
def v1_module(v1: Lowered, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return load(compile_module(v1.text, tmp_path_factory.mktemp("v1")))


@pytest.fixture(scope="module")
def legacy_module(legacy: Lowered, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return load(compile_module(legacy.text, tmp_path_factory.mktemp("legacy")))


def test_the_compiled_module_carries_the_wrappers_reflection(v1: Lowered, v1_module: Any) -> None:
    assert v1.warnings == []
    for name in CASES:
        compiled = getattr(v1_module, name).vm_function.reflection
        assert compiled["iree.abi"] == reflection(v1.module, name)["iree.abi"], name


@pytest.mark.parametrize("name", sorted(CASES))
def test_iree_runs_the_v1_wrapper_with_nested_python_values(v1_module: Any, name: str) -> None:
    args, kwargs, expected = CASES[name]
    function: Callable[..., Any] = getattr(v1_module, name)
    got = to_host(function(*args, **kwargs))
    if name == "combine":
        assert isinstance(got, tuple) and isinstance(got[0], dict)
        assert isinstance(got[0]["nested"], tuple) and isinstance(got[1], tuple)
        same_numbers(got[2], expected[2], "combine: scaled")
        got, expected = got[:2], expected[:2]
    assert_same(got, expected, f"iree.runtime @{name}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_interpreter_agrees_through_pack_and_unpack(v1: Lowered, name: str) -> None:
    args, kwargs, expected = CASES[name]
    abi = reflection(v1.module, name)["iree.abi"]
    got = unpack(abi, call(v1.module, name, pack(abi, *args, **kwargs)))
    assert_same(got, expected, f"interpreter @{name}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_iree_runs_the_legacy_flat_functions(
    legacy_module: Any, legacy: Lowered, name: str
) -> None:
    """No `iree.abi` on the legacy output: IREE calls it in dynamic mode with the flat
    leaves; `pack_legacy` / `unpack_legacy` do the structuring."""
    args, kwargs, expected = CASES[name]
    entries = reflection(legacy.module, name)
    assert "iree.abi" not in entries
    # `combine` mixes positional and named arguments: the SIP root is a sequence and
    # every argument is positional (docs/spec.md §6).
    flat = pack_legacy(entries["f"], entries["sip"], *args, *kwargs.values())
    returned = to_host(getattr(legacy_module, name)(*flat))
    results = list(returned) if isinstance(returned, tuple) else [returned]
    got = unpack_legacy(entries["f"], entries["sip"], results)
    if name == "combine":
        same_numbers(float(got[2]), expected[2], "legacy combine: scaled")
        got, expected = got[:2], expected[:2]
    assert_same(normalize_scalars(got), expected, f"legacy iree.runtime @{name}")


def normalize_scalars(value: Any) -> Any:
    """Numpy scalars (dynamic mode returns those for `i32`/`i64`) as Python numbers."""
    if isinstance(value, tuple):
        return tuple(normalize_scalars(item) for item in value)
    if isinstance(value, dict):
        return {key: normalize_scalars(item) for key, item in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


RANDOM_FUNCTIONS = 6


@settings(
    max_examples=20 if os.environ.get("ABI_SLOW") else 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_iree_runs_random_structured_functions(data: st.DataObject) -> None:
    specs = [
        data.draw(function_specs(IREE_LEAF_TYPES), label=f"@f{i}") for i in range(RANDOM_FUNCTIONS)
    ]
    texts = [
        text for i, spec in enumerate(specs) for text in function_texts(spec, f"f{i}", f"h{i}")
    ]
    lowered = run_passes("builtin.module {\n" + "\n".join(texts) + "\n}\n", ["iree-abi-v1"])
    assert lowered.warnings == []
    with tempfile.TemporaryDirectory() as tmp:
        module = load(compile_module(lowered.text, Path(tmp)))
    for i, spec in enumerate(specs):
        values = tuple(
            data.draw(values_of(t), label=f"@f{i} argument {j}")
            for j, t in enumerate(spec.argument_types)
        )
        positional = [v for (_, name), v in zip(spec.arguments, values, strict=True) if not name]
        keywords = {name: v for (_, name), v in zip(spec.arguments, values, strict=True) if name}
        helper = spec.helper
        if helper is not None and helper.public:
            mids, helper_results = helper.evaluate_call(values)
            got = to_host(getattr(module, f"h{i}")(*mids))
            assert_same(got, as_unpacked(helper_results), f"iree.runtime @h{i}")
        expected = spec.evaluate(values)
        got = to_host(getattr(module, f"f{i}")(*positional, **keywords))
        assert_same(got, as_unpacked(expected), f"iree.runtime @f{i}")
