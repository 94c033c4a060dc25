"""`TypeReader` (abi_compiler/text_to_ir/type_reader.py): every type or dictionary text it
answers for is one xDSL reads whole, to an equal (`==`) object; it answers for the ABI's
common texts; and `abi-opt` prints the same bytes with it as without it.

The texts: every type and dictionary text of the lit suite (`tests/filecheck/**.mlir`, each
place a type or a `{…}` may start, found by the lexer), those of the benchmark's
generated modules (`bench/bench_native.py`), and hypothesis-generated ones, with
near-misses (a character dropped or inserted) where a reader that is not exact would
answer wrongly."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    TupleType,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute

import abi_compiler
from abi_compiler.dialects.abi import DictType
from abi_compiler.dialects.util import ListType
from abi_compiler.pipeline.dialects import context
from abi_compiler.text import lexer
from abi_compiler.text_to_ir import type_reader
from abi_compiler.text_to_ir.text_values import TextValueParser
from abi_compiler.text_to_ir.type_cache import type_extent
from abi_compiler.text_to_ir.type_reader import TypeReader
from tests.lowering.generators import mlir_type, types

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from bench_native import structured_module  # noqa: E402

_Answer = Attribute | dict[str, Attribute] | None


def _xdsl(ctx: Context, text: str, method: Callable[[TextValueParser], _Answer]) -> _Answer:
    """What xDSL's parser (the driver's `TextValueParser`) reads from all of ``text``."""
    parser = TextValueParser(ctx, text)
    parser.attribute_aliases = {}
    try:
        value = method(parser)
    except Exception:
        return None
    return value if parser.pos == len(text) else None


def _type_of(parser: TextValueParser) -> _Answer:
    return parser.parse_optional_type()


def _dictionary_of(parser: TextValueParser) -> _Answer:
    return parser.parse_optional_dictionary_attr_dict()


def check_type(ctx: Context, text: str) -> bool:
    """Whether the reader answers for ``text``; fails if its answer is not xDSL's."""
    fast = TypeReader(ctx).read_type(text)
    if fast is None:
        return False
    assert fast == _xdsl(ctx, text, _type_of), text
    return True


def check_dictionary(ctx: Context, text: str) -> bool:
    fast = TypeReader(ctx).read_dictionary(text)
    if fast is None:
        return False
    expected = _xdsl(ctx, text, _dictionary_of)
    # (xDSL reads a dictionary at a `{` only; a text that is no dictionary reads as {}.)
    assert expected is not None and list(fast.items()) == list(expected.items()), text
    return True


def candidates(text: str) -> Iterator[tuple[str, str]]:
    """("type", text) at each token a type may start with, ("dictionary", text) at each
    `{` (a superset: op names, regions, …, which the reader must refuse)."""
    try:
        for kind, start, _ in lexer.tokens(text):
            if kind in (lexer.BARE, lexer.BANG):
                end = type_extent(text, start)
                if end is not None:
                    yield "type", text[start:end]
            elif kind == lexer.PUNCT and text[start] == "{":
                try:
                    yield "dictionary", text[start : lexer.group_end(text, start)]
                except lexer.LexError:
                    continue
    except lexer.LexError:  # (the bad inputs of the error tests)
        return


def _check_all(texts: Iterator[tuple[str, str]], ctx: Context) -> dict[str, int]:
    read = {"type": 0, "dictionary": 0}
    seen: set[tuple[str, str]] = set()
    for kind, text in texts:
        if (kind, text) in seen:
            continue
        seen.add((kind, text))
        check = check_type if kind == "type" else check_dictionary
        read[kind] += check(ctx, text)
    return read


LIT_FILES = sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))


@pytest.mark.parametrize("allow_unregistered", [True, False])
def test_the_lit_suites_texts_read_as_xdsl_reads_them(allow_unregistered: bool) -> None:
    ctx = context(allow_unregistered)
    read = {"type": 0, "dictionary": 0}
    for path in LIT_FILES:
        for kind, count in _check_all(candidates(path.read_text()), ctx).items():
            read[kind] += count
    # (Not vacuous: most of the suite's distinct type texts are the ABI's.)
    assert read["type"] > 500 and read["dictionary"] > 200, read


