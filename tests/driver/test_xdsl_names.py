"""Every name of xDSL's (0.74) that the driver hooks, overrides or calls although xDSL
does not promise it (private names, internal attributes), with the parameters the driver
relies on. An xDSL upgrade that renames or reshapes one fails here, by name, instead of
silently falling back to xDSL's own behaviour (an exponential string regex, a lost float
bit pattern, an unlocated diagnostic)."""

from __future__ import annotations

import inspect
import io
from typing import Any

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr
from xdsl.dialects.utils import format as func_format
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils import arg_spec
from xdsl.utils.mlir_lexer import MLIRLexer, StringLiteral

# (owner, name, parameters) of the functions; who uses them is in the comment.
FUNCTIONS: list[tuple[Any, str, list[str]]] = [
    # locations.LocatingParser: locates ops, names unknown ones, records block arguments
    (Parser, "_get_op_by_name", ["self", "name"]),
    (Parser, "_register_ssa_definition", ["self", "name", "values", "span"]),
    (Parser, "parse_operation", ["self"]),
    (Parser, "resolve_operand", ["self", "operand", "type"]),
    # type_cache.TypeCachingParser: skips a cached type's text
    (Parser, "_resume_from", ["self", "pos"]),
    (Parser, "parse_optional_type", ["self"]),
    # xdsl_compat: string literals, float bits, splats, resources
    (MLIRLexer, "_lex_string_literal", ["self", "start_pos"]),
    (AttrParser, "_parse_builtin_densearray_attr", ["self"]),
    (AttrParser, "_parse_dialect_resource_handle", ["self", "dialect_name", "interface"]),
    (AttrParser, "_parse_tensor_literal", ["self"]),
    (AttrParser, "parse_dense_int_or_fp_elements_attr", ["self", "type"]),
    (AttrParser, "parse_optional_builtin_int_or_float_attr", ["self"]),
    (Printer, "print_float", ["self", "value", "type"]),
    (Printer, "print_bytes_literal", ["self", "bytestring"]),
    (DenseArrayBase, "print_builtin", ["self", "printer"]),
    (DenseIntOrFPElementsAttr, "print_without_type", ["self", "printer"]),
    # opt_main: the printer of the module, pass options
    (Printer, "_print_new_line", ["self", "indent", "print_message"]),
    (arg_spec, "_convert_arg_to_type", ["value", "dest_type"]),
    (arg_spec.ArgSpec, "_spec_parameter_type_str", ["arg"]),
    # carried_ir.CarriedPrinter: a carried function's header
    (func_format, "_print_func_outputs", ["printer", "outputs", "res_attrs"]),
]


@pytest.mark.parametrize(
    ("owner", "name", "parameters"),
    FUNCTIONS,
    ids=[f"{getattr(o, '__name__', o)}.{n}" for o, n, _ in FUNCTIONS],
)
def test_hooked_function_exists_with_its_parameters(
    owner: Any, name: str, parameters: list[str]
) -> None:
    function = getattr(owner, name, None)
    assert function is not None, f"xDSL no longer has {name}"
    assert list(inspect.signature(function).parameters) == parameters


def test_hooked_attributes_exist() -> None:
    # xdsl_compat replaces the lexer's string regex and StringLiteral's bytes property.
    assert hasattr(MLIRLexer, "_unescaped_characters_regex")
    assert isinstance(StringLiteral.__dict__.get("bytes_contents"), property)
    # locations/type_cache read the parser's state; opt_main's printer forgets names.
    parser = Parser(Context(), "", "<test>")
    for name in ("_parser_state", "_current_token", "forward_ssa_references", "ssa_values"):
        assert hasattr(parser, name), name
    assert hasattr(parser._parser_state, "dialect_stack")  # pyright: ignore[reportPrivateUsage]
    printer = Printer(stream=io.StringIO())
    assert isinstance(printer._blocks, dict)  # pyright: ignore[reportPrivateUsage]
    assert isinstance(printer._ssa_values, dict)  # pyright: ignore[reportPrivateUsage]
