"""Verification of the discardable abi.* and tf_saved_model.* attributes
(`abi_compiler.dialects.verify_dialect_attributes`)."""

from __future__ import annotations

import pytest

from abi_compiler.dialects import verify_dialect_attributes
from abi_compiler.dialects.attributes import AttributeVerifyException
from tests.dialects.helpers import parse

VALID = """
module attributes {tf_saved_model.semantics} {
  func.func @f(%a: i32 {abi.index_path = [0, "k", 2 : i32]}, %b: i32 {abi.name = "b"},
               %c: i32 {tf_saved_model.index_path = [], tf_saved_model.bound_input = @v},
               %d: i32 {tf_saved_model.bound_input = @outer::@inner})
      -> (i32 {abi.index_path = ["r"]}, i32 {tf_saved_model.index_path = [1]})
      attributes {tf_saved_model.exported_names = [], abi.other = 1, unrelated = 2} {
    %x = arith.constant {tf_saved_model.exported_names = ["x"]} 0 : i32
    func.return %a, %x : i32, i32
  }
}
"""


def test_valid_attributes() -> None:
    verify_dialect_attributes(parse(VALID))


def func(arguments: str = "%a: i32", results: str = "", attributes: str = "") -> str:
    signature = f"({arguments})" + (f" -> ({results})" if results else "")
    if attributes:
        signature += f" attributes {{{attributes}}}"
    body = "func.return %a : i32" if results else "func.return"
    return f"func.func @f{signature} {{\n  {body}\n}}"


INVALID = [
    # abi.index_path
    (func("%a: i32 {abi.index_path = [1.0]}"), "each index path component must be a string or integer", ("argument", 0)),
    (func("%a: i32 {abi.index_path = [0 : index]}"), "each index path component must be a string or integer", ("argument", 0)),
    (func("%a: i32 {abi.index_path = [[0]]}"), "each index path component must be a string or integer", ("argument", 0)),
    (func(results='i32 {abi.index_path = [unit]}'), "each index path component must be a string or integer", ("result", 0)),
    (func("%a: i32 {abi.index_path = 0}"), "abi.index_path must be an array of strings and integers", ("argument", 0)),
    (func(attributes="abi.index_path = [0]"), "abi.index_path is only valid on function arguments and results", None),
    # abi.name
    (func("%a: i32, %b: i32 {abi.name = 1}"), "abi.name must be a string", ("argument", 1)),
    (func(results='i32 {abi.name = "r"}'), "abi.name is only valid on function arguments", ("result", 0)),
    (func(attributes='abi.name = "f"'), "abi.name is only valid on function arguments", None),
    # tf_saved_model.index_path
    (func('%a: i32 {tf_saved_model.index_path = ["x", 1.5]}'), "each index path component must be a string or integer", ("argument", 0)),
    (func('%a: i32 {tf_saved_model.index_path = "x"}'), "tf_saved_model.index_path must be an array of strings and integers", ("argument", 0)),
    (func(attributes="tf_saved_model.index_path = []"), "tf_saved_model.index_path is only valid on function arguments and results", None),
    # tf_saved_model.exported_names
    (func(attributes="tf_saved_model.exported_names = [1]"), "tf_saved_model.exported_names must be an array of strings", None),
    (func(attributes='tf_saved_model.exported_names = "f"'), "tf_saved_model.exported_names must be an array of strings", None),
    (func('%a: i32 {tf_saved_model.exported_names = ["a"]}'), "tf_saved_model.exported_names is only valid on operations", ("argument", 0)),
    # tf_saved_model.semantics
    ("module attributes {tf_saved_model.semantics = true} {}", "tf_saved_model.semantics must be a unit attribute", None),
    (func(attributes="tf_saved_model.semantics"), "tf_saved_model.semantics is only valid on modules", None),
    # tf_saved_model.bound_input
    (func('%a: i32 {tf_saved_model.bound_input = "v"}'), "tf_saved_model.bound_input must be a symbol reference", ("argument", 0)),
    (func(results="i32 {tf_saved_model.bound_input = @v}"), "tf_saved_model.bound_input is only valid on function arguments", ("result", 0)),
    (func(attributes="tf_saved_model.bound_input = @v"), "tf_saved_model.bound_input is only valid on function arguments", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message", "where"), INVALID)
def test_invalid_attributes(text: str, message: str, where: tuple[str, int] | None) -> None:
    module = parse(text)
    with pytest.raises(AttributeVerifyException) as info:
        verify_dialect_attributes(module)
    assert str(info.value) == message
    assert info.value.message == message
    assert info.value.where == where
    assert info.value.op.name in ("func.func", "builtin.module")


def test_nested_ops_are_checked() -> None:
    module = parse(
        'func.func @f() {\n  %x = arith.constant {abi.name = "x"} 0 : i32\n  func.return\n}'
    )
    with pytest.raises(AttributeVerifyException) as info:
        verify_dialect_attributes(module)
    assert info.value.op.name == "arith.constant"
    assert info.value.message == "abi.name is only valid on function arguments"
