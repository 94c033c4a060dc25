"""`flatten-signatures`: the legacy fully-flat calling convention (docs/spec.md §8.1)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.dialects.func import FuncOp

from abi_compiler.attribute_names import ABI_INDEX_PATH, ABI_STUB, JAX_ARG_INFO, JAX_RESULT_INFO
from abi_compiler.ir import changes, diagnostics
from abi_compiler.model import IndexPath, Signature, leaf_paths
from abi_compiler.passes.contract import AbiPass, BodyAccess
from abi_compiler.passes.decompose import decompose_module, has_structure
from abi_compiler.passes.saved_model import adopt_saved_model_exports
from abi_compiler.passes.structure import (
    check_bound_inputs,
    exported_functions,
    function_signature,
    structure_source,
)


def index_paths(signature: Signature) -> tuple[list[IndexPath], list[IndexPath]]:
    """The path of every leaf, by flat index: arguments start with their position, or
    with their name when every argument is named; a single result starts at its own
    structure, several results with their position (docs/spec.md §8.1)."""
    all_named = bool(signature.arguments) and all(
        arg.name is not None for arg in signature.arguments
    )
    arg_paths: dict[int, IndexPath] = {}
    for arg in signature.arguments:
        head = arg.name if all_named and arg.name is not None else arg.key
        for path, leaf in leaf_paths(arg.node, (head,)):
            arg_paths[leaf.index] = path
    result_paths: dict[int, IndexPath] = {}
    single = len(signature.results) == 1
    for position, node in enumerate(signature.results):
        for path, leaf in leaf_paths(node, () if single else (position,)):
            result_paths[leaf.index] = path
    return (
        [arg_paths[i] for i in range(len(arg_paths))],
        [result_paths[i] for i in range(len(result_paths))],
    )


@functools.lru_cache(maxsize=1 << 16)
def index_path_attr(path: IndexPath) -> ArrayAttr:
    # Attributes are immutable and paths repeat across functions ([0], [1, "a"], ...):
    # building and verifying each once is a fifth of the pass on a large module.
    return ArrayAttr([StringAttr(c) if isinstance(c, str) else IntegerAttr(c, i64) for c in path])


def _with_paths(
    attrs: ArrayAttr[DictionaryAttr] | None, paths: list[IndexPath]
) -> ArrayAttr[DictionaryAttr]:
    existing = attrs.data if attrs is not None else [DictionaryAttr({})] * len(paths)
    written = []
    for attr, path in zip(existing, paths, strict=True):
        # The path replaces the JAX key string it may have been read from (docs/spec.md §3.3).
        entries = {k: v for k, v in attr.data.items() if k not in (JAX_ARG_INFO, JAX_RESULT_INFO)}
        entries[ABI_INDEX_PATH] = index_path_attr(path)
        written.append(DictionaryAttr(dict(sorted(entries.items()))))
    return ArrayAttr(written)


@dataclass(frozen=True)
class FlattenSignaturesPass(AbiPass):
    """Replace every structured argument and result of every function by its leaves in
    natural order; exported functions get `abi.index_path` on every value, so
    `materialize-sip-abi` can describe the original structure (docs/spec.md §8.1). An export
    structured by JAX pytree paths (docs/spec.md §3.3) keeps its flat signature and gets them
    as `abi.index_path` in place of `jax.arg_info`/`jax.result_info`."""

    name = "flatten-signatures"
    # Every function it modifies is reported (`abi_compiler.ir.changes`).
    reports_changes: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.STRUCTURED

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        adopt_saved_model_exports(op)
        plans: list[tuple[FuncOp, list[IndexPath], list[IndexPath]]] = []
        for func in exported_functions(op):
            check_bound_inputs(func)
            if ABI_STUB in func.attributes:
                continue
            types = func.function_type
            if (
                not has_structure(types.inputs.data)
                and not has_structure(types.outputs.data)
                and structure_source(func) != JAX_ARG_INFO
            ):
                continue
            signature = function_signature(func)
            named = [arg.name is not None for arg in signature.arguments]
            if any(named) and not all(named):
                diagnostics.warn(
                    "argument names dropped: a SIP root cannot mix positional and named arguments",
                    func,
                )
            plans.append((func, *index_paths(signature)))
        decompose_module(op)
        for func, arg_paths, result_paths in plans:
            func.arg_attrs = _with_paths(func.arg_attrs, arg_paths)
            func.res_attrs = _with_paths(func.res_attrs, result_paths)
            changes.changed(func)
