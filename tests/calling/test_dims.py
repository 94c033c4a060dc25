"""`abi_compiler.calling.dims`: the relations between a call's dynamic dims, checked
without any framework (the JAX and torch frontends read them from their objects:
test_jax.py and test_torch.py)."""

from __future__ import annotations

from typing import Any

import pytest

from abi_compiler.call_model import DimConstraint, Symbol, Terms
from abi_compiler.calling.dims import DimRelations, LeafDims, evaluate, solve
from abi_compiler.codecs.call_json import format_terms
from abi_compiler.errors import AbiError

TWO_B: Terms = ((2, ("b",)),)
TWO_B_PLUS_1: Terms = ((2, ("b",)), (1, ()))
A_TIMES_B: Terms = ((1, ("a", "b")),)
A_MINUS_B: Terms = ((1, ("a",)), (-1, ("b",)))


def relations(*leaves: tuple[str, tuple[object, ...]], **options: object) -> DimRelations:
    return DimRelations(
        leaves=tuple(LeafDims(path, dims) for path, dims in leaves),  # type: ignore[arg-type]
        **options,  # type: ignore[arg-type]
    )


def error_of(relations: DimRelations, *shapes: tuple[int, ...]) -> str | None:
    try:
        relations.check(shapes)
    except AbiError as error:
        return str(error)
    return None


SHARED = relations(("argument x", ("b",)), ("argument y[0]", ("b", 4)))


def test_a_shared_symbol_takes_one_size() -> None:
    assert error_of(SHARED, (3,), (3, 4)) is None
    assert error_of(SHARED, (3,), (5, 4)) == (
        "argument y[0]: dimension 0 is 5, but argument x has 3 in dimension 0 for the same "
        "symbol 'b'"
    )


def test_the_same_symbol_twice_in_one_value() -> None:
    square = relations(("argument m", ("n", "n")))
    assert error_of(square, (2, 2)) is None
    assert error_of(square, (2, 3)) == (
        "argument m: dimension 1 is 3, but argument m has 2 in dimension 0 for the same symbol 'n'"
    )


def test_static_dims_and_unrelated_dims() -> None:
    mixed = relations(("argument x", (None, 4)))
    assert error_of(mixed, (7, 4)) is None
    assert error_of(mixed, (7, 5)) == "argument x: dimension 1 is 5, expected 4"
    assert error_of(mixed, (7,)) == "argument x: expected 2 dimensions, got 1"
    assert not mixed.relates and SHARED.relates


@pytest.mark.parametrize(
    ("size", "message"),
    [
        (1, "argument x: dimension 0 is 1, but symbol 'b' is at least 2"),
        (11, "argument x: dimension 0 is 11, but symbol 'b' is at most 10"),
        (2, None),
        (10, None),
    ],
)
def test_bounds(size: int, message: str | None) -> None:
    bounded = relations(("argument x", ("b",)), symbols=(Symbol("b", 2, 10),))
    assert error_of(bounded, (size,)) == message


def test_an_unbounded_symbol() -> None:
    assert error_of(relations(("x", ("b",)), symbols=(Symbol("b", 0, None),)), (10**9,)) is None


def test_an_expression_binds_its_symbol() -> None:
    # x: (2*b,), y: (b,).
    derived = relations(("argument x", (TWO_B,)), ("argument y", ("b",)))
    assert error_of(derived, (6,), (3,)) is None
    # y binds b first (a plain symbol), then x's expression is checked.
    assert error_of(derived, (5,), (3,)) == (
        "argument x: dimension 0 is 5, but 2*b is 6 (b is 3 from dimension 0 of argument y)"
    )


def test_an_expression_alone() -> None:
    alone = relations(("argument x", (TWO_B_PLUS_1,)), symbols=(Symbol("b", 1, 4),))
    assert error_of(alone, (7,)) is None
    assert error_of(alone, (6,)) == "argument x: dimension 0 is 6, which is 2*b + 1 for no whole b"
    assert error_of(alone, (11,)) == (
        "argument x: dimension 0 is 11, so b is 5, but symbol 'b' is at most 4"
    )
    assert error_of(alone, (1,)) == (
        "argument x: dimension 0 is 1, so b is 0, but symbol 'b' is at least 1"
    )


