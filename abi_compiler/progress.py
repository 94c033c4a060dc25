"""Which stage of a long compile runs, on a terminal: `abi-compile` and
`abi_compiler.iree.compile`/`compile_vmfb` go through stages (a framework's import, the
lowering, iree-compile); one that runs longer than a couple of seconds gets a status line
on standard error, rewritten in place with its elapsed time and ended with the time it
took (docs/abi-compile.md, "Progress"). Nothing is written when standard error is not a
terminal (a log, a pipe, CI) or when the caller asks for quiet; a short stage writes
nothing at all.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

__all__ = ["Progress", "progress_for"]

#: A stage shorter than this many seconds shows nothing.
DELAY = 2.0
#: How often a shown stage's line is rewritten, in seconds.
INTERVAL = 0.5


class Progress:
    """Status lines of ``prog``'s stages on ``stream`` (None: nothing is shown)."""

    def __init__(
        self,
        prog: str,
        stream: TextIO | None,
        *,
        delay: float = DELAY,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.prog = prog
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Run the block as the stage ``name``."""
        if self.stream is None:
            yield
            return
        start = self.clock()
        done = threading.Event()
        shown = threading.Event()

        def tick() -> None:
            if done.wait(self.delay):
                return
            while True:
                with self._lock:
                    if done.is_set():
                        return
                    self._write(f"\r{self.prog}: {name}... {self.clock() - start:.1f} s")
                    shown.set()
                if done.wait(self.interval):
                    return

        ticker = threading.Thread(target=tick, name=f"progress: {name}", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            with self._lock:
                done.set()
            ticker.join()
            if shown.is_set():
                # The final line replaces the status line (and its trailing "...").
                self._write(f"\r{self.prog}: {name} {self.clock() - start:.1f} s \n")

    def _write(self, text: str) -> None:
        assert self.stream is not None
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stderr
            self.stream.write(text)
            self.stream.flush()


def progress_for(prog: str, show: bool | None) -> Progress:
    """``prog``'s progress on standard error: shown when ``show`` is True, or when it is
    None and standard error is a terminal."""
    stream = sys.stderr
    if show is None:
        try:
            show = stream is not None and stream.isatty()
        except (AttributeError, ValueError):
            show = False
    return Progress(prog, stream if show else None)
