"""Element types: an ABI scalar (`abi_compiler.model.Scalar`), its MLIR spelling, the numpy
dtype arrays of it have, IREE's HAL element type of a buffer of it, and the rules by which
the caller's side takes values for it. The one home of that table, for the passes (which
read scalars from MLIR types), the packing of values (`abi_compiler.calling.marshal`),
the VM marshalling (`abi_compiler.calling.vm`) and the frontends.

Names only: importing it loads neither numpy nor xDSL nor IREE (``np.dtype(name)``,
``getattr(HalElementType, name)`` and xDSL's ``Signedness[name]`` turn them into objects
where those are loaded). docs/calling.md ("Arrays") states the rules for users.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from abi_compiler.model import Scalar, ScalarKind

#: An MLIR integer type's signedness (xDSL's `Signedness` member names) → the scalar kind.
SIGNEDNESS_KINDS: dict[str, ScalarKind] = {"SIGNLESS": "i", "SIGNED": "si", "UNSIGNED": "ui"}

#: The numpy dtypes of the table by numpy's kind letter and itemsize (bytes); `bfloat16`
#: (`ml_dtypes`), whose kind is numpy's catch-all ``"V"``, is known by its name only.
NUMPY_KINDS: dict[str, tuple[str, int]] = {
    "bool": ("b", 1),
    **{f"int{8 * size}": ("i", size) for size in (1, 2, 4, 8)},
    **{f"uint{8 * size}": ("u", size) for size in (1, 2, 4, 8)},
    **{f"float{8 * size}": ("f", size) for size in (2, 4, 8)},
}

#: The numpy kinds of numbers (bool, signed and unsigned integers, floats, complex): an
#: array of one converts to any record's dtype (``astype``, with ``convert=True``).
NUMERIC_KINDS = frozenset("biufc")

#: A buffer's element format (`memoryview.format`, struct syntax, without its byte-order
#: prefix) → numpy's kind of its elements; a format not here is not numbers.
BUFFER_FORMAT_KINDS: dict[str, str] = {
    "?": "b",
    **dict.fromkeys("bhilqn", "i"),
    **dict.fromkeys("BHILQN", "u"),
    **dict.fromkeys("efd", "f"),
}

#: The values of an element type, as nested lists fill it.
ValueKind = Literal["bool", "int", "float"]

#: Values without a dtype of their own (nested lists, Python numbers inside an array):
#: numpy's kind of the data they make → the value kinds they fill unconverted (integers
#: fill a bool record when they are 0 and 1, an integer record within its range; a
#: finite value must stay finite in a float record). Bools fill any record here, unlike
#: a bool for a scalar record (`takes_bools`): docs/calling.md, "Arrays".
NESTED_LIST_FITS: dict[str, tuple[ValueKind, ...]] = {
    "b": ("bool", "int", "float"),
    "i": ("bool", "int", "float"),
    "u": ("bool", "int", "float"),
    "f": ("float",),
}

#: What a record does with an array of a given dtype: takes it as it is, converts it
#: (``astype``; without ``convert=True`` an error that says so), or refuses it.
Acceptance = Literal["taken", "converted", "refused"]


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
    """The values an integer scalar holds: `i1` 0 and 1 (a bool), a signless one either
    interpretation of its bits."""
    width = scalar.width
    if scalar.kind == "si":
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    if scalar.kind == "ui":
        return 0, (1 << width) - 1
    if width == 1:
        return 0, 1
    return -(1 << (width - 1)), (1 << width) - 1  # signless: either interpretation


# The magnitude from which a double rounds to infinity in each narrower float type (round
# to nearest, ties to even: halfway between its largest finite value and the next power
# of two). A finite value at or beyond it does not fit; inf and nan pass as they are.
_FLOAT_LIMITS = {
    Scalar("f", 16): (2 - 2**-11) * 2.0**15,
    Scalar("bf", 16): (2 - 2**-8) * 2.0**127,
    Scalar("f", 32): (2 - 2**-24) * 2.0**127,
    Scalar("f", 64): math.inf,
}


def float_limit(scalar: Scalar) -> float:
    """A float scalar's overflow magnitude: a finite value (as a double) whose magnitude
    is at least this becomes infinite in the scalar's type, so does not fit in it."""
    return _FLOAT_LIMITS.get(scalar, math.inf)


