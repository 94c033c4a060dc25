"""Where a run's time goes, in `mlir-opt --mlir-timing`'s report format."""

from __future__ import annotations

import time


class Timer:
    """Charges the wall time between calls of `charge` to named phases."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._clock = time.perf_counter()

    def charge(self, phase: str | None) -> None:
        """Charge the time since the last call to ``phase`` (None: to nothing)."""
        now = time.perf_counter()
        if phase is not None:
            self.phases[phase] = self.phases.get(phase, 0.0) + now - self._clock
        self._clock = now

    def report(self) -> str:
        total = sum(self.phases.values()) or 1e-9
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            " " * 25 + "... Execution time report ...",
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for phase, seconds in [*self.phases.items(), ("Total", total)]:
            lines.append(f"  {seconds:8.4f} ({100 * seconds / total:5.1f}%)  {phase}")
        return "\n".join(lines) + "\n"
