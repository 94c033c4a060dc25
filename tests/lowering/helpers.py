"""Shared machinery of the lowering tests: run passes in-process, interpret functions.

`run_passes` does what `abi-opt -p <passes>` does (parse, verify, each pass, verify,
print) without the driver, so these tests depend only on the passes and dialects. The
interpreter gets xDSL's func/arith/builtin implementations, this project's util/abi/hal
ones (`dialects/interpreter.py`) and `TensorShapeFunctions` below (`tensor.dim`, which
the V1 wrappers use for dynamic result dims, and `tensor.empty`), on numpy arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from io import StringIO
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import tensor
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.utils.exceptions import InterpretationError

from abi_compiler.attribute_names import REFLECTION
from abi_compiler.dialects import verify_dialect_attributes
from abi_compiler.dialects.interpreter import ALL_FUNCTIONS, tensor_shape
from abi_compiler.ir import diagnostics
from abi_compiler.passes.registry import PASSES, PIPELINES
from abi_compiler.pipeline.dialects import register_dialects
from abi_compiler.xdsl_boundary import xdsl_fixes
from abi_compiler.xdsl_boundary.xdsl_fixes import FixedParser, FixedPrinter

# --------------------------------------------------------------------------------------
# Parsing, passes, printing.
# --------------------------------------------------------------------------------------


# What a run of the pipeline fixes in xDSL (`xdsl_fixes`): non-ASCII string literals parse
# as strings, deep nesting parses, splats stay compact. Each helper below parses, runs,
# prints or interprets inside `xdsl_fixes.applied()`, as the pipeline does.


def context(allow_unregistered: bool = False) -> Context:
    """A context with the dialects `abi-opt` registers."""
    ctx = Context(allow_unregistered=allow_unregistered)
    register_dialects(ctx)
    return ctx


def parse(text: str, allow_unregistered: bool = False) -> ModuleOp:
    """Parse and verify a module, and its `abi.*` / `tf_saved_model.*` attributes (as
    `abi-opt` does)."""
    with xdsl_fixes.applied():
        module = FixedParser(context(allow_unregistered), text).parse_module()
        module.verify()
        verify_dialect_attributes(module)
    return module


def print_module(module: ModuleOp) -> str:
    """The module as `abi-opt` prints it."""
    stream = StringIO()
    with xdsl_fixes.applied():
        FixedPrinter(stream=stream).print_op(module)
    stream.write("\n")
    return stream.getvalue()


def expand(passes: Sequence[str]) -> list[str]:
    """Pass names with the named pipelines replaced by their members (docs/spec.md §8.5)."""
    return [
        member
        for name in passes
        for member in (PIPELINES[name].passes if name in PIPELINES else (name,))
    ]


@dataclass
class Lowered:
    module: ModuleOp
    text: str
    warnings: list[str]


def apply_passes(module: ModuleOp, passes: Sequence[str]) -> list[str]:
    """Run ``passes`` (pass or pipeline names) on ``module`` in place, verifying after
    each; returns the warnings. Errors propagate as `AbiError`s."""
    ctx = context()
    with xdsl_fixes.applied(), diagnostics.collect() as sink:
        for name in expand(passes):
            PASSES[name].load()().apply(ctx, module)
            module.verify()
    return [warning.message for warning in sink.warnings]


def run_passes(text: str, passes: Sequence[str], allow_unregistered: bool = False) -> Lowered:
    """`abi-opt -p <passes>` in-process: the lowered module reparsed from its printed
    text (so what is interpreted is what a user gets), the text and the warnings."""
    module = parse(text, allow_unregistered)
    warnings = apply_passes(module, passes)
    printed = print_module(module)
    return Lowered(parse(printed, allow_unregistered), printed, warnings)


def function(module: ModuleOp, name: str) -> FuncOp:
    for op in module.body.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    raise KeyError(f"no function @{name}")


def reflection(module: ModuleOp, name: str) -> dict[str, str]:
    """The `iree.reflection` entries of function ``@name`` (string values)."""
    attr = function(module, name).attributes.get(REFLECTION)
    if attr is None:
        return {}
    entries = getattr(attr, "data", {})
    return {key: value.data for key, value in entries.items() if isinstance(value, StringAttr)}


# --------------------------------------------------------------------------------------
# Interpreting.
# --------------------------------------------------------------------------------------


@register_impls
class TensorShapeFunctions(InterpreterFunctions):
    """`tensor.dim` and `tensor.empty` on numpy arrays (xDSL's own implementations want
    its `ShapedArray`; `tensor_shape` reads both)."""

    @impl(tensor.DimOp)
    def run_dim(
        self, interpreter: Interpreter, op: tensor.DimOp, args: tuple[Any, int]
    ) -> tuple[int]:
        shape = tensor_shape(args[0])
        if shape is None or not 0 <= args[1] < len(shape):
            raise InterpretationError(f"tensor.dim: no dimension {args[1]} in {args[0]!r}")
        return (shape[args[1]],)

    @impl(tensor.EmptyOp)
    def run_empty(
        self, interpreter: Interpreter, op: tensor.EmptyOp, args: tuple[int, ...]
    ) -> tuple[np.ndarray[Any, Any]]:
        result_type = op.tensor.type
        assert isinstance(result_type, TensorType)
        dynamic = iter(args)
        shape = [next(dynamic) if dim < 0 else dim for dim in result_type.get_shape()]
        return (np.zeros(shape, dtype=numpy_dtype(result_type.element_type)),)


def numpy_dtype(element: Any) -> Any:
    text = str(element)
    return {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_}.get(
        text, {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}.get(text)
    )


def interpreter(module: ModuleOp) -> Interpreter:
    runner = Interpreter(module)
    for functions in (
        FuncFunctions,
        ArithFunctions,
        BuiltinFunctions,
        TensorShapeFunctions,
        *ALL_FUNCTIONS,
    ):
        runner.register_implementations(functions())
    return runner


def call(module: ModuleOp, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
    """Run function ``@name`` of ``module`` on ``args``: its results, as a tuple."""
    with xdsl_fixes.applied():
        return tuple(interpreter(module).call_op(name, tuple(args)))


def as_unpacked(results: tuple[Any, ...]) -> Any:
    """Results in `unpack`'s convention (docs/spec.md §10): none → None, one → it, more → tuple."""
    if not results:
        return None
    return results[0] if len(results) == 1 else results