def test_the_benchmarks_texts_read_as_xdsl_reads_them() -> None:
    text = structured_module(200, 2025)
    read = _check_all(candidates(text), context(True))
    assert read["type"] > 300 and read["dictionary"] > 100, read


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i32", i32),
        ("tensor<?x4xf32>", TensorType(f32, [-(2**63), 4])),
        ("tuple<>", TupleType(())),
        ("tuple<i32 ,  f32>", TupleType((i32, f32))),
        ('!abi.dict<"a": i32, "b>": !util.list<?>>', DictType([("a", i32), ("b>", ListType())])),
        ("tensor<0x8xf32>", TensorType(f32, [0, 8])),  # (`0x8` is not hex here)
    ],
)
def test_it_reads_the_abis_types(text: str, expected: Attribute) -> None:
    assert TypeReader(context()).read_type(text) == expected
    assert check_type(context(), text)


@pytest.mark.parametrize(
    "text",
    [
        "tensor<2xf32, #enc>",  # an encoding
        "tensor<2 x f32>",  # blanks in a dimension list
        "!t",  # an alias
        "!torch.vtensor",  # (xDSL reads a `<` after blanks)
        "!torch.int",
        '!abi.dict<"\\41": i32>',  # an escape
        "tuple<i32, // c\n f32>",  # a comment
        "vector<4xf32>",
        "tensor<0x1p3xf32>",
        "!torch.vtensor<[2],index>",  # xDSL's error
        "i32 i32",
    ],
)
def test_it_leaves_other_texts_to_xdsl(text: str) -> None:
    assert TypeReader(context(True)).read_type(text) is None


def test_it_reads_the_dictionaries_of_signatures() -> None:
    text = '{tf_saved_model.index_path = [1, "ids"], "a b" = {c = -3}, d, e = []}'
    assert TypeReader(context()).read_dictionary(text) == {
        "tf_saved_model.index_path": ArrayAttr([IntegerAttr(1, i64), StringAttr("ids")]),
        "a b": DictionaryAttr({"c": IntegerAttr(-3, i64)}),
        "d": UnitAttr(),
        "e": ArrayAttr(()),
    }
    for other in ("{a = 1.5}", "{a = 0x10}", "{a = true}", "{a = 1 : i32}", "{a, a}", "{a = @f}"):
        assert TypeReader(context()).read_dictionary(other) is None, other


def test_a_dialect_not_in_the_context_is_left_to_xdsl() -> None:
    ctx = Context(allow_unregistered=True)  # (no dialect registered)
    assert TypeReader(ctx).read_type("!abi.dict<>") is None
    assert TypeReader(ctx).read_type("tensor<2xi32>") == TensorType(i32, [2])


# -- Generated texts ----------------------------------------------------------------------

_DIMS = ["?", "0", "1", "16", "007", "9223372036854775808", "x", "-1", "2 "]
_NAMES = ["i1", "si8", "ui16", "i0", "i0008", "f16", "bf16", "f80", "tf32", "f8E4M3FN",
          "index", "none", "q32", "f31", "complex<f32>", "vector<4xf32>", "!t", "!torch.int",
          "!util.variant", "!iree.tuple<i32>", "memref<2xf32>", "(i32) -> i32"]  # fmt: skip
_KEY_CHARS = st.sampled_from([*'ab_ .>,:<"\\{}é', "\\22", "\\n"])
_SPACE = st.sampled_from(["", "", "", " ", "\n", " // c\n"])


