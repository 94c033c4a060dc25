"""The name locations of function arguments, which passes read and the pipeline fills.

JAX names each argument of an export by its pytree path in the argument's location,
`%arg0: tensor<3xf32> loc("params['dense']['bias']")`, often through a location alias
(`loc(#loc3)` with `#loc3 = loc("x")` before or after its use) and sometimes with a child
(`loc("x"(#loc7))`) (docs/spec.md §3.3). Locations are no part of the IR the passes see: `abi-opt`
carries them as text (docs/spec.md §8.6) and masks them before xDSL parses. So the pipeline reads
each argument's location where it is written and records its name here, resolved through
aliases — from the carried text (`abi_compiler.text_to_ir.carried_ir`) or, when every body
is parsed, from the locations xDSL's parser gave the block arguments
(`abi_compiler.pipeline.locating_parser`) — and passes ask
`location_table.argument_names(func)`.

The table belongs to the chunk's `LocationTable` (`table.argument_names`), so the
`tracking` context the driver puts around the passes makes it the one passes read; outside
the driver every function has no recorded names. Names are read lazily: the pipeline
records how to read a function's argument locations, and only the functions a pass asks
about are read (a JAX export's `@main`, not the thousands of functions beside it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from weakref import WeakKeyDictionary

from xdsl.dialects.func import FuncOp

#: The name of each argument of a function, or None where its location is not a name
#: location (unknown, file:line:col, call site, fused, or not written).
ArgumentNames = tuple[str | None, ...]


class ArgumentNameTable:
    """Function -> the name location of each of its arguments (a weak key: a function a
    pass erases goes with its entry)."""

    def __init__(self) -> None:
        self._names: WeakKeyDictionary[FuncOp, ArgumentNames] = WeakKeyDictionary()
        self._readers: WeakKeyDictionary[FuncOp, Callable[[], ArgumentNames]] = WeakKeyDictionary()

    def record(self, func: FuncOp, names: Sequence[str | None]) -> None:
        self._readers.pop(func, None)
        self._names[func] = tuple(names)

    def record_reader(self, func: FuncOp, reader: Callable[[], ArgumentNames]) -> None:
        """``reader`` gives the names of ``func``'s arguments when first asked for."""
        self._names.pop(func, None)
        self._readers[func] = reader

    def names(self, func: FuncOp) -> ArgumentNames | None:
        """The recorded names of ``func``'s arguments; None when nothing was recorded."""
        found = self._names.get(func)
        if found is None and (reader := self._readers.pop(func, None)) is not None:
            found = self._names[func] = reader()
        return found
