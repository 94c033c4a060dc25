"""`HeaderReader` (abi_compiler/text_to_ir/headers.py): a plain `func.func` header becomes the
same op xDSL's parser makes of it — properties, attributes, entry block, source offsets —
and every other header is left to xDSL (None)."""

from __future__ import annotations

import io

import pytest
from xdsl.context import Context
from xdsl.dialects.func import FuncOp
from xdsl.printer import Printer

from abi_compiler.ir.location_table import LocationTable
from abi_compiler.pipeline.dialects import context
from abi_compiler.pipeline.plan import masked_ranges
from abi_compiler.text import carry
from abi_compiler.text.carry import FuncText, scan
from abi_compiler.text_to_ir import carried_ir
from abi_compiler.text_to_ir.headers import HeaderReader, read_headers
from abi_compiler.text_to_ir.text_values import TextValueParser, define_aliases

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
    'func.func @"a b"(%a: i32) {\n}',
    "func.func private @f(i32, tensor<2xf32>) -> i32 loc(#loc1)",
    "func.func @f(%a: (i32) -> i32) {\n}",
    "func.func @f(%a: i32, // the input\n    %b: i32) {\n}",
    "!t = tensor<4xf32>\nfunc.func @f(%a: !t) {\n}",
    '#a = "x"\nfunc.func @f(%a: i32 {k = #a}) {\n}',
    # Values xDSL does not read, kept as text.
    'func.func @f(%a: !foo<"a>b"> {k = #foo<"x">, l = distinct[0]<>}) {\n}',
    'func.func @f(%a: i32 {k = "x" : i32, l = [loc("m.py":10:4)], m = [loc(#loc3)]}) {\n}',
    "func.func @f(%a: i32 {k = sparse<[[0]], [1]> : tensor<2xi32>}) -> !foo.attributes {\n}",
    "func.func @f(%a: i32 {k = affine_set<(d0) : (d0 >= 0, -d0 + 4 >= 0)>}) {\n}",
]

UNREAD = {
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


def _read(text: str) -> tuple[FuncOp | None, FuncText, LocationTable, str, dict]:
    """The header the reader builds (or None), its item, the offsets recorded, the text
    xDSL would parse without the reader, and the chunk's aliases."""
    layout = scan(text)
    carried = carried_ir.Carried(layout, {})
    table = LocationTable()
    parser = TextValueParser(_context(), text)
    aliases = [(a.name, a.start, a.value_start, a.end) for a in layout.aliases if not a.location]
    define_aliases(parser, aliases)
    carried.aliases = parser.attribute_aliases
    read_headers(carried, HeaderReader(_context(), carried.aliases), table, 100)
    (index, item) = next((i, op) for i, op in enumerate(layout.ops) if isinstance(op, FuncText))
    # What xDSL would be given without the reader.
    masked = carry.mask(text, masked_ranges(layout, (), ()))
    return carried.headers.get(index), item, table, masked, carried.aliases


@pytest.mark.parametrize("text", PLAIN)
def test_a_plain_header_is_the_op_xdsl_parses(text: str) -> None:
    built, item, table, masked, aliases = _read(text)
    assert built is not None
    # What xDSL parses of the same masked text, as the driver would without the reader.
    parser = TextValueParser(_context(), masked)
    parser.attribute_aliases.update(aliases)
    parsed = parser.parse_module().body.block.first_op
    assert isinstance(parsed, FuncOp)
    # Printed generically (unregistered attributes compare by class, one per parse).
    assert _generic(built) == _generic(parsed)
    # (xDSL makes no block of an empty body without arguments; `carried_ir.attach` adds
    # the empty one the reader makes.)
    parsed_args = parsed.args if parsed.body.blocks else ()
    built_args = built.args if built.body.blocks else ()
    assert [(str(a.type), a.name_hint) for a in built_args] == [
        (str(a.type), a.name_hint) for a in parsed_args
    ]
    assert not built.body.blocks or list(built.body.block.ops) == []
    # Offsets (plus the chunk's base, 100): the op at `func.func`, each argument at `%`.
    assert table.offset_of(built) == 100 + item.start
    assert [table.offset_of(a) for a in built_args] == [
        100 + text.index(f"%{name}:") for name in item.arg_names if built_args
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
    reader = HeaderReader(_context(), {})
    built = [reader.read(text, item, LocationTable(), 0) for item in layout.ops]
    assert all(isinstance(func, FuncOp) for func in built)
    first, *others = built
    assert first is not None
    for func in others:
        assert func is not None
        assert func.function_type.inputs.data[0] is first.function_type.inputs.data[0]
        assert func.arg_attrs is not None and first.arg_attrs is not None
        assert func.arg_attrs.data[0] is first.arg_attrs.data[0]


def test_a_declaration_keeps_its_argument_attributes() -> None:
    """As MLIR does (xDSL's `func.func` parser drops them in a declaration)."""
    built = _read("func.func private @f(i32, tensor<2xf32> {a.b}) -> (i32 {c.d})")[0]
    assert built is not None
    assert built.arg_attrs is not None and built.res_attrs is not None
    assert [str(d) for d in built.arg_attrs.data] == ["{}", "{a.b}"]
    assert [str(d) for d in built.res_attrs.data] == ["{c.d}"]
