"""The reflection passes: `materialize-iree-abi`, `materialize-raw-abi`,
`materialize-sip-abi` (docs/spec.md §4–§7).

Each is a thin translation: IR → ABI model (`structure`) → codec → an entry of
`iree.reflection`. They only add entries, so they run in any order, any number of times.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from abi_compiler.attribute_names import (
    IREE_ABI,
    RAW,
    RAW_VERSION,
    RAW_VERSION_VALUE,
    SIP,
    SIP_ABI,
    SIP_ABI_VALUE,
    SIP_VERSION,
    SIP_VERSION_VALUE,
)
from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.raw import decode_raw, encode_raw, raw_recognized
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics
from abi_compiler.model import FlatSignature, Leaf, NDArray, Node, Signature, Unknown, leaves
from abi_compiler.passes.contract import AbiPass, BodyAccess
from abi_compiler.passes.importer_output import warn_importer_output
from abi_compiler.passes.reflection import (
    add_entries,
    adopt_bare_iree_abi,
    reflection_entries,
    set_reflection_entries,
)
from abi_compiler.passes.structure import (
    check_bound_inputs,
    exported_functions,
    function_signature,
    is_structured_type,
    structure_source,
    type_text,
    value_type,
)


def expect_exactly(expected: str) -> Callable[[str], None]:
    """A validator for version-like entries (`fv`, `sipv`, `abi`)."""

    def validate(value: str) -> None:
        if value != expected:
            raise AbiError(f"expected '{expected}', got '{value}'")

    return validate


def _materialize_function(
    func: FuncOp,
    wanted: dict[str, Callable[[], str]],
    validators: dict[str, Callable[[str], object]],
) -> None:
    check_bound_inputs(func)
    entries = reflection_entries(func)
    adopt_bare_iree_abi(func, entries)
    add_entries(func, entries, wanted, validators)
    set_reflection_entries(func, entries)


def materialize_iree_abi(func: FuncOp) -> None:
    """Add `iree.abi` to one function's reflection (or validate the existing one)."""
    _materialize_function(func, {IREE_ABI: lambda: iree_abi_json(func)}, {IREE_ABI: decode_json})


def iree_abi_json(func: FuncOp) -> str:
    """The `iree.abi` JSON of the function; a value recorded as `"unknown"` (an `index`,
    a `complex`, an opaque type, or a tensor of one) warns, as `materialize-raw-abi` does
    for `U1!`: no runtime knows how to pass it."""
    signature = function_signature(func)
    _warn_unknown_records(func, signature)
    return encode_json(signature)


@functools.lru_cache(maxsize=1 << 10)  # large modules repeat signatures
def _has_unknown_records(signature: Signature) -> bool:
    return any(
        _is_unknown_record(leaf)
        for leaf in (*signature.argument_leaves(), *signature.result_leaves())
    )


def _is_unknown_record(leaf: Leaf) -> bool:
    t = leaf.type
    return isinstance(t, Unknown) or (isinstance(t, NDArray) and isinstance(t.element, Unknown))


def _warn_unknown_records(func: FuncOp, signature: Signature) -> None:
    """One warning per IR argument/result holding an `"unknown"` record, at it."""
    if not _has_unknown_records(signature):
        return
    by_paths = structure_source(func) is not None
    sides: tuple[tuple[str, str, list[tuple[int, Node]]], ...] = (
        ("Argument", "argument", [(arg.key, arg.node) for arg in signature.arguments]),
        ("Result", "result", list(enumerate(signature.results))),
    )
    for title, side, roots in sides:
        positions: set[int] = set()
        for position, node in roots:
            for leaf in leaves(node):
                if _is_unknown_record(leaf):
                    # From index paths a leaf is an IR value; from types a root node is.
                    positions.add(leaf.index if by_paths else position)
        for position in sorted(positions):
            diagnostics.warn(
                f'{title} #{position} of function {func.sym_name.data} is recorded as "unknown" '
                "in iree.abi: the function may not be callable with that value",
                func,
                (side, position),
            )


