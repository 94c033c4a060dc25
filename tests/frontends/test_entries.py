"""`abi_compiler.frontends.entries`: lowered modules linked into one, and
`abi_compiler.iree.compile` of a mapping `{name: source}` (docs/calling.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from abi_compiler.errors import AbiError
from abi_compiler.frontends.entries import Entry, link

ROOT = Path(__file__).resolve().parents[2]

A = """#map = affine_map<(d0) -> (d0)>
module @a attributes {mhlo.num_partitions = 1 : i32, a.only = "x", both.differ = 1 : i32} {
  util.global private @state = 0 : i32
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {iree.abi = "{\\22a\\22:[],\\22@helper\\22:1}"}} {
    %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc1)
    return %0 : tensor<4xf32>
  }
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> attributes {m = #map, r = @state} {
    return %x : tensor<4xf32>
  }
}
#loc1 = loc("a.py":1:2)
"""

B = """#map = affine_map<(d0) -> (d0 + 1)>
#loc1 = loc("b.py":3:4)
module @b attributes {mhlo.num_partitions = 1 : i32, both.differ = 2 : i32} {
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> attributes {m = #map} {
    return %x : tensor<4xf32>
  }
  func.func public @predict(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc1)
    return %0 : tensor<4xf32>
  }
  func.func private @a() -> ()
}
"""

LINKED = """#map = affine_map<(d0) -> (d0)>
#map_2 = affine_map<(d0) -> (d0 + 1)>
#loc1_2 = loc("b.py":3:4)
module attributes {mhlo.num_partitions = 1 : i32, a.only = "x"} {
  util.global private @state = 0 : i32
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {iree.abi = "{\\22a\\22:[],\\22@helper\\22:1}"}} {
    %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc1)
    return %0 : tensor<4xf32>
  }
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> attributes {m = #map, r = @state} {
    return %x : tensor<4xf32>
  }
  func.func private @b_helper(%x: tensor<4xf32>) -> tensor<4xf32> attributes {m = #map_2} {
    return %x : tensor<4xf32>
  }
  func.func public @b(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @b_helper(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc1_2)
    return %0 : tensor<4xf32>
  }
  func.func private @b_a() -> ()
}
#loc1 = loc("a.py":1:2)
"""


def test_symbols_and_aliases_of_different_entries_are_renamed_apart() -> None:
    assert link([Entry("a", A), Entry("b", B)]) == LINKED


def test_the_named_function_is_the_entry_and_free_names_are_kept() -> None:
    # Entry "one" takes @g as `one`; @g is then free for entry "two".
    text = "func.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}\n"
    linked = link([Entry("one", text, "g"), Entry("two", text, "f")])
    assert linked == (
        "module {\n"
        "  func.func @f() {\n  return\n}\n"
        "  func.func @one() {\n  return\n}\n"
        "  func.func @two() {\n  return\n}\n"
        "  func.func @g() {\n  return\n}\n"
        "}\n"
    )


def test_a_key_that_needs_quotes_is_quoted() -> None:
    linked = link([Entry("my model", "func.func @main() {\n  return\n}\n")])
    assert 'func.func @"my model"() {' in linked


def test_resource_sections_are_kept() -> None:
    text = (
        "func.func @main() -> tensor<2xi8> {\n"
        "  %0 = arith.constant dense_resource<blob> : tensor<2xi8>\n"
        "  return %0 : tensor<2xi8>\n"
        "}\n"
        '{-#\n  dialect_resources: {\n    builtin: {\n      blob: "0x010000000102"\n    }\n  }\n#-}\n'
    )
    linked = link([Entry("f", text)])
    assert linked.endswith('      blob: "0x010000000102"\n    }\n  }\n#-}\n')


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([], "no entries to link"),
        (
            [Entry("x", "func.func private @p() -> ()\n", name="p.mlir")],
            r"p.mlir: entry 'x' must export one function, the module exports 0 \(none\)",
        ),
        (
            [Entry("x", "func.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}\n")],
            r"entry 'x' must export one function, the module exports 2 \(f, g\)",
        ),
        (
            [Entry("x", "func.func @f() {\n  return\n}\n", "h", name="t.mlir")],
            "t.mlir: the module exports no function 'h'",
        ),
        ([Entry("x", "module {\n"), Entry("y", "")], "cannot link this module"),
    ],
)
def test_what_cannot_be_linked_is_an_error(entries: list[Entry], message: str) -> None:
    with pytest.raises(AbiError, match=message):
        link(entries)


def test_keys_are_unique() -> None:
    from abi_compiler.frontends.entries import lower_entries

    with pytest.raises(ValueError, match="empty"):
        lower_entries({}, None, lambda s, p, n: "")
    with pytest.raises(TypeError, match="entry 'x': expected MLIR text"):
        lower_entries({"x": 3}, None, lambda s, p, n: "")


def test_mlir_files_compile_to_one_module_called_by_their_records() -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    import numpy as np

    from abi_compiler import iree as abi_iree

    v1 = ROOT / "examples" / "jax_predict_v1.mlir"
    v2 = ROOT / "examples" / "jax_predict_v2.mlir"
    module = abi_iree.compile({"old": v1, "new": v2})
    assert module.function_names == ["old", "new"]
    params1 = {"dense": {"bias": np.ones(3, np.float32), "kernel": np.ones((4, 3), np.float32)}}
    params2 = {"dense": {"bias": np.ones(5, np.float32), "kernel": np.ones((4, 5), np.float32)}}
    x = np.arange(8 * 4, dtype=np.float32).reshape(8, 4)
    np.testing.assert_allclose(module.old(params1, x), x @ params1["dense"]["kernel"] + 1)
    np.testing.assert_allclose(module.new(params2, x[:2]), x[:2] @ params2["dense"]["kernel"] + 1)


def test_aliases_are_renamed_in_dialect_bodies_not_in_strings() -> None:
    first = "#m = affine_map<(d0) -> (d0)>\nfunc.func @f() attributes {a = #m} {\n  return\n}\n"
    second = (
        "#m = affine_map<(d0) -> (d0 + 1)>\n"
        'func.func @g() attributes {b = #test.wrap<#m>, c = "#m", d = #m} {\n  return\n}\n'
    )
    assert link([Entry(None, first), Entry(None, second)]) == (
        "#m = affine_map<(d0) -> (d0)>\n"
        "#m_2 = affine_map<(d0) -> (d0 + 1)>\n"
        "module {\n"
        "  func.func @f() attributes {a = #m} {\n  return\n}\n"
        '  func.func @g() attributes {b = #test.wrap<#m_2>, c = "#m", d = #m_2} {\n  return\n}\n'
        "}\n"
    )


def test_an_onnx_model_and_an_mlir_file_in_one_module() -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    onnx = pytest.importorskip("onnx")
    import numpy as np
    from onnx.reference import ReferenceEvaluator

    from abi_compiler import iree as abi_iree

    model = onnx.load(ROOT / "examples" / "classifier.onnx")
    module = abi_iree.compile({"classify": model, "old": ROOT / "examples" / "jax_predict_v1.mlir"})
    assert module.function_names == ["classify", "old"]
    features = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    got = module.classify(features=features)
    expected = ReferenceEvaluator(model).run(None, {"features": features})
    assert list(got) == ["logits", "probabilities"]
    for value, reference in zip(got.values(), expected, strict=True):
        np.testing.assert_allclose(value, reference, rtol=1e-6)
    # compile_vmfb takes the same sources; its module is called by the records.
    vmfb = abi_iree.compile_vmfb({"classify": model})
    loaded = abi_iree.load(vmfb).classify(features=features)
    np.testing.assert_allclose(loaded["logits"], expected[0], rtol=1e-6)


def test_frontend_options_need_a_framework_object() -> None:
    pytest.importorskip("iree.compiler")
    from abi_compiler import iree as abi_iree

    text = (ROOT / "examples" / "jax_predict_v1.mlir").read_text()
    with pytest.raises(TypeError, match=r"frontend options \(signature\) need a framework"):
        abi_iree.compile_vmfb(text, signature="score")
    with pytest.raises(TypeError, match=r"frontend options \(platform\) need a framework"):
        abi_iree.compile(text, platform="cpu")