def test_a_product_is_checked_once_its_symbols_are_bound() -> None:
    product = relations(("argument x", ("a", "b")), ("argument y", (A_TIMES_B,)))
    assert error_of(product, (2, 3), (6,)) is None
    assert error_of(product, (2, 3), (5,)) == (
        "argument y: dimension 0 is 5, but a*b is 6 (a is 2 from dimension 0 of argument x, "
        "b is 3 from dimension 1 of argument x)"
    )


def test_a_constraint() -> None:
    constrained = relations(
        ("argument x", ("a",)),
        ("argument y", ("b",)),
        constraints=(DimConstraint(A_MINUS_B, ">=", "a >= b"),),
    )
    assert error_of(constrained, (5,), (3,)) is None
    assert error_of(constrained, (3,), (3,)) is None
    assert error_of(constrained, (3,), (5,)) == (
        "argument y: symbol 'b' is 5 from dimension 0, which breaks the constraint 'a >= b' "
        "(a is 3 from dimension 0 of argument x)"
    )
    equal = relations(
        ("x", ("a",)), ("y", ("b",)), constraints=(DimConstraint(A_MINUS_B, "==", "a == b"),)
    )
    assert error_of(equal, (3,), (3,)) is None
    assert error_of(equal, (4,), (3,)) is not None


def test_a_constraint_on_a_symbol_no_value_binds_is_left_alone() -> None:
    other = relations(("x", ("a",)), constraints=(DimConstraint(A_MINUS_B, ">=", "a >= b"),))
    assert error_of(other, (1,)) is None


def test_the_count_of_shapes() -> None:
    assert error_of(SHARED, (3,)) == "the dimension relations describe 2 values, got 1 shapes"


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (TWO_B_PLUS_1, "2*b + 1"),
        (A_TIMES_B, "a*b"),
        (A_MINUS_B, "a - b"),
        (((-1, ("a",)), (20, ())), "-a + 20"),
        (((1, ("b", "b")),), "b*b"),
        ((), "0"),
    ],
)
def test_expression_text(expr: Terms, text: str) -> None:
    assert format_terms(expr) == text


def test_solving() -> None:
    assert solve(TWO_B_PLUS_1, 9, {}) == ("b", 4)
    assert solve(TWO_B_PLUS_1, 8, {}) == ("b", None)
    assert solve(A_TIMES_B, 6, {"a": 2}) == ("b", 3)
    assert solve(A_TIMES_B, 6, {}) is None  # two unknowns
    assert solve(((1, ("b", "b")),), 4, {}) is None  # not linear
    assert evaluate(A_TIMES_B, {"a": 2, "b": 5}) == 10


def test_the_relations_import_no_framework_numpy_or_xdsl() -> None:
    # A process without the framework checks them the same way (a compiled module will
    # carry them): plain data and pure Python.
    import subprocess
    import sys

    code = (
        "import sys, abi_compiler.calling.dims, abi_compiler.frontends.pytree\n"
        "print(sorted(m for m in ('xdsl', 'numpy', 'jax', 'torch', 'onnx') if m in sys.modules))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == "[]"


def test_one_model_of_a_dimension() -> None:
    # `abi_compiler.call_model.Dim` is the one dimension: the frontends write it, the
    # caller's side checks it as it is (no second type to convert to on every load).
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "abi_compiler"
    defined = sorted(
        str(path.relative_to(root.parent))
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if (isinstance(node, ast.ClassDef) and node.name in ("Dim", "DimExpr"))
        or (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and any(
                isinstance(target, ast.Name) and target.id == "Dim"
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        )
    )
    assert defined == ["abi_compiler/call_model.py"]


def test_solving_is_linear_in_the_expressions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain of expressions each solvable only once the next is (``s0 + s1``, ``s1 +
    s2``, …, ``sN`` last): each expression is tried once, not once per pass over them all
    (quadratic: 4 MB of `abi.call` took 21 s a call)."""
    from abi_compiler.calling import dims

    tried = 0
    solve = dims.solve

    def counted(terms: Any, size: int, values: Any) -> Any:
        nonlocal tried
        tried += 1
        return solve(terms, size, values)

    monkeypatch.setattr(dims, "solve", counted)
    count = 400
    leaves = tuple(
        LeafDims(f"x{i}", (((1, (f"s{i}",)), (1, (f"s{i + 1}",))),)) for i in range(count)
    )
    relations = DimRelations((), (*leaves, LeafDims("last", (f"s{count}",))), ())
    relations.check([(2,)] * count + [(1,)])
    assert tried == count
