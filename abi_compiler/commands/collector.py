"""`abi-opt`'s pipeline: the library's `Pipeline` with the garbage collector tuned for a
process that runs a pipeline and exits (the library leaves its host's collector alone).

From parsing to the end of the passes the cyclic collector is paused: parsing and
verifying free nothing, and passes free what they erase by reference counting
(`decompose.discard`), so its collections would only visit the whole IR again and again
(a sixth of a large module's time). The IR is then frozen, out of the collector's reach
while printing (deferred wrappers are built and dropped there), and unfrozen once the
chunk is printed, so that the next `--split-input-file` chunk can collect it."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Literal

from abi_compiler.pipeline.run import Pipeline


class CollectingPipeline(Pipeline):
    """`Pipeline`, pausing and freezing the garbage collector around a run's phases."""

    @contextlib.contextmanager
    def phase(self, name: Literal["work", "print"]) -> Iterator[None]:
        if name == "work":
            enabled = gc.isenabled()
            gc.disable()
            try:
                yield
                gc.freeze()
            finally:
                if enabled:
                    gc.enable()
        else:
            try:
                yield
            finally:
                gc.unfreeze()
