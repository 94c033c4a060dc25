"""`HeaderReader` (abi_compiler/pipeline/headers.py): a plain `func.func` header becomes the
same op xDSL's parser makes of it — properties, attributes, entry block, source offsets —
and every other header is left to xDSL (None)."""

from __future__ import annotations

import io

import pytest
from xdsl.context import Context
from xdsl.dialects.func import FuncOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from abi_compiler.ir.location_table import LocationTable
from abi_compiler.passes.contract import BodyAccess
from abi_compiler.pipeline.dialects import context
from abi_compiler.pipeline.headers import _SIMPLE_TYPE, HeaderReader
from abi_compiler.pipeline.plan import alias_names, make_plan
from abi_compiler.pipeline.type_cache import type_extent
from abi_compiler.text.carry import FuncText, scan

PLAIN = [
    "func.func @f() {\n  return\n}",
    "func.func private @f(%a: i32) -> i32 {\n  return %a : i32\n}",
    "func.func nested @f.x$y(%0: i32, %arg_1: f32) -> (i32, f32) {\n}",
    'func.func public @f(%a: tensor<?x8xf32> {tf_saved_model.index_path = ["in", 0]},'
    ' %b: !util.list<?> {}) -> (tensor<?x8xf32> {tf_saved_model.index_path = ["out"]})'
    ' attributes {tf_saved_model.exported_names = ["f"], iree.abi.stub} {\n}',
    # Locations (masked by the driver before the reader sees the header), several lines.
    'func.func @f(%a: i32 loc("x.py":1:2),\n    %b: i32 {a.b = 1 : i64} loc(#loc3))\n'
    '    -> (i32 {c.d = "}"}) attributes {e = {f = [1, 2]}} {\n}',
    'func.func @f(%a: tuple<i32, tensor<2x!util.list<?>>>, %b: !abi.dict<"k": f32>) -> () {\n}',
    "func.func @f(%a: i32) -> tensor<*xf32> {\n}",
    "func.func @f(%a: complex<f32>, %b: vector<[4]xf32>, %c: memref<?xf32, 1>) {\n}",
    "func.func @f(%a: !stablehlo.token) -> !stablehlo.token attributes {x = #unknown.attr<1>} {\n}",
]

UNREAD = {
    "quoted name": 'func.func @"a b"(%a: i32) {\n}',
    "declaration": "func.func private @f(i32) -> i32",
    "function-typed argument": "func.func @f(%a: (i32) -> i32) {\n}",
    "comment": "func.func @f(%a: i32, // the input\n    %b: i32) {\n}",
    "type alias": "!t = tensor<4xf32>\nfunc.func @f(%a: !t) {\n}",
    "attribute alias": '#a = "x"\nfunc.func @f(%a: i32 {k = #a}) {\n}',
    "reserved attribute": 'func.func @f() attributes {sym_name = "g"} {\n}',
    "duplicate argument": "func.func @f(%a: i32, %a: i32) {\n}",
    "unparsable type": "func.func @f(%a: tensor<4xq32>) {\n}",
    "junk after the results": "func.func @f() -> i32 i32 {\n}",
    "trailing comma": "func.func @f(%a: i32,) {\n}",
    "not a bare symbol name": "func.func @f-g(%a: i32) {\n}",
}


def _context() -> Context:
    return context(allow_unregistered=True)


def _generic(op: FuncOp) -> str:
    """The op without its body, in generic form (properties and attributes in order)."""
    stream = io.StringIO()
    header = op.clone_without_regions()
    Printer(stream, print_generic_format=True).print_op(header)
    return stream.getvalue()


def _read(text: str) -> tuple[FuncOp | None, FuncText, LocationTable, str]:
    layout = scan(text)
    masked = make_plan(layout, BodyAccess.SIGNATURES).masked
    (item,) = [op for op in layout.ops if isinstance(op, FuncText)]
    table = LocationTable()
    reader = HeaderReader(_context(), alias_names(layout))
    return reader.read(masked, item, table, 100), item, table, masked


@pytest.mark.parametrize("text", PLAIN)
def test_a_plain_header_is_the_op_xdsl_parses(text: str) -> None:
    built, item, table, masked = _read(text)
    assert built is not None
    # What xDSL parses of the same masked text, as the driver would without the reader.
    parsed = Parser(_context(), masked).parse_module().body.block.first_op
    assert isinstance(parsed, FuncOp)
    # Printed generically (unregistered attributes compare by class, one per parse).
    assert _generic(built) == _generic(parsed)
    # (xDSL makes no block of an empty body without arguments; `carried_ir.attach` adds
    # the empty one the reader makes.)
    parsed_args = parsed.args if parsed.body.blocks else ()
    assert [(str(a.type), a.name_hint) for a in built.args] == [
        (str(a.type), a.name_hint) for a in parsed_args
    ]
    assert list(built.body.block.ops) == []
    # Offsets (plus the chunk's base, 100): the op at `func.func`, each argument at `%`.
    assert table.offset_of(built) == 100 + item.start
    assert [table.offset_of(a) for a in built.args] == [
        100 + text.index(f"%{name}:") for name in item.arg_names
    ]
    built.verify(verify_nested_ops=False)


@pytest.mark.parametrize("text", UNREAD.values(), ids=UNREAD.keys())
def test_any_other_header_is_left_to_xdsl(text: str) -> None:
    assert _read(text)[0] is None


def test_each_distinct_text_is_parsed_once() -> None:
    text = "\n".join(
        f'func.func @f{i}(%a: tensor<4xf32> {{k = "v"}}) -> tensor<4xf32> {{\n}}' for i in range(3)
    )
    layout = scan(text)
    masked = make_plan(layout, BodyAccess.SIGNATURES).masked
    reader = HeaderReader(_context(), ())
    built = [reader.read(masked, item, LocationTable(), 0) for item in layout.ops]
    assert all(isinstance(func, FuncOp) for func in built)
    first, *others = built
    assert first is not None
    for func in others:
        assert func is not None
        assert func.function_type.inputs.data[0] is first.function_type.inputs.data[0]
        assert func.arg_attrs is not None and first.arg_attrs is not None
        assert func.arg_attrs.data[0] is first.arg_attrs.data[0]


TYPE_TEXTS = [
    "tensor<4xf32>,",
    "i32)",
    "!util.list<?> {",
    "tensor<4x!util.list<?>>)",
    "dense<1>",
    "memref<?xf32, strided<[1]>>",
    "vector<[4]xf32>",
    '!foo.bar<"x">',
    "index",
    "!hal.buffer_view",
    "f32>",
    "tensor<*xf32>",
    "tuple<i32, f32>",
    "!stablehlo.token",
]


@pytest.mark.parametrize("text", TYPE_TEXTS)
def test_the_one_match_type_form_agrees_with_type_extent(text: str) -> None:
    """`headers._SIMPLE_TYPE` is a shortcut: where it matches, it ends where the type
    cache's scanner ends the type; where it does not, the scanner decides."""
    match = _SIMPLE_TYPE.match(text)
    if match is not None:
        assert match.end() == type_extent(text, 0)
