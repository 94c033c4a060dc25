"""The reflection passes: `materialize-iree-abi`, `materialize-raw-abi`,
`materialize-sip-abi` (SPEC §4–§7).

Each is a thin translation: IR → ABI model (`structure`) → codec → an entry of
`iree.reflection`. They only add entries, so they run in any order, any number of times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass

from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.raw import decode_raw, encode_raw, raw_recognized
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.driver import diagnostics
from abi_compiler.driver.carry import BodyAccess
from abi_compiler.errors import AbiError
from abi_compiler.model import FlatSignature
from abi_compiler.passes.reflection import (
    add_entries,
    adopt_bare_iree_abi,
    reflection_entries,
    set_reflection_entries,
)
from abi_compiler.passes.structure import (
    IREE_ABI,
    check_bound_inputs,
    exported_functions,
    function_signature,
    index_path_attribute,
    is_structured_type,
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
    _materialize_function(
        func, {IREE_ABI: lambda: encode_json(function_signature(func))}, {IREE_ABI: decode_json}
    )


def materialize_raw_abi(func: FuncOp) -> None:
    _materialize_function(
        func,
        {"f": lambda: encode_raw(raw_signature(func)), "fv": lambda: "1"},
        {"f": decode_raw, "fv": expect_exactly("1")},
    )


def materialize_sip_abi(func: FuncOp) -> None:
    _materialize_function(
        func,
        {"sip": lambda: sip_signature(func), "abi": lambda: "sip", "sipv": lambda: "1"},
        {"sip": decode_sip, "abi": expect_exactly("sip"), "sipv": expect_exactly("1")},
    )


@dataclass(frozen=True)
class MaterializeIreeAbiPass(ModulePass):
    """Write the V1 `iree.abi` JSON of every exported function (SPEC §4): the calling
    convention a runtime caller sees, from index paths or types."""

    name = "materialize-iree-abi"
    #: Only adds `iree.reflection` entries: the driver need not verify after it.
    preserves_validity: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.SIGNATURES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in exported_functions(op):
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
class MaterializeRawAbiPass(ModulePass):
    """Write the legacy raw signature `fv`/`f` of every exported function (SPEC §5),
    from its actual argument and result types."""

    name = "materialize-raw-abi"
    #: Only adds `iree.reflection` entries: the driver need not verify after it.
    preserves_validity: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.SIGNATURES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in exported_functions(op):
            materialize_raw_abi(func)


def sip_signature(func: FuncOp) -> str:
    """The SIP of the function: its index paths, or its trivial structure (§6)."""
    if index_path_attribute(func) is None:
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
class MaterializeSipAbiPass(ModulePass):
    """Write the legacy structured index path signature `abi`/`sipv`/`sip` of every
    exported function (SPEC §6)."""

    name = "materialize-sip-abi"
    #: Only adds `iree.reflection` entries: the driver need not verify after it.
    preserves_validity: ClassVar[bool] = True
    body_access: ClassVar[BodyAccess] = BodyAccess.SIGNATURES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in exported_functions(op):
            materialize_sip_abi(func)