def taken_dtypes(scalar: Scalar, *, raw: bool = False) -> frozenset[str]:
    """The numpy dtypes an array for a record of ``scalar`` elements is taken as, without
    a conversion: the record's own (`numpy_dtype_name`); for a signless integer also the
    unsigned dtype of its width (MLIR's integers have no sign); for a record of the raw
    signature (``raw``, the legacy `f`), whose `i8` also stands for `i1` (it writes an
    `i1` tensor as `sint8`), for `i8` also bool."""
    own = numpy_dtype_name(scalar)
    if scalar.kind != "i" or scalar.width == 1:
        return frozenset({own})
    unsigned = numpy_dtype_name(Scalar("ui", scalar.width))
    if raw and scalar.width == 8:
        return frozenset({own, unsigned, "bool"})
    return frozenset({own, unsigned})


def takes_bools(scalar: Scalar, *, raw: bool = False) -> bool:
    """Whether a scalar record takes a Python (or numpy) bool without ``convert=True``:
    where its arrays take bool arrays as they are (`i1`, the raw signature's `i8`)."""
    return "bool" in taken_dtypes(scalar, raw=raw)


def array_acceptance(scalar: Scalar, name: str, kind: str, *, raw: bool = False) -> Acceptance:
    """What a record of ``scalar`` elements does with an array of the numpy dtype
    ``name`` of ``kind``: takes it as it is (`taken_dtypes`), converts any other numbers
    (`NUMERIC_KINDS`, and `bfloat16`), refuses anything else (strings, objects, dates,
    dtypes numpy knows only through another package, like float8)."""
    if name in taken_dtypes(scalar, raw=raw):
        return "taken"
    if kind in NUMERIC_KINDS or name == "bfloat16":
        return "converted"
    return "refused"


@dataclass(frozen=True, slots=True)
class ElementType:
    """One element type arrays cross IREE's runtime with."""

    scalar: Scalar
    #: The numpy dtype (`numpy_dtype_name`).
    numpy: str
    #: IREE's `HalElementType` of an argument buffer.
    hal: str
    #: The `HalElementType`s a result buffer read as this element type may carry (and a
    #: buffer view given as an argument).
    hal_results: tuple[str, ...]
    #: What its values are, for nested lists (`NESTED_LIST_FITS`).
    values: ValueKind


def _element_types() -> dict[Scalar, ElementType]:
    table: dict[Scalar, ElementType] = {}

    def add(scalar: Scalar, hal: str, hal_results: tuple[str, ...], values: ValueKind) -> None:
        table[scalar] = ElementType(scalar, numpy_dtype_name(scalar), hal, hal_results, values)

    add(Scalar("i", 1), "BOOL_8", ("BOOL_8", "INT_8", "SINT_8", "UINT_8"), "bool")
    for width in (8, 16, 32, 64):
        results: tuple[str, ...] = (f"INT_{width}", f"SINT_{width}", f"UINT_{width}")
        results += ("BOOL_8",) if width == 8 else ()
        kinds: tuple[ScalarKind, ...] = ("i", "si", "ui")
        for kind in kinds:
            hal = f"UINT_{width}" if kind == "ui" else f"SINT_{width}"
            add(Scalar(kind, width), hal, results, "int")
    for width in (16, 32, 64):
        add(Scalar("f", width), f"FLOAT_{width}", (f"FLOAT_{width}",), "float")
    add(Scalar("bf", 16), "BFLOAT_16", ("BFLOAT_16",), "float")
    return table


#: Every element type IREE's runtime takes arrays of, by scalar.
ELEMENT_TYPES: dict[Scalar, ElementType] = _element_types()
