"""`wrap-entry-points` spells every `!iree.list<T>` `!util.list<T>` (docs/spec.md §8.2), inside
any type or attribute (`util_list_spelling`), and leaves every other object as it is:
the very same object, so that shared attributes stay shared."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.ir import Attribute
from xdsl.printer import Printer

from abi_compiler.identity import IdentityCache
from abi_compiler.passes.legacy_lists import util_list_spelling
from abi_compiler.passes.structure import functions
from tests.lowering.helpers import parse


def _attribute(text: str) -> Attribute:
    """The attribute ``text``, read as a function attribute."""
    module = parse(f"func.func private @f() attributes {{x = {text}}}\n")
    (func,) = functions(module)
    return func.attributes["x"]


def _text(attr: Attribute) -> str:
    stream = StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


@pytest.mark.parametrize(
    ("written", "respelled"),
    [
        ("!iree.list<i8>", "!util.list<i8>"),
        ("tensor<2x!iree.list<i32>>", "tensor<2x!util.list<i32>>"),
        ("tensor<?x3x!iree.list<f32>>", "tensor<?x3x!util.list<f32>>"),
        ("tensor<4xf32, !iree.list<i8>>", "tensor<4xf32, !util.list<i8>>"),
        ("!iree.list<tensor<?x!iree.list<f32>>>", "!util.list<tensor<?x!util.list<f32>>>"),
        ("tuple<i32, tuple<!iree.list<i64>>>", "tuple<i32, tuple<!util.list<i64>>>"),
        (
            "[1, !iree.list<i8>, {k = !iree.list<i1>}]",
            "[1 : i64, !util.list<i8>, {k = !util.list<i1>}]",
        ),
    ],
)
def test_legacy_lists_respelled_anywhere(written: str, respelled: str) -> None:
    assert _text(util_list_spelling(_attribute(written))) == respelled


@pytest.mark.parametrize(
    "text",
    [
        "tensor<2x3xf32>",
        "tensor<?x!util.list<i32>>",
        "tuple<i32, index, f16, si8>",
        '[1, "s", 2.5 : f32, {k = !util.list<?>}]',
        "complex<f64>",
    ],
)
def test_other_attributes_are_the_same_object(text: str) -> None:
    attr = _attribute(text)
    seen: IdentityCache[Attribute] = IdentityCache()
    assert util_list_spelling(attr, seen) is attr
    assert util_list_spelling(attr, seen) is attr  # the remembered answer
