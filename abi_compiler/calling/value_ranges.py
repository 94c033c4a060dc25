"""The check of an argument's value ranges (`abi_compiler.call_model.ValueRange`, the
``ranges`` of an `abi.call` array): the values a compiled module indexes a buffer with,
checked on the host before the call (docs/calling.md, "What the original call checks").
IREE's gathers and scatters have no bounds check, so an index outside the buffer would
read or write outside it: wrong numbers, or a crash of the calling process. The bounds
checks a frontend writes into the module itself (`abi_compiler.frontends.index_checks`)
fail the call with a message `index_check_failure` finds."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from abi_compiler.attribute_names import INDEX_CHECK_MARK
from abi_compiler.call_model import ValueRange
from abi_compiler.calling.iree_runtime import np, rt
from abi_compiler.calling.mismatch import Mismatch
from abi_compiler.calling.vm_arrays import host_value, to_host

__all__ = ["describe_range", "index_check_failure", "ranged"]


def ranged(
    ranges: tuple[ValueRange, ...],
    converter: Callable[[Any], Any],
    dtype: np.dtype[Any] | None,
    device: Any,
) -> Callable[[Any], Any]:
    """``converter`` (a leaf's checks), then the values it gives checked against
    ``ranges``: the first value outside its range is a `Mismatch` naming it, where it is
    and the range. A device array (`DeviceArray`, `HalBufferView`) is read back to the
    host for the check (``dtype``, ``device``: the record's element dtype and the
    module's device); the value passed on is the one ``converter`` gave."""

    def check(value: Any) -> Any:
        value = converter(value)
        data = _host_numbers(value, dtype, device)
        if data is not None and data.size:
            for found in ranges:
                _check_range(data, found)
        return value

    return check


def describe_range(found: ValueRange) -> str:
    """``[0, 31]``, ``[0, inf)``, ``(-inf, 5]``."""
    low = "(-inf" if found.low is None else f"[{found.low}"
    high = "inf)" if found.high is None else f"{found.high}]"
    return f"{low}, {high}"


def _host_numbers(value: Any, dtype: np.dtype[Any] | None, device: Any) -> Any:
    """The integers of a converted leaf value as a numpy array (None: not integers, which
    the leaf's checks refused or converted already)."""
    if isinstance(value, rt.DeviceArray):
        value = value.to_host()
    elif isinstance(value, rt.HalBufferView):
        if dtype is None:
            return None
        value = to_host(value, dtype, device)
    data = np.asarray(host_value(value))
    return data if data.dtype.kind in "iu" else None


def _check_range(data: Any, found: ValueRange) -> None:
    flat = data.reshape(-1)
    if found.elements is None:
        positions = None
        values = flat
    else:
        positions = np.array([e for e in found.elements if e < flat.size], dtype=np.int64)
        values = flat[positions]
    # The bounds compared as the array's dtype holds them (a bound beyond it: every
    # value, or none, is outside).
    info = np.iinfo(values.dtype)
    lowest, highest = int(info.min), int(info.max)
    outside = np.zeros(values.shape, dtype=bool)
    if found.low is not None and found.low > lowest:
        outside |= values < found.low if found.low <= highest else True
    if found.high is not None and found.high < highest:
        outside |= values > found.high if found.high >= lowest else True
    if not outside.any():
        return
    first = int(np.argmax(outside))
    flat_index = first if positions is None else int(positions[first])
    where = ""
    if data.ndim:
        at = np.unravel_index(flat_index, data.shape)
        where = f" at [{', '.join(str(int(i)) for i in at)}]"
    raise Mismatch(
        f"value {int(values[first])}{where} is outside {describe_range(found)}: the compiled "
        "module indexes a buffer with it"
    )


# The message of a failed check in IREE's error text (``<vm>:0: FAILED_PRECONDITION;
# index out of bounds: …; [ 0] bytecode module@…``): up to the next "; ".
_FAILED_CHECK = re.compile(re.escape(INDEX_CHECK_MARK) + r"[^;]*")


def index_check_failure(error: Exception) -> str | None:
    """The message of a module's own bounds check that failed the call ``error`` reports
    (docs/calling.md, "What the original call checks"), or None for another failure."""
    found = _FAILED_CHECK.search(str(error))
    return found.group(0).rstrip() if found else None