def materialize_raw_abi(func: FuncOp) -> None:
    _materialize_function(
        func,
        {RAW: lambda: encode_raw(raw_signature(func)), RAW_VERSION: lambda: RAW_VERSION_VALUE},
        {RAW: decode_raw, RAW_VERSION: expect_exactly(RAW_VERSION_VALUE)},
    )


def materialize_sip_abi(func: FuncOp) -> None:
    _materialize_function(
        func,
        {
            SIP: lambda: sip_signature(func),
            SIP_ABI: lambda: SIP_ABI_VALUE,
            SIP_VERSION: lambda: SIP_VERSION_VALUE,
        },
        {
            SIP: decode_sip,
            SIP_ABI: expect_exactly(SIP_ABI_VALUE),
            SIP_VERSION: expect_exactly(SIP_VERSION_VALUE),
        },
    )


@dataclass(frozen=True)
class MaterializeIreeAbiPass(AbiPass):
    """Write the V1 `iree.abi` JSON of every exported function (docs/spec.md §4): the calling
    convention a runtime caller sees, from index paths or types."""

    name = "materialize-iree-abi"
    #: Only adds `iree.reflection` entries: the driver need not verify after it.
    preserves_validity: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.SIGNATURES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        exported = list(exported_functions(op))
        warn_importer_output(op, exported)
        for func in exported:
            materialize_iree_abi(func)


def raw_signature(func: FuncOp) -> FlatSignature:
    """The raw signature of the function's actual types; unrecognized types warn (§5)."""
    name = func.sym_name.data
    sides = (
        ("Argument", "argument", func.function_type.inputs.data),
        ("Result", "result", func.function_type.outputs.data),
    )
    flat = []
    for title, side, types in sides:
        values = tuple(value_type(type) for type in types)
        for i, value in enumerate(values):
            if is_structured_type(types[i]) or not raw_recognized(value):
                diagnostics.warn(
                    f"{title} #{i} of function {name} is not a recognized public ABI type "
                    "and the function may not be invokable by standard tools",
                    func,
                    (side, i),
                )
        flat.append(values)
    return FlatSignature(flat[0], flat[1])


@dataclass(frozen=True)
class MaterializeRawAbiPass(AbiPass):
    """Write the legacy raw signature `fv`/`f` of every exported function (docs/spec.md §5),
    from its actual argument and result types."""

    name = "materialize-raw-abi"
    #: Only adds `iree.reflection` entries: the driver need not verify after it.
    preserves_validity: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.SIGNATURES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in exported_functions(op):
            materialize_raw_abi(func)


def sip_signature(func: FuncOp) -> str:
    """The SIP of the function: its index paths (or JAX pytree paths), or its trivial
    structure (§6)."""
    if structure_source(func) is None:
        for side, types in (
            ("argument", func.function_type.inputs.data),
            ("result", func.function_type.outputs.data),
        ):
            for i, type in enumerate(types):
                if is_structured_type(type):
                    raise AbiError(
                        f"{side} {i} has structured type {type_text(type)} without index paths: "
                        "run flatten-signatures before materialize-sip-abi",
                        op=func,
                        where=(side, i),
                    )
    roots = function_signature(func).sip_roots()
    if roots.names_dropped:
        diagnostics.warn(
            "argument names dropped: a SIP root cannot mix positional and named arguments",
            func,
        )
    return encode_sip(roots)


@dataclass(frozen=True)
class MaterializeSipAbiPass(AbiPass):
    """Write the legacy structured index path signature `abi`/`sipv`/`sip` of every
    exported function (docs/spec.md §6)."""

    name = "materialize-sip-abi"
    #: Only adds `iree.reflection` entries: the driver need not verify after it.
    preserves_validity: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.SIGNATURES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in exported_functions(op):
            materialize_sip_abi(func)