def _type_texts(depth: int) -> st.SearchStrategy[str]:
    leaf = st.one_of(
        st.sampled_from(_NAMES),
        st.builds(
            lambda dims, element, unranked: (
                f"tensor<*x{element}>"
                if unranked
                else f"tensor<{''.join(d + 'x' for d in dims)}{element}>"
            ),
            st.lists(st.sampled_from(_DIMS), max_size=3),
            st.sampled_from(_NAMES),
            st.booleans(),
        ),
        st.builds(
            lambda sizes, dtype: f"!torch.vtensor<{sizes},{dtype}>",
            st.one_of(
                st.just("*"),
                st.lists(st.sampled_from(["?", "-1", "-7", "3", "0x1", " 2"]), max_size=3).map(
                    lambda s: "[" + ",".join(s) + "]"
                ),
            ),
            st.sampled_from(["f32", "si64", "unk", "index", "tensor<2xf32>", "i1 "]),
        ),
    )
    if depth == 0:
        return leaf
    inner = _type_texts(depth - 1)
    return st.one_of(
        leaf,
        st.builds(
            lambda items, space: "tuple<" + ("," + space).join(items) + ">",
            st.lists(inner, max_size=3),
            _SPACE,
        ),
        st.builds(
            lambda entries, space: (
                "!abi.dict<"
                + ("," + space).join(f'"{key}"{space}:{space}{value}' for key, value in entries)
                + ">"
            ),
            st.lists(st.tuples(st.lists(_KEY_CHARS, max_size=3).map("".join), inner), max_size=3),
            _SPACE,
        ),
        st.builds(lambda element: f"!util.list<{element}>", st.one_of(st.just("?"), inner)),
        st.builds(lambda element: f"!iree.list<{element}>", inner),
    )


def _dictionary_texts(depth: int) -> st.SearchStrategy[str]:
    scalar = st.sampled_from(
        ['"x"', '"a\\"b"', '"é"', "0", "-3", "9223372036854775808", "1.5", "0x10", "true",
         "@f", "i32", "1 : i32", "unit", '"s" : i32', "[]", "-"]
    )  # fmt: skip
    value = scalar if depth == 0 else st.one_of(
        scalar,
        st.lists(_dictionary_texts(depth - 1), max_size=2).map(lambda v: "[" + ", ".join(v) + "]"),
        _dictionary_texts(depth - 1),
    )  # fmt: skip
    key = st.sampled_from(["a", "b.c", '"k"', '"k k"', "_x$", '"\\41"', "1", "a"])
    entry = st.tuples(key, st.one_of(st.none(), value)).map(
        lambda e: e[0] if e[1] is None else f"{e[0]} = {e[1]}"
    )
    return st.lists(entry, max_size=3).map(lambda entries: "{" + ", ".join(entries) + "}")


def _mutated(texts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A text, or the text with one character dropped or inserted."""

    def mutate(text: str, where: float, char: str, drop: bool) -> str:
        at = int(where * len(text))
        return text[:at] + text[at + 1 :] if drop else text[:at] + char + text[at:]

    return st.one_of(
        texts,
        st.builds(
            mutate, texts, st.floats(0, 1), st.sampled_from(list('<>,?x" :[]*{}-0!')), st.booleans()
        ),
    )


_CTX = context(True)


@settings(max_examples=400)
@given(_mutated(_type_texts(2)))
def test_generated_types_read_as_xdsl_reads_them(text: str) -> None:
    check_type(_CTX, text)


@settings(max_examples=300)
@given(_mutated(_dictionary_texts(2)))
def test_generated_dictionaries_read_as_xdsl_reads_them(text: str) -> None:
    check_dictionary(_CTX, text)


@settings(max_examples=100)
@given(types(depth=3))
def test_the_lowering_tests_types_read_as_xdsl_reads_them(generated: object) -> None:
    text = mlir_type(generated)  # type: ignore[arg-type]
    assert check_type(_CTX, text), text


# -- The same output ----------------------------------------------------------------------


def _without_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type_reader.TypeReader, "read_type", lambda self, text: None)
    monkeypatch.setattr(type_reader.TypeReader, "read_dictionary", lambda self, text: None)


@pytest.mark.filterwarnings("ignore::UserWarning")  # (the legacy pipeline's, on both runs)
@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
def test_the_output_is_the_same_without_the_reader(
    pipeline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [structured_module(40, 7), (ROOT / "examples" / "structured.mlir").read_text()]
    fast = [abi_compiler.run_pipeline(text, pipeline) for text in texts]
    _without_reader(monkeypatch)
    assert [abi_compiler.run_pipeline(text, pipeline) for text in texts] == fast
