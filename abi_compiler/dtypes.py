"""Element types: an ABI scalar (`abi_compiler.model.Scalar`), its MLIR spelling, the numpy
dtype arrays of it have, and IREE's HAL element type of a buffer of it. The one home of
that table, for the passes (which read scalars from MLIR types), the runtime checks
(`abi_compiler.runtime`), the IREE marshalling (`abi_compiler.iree`) and the frontends.

Names only: importing it loads neither numpy nor xDSL nor IREE (``np.dtype(name)``,
``getattr(HalElementType, name)`` and xDSL's ``Signedness[name]`` turn them into objects
where those are loaded).
"""

from __future__ import annotations

from dataclasses import dataclass

from abi_compiler.model import Scalar, ScalarKind

#: An MLIR integer type's signedness (xDSL's `Signedness` member names) → the scalar kind.
SIGNEDNESS_KINDS: dict[str, ScalarKind] = {"SIGNLESS": "i", "SIGNED": "si", "UNSIGNED": "ui"}


def scalar_name(scalar: Scalar) -> str:
    """The scalar as MLIR spells its element type, and as the ABI names it: `f32`, `si8`,
    `ui64`, `bf16`, `i1`."""
    return f"{scalar.kind}{scalar.width}"


def numpy_dtype_name(scalar: Scalar) -> str:
    """The numpy dtype an array of ``scalar`` elements has (`i1`: bool; a signless
    integer: the signed dtype, although the unsigned one is accepted too; `bf16`: the
    `ml_dtypes` one). Widths numpy has no dtype for get a name of the same form
    (`float80`), for messages."""
    if scalar.kind == "bf":
        return "bfloat16" if scalar.width == 16 else f"bf{scalar.width}"
    if scalar.kind == "f":
        return f"float{scalar.width}"
    if scalar.width == 1 and scalar.kind == "i":
        return "bool"
    return f"{'uint' if scalar.kind == 'ui' else 'int'}{scalar.width}"


def scalar_for_numpy(name: str, kind: str, itemsize: int) -> Scalar | None:
    """The scalar of a numpy dtype (its ``name``, ``kind`` and ``itemsize``): bool is
    `i1`, a signed integer the signless one (what MLIR frontends use), an unsigned one
    `ui<bits>`; None for one the ABI has no scalar for."""
    if kind == "b":
        return Scalar("i", 1)
    if name == "bfloat16":
        return Scalar("bf", 16)
    if kind == "i":
        return Scalar("i", itemsize * 8)
    if kind == "u":
        return Scalar("ui", itemsize * 8)
    if kind == "f":
        return Scalar("f", itemsize * 8)
    return None


def int_range(scalar: Scalar) -> tuple[int, int]:
    """The values an integer scalar holds: a signless one either interpretation of its
    bits."""
    width = scalar.width
    if scalar.kind == "si":
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    if scalar.kind == "ui":
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << width) - 1  # signless: either interpretation


@dataclass(frozen=True, slots=True)
class ElementType:
    """One element type arrays cross IREE's runtime with."""

    scalar: Scalar
    #: The numpy dtype (`numpy_dtype_name`).
    numpy: str
    #: IREE's `HalElementType` of an argument buffer.
    hal: str
    #: The `HalElementType`s a result buffer read as this element type may carry.
    hal_results: tuple[str, ...]


def _element_types() -> dict[Scalar, ElementType]:
    table: dict[Scalar, ElementType] = {}

    def add(scalar: Scalar, hal: str, hal_results: tuple[str, ...]) -> None:
        table[scalar] = ElementType(scalar, numpy_dtype_name(scalar), hal, hal_results)

    add(Scalar("i", 1), "BOOL_8", ("BOOL_8", "INT_8", "SINT_8", "UINT_8"))
    for width in (8, 16, 32, 64):
        results: tuple[str, ...] = (f"INT_{width}", f"SINT_{width}", f"UINT_{width}")
        results += ("BOOL_8",) if width == 8 else ()
        kinds: tuple[ScalarKind, ...] = ("i", "si", "ui")
        for kind in kinds:
            add(Scalar(kind, width), f"UINT_{width}" if kind == "ui" else f"SINT_{width}", results)
    for width in (16, 32, 64):
        add(Scalar("f", width), f"FLOAT_{width}", (f"FLOAT_{width}",))
    add(Scalar("bf", 16), "BFLOAT_16", ("BFLOAT_16",))
    return table


#: Every element type IREE's runtime takes arrays of, by scalar.
ELEMENT_TYPES: dict[Scalar, ElementType] = _element_types()