# --------------------------------------------------------------------------------------
# Comparing values.
# --------------------------------------------------------------------------------------


def same_value(actual: Any, expected: Any) -> bool:
    """Deep equality of structured values: tuples, lists and dicts by kind (a tuple is
    not a list), dicts by key set (order is the encodings' business), numpy arrays by
    dtype, shape and contents, scalars by ``==`` (so a bool `i1` equals its int)."""
    if isinstance(expected, np.ndarray):
        return (
            isinstance(actual, np.ndarray)
            and actual.dtype == expected.dtype
            and actual.shape == expected.shape
            and bool(np.array_equal(actual, expected))
        )
    if isinstance(expected, (tuple, list)):
        return (
            type(actual) is type(expected)
            and len(actual) == len(expected)
            and all(same_value(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, Mapping)
            and set(actual) == set(expected)
            and all(same_value(actual[key], expected[key]) for key in expected)
        )
    if isinstance(actual, (np.ndarray, tuple, list, Mapping)):
        return False
    return bool(actual == expected)


def describe(value: Any) -> str:
    """A short text of a structured value for assertion messages."""
    if isinstance(value, np.ndarray):
        return f"array({value.dtype}{list(value.shape)})"
    if isinstance(value, tuple):
        return "(" + ", ".join(describe(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in value.items()) + "}"
    return repr(value)


def first_difference(actual: Any, expected: Any, path: str = "") -> str | None:
    """Where ``actual`` and ``expected`` first differ (`same_value`), or None."""
    if same_value(actual, expected):
        return None
    pairs: list[tuple[str, Any, Any]] = []
    if (
        isinstance(expected, (tuple, list))
        and type(actual) is type(expected)
        and len(actual) == len(expected)
    ):
        pairs = [(f"[{i}]", a, e) for i, (a, e) in enumerate(zip(actual, expected, strict=True))]
    elif (
        isinstance(expected, Mapping)
        and isinstance(actual, Mapping)
        and set(actual) == set(expected)
    ):
        pairs = [(f"[{key!r}]", actual[key], expected[key]) for key in expected]
    for step, a, e in pairs:
        found = first_difference(a, e, path + step)
        if found is not None:
            return found
    return f"at {path or 'the top'}: {actual!r} != {expected!r}"


def assert_same(actual: Any, expected: Any, what: str) -> None:
    difference = first_difference(actual, expected)
    assert difference is None, (
        f"{what}:\n  got      {describe(actual)}\n  expected {describe(expected)}\n  {difference}"
    )
