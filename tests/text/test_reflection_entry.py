"""`add_reflection_entry`: one more `iree.reflection` entry on each exported function of a
module's text, as written, whatever form its attributes have."""

from __future__ import annotations

from abi_compiler.text.reflection_entry import add_reflection_entry

BEFORE = """#loc = loc("x")
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{}"}} {
    func.return %x : tensor<4xf32>
  }
  func.func @b(%x: i32) -> i32 attributes {foo} {
    func.return %x : i32
  }
  func.func @c(%x: i32) -> i32 {
    func.return %x : i32
  }
  func.func private @d(%x: i32) -> i32 {
    func.return %x : i32
  }
  func.func @e(%x: i32) -> i32 attributes {iree.reflection = {}} {
    func.return %x : i32
  }
  func.func @f(%x: i32) -> i32 attributes {iree.reflection = {abi.provenance = "old"}} {
    func.return %x : i32
  }
  func.func @g(%x: i32) -> i32 attributes {} {
    func.return %x : i32
  }
  func.func @h(%x: i32)
  func.func @"quoted name"(%x: i32) -> i32 attributes {"iree.reflection" = {k = "v"}} {
    func.return %x : i32
  }
}
"""

AFTER = """#loc = loc("x")
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.abi.stub, iree.reflection = {abi.provenance = "{\\22v\\22:1}", iree.abi = "{}"}} {
    func.return %x : tensor<4xf32>
  }
  func.func @b(%x: i32) -> i32 attributes {iree.reflection = {abi.provenance = "{\\22v\\22:1}"}, foo} {
    func.return %x : i32
  }
  func.func @c(%x: i32) -> i32 attributes {iree.reflection = {abi.provenance = "{\\22v\\22:1}"}} {
    func.return %x : i32
  }
  func.func private @d(%x: i32) -> i32 {
    func.return %x : i32
  }
  func.func @e(%x: i32) -> i32 attributes {iree.reflection = {abi.provenance = "{\\22v\\22:1}"}} {
    func.return %x : i32
  }
  func.func @f(%x: i32) -> i32 attributes {iree.reflection = {abi.provenance = "old"}} {
    func.return %x : i32
  }
  func.func @g(%x: i32) -> i32 attributes {iree.reflection = {abi.provenance = "{\\22v\\22:1}"}} {
    func.return %x : i32
  }
  func.func @h(%x: i32)
  func.func @"quoted name"(%x: i32) -> i32 attributes {"iree.reflection" = {abi.provenance = "{\\22v\\22:1}", k = "v"}} {
    func.return %x : i32
  }
}
"""


def test_every_form_of_attributes() -> None:
    assert add_reflection_entry(BEFORE, "abi.provenance", '{"v":1}') == AFTER


def test_an_implicit_module() -> None:
    text = "func.func @f() {\n  func.return\n}\n"
    assert add_reflection_entry(text, "k", "v") == (
        'func.func @f() attributes {iree.reflection = {k = "v"}} {\n  func.return\n}\n'
    )


def test_util_funcs() -> None:
    # IREE's function op is exported as a `func.func` is: public (written or not) with a
    # body; a tied result (`-> %x`) reads as a result type, the entry after it.
    text = """util.func @a(%x: i32) -> i32 {
  util.return %x : i32
}
util.func public @b(%x: i32) -> i32 attributes {inlining_policy = #util.inline.never} {
  util.return %x : i32
}
util.func private @c(%x: i32) -> i32 {
  util.return %x : i32
}
util.func private @e(%x: i32) -> i32
util.func public @d(%x: tensor<?xi32>) -> (%x as tensor<?xi32>) {
  util.return %x : tensor<?xi32>
}
"""
    assert add_reflection_entry(text, "k", "v") == (
        """util.func @a(%x: i32) -> i32 attributes {iree.reflection = {k = "v"}} {
  util.return %x : i32
}
util.func public @b(%x: i32) -> i32 attributes {iree.reflection = {k = "v"}, inlining_policy = #util.inline.never} {
  util.return %x : i32
}
"""
        + text[text.index("util.func private @c") : text.index("util.func public @d")]
        + """util.func public @d(%x: tensor<?xi32>) -> (%x as tensor<?xi32>) attributes {iree.reflection = {k = "v"}} {
  util.return %x : tensor<?xi32>
}
"""
    )
