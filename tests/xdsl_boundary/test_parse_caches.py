"""The driver's performance caches change nothing but speed: the type cache of its
parser (`abi_compiler.text_to_ir.type_cache`) and the symbol lookups while verifying
(`abi_compiler.xdsl_boundary.symbol_cache`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable

from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.pipeline.dialects import register_dialects
from abi_compiler.text_to_ir.type_cache import TypeCachingParser, type_extent
from abi_compiler.xdsl_boundary import xdsl_fixes
from abi_compiler.xdsl_boundary.symbol_cache import cached_symbol_lookups
from abi_compiler.xdsl_boundary.xdsl_fixes import FixedParser

ROOT = Path(__file__).resolve().parents[2]

MODULE = """\
!alias = tensor<2x?xf32>
func.func private @helper(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %x : tensor<?x4xf32>
}
func.func @f(%t: tuple<tensor<?x4xf32>, !abi.dict<"a>b": i32, "c\\"d": !util.list<?>>>,
             %a: !alias, %l: !util.list<tensor<4x!util.list<?>>>) -> (tensor<?x4xf32>, i32, !alias) {
  %0 = abi.tuple.get %t[0] : tuple<tensor<?x4xf32>, !abi.dict<"a>b": i32, "c\\"d": !util.list<?>>> -> tensor<?x4xf32>
  %1 = abi.tuple.get %t[1] : tuple<tensor<?x4xf32>, !abi.dict<"a>b": i32, "c\\"d": !util.list<?>>> -> !abi.dict<"a>b": i32, "c\\"d": !util.list<?>>
  %2 = abi.dict.get %1["a>b"] : !abi.dict<"a>b": i32, "c\\"d": !util.list<?>> -> i32
  %3 = func.call @helper(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %4:2 = "test.op"() : () -> (tensor<4x?x!util.list<?>>, i32)
  func.return %3, %2, %a : tensor<?x4xf32>, i32, tensor<2x?xf32>
}
"""


def _print(text: str, parser_type: type[Parser]) -> str:
    ctx = Context(allow_unregistered=True)
    register_dialects(ctx)
    module = parser_type(ctx, text).parse_module()
    module.verify()
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def test_type_cache_parses_like_xdsl() -> None:
    assert _print(MODULE, TypeCachingParser) == _print(MODULE, FixedParser)


def test_type_cache_on_the_example_module() -> None:
    text = (ROOT / "examples" / "structured.mlir").read_text()
    assert _print(text, TypeCachingParser) == _print(text, FixedParser)


def test_type_cache_reuses_types() -> None:
    ctx = Context()
    register_dialects(ctx)
    parser = TypeCachingParser(ctx, "tensor<?x4xf32> tensor<?x4xf32>")
    first, second = parser.parse_type(), parser.parse_type()
    assert first is second


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("i32, f32", 3),
        ("tensor<?x4xf32> -> i32", 15),
        ('!abi.dict<"a>": i32, "b\\"<": f32> x', 33),
        ("tuple<(i32) -> i32, i1>)", 23),
        ("!util.list<?>>", 13),
        ("(i32) -> i32", None),
        ('!abi.dict<"unterminated', None),
        ("tensor<4xf32", None),
        # Attribute keywords are not types: their text is not scanned (docs/design.md#constants).
        ('dense<"0x0000803F"> : tensor<f32>', None),
        ("array<i32: 1, 2>", None),
        ("dense_resource<blob> : tensor<4xf32>", None),
        ("affine_map<(d0) -> (d0)>", None),
        ("sparse<[[0]], [1.0]> : tensor<2xf32>", None),
        # A bare scalar type name is its own extent; a dialect type may hold strings.
        ("dense", 5),
        (r'!a.b<"\\", "\"">', 16),
    ],
)
def test_type_extent(text: str, end: int | None) -> None:
    assert type_extent(text, 0) == end


def test_type_cache_errors_are_xdsls(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  func.return %a : tensor<4xf33x>\n}\n"
    )
    assert AbiOptMain.main([str(path), "--parse-all"]) == 1
    assert f"{path}:2:" in capsys.readouterr().err


def test_cached_symbol_lookups_agree_with_xdsl() -> None:
    ctx = Context()
    register_dialects(ctx)
    module = Parser(
        ctx,
        "func.func private @g() {\n  func.return\n}\n"
        "func.func private @h() {\n  func.call @g() : () -> ()\n  func.return\n}\n",
    ).parse_module()
    call = next(op for op in module.walk() if isinstance(op, func.CallOp))
    names = ["g", "h", "missing", StringAttr("g"), SymbolRefAttr("h"), SymbolRefAttr("g", ["x"])]
    expected = [SymbolTable.lookup_symbol(call, name) for name in names]
    # (The cache answers a run's lookups: inside `applied()`.)
    with xdsl_fixes.applied(), cached_symbol_lookups():
        assert [SymbolTable.lookup_symbol(call, name) for name in names] == expected
        module.verify()
    assert SymbolTable.lookup_symbol.__name__ == "lookup_symbol"
    assert isinstance(expected[0], func.FuncOp)
    assert expected[2] is None


def test_cached_symbol_lookups_report_missing_callees(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "call.mlir"
    path.write_text("func.func @f() {\n  func.call @nowhere() : () -> ()\n  func.return\n}\n")
    assert AbiOptMain.main([str(path), "--parse-all"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:3: error: '@nowhere' could not be found in symbol table" in err
