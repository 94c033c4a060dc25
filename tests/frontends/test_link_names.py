"""Linking renames apart every module-level name of its entries
(`abi_compiler.frontends.entries`; docs/calling.md, "Several functions in one module"):
resource blobs (an exporter names them by shape and dtype, so two models' weights of one
shape have one key), location aliases (kept before the module when used inside other
locations), and named parameters (`merge_parameters`). Framework-free: committed text."""

from __future__ import annotations

import re

import numpy as np
import pytest

from abi_compiler.errors import AbiError
from abi_compiler.frontends.entries import Entry, link, merge_parameters

# float32 [1, 2], [10, 20] and [0.5, 0.5] (the 4-byte alignment, then little-endian values).
ONE_TWO = "0x040000000000803F00000040"
TEN_TWENTY = "0x04000000000020410000A041"
HALVES = "0x040000000000003F0000003F"


def _weights(key: str, blob: str, other: str = "bias", other_blob: str = HALVES) -> str:
    """A model as iree-turbine writes one: `x * weight + bias`, its tensors as blobs."""
    return (
        "module @module {\n"
        "  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        f"    %w = arith.constant dense_resource<{key}> : tensor<2xf32>\n"
        f"    %b = arith.constant dense_resource<{other}> : tensor<2xf32>\n"
        "    %0 = arith.mulf %x, %w : tensor<2xf32>\n"
        "    %1 = arith.addf %0, %b : tensor<2xf32>\n"
        "    return %1 : tensor<2xf32>\n"
        "  }\n"
        "}\n"
        "\n"
        "{-#\n"
        "  dialect_resources: {\n"
        "    builtin: {\n"
        f'      {key}: "{blob}",\n'
        f'      {other}: "{other_blob}"\n'
        "    }\n"
        "  }\n"
        "#-}\n"
    )


KEY = "torch_tensor_2_torch.float32"


def test_resource_blobs_of_one_name_and_other_bytes_are_renamed_apart() -> None:
    linked = link(
        [Entry("first", _weights(KEY, ONE_TWO)), Entry("second", _weights(KEY, TEN_TWENTY))]
    )
    assert linked == (
        "module {\n"
        "  func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "    %w = arith.constant dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>\n"
        "    %b = arith.constant dense_resource<bias> : tensor<2xf32>\n"
        "    %0 = arith.mulf %x, %w : tensor<2xf32>\n"
        "    %1 = arith.addf %0, %b : tensor<2xf32>\n"
        "    return %1 : tensor<2xf32>\n"
        "  }\n"
        "  func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "    %w = arith.constant dense_resource<torch_tensor_2_torch.float32_2> : tensor<2xf32>\n"
        "    %b = arith.constant dense_resource<bias> : tensor<2xf32>\n"
        "    %0 = arith.mulf %x, %w : tensor<2xf32>\n"
        "    %1 = arith.addf %0, %b : tensor<2xf32>\n"
        "    return %1 : tensor<2xf32>\n"
        "  }\n"
        "}\n"
        "{-#\n"
        "  dialect_resources: {\n"
        "    builtin: {\n"
        f'      torch_tensor_2_torch.float32: "{ONE_TWO}",\n'
        f'      bias: "{HALVES}",\n'
        f'      torch_tensor_2_torch.float32_2: "{TEN_TWENTY}"\n'
        "    }\n"
        "  }\n"
        "#-}\n"
    )


def test_a_renamed_key_is_free_and_quoted_keys_and_bodies_follow() -> None:
    # The second entry's own `k_2` is renamed too, once: its `k` took `k_2_2`.
    first = _weights("k", ONE_TWO, "k_2", ONE_TWO)
    second = _weights("k", TEN_TWENTY, '"k_2"', TEN_TWENTY).replace(
        "func.func @main(", 'func.func @main(%s: !test.s<dense_resource<k>, "dense_resource<k>">, '
    )
    linked = link([Entry("a", first), Entry("b", second)])
    assert "%w = arith.constant dense_resource<k_2_2> : tensor<2xf32>" in linked
    assert "%b = arith.constant dense_resource<k_2_2_2> : tensor<2xf32>" in linked
    assert '!test.s<dense_resource<k_2_2>, "dense_resource<k>">' in linked
    assert linked.endswith(
        f'      k: "{ONE_TWO}",\n      k_2: "{ONE_TWO}",\n'
        f'      k_2_2: "{TEN_TWENTY}",\n      k_2_2_2: "{TEN_TWENTY}"\n    }}\n  }}\n#-}}\n'
    )


