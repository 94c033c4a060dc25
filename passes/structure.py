"""From IR to the ABI model: which functions are exported (docs/spec.md §2) and the structure of
their signatures (docs/spec.md §3), from index paths, from JAX pytree paths or from types.

Every pass reads functions through this module; nothing else inspects IR types for ABI
purposes. A JAX export's pytree paths are read by `abi_compiler.passes.jax_export`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from io import StringIO
from typing import TypeGuard

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.printer import Printer

from abi_compiler.attribute_names import (
    ABI_INDEX_PATH,
    ABI_NAME,
    ABI_NONE,
    JAX_ARG_INFO,
    JAX_RESULT_INFO,
    MODULE_EXPORT,
)
from abi_compiler.dialects import tf_saved_model
from abi_compiler.dialects.abi import DictType
from abi_compiler.dialects.attributes import is_index_path_component
from abi_compiler.dialects.iree import IreeListType
from abi_compiler.dialects.torch import ValueTensorType
from abi_compiler.dialects.util import ListType
from abi_compiler.dtypes import SIGNEDNESS_KINDS
from abi_compiler.errors import AbiError
from abi_compiler.identity import IdentityCache
from abi_compiler.ir import diagnostics
from abi_compiler.ir.func_op import is_public, value_attr_dicts
from abi_compiler.model import (
    INDEX_PATH_COMPONENT_MESSAGE,
    MAX_STRUCTURE_DEPTH,
    Argument,
    Dict,
    IndexPath,
    IndexPathComponent,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    Unknown,
    ValueType,
    check_nesting_depth,
    check_signature_depth,
    signature_from_index_paths,
)
from abi_compiler.passes.jax_export import JaxPaths, jax_paths

_SIGNEDNESS_KIND = {signedness: SIGNEDNESS_KINDS[signedness.name] for signedness in Signedness}

# --------------------------------------------------------------------------------------
# Exported functions (docs/spec.md §2).
# --------------------------------------------------------------------------------------


def is_saved_model(module: ModuleOp) -> bool:
    return tf_saved_model.SEMANTICS in module.attributes


def is_exported(func: FuncOp, saved_model: bool) -> bool:
    if func.is_declaration or ABI_NONE in func.attributes:
        return False
    if not (is_public(func) or MODULE_EXPORT in func.attributes):
        return False
    return not saved_model or has_exported_names(func)


def has_exported_names(func: FuncOp) -> bool:
    """TensorFlow exports a saved-model function under each of its `exported_names`;
    an empty list exports it under none (the function is not exported)."""
    names = func.attributes.get(tf_saved_model.EXPORTED_NAMES)
    return names is not None and not (isinstance(names, ArrayAttr) and not names.data)


def functions(module: ModuleOp) -> Iterator[FuncOp]:
    """The top-level functions of the module, in order (a snapshot: safe to edit)."""
    return iter([op for op in module.body.ops if isinstance(op, FuncOp)])


def exported_functions(module: ModuleOp) -> Iterator[FuncOp]:
    saved_model = is_saved_model(module)
    _warn_nested_modules(module)
    return iter([func for func in functions(module) if is_exported(func, saved_model)])


def _warn_nested_modules(module: ModuleOp) -> None:
    """Functions in a nested module are not processed (IREE's ABI passes, too, work on
    the top-level module's functions): said once per nested module that has any."""
    for op in module.body.ops:
        if isinstance(op, ModuleOp) and any(isinstance(inner, FuncOp) for inner in op.walk()):
            diagnostics.warn_once(
                "functions in a nested module get no ABI: only the top-level module's "
                "functions are processed",
                op,
            )


# --------------------------------------------------------------------------------------
# Types (docs/spec.md §3.1).
# --------------------------------------------------------------------------------------


# value_type by type object: a module's types are few shared objects (the driver parses
# each distinct type text once), and every pass asks for the value type of every leaf of
# every signature. Room for the distinct type objects of a large module: emptied when
# full, the cache made every pass after the first read them again (bench/RESULTS.md).
_VALUE_TYPES: IdentityCache[ValueType] = IdentityCache(limit=1 << 16)


def value_type(type: Attribute) -> ValueType:
    """The leaf value type of an MLIR type."""
    return _VALUE_TYPES.answer(lambda: _value_type(type), type)


def _value_type(type: Attribute) -> ValueType:
    if isinstance(type, IntegerType):
        return Scalar(_SIGNEDNESS_KIND[type.signedness.data], type.width.data)
    if isinstance(type, BFloat16Type):
        return Scalar("bf", 16)
    if isinstance(type, AnyFloat):
        return Scalar("f", type.bitwidth)
    if isinstance(type, TensorType):
        dims = tuple(None if d < 0 else d for d in type.get_shape())
        return NDArray(value_type(type.element_type), dims)
    if isinstance(type, UnrankedTensorType):
        return NDArray(value_type(type.element_type), None)
    if isinstance(type, (ListType, IreeListType)):
        return ListRef(Unknown() if type.is_variant else value_type(type.element_type))
    if isinstance(type, ValueTensorType) and type.element_type is not None:
        # The builtin tensor it stands for (torch-mlir/ONNX imports); without a dtype, or
        # a non-value `!torch.tensor`, it is unknown.
        return NDArray(value_type(type.element_type), type.shape)
    return Unknown()


def type_text(type: Attribute) -> str:
    """A type as MLIR prints it, for diagnostics."""
    stream = StringIO()
    Printer(stream=stream).print_attribute(type)
    return stream.getvalue()


# Exact classes (neither has subclasses): `isinstance` against xDSL's attribute classes
# goes through `ABCMeta.__instancecheck__`, and this test runs for every operand of every
# op the lowering passes visit.
_STRUCTURED_TYPES = frozenset({TupleType, DictType})


def is_structured_type(type: Attribute) -> bool:
    return type.__class__ in _STRUCTURED_TYPES


def is_ref_array_type(type: Attribute) -> TypeGuard[TensorType[Attribute]]:
    """A tensor whose element is a reference type (docs/spec.md §8.3)."""
    return isinstance(type, TensorType) and isinstance(type.element_type, (ListType, IreeListType))


def type_items(type: Attribute) -> list[tuple[IndexPathComponent, Attribute]] | None:
    """The items of a structured type with their keys, in the natural order (docs/spec.md §3.1,
    §8.1): a tuple's by position, a `!abi.dict`'s by sorted key; None for a leaf type.
    Every walk over a structured type goes through here: the model built from types
    (`node_for_type`, whose leaves `model.leaf_paths` then lists depth first) and the
    lowering passes' leaves and trees (`decompose`)."""
    if isinstance(type, TupleType):
        return list(enumerate(type.types.data))
    if isinstance(type, DictType):
        return list(type.sorted_entries())
    return None


def node_for_type(
    type: Attribute,
    next_index: list[int],
    where: tuple[str, int] | None = None,
    depth: int = 0,
) -> Node:
    """The structure of one value of ``type``; leaves are numbered from ``next_index``,
    depth first in the natural order. A structure nested deeper than
    `MAX_STRUCTURE_DEPTH` is an `AbiError` about ``where`` (type aliases nest a type
    deeper than any recursion here could walk)."""
    items = type_items(type)
    if items is None:
        leaf = Leaf(value_type(type), next_index[0])
        next_index[0] += 1
        return leaf
    if depth >= MAX_STRUCTURE_DEPTH:
        check_nesting_depth(depth + 1, where)
    if isinstance(type, TupleType):
        return Sequence(
            "tuple", tuple(node_for_type(item, next_index, where, depth + 1) for _, item in items)
        )
    return Dict(
        tuple((str(key), node_for_type(item, next_index, where, depth + 1)) for key, item in items)
    )


# --------------------------------------------------------------------------------------
# Attributes of arguments and results.
# --------------------------------------------------------------------------------------


def compact_value_attrs(
    attrs: ArrayAttr[DictionaryAttr] | None,
) -> ArrayAttr[DictionaryAttr] | None:
    """No argument/result attributes at all when every dictionary is empty (as MLIR
    prints a function without them)."""
    if attrs is None or all(not attr.data for attr in attrs.data):
        return None
    return attrs


def argument_name(attrs: Mapping[str, Attribute], i: int) -> str | None:
    """The `abi.name` of argument ``i``, whose attribute dictionary is ``attrs``."""
    attr = attrs.get(ABI_NAME)
    if attr is None:
        return None
    if not isinstance(attr, StringAttr):
        raise AbiError(f"{ABI_NAME} must be a string", where=("argument", i))
    return attr.data


def index_path_attribute(func: FuncOp) -> str | None:
    """Which index path attribute the function's values carry, if any."""
    dicts = value_attr_dicts(func, "argument") + value_attr_dicts(func, "result")
    for name in (tf_saved_model.INDEX_PATH, ABI_INDEX_PATH):
        if any(name in attrs for attrs in dicts):
            return name
    return None


def _path_components(attr: Attribute) -> list[object]:
    if not isinstance(attr, ArrayAttr):
        raise AbiError(INDEX_PATH_COMPONENT_MESSAGE)
    components: list[object] = []
    for component in attr.data:
        if not is_index_path_component(component):
            components.append(component)  # rejected by the model, with its message
        elif isinstance(component, IntegerAttr):
            components.append(component.value.data)
        elif isinstance(component, StringAttr):
            components.append(component.data)
    return components


def structure_source(func: FuncOp) -> str | None:
    """Where the function's structure comes from when not from its types: the index path
    attribute its values carry, or `jax.arg_info` for JAX pytree paths (docs/spec.md §3)."""
    attr_name = index_path_attribute(func)
    if attr_name is None and jax_paths(func, warn=False) is not None:
        return JAX_ARG_INFO
    return attr_name


def check_bound_inputs(func: FuncOp) -> None:
    for i, attrs in enumerate(value_attr_dicts(func, "argument")):
        if tf_saved_model.BOUND_INPUT in attrs:
            raise AbiError(
                f"bound input on argument {i} must be resolved before ABI processing",
                op=func,
                where=("argument", i),
            )


# --------------------------------------------------------------------------------------
# Signatures (docs/spec.md §3).
# --------------------------------------------------------------------------------------


def function_signature(func: FuncOp) -> Signature:
    """The structure of an exported function's signature: from its index paths when its
    values carry them, from its JAX pytree paths when it is public and every value
    carries one, from its types otherwise. Raises located `AbiError`s."""
    check_bound_inputs(func)
    parts = (func.function_type, func.arg_attrs, func.res_attrs)
    # Functions read by `abi-opt`'s header reader share these objects when their text is
    # the same: the same objects, the same signature (jax paths, which may warn, aside).
    found, known = _SIGNATURES_BY_OBJECT.get(*parts)
    if found:
        assert known is not None
        return known
    function_type, arg_attrs, res_attrs = parts
    attr_name = index_path_attribute(func)
    try:
        if attr_name is not None:
            signature = _signature_from_paths(function_type, arg_attrs, res_attrs, attr_name)
            return _SIGNATURES_BY_OBJECT.put(signature, *parts)
        jax = jax_paths(func)
        if jax is not None:
            return _signature_from_jax_paths(func, jax)
        signature = _signature_from_types(function_type, arg_attrs)
        if _carries_jax_info(arg_attrs, res_attrs):
            return signature
        return _SIGNATURES_BY_OBJECT.put(signature, *parts)
    except AbiError as error:
        if error.op is None:
            error.op = func
        raise


# The signature read from index paths or types is a function of the function's type and
# value attributes alone (warnings come from JAX paths only), and large modules repeat
# signatures: each distinct one is read once (values compare by content; errors are
# raised again each time, never cached).
_SIGNATURES_CACHED = 1 << 10

# By object: every function of a module (`iree-abi-v1` reads each signature in
# `materialize-iree-abi` and again in `wrap-entry-points`; with room for 1 024 only, a
# module of 10 000 functions read each twice: 13 % of its time: bench/RESULTS.md). Each entry
# keeps the function's type and attribute objects alive, which its module holds anyway.
_SIGNATURES_BY_OBJECT: IdentityCache[Signature] = IdentityCache(limit=1 << 16)


def _carries_jax_info(
    arg_attrs: ArrayAttr[DictionaryAttr] | None, res_attrs: ArrayAttr[DictionaryAttr] | None
) -> bool:
    """Whether any value carries `jax.arg_info`/`jax.result_info` (whose reading depends on
    the function's visibility and may warn)."""
    return any(
        JAX_ARG_INFO in attr.data or JAX_RESULT_INFO in attr.data
        for attrs in (arg_attrs, res_attrs)
        if attrs is not None
        for attr in attrs.data
    )


@functools.lru_cache(maxsize=_SIGNATURES_CACHED)
def _signature_from_paths(
    function_type: FunctionType,
    arg_attrs: ArrayAttr[DictionaryAttr] | None,
    res_attrs: ArrayAttr[DictionaryAttr] | None,
    attr_name: str,
) -> Signature:
    sides = (
        ("argument", function_type.inputs.data, arg_attrs),
        ("result", function_type.outputs.data, res_attrs),
    )
    collected: list[list[tuple[list[object], ValueType]]] = []
    for side, types, attrs in sides:
        paths: list[tuple[list[object], ValueType]] = []
        dicts = [] if attrs is None else [attr.data for attr in attrs.data]
        for i, type in enumerate(types):
            attr = dicts[i].get(attr_name) if i < len(dicts) else None
            if attr is None:
                raise AbiError(
                    f"Missing {side} attribute {attr_name} on {side} {i}", where=(side, i)
                )
            if is_structured_type(type):
                raise AbiError(f"index path on a structured value ({side} {i})", where=(side, i))
            try:
                paths.append((_path_components(attr), value_type(type)))
            except AbiError as error:
                error.where = (side, i)
                raise
        collected.append(paths)
    return signature_from_index_paths(collected[0], collected[1])


def _signature_from_jax_paths(func: FuncOp, jax: JaxPaths) -> Signature:
    sides = (
        ("argument", func.function_type.inputs.data, jax.arguments),
        ("result", func.function_type.outputs.data, jax.results),
    )
    collected: list[list[tuple[IndexPath, ValueType]]] = []
    for side, types, paths in sides:
        for i, type in enumerate(types):
            if is_structured_type(type):
                raise AbiError(f"index path on a structured value ({side} {i})", where=(side, i))
        collected.append(
            [(path, value_type(type)) for path, type in zip(paths, types, strict=True)]
        )
    return signature_from_index_paths(collected[0], collected[1])


@functools.lru_cache(maxsize=_SIGNATURES_CACHED)
def _signature_from_types(
    function_type: FunctionType, arg_attrs: ArrayAttr[DictionaryAttr] | None
) -> Signature:
    inputs = function_type.inputs.data
    next_index = [0]
    arguments: list[Argument] = []
    names: set[str] = set()
    first_named: int | None = None
    dicts = [] if arg_attrs is None else [attr.data for attr in arg_attrs.data]
    for i, type in enumerate(inputs):
        name = argument_name(dicts[i], i) if i < len(dicts) else None
        if name is not None:
            if name in names:
                raise AbiError(f"duplicate argument name '{name}'", where=("argument", i))
            names.add(name)
            if first_named is None:
                first_named = i
        elif first_named is not None:
            raise AbiError(
                "named arguments must follow all positional arguments", where=("argument", i)
            )
        arguments.append(Argument(i, node_for_type(type, next_index, ("argument", i)), name))
    next_index = [0]
    results = tuple(
        node_for_type(type, next_index, ("result", i))
        for i, type in enumerate(function_type.outputs)
    )
    signature = Signature(tuple(arguments), results)
    check_signature_depth(signature)
    return signature
