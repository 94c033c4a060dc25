"""The V1 wrappers written as text (`passes/wrapper_text.py`) are, byte for byte, what
xDSL's printer prints for the wrappers `wrap-entry-points` builds as IR: on generated
modules (typed structures, index paths, named arguments, ND-arrays of references, legacy
lists), on every module of the lit suite the pass lowers, and on the corners of docs/spec.md
§8.2's text (repeated and suffixed argument names, quoted symbol names, non-string
reflection entries, legacy entries recomputed for the wrapper)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from abi_compiler.dialects.util import ListGetOp, ListSetOp, ListType
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics
from abi_compiler.ir.attribute_text import AttributeTexts, print_function
from abi_compiler.passes.structure import functions
from abi_compiler.passes.wrap_entry_points import DeferredWrappers, WrapEntryPointsPass
from abi_compiler.passes.wrapper_text import TextOps
from abi_compiler.xdsl_boundary.xdsl_fixes import FixedPrinter
from tests.lowering.generators import (
    DICT_KEYS,
    FunctionSpec,
    LeafT,
    TupleT,
    Type,
    function_specs,
    function_texts,
)
from tests.lowering.helpers import apply_passes, context, parse

EXAMPLES = 500 if os.environ.get("ABI_SLOW") else 40
ROOT = Path(__file__).resolve().parent.parent.parent


def prepared(
    text: str, before: tuple[str, ...] = ("materialize-iree-abi",)
) -> tuple[ModuleOp, DeferredWrappers, list[FuncOp]]:
    """The module after ``before`` and `wrap-entry-points`' `prepare` (the wrappers left
    to write), and its functions."""
    module = parse(text, allow_unregistered=True)
    apply_passes(module, before)
    with diagnostics.collect():
        deferred = WrapEntryPointsPass().prepare(context(True), module)
    return module, deferred, list(functions(module))


def printed(op: FuncOp) -> str:
    """The op as xDSL prints it as a top-level op of a module."""
    stream = StringIO()
    printer = FixedPrinter(stream=stream)
    with printer.indented():
        printer.print_op(op)
    return stream.getvalue()


def _outcome(write: Callable[[], object]) -> object:
    """What ``write`` returns, or the message of the `AbiError` it raises."""
    try:
        return write()
    except AbiError as error:
        return f"error: {error}"


def assert_same_wrappers(deferred: DeferredWrappers, funcs: list[FuncOp]) -> int:
    """Every wrapper's text equals the printed IR (or both raise the same error);
    returns how many wrappers there were."""
    printer = FixedPrinter()
    count = 0
    for func in funcs:
        text = _outcome(lambda func=func: deferred.text(func, printer, "  "))
        built = _outcome(lambda func=func: deferred(func))
        if built is None:
            assert text is None
            continue
        count += 1
        assert text == (printed(built) if isinstance(built, FuncOp) else built)
    return count


# --------------------------------------------------------------------------------------
# Generated modules.
# --------------------------------------------------------------------------------------


def _leaf_paths(t: Type, path: tuple) -> list[tuple[tuple, str]]:
    if isinstance(t, LeafT):
        return [(path, t.mlir)]
    if isinstance(t, TupleT):
        return [leaf for i, item in enumerate(t.items) for leaf in _leaf_paths(item, (*path, i))]
    return [leaf for key, item in t.sorted_entries() for leaf in _leaf_paths(item, (*path, key))]


def _path_text(path: tuple) -> str:
    items = ", ".join(f'"{c}"' if isinstance(c, str) else str(c) for c in path)
    return f"{{tf_saved_model.index_path = [{items}]}}"


@st.composite
def index_path_functions(draw: st.DrawFn, name: str) -> str | None:
    """A function of flat leaves with index paths, from a generated spec's arguments:
    argument i's structure below [i] (below ["<name>"] for a named one); results some of
    the leaves, alone ([]), in a tuple ([j]) or in a dict (["key"])."""
    spec: FunctionSpec = draw(function_specs())
    flat = [
        leaf
        for i, (t, arg_name) in enumerate(spec.arguments)
        for leaf in _leaf_paths(t, (arg_name if arg_name is not None else i,))
    ]
    if not flat:
        return None
    picked = draw(st.lists(st.integers(0, len(flat) - 1), min_size=1, max_size=3))
    shape = draw(st.sampled_from(["single", "tuple", "dict"]))
    if shape == "single":
        picked, paths = picked[:1], [()]
    elif shape == "tuple":
        paths = [(j,) for j in range(len(picked))]
    else:
        keys = draw(st.lists(st.sampled_from(DICT_KEYS), min_size=len(picked), unique=True))
        paths = [(key,) for key in keys[: len(picked)]]
    args = ", ".join(f"%p{i}: {t} {_path_text(p)}" for i, (p, t) in enumerate(flat))
    types = [flat[i][1] for i in picked]
    results = ", ".join(f"{t} {_path_text(p)}" for t, p in zip(types, paths, strict=True))
    return (
        f"  func.func @{name}({args}) -> ({results}) {{\n"
        f"    func.return {', '.join(f'%p{i}' for i in picked)} : {', '.join(types)}\n  }}"
    )


def generated_module(specs: list, indexed: list, data: st.DataObject) -> str:
    """A module of the generated functions (typed ones, then ones with index paths)."""
    lines = [
        line
        for i, spec in enumerate(specs)
        for line in function_texts(spec, name=f"f{i}", helper_name=f"h{i}")
    ]
    for i in range(len(indexed)):
        function = data.draw(index_path_functions(f"p{i}"))
        if function is not None:
            lines.append(function)
    return "builtin.module {\n" + "\n".join(lines) + "\n}\n"


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    specs=st.lists(function_specs(), min_size=1, max_size=3),
    indexed=st.lists(st.integers(0, 2**16), max_size=3),
    data=st.data(),
)
def test_generated_wrappers_print_as_built(specs: list, indexed: list, data: st.DataObject) -> None:
    _, deferred, funcs = prepared(generated_module(specs, indexed, data))
    assert_same_wrappers(deferred, funcs)


# --------------------------------------------------------------------------------------
# The lit suite's modules.
# --------------------------------------------------------------------------------------

LIT_FILES = sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))

# What a lit input that does not go through the pass raises before the wrappers: it does
# not parse in full (carried custom syntax, an expected parse error), does not verify, or
# is a pass error the file tests.
NOT_WRAPPED = (AbiError, ParseError, VerifyException, DiagnosticException)


def semi_affine(chunk: str) -> bool:
    """Whether xDSL's parser stops at a semi-affine map or set in ``chunk`` (it lacks them;
    `abi-opt` keeps them as text: tests/filecheck/carried/semi-affine.mlir)."""
    if "affine_" not in chunk:
        return False
    try:
        parse(chunk, allow_unregistered=True)
    except NotImplementedError:
        return True
    except NOT_WRAPPED:
        pass
    return False


def test_lit_modules_wrappers_print_as_built() -> None:
    """Every chunk of the lit files that parses and goes through `wrap-entry-points`,
    after `materialize-iree-abi` and after `iree-abi-legacy` (whose entries are then
    recomputed for the wrapper), gives the same wrappers both ways."""
    wrapped = recomputed = 0
    for path in LIT_FILES:
        for chunk in re.split(r"^// -----$", path.read_text(encoding="utf-8"), flags=re.M):
            if semi_affine(chunk):
                continue
            for before in (("materialize-iree-abi",), ("iree-abi-legacy",)):
                try:
                    _, deferred, funcs = prepared(chunk, before)
                except NOT_WRAPPED:
                    continue
                count = assert_same_wrappers(deferred, funcs)
                wrapped += count
                recomputed += count if before == ("iree-abi-legacy",) else 0
    # Not vacuous: the suite wraps many functions both ways.
    assert wrapped > 100 and recomputed > 40, (wrapped, recomputed)


# --------------------------------------------------------------------------------------
# Corners of the text.
# --------------------------------------------------------------------------------------

CORNERS = r"""
builtin.module {
  // Argument names as parsed: `%x_1` is a second `x` (printed `%x_1`), `%_1` has no name
  // hint (numbered), `%0` neither; symbol names that must be quoted.
  func.func @"f x"(%x: tuple<i32>, %x_1: tuple<i32>, %_1: i32, %y_2: tuple<f32>,
                   %0: tuple<i64>) -> (tuple<i32>, i32) {
    func.return %x, %_1 : tuple<i32>, i32
  }
  func.func @"q\22uote\C3\A9"(%t: tuple<tensor<?x2xf32>, !iree.list<i8>>) -> tuple<tensor<?x2xf32>> {
    %e = abi.tuple.get %t[0] : tuple<tensor<?x2xf32>, !iree.list<i8>> -> tensor<?x2xf32>
    %r = abi.tuple.pack %e : (tensor<?x2xf32>) -> tuple<tensor<?x2xf32>>
    func.return %r : tuple<tensor<?x2xf32>>
  }
  // Named index-path arguments: `y_2` is the hint `y`, `_1` none, a non-ASCII name none.
  func.func @named(%a: i32 {tf_saved_model.index_path = ["y_2"]},
                   %b: f32 {tf_saved_model.index_path = ["_1"]},
                   %c: i64 {tf_saved_model.index_path = ["\C3\A9"]},
                   %d: tensor<2xbf16> {tf_saved_model.index_path = ["y_2x", 0]})
      -> (i32 {tf_saved_model.index_path = []}) {
    func.return %a : i32
  }
  // Reflection entries of any attribute kind move onto the wrapper.
  func.func @reflected(%u: tensor<*xf32>, %t: !abi.dict<"k": tensor<?xf32>, "a": complex<f32>>)
      attributes {iree.reflection = {custom = [1, "x\22y"], other = 5 : i64}} {
    func.return
  }
}
"""


def test_corners_print_as_built() -> None:
    with diagnostics.collect():  # unranked tensors and complex warn
        _, deferred, funcs = prepared(CORNERS)
        assert assert_same_wrappers(deferred, funcs) == 4


def _typed_list_op_texts(set_value: bool) -> tuple[str, str]:
    """`util.list.get` / `util.list.set` on a typed list (the element type implied), as
    printed from IR and as written by `TextOps`."""
    i32 = IntegerType(32)
    block = Block(arg_types=[ListType(i32), IndexType(), i32])
    for arg, name in zip(block.args, ("l", "i", "v"), strict=True):
        arg.name_hint = name
    op = ListSetOp(*block.args) if set_value else ListGetOp(block.args[0], block.args[1])
    stream = StringIO()
    printer = Printer(stream=stream)
    for arg in block.args:
        printer.print_ssa_value(arg)
    stream.truncate(0)
    stream.seek(0)
    printer.print_op(op)
    ops = TextOps(AttributeTexts())
    lst, index, value = ops.arguments(list(block.arg_types), ["l", "i", "v"])
    if set_value:
        ops.list_set(lst, index, value)
    else:
        ops.list_get(lst, index, i32)
    return stream.getvalue(), ops.lines[-1]


@pytest.mark.parametrize("set_value", [False, True])
def test_typed_list_ops_imply_the_element_type(set_value: bool) -> None:
    built, written = _typed_list_op_texts(set_value)
    assert written == built
    assert "->" not in written


TYPES = [
    "tensor<f32>",
    "tensor<?x?x3xi8>",
    "tensor<0x1xsi16>",
    "tensor<4xui64>",
    "tensor<2xbf16>",
    "tensor<*xf32>",
    "tensor<4xf32, #abi.whatever>",
    "tensor<2x!util.list<i32>>",
    "index",
    "i1",
    "si32",
    "f80",
    "complex<f64>",
    "!util.list<?>",
    "!util.list<tensor<?xf32>>",
    "!util.list<!util.list<?>>",
    "!hal.buffer_view",
    "(i32) -> f32",
    "tuple<>",
    "none",
]


def test_type_texts_are_xdsls() -> None:
    texts = AttributeTexts()
    for text in TYPES:
        module = parse(f"func.func private @f(%x: {text})\n", allow_unregistered=True)
        (func,) = functions(module)
        (type,) = func.function_type.inputs.data
        stream = StringIO()
        Printer(stream=stream).print_attribute(type)
        assert texts.type(type) == stream.getvalue(), text
        assert texts.type(type) == stream.getvalue()  # the cached text


# --------------------------------------------------------------------------------------
# Function headers (`print_function`): every function as xDSL prints it.
# --------------------------------------------------------------------------------------


class HeaderPrinter(FixedPrinter):
    """Prints functions with `print_function`, everything else as xDSL does."""

    texts: AttributeTexts

    def print_op(self, op: Operation) -> None:
        if not (isinstance(op, FuncOp) and print_function(self, op, self.texts)):
            super().print_op(op)


def assert_same_functions(module: ModuleOp) -> None:
    expected = StringIO()
    FixedPrinter(stream=expected).print_op(module)
    got = StringIO()
    printer = HeaderPrinter(stream=got)
    printer.texts = AttributeTexts(printer)
    printer.print_op(module)
    assert got.getvalue() == expected.getvalue()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    specs=st.lists(function_specs(), min_size=1, max_size=3),
    indexed=st.lists(st.integers(0, 2**16), max_size=3),
    pipeline=st.sampled_from([(), ("iree-abi-v1",), ("iree-abi-legacy",)]),
    data=st.data(),
)
def test_generated_functions_print_as_xdsl_prints_them(
    specs: list, indexed: list, pipeline: tuple[str, ...], data: st.DataObject
) -> None:
    module = parse(generated_module(specs, indexed, data))
    apply_passes(module, pipeline)
    assert_same_functions(module)


def test_lit_modules_functions_print_as_xdsl_prints_them() -> None:
    """Every chunk of the lit files that parses, as it is and after each pipeline."""
    printed_functions = 0
    for path in LIT_FILES:
        for chunk in re.split(r"^// -----$", path.read_text(encoding="utf-8"), flags=re.M):
            if semi_affine(chunk):
                continue
            for pipeline in ((), ("iree-abi-v1",), ("iree-abi-legacy",)):
                try:
                    module = parse(chunk, allow_unregistered=True)
                    apply_passes(module, pipeline)
                except NOT_WRAPPED:
                    continue
                assert_same_functions(module)
                printed_functions += len(list(functions(module)))
    assert printed_functions > 500, printed_functions