def test_resources_that_clash_after_linking_are_refused() -> None:
    other = _weights(KEY, ONE_TWO).replace("builtin: {", "test: {")
    with pytest.raises(
        AbiError, match=r"'test' resource 'torch_tensor_2_torch\.float32' has other"
    ):
        link([Entry("a", other), Entry("b", other.replace(ONE_TWO, TEN_TWENTY))])
    twice = _weights(KEY, ONE_TWO, KEY, TEN_TWENTY)
    with pytest.raises(
        AbiError,
        match=r"resource 'torch_tensor_2_torch\.float32' is defined twice, with other bytes",
    ):
        link([Entry("a", twice)])
    # The same bytes twice: one blob.
    again = _weights(KEY, ONE_TWO, KEY, ONE_TWO)
    assert link([Entry("a", again)]).count(f'{KEY}: "{ONE_TWO}"') == 1
    broken = _weights(KEY, ONE_TWO).replace("builtin: {", "builtin {")
    with pytest.raises(
        AbiError, match=r"<source>: cannot link this module: its resource section: expected ':'"
    ):
        link([Entry("a", broken)])


def test_each_entry_computes_with_its_own_blob() -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from abi_compiler import iree as abi_iree

    module = abi_iree.compile(
        {"first": _weights(KEY, ONE_TWO), "second": _weights(KEY, TEN_TWENTY)}
    )
    x = np.array([1, -1], np.float32)
    np.testing.assert_array_equal(module.first(x), [1.5, -1.5])
    np.testing.assert_array_equal(module.second(x), [10.5, -19.5])


# Two exports as jax.export writes them: location aliases before the module, used inside
# other locations of a private function's arguments (which MLIR does not let come before
# their definition), and after it.
def _export(scale: str, name: str) -> str:
    return (
        f'#loc1 = loc("{name}.py":1:1)\n'
        f'#loc2 = loc("{name}"(#loc1))\n'
        "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n"
        '  func.func public @main(%arg0: tensor<2xf32> loc("x")) -> (tensor<2xf32>) {\n'
        "    %0 = call @helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32> loc(#loc3)\n"
        "    return %0 : tensor<2xf32> loc(#loc)\n"
        "  } loc(#loc)\n"
        "  func.func private @helper(%arg0: tensor<2xf32> loc(callsite(#loc2 at #loc1))) -> tensor<2xf32> {\n"
        f"    %c = arith.constant dense<{scale}> : tensor<2xf32> loc(#loc4)\n"
        "    %0 = arith.mulf %arg0, %c : tensor<2xf32> loc(#loc3)\n"
        "    return %0 : tensor<2xf32> loc(#loc)\n"
        "  } loc(#loc)\n"
        "} loc(#loc)\n"
        "#loc = loc(unknown)\n"
        "#loc3 = loc(callsite(#loc2 at #loc1))\n"
        f'#loc4 = loc("{name}.py":2:2)\n'
    )


