"""A JAX export's pytree paths, read off its public function (docs/spec.md §3.3): each
argument's name (its `jax.arg_info`, its name location, or that of the argument of
`@_wrapped_jax_export_main` it stands for) and each result's `jax.result_info`, read as
index paths (`abi_compiler.codecs.jax_paths`). `passes/structure.py` gives a function
the structure they describe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

from abi_compiler.attribute_names import (
    JAX_ARG_INFO,
    JAX_GLOBAL_CONSTANT,
    JAX_RESULT_INFO,
    JAX_TOKEN,
)
from abi_compiler.codecs.jax_paths import first_gap, jax_index_paths
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics, location_table
from abi_compiler.ir.func_op import is_public, value_attr_dicts
from abi_compiler.model import IndexPath, format_index_path

# `jax.global_constant` of a multi-platform export's first argument (docs/spec.md §3.3).
JAX_PLATFORM_INDEX = "_platform_index"
# What JAX calls the function its public `@main` wraps, and that `@main`.
JAX_MAIN = "main"
JAX_WRAPPED_MAIN = "_wrapped_jax_export_main"


@dataclass(frozen=True, slots=True)
class JaxPaths:
    """A function's JAX pytree paths read as index paths (docs/spec.md §3.3): one path per flat
    argument and result, and the parameter name of each root argument (None for a
    platform index or token argument)."""

    arguments: tuple[IndexPath, ...]
    results: tuple[IndexPath, ...]
    parameters: tuple[str | None, ...]


def _is_true(attr: Attribute | None) -> bool:
    """`jax.token = true` (a bool, `IntegerAttr` of `i1` in xDSL)."""
    return isinstance(attr, IntegerAttr) and attr.value.data != 0


def _is_special_argument(attrs: Mapping[str, Attribute]) -> bool:
    """The platform index argument of a multi-platform export, or an effect token: a
    positional root of its own, before the named ones (docs/spec.md §3.3)."""
    constant = attrs.get(JAX_GLOBAL_CONSTANT)
    if isinstance(constant, StringAttr) and constant.data == JAX_PLATFORM_INDEX:
        return True
    return _is_true(attrs.get(JAX_TOKEN))


def _is_jax_export(
    arg_dicts: list[Mapping[str, Attribute]], res_dicts: list[Mapping[str, Attribute]]
) -> bool:
    """Whether any value carries `jax.arg_info` or `jax.result_info`: only then are name
    locations read as pytree paths (elsewhere a location is a location)."""
    return any(JAX_ARG_INFO in attrs for attrs in arg_dicts) or any(
        JAX_RESULT_INFO in attrs for attrs in res_dicts
    )


def _wrapped_main(func: FuncOp) -> FuncOp | None:
    """`@_wrapped_jax_export_main`, the function JAX's public `@main` wraps under shape
    polymorphism or ordered effects, when ``func`` is that `@main`."""
    if func.sym_name.data != JAX_MAIN:
        return None
    module = func.parent_op()
    if not isinstance(module, ModuleOp):
        return None
    for op in module.body.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == JAX_WRAPPED_MAIN:
            return op
    return None


class _Unnamed(Exception):
    """An argument or result that cannot be read as a JAX path: the message says which
    and why."""

    def __init__(self, message: str, where: tuple[str, int]) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def _argument_name(
    attrs: Mapping[str, Attribute], location: str | None, i: int
) -> tuple[str, str] | None:
    """(where the name comes from, the name) of argument ``i``: its `jax.arg_info`, else
    its name location; None when it has neither."""
    attr = attrs.get(JAX_ARG_INFO)
    if attr is not None:
        if not isinstance(attr, StringAttr):
            raise _Unnamed(f"{JAX_ARG_INFO} of argument {i} is not a string", ("argument", i))
        return JAX_ARG_INFO, attr.data
    if location is not None:
        return "the name location", location
    return None


def _argument_names(
    func: FuncOp, dicts: list[Mapping[str, Attribute]]
) -> list[tuple[str, str] | None]:
    """The name of each argument (None for a special one), from its own attribute or
    location or, for JAX's wrapping `@main`, from the argument it passes on to
    `@_wrapped_jax_export_main`. Raises `_Unnamed`."""
    count = len(func.function_type.inputs.data)
    locations = location_table.argument_names(func)
    wrapped: list[tuple[Mapping[str, Attribute], str | None]] | None = None
    names: list[tuple[str, str] | None] = []
    for i in range(count):
        attrs = dicts[i] if i < len(dicts) else {}
        if _is_special_argument(attrs):
            names.append(None)
            continue
        name = _argument_name(attrs, locations[i], i)
        if name is None:
            if wrapped is None:
                wrapped = _wrapped_arguments(func)
            if i < len(wrapped) and len(wrapped) == count:
                wrapped_attrs, wrapped_location = wrapped[i]
                name = _argument_name(wrapped_attrs, wrapped_location, i)
        if name is None:
            raise _Unnamed(
                f"argument {i} has no name (neither {JAX_ARG_INFO} nor a name location)",
                ("argument", i),
            )
        names.append(name)
    return names


def _wrapped_arguments(func: FuncOp) -> list[tuple[Mapping[str, Attribute], str | None]]:
    """The attributes and name location of each argument of `@_wrapped_jax_export_main`
    that JAX's `@main` passes on: all but the dimension variables, which `@main`
    computes (`jax.global_constant`, except the platform index). Empty when ``func`` is
    no such `@main`."""
    wrapped = _wrapped_main(func)
    if wrapped is None:
        return []
    dicts = value_attr_dicts(wrapped, "argument")
    locations = location_table.argument_names(wrapped)
    found = []
    for i, location in enumerate(locations):
        attrs = dicts[i] if i < len(dicts) else {}
        constant = attrs.get(JAX_GLOBAL_CONSTANT)
        if constant is not None and not (
            isinstance(constant, StringAttr) and constant.data == JAX_PLATFORM_INDEX
        ):
            continue
        found.append((attrs, location))
    return found


def _result_infos(func: FuncOp, dicts: list[Mapping[str, Attribute]]) -> list[str | None]:
    """The `jax.result_info` of each result (None for an effect token). Raises
    `_Unnamed`."""
    infos: list[str | None] = []
    for i in range(len(func.function_type.outputs.data)):
        attrs = dicts[i] if i < len(dicts) else {}
        attr = attrs.get(JAX_RESULT_INFO)
        if attr is None:
            if _is_true(attrs.get(JAX_TOKEN)):
                infos.append(None)
                continue
            raise _Unnamed(f"result {i} carries no {JAX_RESULT_INFO}", ("result", i))
        if not isinstance(attr, StringAttr):
            raise _Unnamed(f"{JAX_RESULT_INFO} of result {i} is not a string", ("result", i))
        infos.append(attr.data)
    return infos


def jax_paths(func: FuncOp, warn: bool = True) -> JaxPaths | None:
    """The JAX pytree paths of a public JAX export (docs/spec.md §3.3): every result carries
    `jax.result_info` (or is an effect token) and every argument has a name — its
    `jax.arg_info`, its name location, or that of the argument of
    `@_wrapped_jax_export_main` it stands for — or is a platform index or token. A JAX
    export (some value carries `jax.arg_info` or `jax.result_info`) where a name is
    missing, a path does not read or the result paths leave a gap keeps its flat
    structure: None, with a warning naming the value and the reason (when ``warn``: the
    passes that read the structure warn, not those that only ask where it comes from,
    so a second run of a pipeline, which finds the reflection written, is silent).
    Private functions' attributes are ignored (JAX also writes `jax.result_info`
    there)."""
    if not is_public(func):
        return None
    arg_dicts = value_attr_dicts(func, "argument")
    res_dicts = value_attr_dicts(func, "result")
    if not _is_jax_export(arg_dicts, res_dicts):
        return None
    problem: tuple[str, tuple[str, int] | None]
    try:
        names = _argument_names(func, arg_dicts)
        results = _result_infos(func, res_dicts)
        try:
            read = jax_index_paths([None if n is None else n[1] for n in names], results)
        except AbiError as error:
            # `jax_index_paths` names the value in every error it raises.
            side, i = error.where or ("argument", 0)
            if side == "argument":
                name = names[i]
                origin = JAX_ARG_INFO if name is None else name[0]
                raise _Unnamed(
                    f"{origin} of argument {i} does not read: {error}", (side, i)
                ) from None
            raise _Unnamed(
                f"{JAX_RESULT_INFO} of result {i} does not read: {error}", (side, i)
            ) from None
        gap = first_gap(read.results)
        if gap is None:
            return JaxPaths(read.arguments, read.results, read.parameters)
        problem = (
            f"the result paths leave a gap at {format_index_path(gap)} (JAX writes no value "
            "for a None leaf or an empty container)",
            None,
        )
        suffix = (
            "; abi_compiler.frontends.jax.to_mlir(exported) writes the whole structure "
            "from the jax.export.Exported object"
        )
    except _Unnamed as unnamed:
        problem = (unnamed.message, unnamed.where)
        suffix = ""
    if warn:
        message, where = problem
        diagnostics.warn_once(
            f"{message}: the function keeps its flat signature{suffix}", func, where
        )
    return None
