"""The JAX key-string codec (docs/spec.md §3.3): the grammar, its errors with offsets, and a
property: any nested dict/list/tuple/dataclass-like pytree, flattened and written the
way JAX writes `jax.arg_info` / `jax.result_info`, reads back as the same structure."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abi_compiler.codecs.jax_paths import (
    MAX_SEQUENCE_KEY,
    first_gap,
    jax_index_paths,
    parse_arg_info,
    parse_keys,
    parse_result_info,
)
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Argument,
    Dict,
    Leaf,
    Node,
    Scalar,
    Sequence,
    Signature,
    signature_from_index_paths,
)

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------------------
# The grammar.
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("", ()),
        ("[0]", (0,)),
        ("[12][3]", (12, 3)),
        ("['k']", ("k",)),
        ('["it\'s"]', ("it's",)),
        ("['a\\'b\"c']", ("a'b\"c",)),
        ("['\\\\']", ("\\",)),
        ("['\\n\\r\\t']", ("\n\r\t",)),
        ("['\\x00\\x7f\\xe9']", ("\x00\x7f\xe9",)),
        ("['\\u2028\\U0001f600']", ("\u2028\U0001f600",)),
        ("['\\ud800']", ("\ud800",)),
        ("['é']", ("é",)),
        ("['']", ("",)),
        ("['[0]']", ("[0]",)),
        ("['.x']", (".x",)),
        (".field", ("field",)),
        (".été", ("été",)),
        (".a.b[0]['c']", ("a", "b", 0, "c")),
        (f"[{MAX_SEQUENCE_KEY}]", (MAX_SEQUENCE_KEY,)),
    ],
)
def test_keys(text: str, path: tuple[object, ...]) -> None:
    assert parse_keys(text) == path


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("[<flat index 0>]", "pytree node without keys '[<flat index 0>]'", 0),
        ("[0][<flat index 12>]", "pytree node without keys '[<flat index 12>]'", 3),
        ("[('i', 'k')]", "unsupported key '[('i', 'k')]'", 0),
        ("[1.5]", "unsupported key '[1.5]'", 0),
        ("[-1]", "unsupported key '[-1]'", 0),
        ("[None]", "unsupported key '[None]'", 0),
        ("[]", "unsupported key '[]'", 0),
        ("[٣]", "unsupported key '[٣]'", 0),
        ("[01]", "sequence key with a leading zero '[01]'", 1),
        (f"[{MAX_SEQUENCE_KEY + 1}]", f"sequence key {MAX_SEQUENCE_KEY + 1} above", 1),
        ("[99999999999999999999]", "sequence key 99999999999999999999 above", 1),
        ("[0", "expected ']'", 2),
        ("['k'", "expected ']' after a dict key", 4),
        ("['k'x]", "expected ']' after a dict key", 4),
        ("['k", "unterminated dict key", 1),
        ("['k\\", "unterminated dict key", 1),
        ("['\\q']", "unknown escape '\\q' in a dict key", 2),
        ("['\\x4']", "'\\x' needs 2 hex digits", 2),
        ("['\\u12g4']", "'\\u' needs 4 hex digits", 2),
        ("['\\U00110000']", "'\\U00110000' is not a code point", 2),
        (".", "attribute key '.' is not an identifier", 0),
        (".0a", "attribute key '.0a' is not an identifier", 0),
        (".a-b", "attribute key '.a-b' is not an identifier", 0),
        ("x", "expected '[' or '.', got 'x'", 0),
        ("[0] ", "expected '[' or '.', got ' '", 3),
        # Offsets are UTF-8 bytes, as for every codec.
        ("['é']x", "expected '[' or '.', got 'x'", 6),
    ],
)
def test_key_errors(text: str, message: str, offset: int) -> None:
    with pytest.raises(AbiError) as info:
        parse_keys(text)
    assert info.value.message.startswith(message)
    assert info.value.offset == offset


def test_arg_info() -> None:
    assert parse_arg_info("params['dense']['w']") == ("params", ("dense", "w"))
    assert parse_arg_info("x") == ("x", ())
    assert parse_arg_info("args[0].w") == ("args", (0, "w"))
    assert parse_arg_info("kwargs['lr']") == ("kwargs", ("lr",))
    assert parse_arg_info("état[1]") == ("état", (1,))


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("", "expected a parameter name", 0),
        ("[0]", "expected a parameter name", 0),
        ("2x", "parameter name '2x' is not an identifier", 0),
        ("a b", "parameter name 'a b' is not an identifier", 0),
        ("x[<flat index 0>]", "pytree node without keys", 1),
    ],
)
def test_arg_info_errors(text: str, message: str, offset: int) -> None:
    with pytest.raises(AbiError) as info:
        parse_arg_info(text)
    assert info.value.message.startswith(message)
    assert info.value.offset == offset


def test_result_info() -> None:
    assert parse_result_info("") == ()
    assert parse_result_info("[1]") == (1,)
    assert parse_result_info("['loss']") == ("loss",)
    # JAX since 2025 prefixes results with `result`.
    assert parse_result_info("result") == ()
    assert parse_result_info("result['grads'][0]") == ("grads", 0)
    with pytest.raises(AbiError, match=r"expected '\[' or '\.', got 's'"):
        parse_result_info("results[0]")
    with pytest.raises(AbiError, match=r"expected '\[' or '\.', got 'o'"):
        parse_result_info("out[0]")


def test_index_paths() -> None:
    """Each distinct parameter name is one positional root argument, in order of first
    appearance (not sorted, not by name)."""
    read = jax_index_paths(
        ["x", "params['b']", "params['a']", "y[0]", "params['c']", "y[1]"],
        ["['loss']", "['grads'][0]"],
    )
    assert read.arguments == ((0,), (1, "b"), (1, "a"), (2, 0), (1, "c"), (2, 1))
    assert read.results == (("loss",), ("grads", 0))
    assert read.parameters == ("x", "params", "y")


def test_special_arguments_and_token_results_come_first() -> None:
    """None: the platform index or a token argument, a token result (docs/spec.md §3.3)."""
    read = jax_index_paths([None, None, "x['a']", "y", "x['b']"], [None, "['loss']"])
    assert read.arguments == ((0,), (1,), (2, "a"), (3,), (2, "b"))
    assert read.parameters == (None, None, "x", "y")
    assert read.results == ((0,), (1, "loss"))
    # Without tokens the results are the pytree itself.
    assert jax_index_paths([None, "x"], ["result"]).results == ((),)


@pytest.mark.parametrize(
    ("paths", "gap"),
    [
        ([(1,)], (0,)),
        ([(0,), (2,)], (1,)),
        ([("a", 0), ("a", 2), ("b", 1)], ("a", 1)),
        ([("b", 1), ("a", 0), ("a", 2)], ("a", 1)),
        ([(0, "k"), (2, 3)], (1,)),
        ([(0,), (1,)], None),
        ([("a", 0), ("b", 0)], None),
        ([()], None),
        # A level with both kinds of keys is the tree reader's error, not a gap.
        ([("loss",), (1,)], None),
        ([(MAX_SEQUENCE_KEY,)], (0,)),
    ],
)
def test_first_gap(paths: list[tuple[object, ...]], gap: tuple[object, ...] | None) -> None:
    assert first_gap(paths) == gap  # type: ignore[arg-type]


def test_index_path_errors_name_the_value() -> None:
    with pytest.raises(AbiError) as info:
        jax_index_paths(["x", "y[<flat index 0>]"], [""])
    assert info.value.where == ("argument", 1)
    assert info.value.offset == 1
    with pytest.raises(AbiError) as info:
        jax_index_paths(["x"], ["[0]", "[('i',)]"])
    assert info.value.where == ("result", 1)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 200_000,
        "['" + "\\x41" * 50_000,
        "." + "a" * 200_000 + "[",
        "[0]" * 100_000,
        "['" + "\\\\" * 100_000 + "']",
    ],
)
def test_linear_time(text: str) -> None:
    # CPU time (a loaded machine's other jobs do not count); linear input of this size
    # takes milliseconds, a quadratic parser minutes.
    start = time.process_time()
    with contextlib.suppress(AbiError):
        parse_keys(text)
    assert time.process_time() - start < 2.0


# ------------------------------------------------------------------------------------
# Property: pytree → JAX key strings → the same structure.
# ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Obj:
    """A dataclass-like pytree node: its children are attributes (JAX's GetAttrKey),
    flattened in field order."""

    fields: tuple[tuple[str, Any], ...]


LEAF = "leaf"

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True) | st.sampled_from(
    ["été", "λ", "_"]
)


def _unique_fields(items: list[tuple[str, Any]]) -> Obj:
    seen: dict[str, Any] = {}
    for name, child in items:
        seen.setdefault(name, child)
    return Obj(tuple(seen.items()))


pytrees = st.recursive(
    st.just(LEAF),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=5), children, max_size=4),
        st.lists(st.tuples(identifiers, children), max_size=4).map(_unique_fields),
    ),
    max_leaves=12,
)


def jax_keystr(path: list[tuple[str, Any]]) -> str:
    """What `jax.tree_util.keystr` writes: `[i]` for a sequence index, `[repr(k)]` for a
    dict key, `.name` for an attribute."""
    parts = []
    for kind, key in path:
        if kind == "seq":
            parts.append(f"[{key}]")
        elif kind == "dict":
            parts.append(f"[{key!r}]")
        else:
            parts.append(f".{key}")
    return "".join(parts)


def jax_flatten(tree: Any, path: list[tuple[str, Any]]) -> list[list[tuple[str, Any]]]:
    """The leaf paths in JAX's flattening order: sequences by index, dicts by sorted key,
    dataclass fields in declaration order."""
    if tree == LEAF:
        return [path]
    if isinstance(tree, (list, tuple)):
        return [p for i, child in enumerate(tree) for p in jax_flatten(child, [*path, ("seq", i)])]
    if isinstance(tree, dict):
        return [p for k in sorted(tree) for p in jax_flatten(tree[k], [*path, ("dict", k)])]
    return [p for name, child in tree.fields for p in jax_flatten(child, [*path, ("attr", name)])]


def expected_node(
    tree: Any, path: tuple[Any, ...], index_of: dict[tuple[Any, ...], int], kind: str
) -> Node | None:
    """The structure docs/spec.md §3.2 builds for ``tree``: empty containers carry no leaf and
    vanish (a gap in a sequence), attributes are dict keys, sequences are ``kind``."""
    if tree == LEAF:
        return Leaf(Scalar("f", 32), index_of[path])
    if isinstance(tree, (list, tuple)):
        items = [expected_node(c, (*path, i), index_of, kind) for i, c in enumerate(tree)]
        while items and items[-1] is None:
            items.pop()
        return Sequence(kind, tuple(items)) if items else None  # type: ignore[arg-type]
    pairs = tree.items() if isinstance(tree, dict) else tree.fields
    found = [(k, expected_node(c, (*path, k), index_of, kind)) for k, c in pairs]
    kept = [(k, node) for k, node in found if node is not None]
    return Dict.sorted(kept) if kept else None


@PROPERTY
@given(
    parameters=st.lists(st.tuples(identifiers, pytrees), max_size=4, unique_by=lambda p: p[0]),
    result=pytrees,
    prefix=st.booleans(),
)
def test_pytrees_read_back(parameters: list[tuple[str, Any]], result: Any, prefix: bool) -> None:
    arg_infos: list[str] = []
    arg_index: dict[tuple[Any, ...], int] = {}
    for position, (name, tree) in enumerate(parameters):
        for path in jax_flatten(tree, []):
            arg_index[(position, *(key for _, key in path))] = len(arg_infos)
            arg_infos.append(name + jax_keystr(path))
    result_infos: list[str] = []
    result_index: dict[tuple[Any, ...], int] = {}
    for path in jax_flatten(result, []):
        result_index[tuple(key for _, key in path)] = len(result_infos)
        result_infos.append(("result" if prefix else "") + jax_keystr(path))

    read = jax_index_paths(arg_infos, result_infos)
    f32 = Scalar("f", 32)
    signature = signature_from_index_paths(
        [(path, f32) for path in read.arguments], [(path, f32) for path in read.results]
    )

    arguments = []
    names = []
    for position, (name, tree) in enumerate(parameters):
        node = expected_node(tree, (position,), arg_index, "list")
        if node is not None:  # a parameter without leaves has no flat argument
            arguments.append(Argument(len(arguments), node))
            names.append(name)
    result_node = expected_node(result, (), result_index, "tuple")
    expected = Signature(tuple(arguments), () if result_node is None else (result_node,))
    assert signature == expected
    assert read.parameters == tuple(names)