def test_location_aliases_stay_before_the_module_renamed_apart() -> None:
    linked = link([Entry("init", _export("2.0", "init")), Entry("step", _export("3.0", "step"))])
    assert linked == (
        '#loc1 = loc("init.py":1:1)\n'
        '#loc2 = loc("init"(#loc1))\n'
        '#loc1_2 = loc("step.py":1:1)\n'
        '#loc2_2 = loc("step"(#loc1_2))\n'
        "module attributes {mhlo.num_partitions = 1 : i32} {\n"
        '  func.func public @init(%arg0: tensor<2xf32> loc("x")) -> (tensor<2xf32>) {\n'
        "    %0 = call @helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32> loc(#loc3)\n"
        "    return %0 : tensor<2xf32> loc(#loc)\n"
        "  } loc(#loc)\n"
        "  func.func private @helper(%arg0: tensor<2xf32> loc(callsite(#loc2 at #loc1))) -> tensor<2xf32> {\n"
        "    %c = arith.constant dense<2.0> : tensor<2xf32> loc(#loc4)\n"
        "    %0 = arith.mulf %arg0, %c : tensor<2xf32> loc(#loc3)\n"
        "    return %0 : tensor<2xf32> loc(#loc)\n"
        "  } loc(#loc)\n"
        '  func.func public @step(%arg0: tensor<2xf32> loc("x")) -> (tensor<2xf32>) {\n'
        "    %0 = call @step_helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32> loc(#loc3_2)\n"
        "    return %0 : tensor<2xf32> loc(#loc_2)\n"
        "  } loc(#loc_2)\n"
        "  func.func private @step_helper(%arg0: tensor<2xf32> loc(callsite(#loc2_2 at #loc1_2))) -> tensor<2xf32> {\n"
        "    %c = arith.constant dense<3.0> : tensor<2xf32> loc(#loc4_2)\n"
        "    %0 = arith.mulf %arg0, %c : tensor<2xf32> loc(#loc3_2)\n"
        "    return %0 : tensor<2xf32> loc(#loc_2)\n"
        "  } loc(#loc_2)\n"
        "}\n"
        "#loc = loc(unknown)\n"
        "#loc3 = loc(callsite(#loc2 at #loc1))\n"
        '#loc4 = loc("init.py":2:2)\n'
        "#loc_2 = loc(unknown)\n"
        "#loc3_2 = loc(callsite(#loc2_2 at #loc1_2))\n"
        '#loc4_2 = loc("step.py":2:2)\n'
    )


def test_exports_with_location_aliases_compile_together() -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from abi_compiler import iree as abi_iree

    module = abi_iree.compile({"init": _export("2.0", "init"), "step": _export("3.0", "step")})
    x = np.array([1, -1], np.float32)
    np.testing.assert_array_equal(module.init(x), [2, -2])
    np.testing.assert_array_equal(module.step(x), [3, -3])


def _reads(*names: str) -> str:
    return "".join(f'  %{i} = #flow.parameter.named<"model"::"{n}">\n' for i, n in enumerate(names))


def test_parameters_of_other_bytes_are_renamed_once() -> None:
    merged = {"x": np.zeros(2, np.float32)}
    found = {"x": np.full(2, 2, np.float32), "k/x": np.full(2, 3, np.float32)}
    text = merge_parameters("k", _reads("x", "k/x"), found, merged)
    # `x` takes the name `k/x`, and the entry's own `k/x` (other bytes) `k/k/x`: the reads
    # of `x` are renamed once, not again with those of `k/x`.
    assert text == _reads("k/x", "k/k/x")
    assert list(merged) == ["x", "k/x", "k/k/x"]
    np.testing.assert_array_equal(merged["k/x"], found["x"])
    np.testing.assert_array_equal(merged["k/k/x"], found["k/x"])
    # The same bytes under the same name: one parameter, the text as it was.
    assert merge_parameters("j", _reads("x"), {"x": np.zeros(2, np.float32)}, merged) == _reads("x")
    assert len(merged) == 3


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            ONE_TWO + '"',
            ONE_TWO + '\\zz"',
            "cannot link this module: unknown escape in string literal",
        ),
        (
            "module @module {",
            "module @module attributes {a = (]} {",
            "cannot link this module: its attributes: unbalanced ']'",
        ),
    ],
)
def test_text_the_lexer_refuses_is_an_error(old: str, new: str, message: str) -> None:
    with pytest.raises(AbiError, match=re.escape(f"<source>: {message}")):
        link([Entry("a", _weights(KEY, ONE_TWO).replace(old, new, 1))])
