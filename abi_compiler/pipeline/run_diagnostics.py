"""The diagnostics of a run, as values (docs/spec.md §11).

A run reports every problem as a `Diagnostic`: its severity, a one-line message and, when
it has one, its position in the input (an offset, and the `file:line:col` it stands
for). `Pipeline.run` returns them; `run_pipeline` raises the errors as one
`PipelineError` and gives the warnings to Python's `warnings` as `PipelineWarning`s; the
command line prints them (`abi_compiler.commands.opt_main`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

Severity = Literal["error", "warning", "note", "remark"]


class SourceFile:
    """The text of one input file and its display name (`<stdin>` for standard input)."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        # Offsets already located and their line numbers, sorted: memory in the number
        # of positions asked for, not in the text's lines (a module of millions of
        # comment lines and a few functions keeps a few entries).
        self._known_offsets: list[int] = [0]
        self._known_lines: list[int] = [1]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset. The line is counted from the
        nearest offset located before (positions asked in order cost one pass over the
        text). The column counts UTF-8 bytes, as MLIR's do."""
        offset = max(0, min(offset, len(self.text)))
        index = bisect_right(self._known_offsets, offset) - 1
        known = self._known_offsets[index]
        line = self._known_lines[index] + self.text.count("\n", known, offset)
        if known != offset:
            self._known_offsets.insert(index + 1, offset)
            self._known_lines.insert(index + 1, line)
        start = self.text.rfind("\n", 0, offset) + 1
        return line, len(self.text[start:offset].encode("utf-8", "surrogatepass")) + 1

    def position(self, offset: int) -> str:
        """`file:line:col` of an offset."""
        line, col = self.line_col(offset)
        return f"{self.name}:{line}:{col}"


def one_line(message: str) -> str:
    """A diagnostic is one line: xDSL's verifier puts the reason on a line of its own
    (`result 'result' at position 0 does not verify:\\ni32 should be …`)."""
    if "\n" not in message:
        return message
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


@dataclass(frozen=True)
class Diagnostic:
    """One message of a run. ``offset`` is a position in the input text; ``file``,
    ``line`` and ``column`` say where that is (`located`). A problem with no position
    has no offset and no line: with a ``file`` it is that whole file's (bytecode that
    cannot be read), without one the run's (an unknown pass, an empty input)."""

    severity: Severity
    message: str
    offset: int | None = None
    notes: tuple[Diagnostic, ...] = ()
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def located(self, source: SourceFile) -> Diagnostic:
        """This diagnostic (and its notes) with the file, line and column of its offset."""
        notes = tuple(note.located(source) for note in self.notes)
        if self.offset is None:
            return replace(self, notes=notes)
        line, column = source.line_col(self.offset)
        return replace(self, notes=notes, file=source.name, line=line, column=column)

    @property
    def position(self) -> str | None:
        """`file:line:col`, if the diagnostic has a position."""
        if self.line is None:
            return None
        return f"{self.file}:{self.line}:{self.column}"

    def format(self, program: str | None = None) -> str:
        """The line a tool prints: `file:line:col: <severity>: <message>`; without a
        position, the file when the problem is the whole file's (`file: error: …`), else
        ``program`` (`abi-opt: error: …`)."""
        where = self.position or self.file or program
        prefix = f"{where}: " if where else ""
        return f"{prefix}{self.severity}: {one_line(self.message)}"

    def lines(self, program: str | None = None) -> list[str]:
        """`format` of the diagnostic and of each of its notes."""
        return [self.format(program), *(note.format(program) for note in self.notes)]

    def __str__(self) -> str:
        return self.format()


class PipelineError(Exception):
    """A run failed: ``diagnostics`` holds every diagnostic of the run (errors, and the
    warnings given before them); the message is their printed lines."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(line for item in self.diagnostics for line in item.lines()))

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(item for item in self.diagnostics if item.severity == "error")


class PipelineWarning(UserWarning):
    """A warning of a run (`run_pipeline` gives each one to `warnings.warn`); the
    message is its printed line, ``diagnostic`` the value."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.format())
        self.diagnostic = diagnostic


class Failure(Exception):
    """Stops a run; ``diagnostic`` says why (the pipeline's stages raise it)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
