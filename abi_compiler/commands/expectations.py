"""`--verify-diagnostics` with mlir-opt's meaning: `// expected-error {{text}}` annotations
(also `expected-warning`, `expected-note`, `expected-remark`; `@+N`, `@-N`, `@above`,
`@below`, `@unknown`) must match the diagnostics a run produced, chunk by chunk; every
unmatched or unexpected one is an error."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from abi_compiler.pipeline.run_diagnostics import Diagnostic, SourceFile, one_line

_EXPECTATION = re.compile(
    r"expected-(error|warning|note|remark)[ \t]*"
    r"(?:@([+-][0-9]+|above|below|unknown))?[ \t]*\{\{(.*?)\}\}"
)


@dataclass
class _Expectation:
    severity: str
    text: str
    line: int | None
    offset: int
    matched: bool = False


def check_expectations(
    source: SourceFile, chunks: Sequence[tuple[int, int, Sequence[Diagnostic]]]
) -> list[Diagnostic]:
    """The errors of matching each chunk's (start, end, diagnostics) against the
    annotations in it: empty when every diagnostic was expected and every expectation
    met."""
    expectations = list(_expectations(source))
    problems: list[Diagnostic] = []
    for start, end, diagnostics in chunks:
        mine = [e for e in expectations if start <= e.offset < end]
        for diagnostic in _flatten(diagnostics):
            match = next(
                (
                    e
                    for e in mine
                    if not e.matched
                    and e.severity == diagnostic.severity
                    and e.line == diagnostic.line
                    and e.text in one_line(diagnostic.message)
                ),
                None,
            )
            if match is not None:
                match.matched = True
                continue
            problems.append(
                Diagnostic(
                    "error",
                    f"unexpected {diagnostic.severity}: {diagnostic.message}",
                    diagnostic.offset,
                ).located(source)
            )
        for expectation in mine:
            if not expectation.matched:
                problems.append(
                    Diagnostic(
                        "error",
                        f'expected {expectation.severity} "{expectation.text}" was not produced',
                        expectation.offset,
                    ).located(source)
                )
    return problems


def _flatten(items: Sequence[Diagnostic]) -> Iterator[Diagnostic]:
    for item in items:
        yield item
        yield from item.notes


def _expectations(source: SourceFile) -> Iterator[_Expectation]:
    for match in _EXPECTATION.finditer(source.text):
        severity, anchor, text = match.groups()
        line = source.line_col(match.start())[0]
        if anchor is None:
            target: int | None = line
        elif anchor == "unknown":
            target = None
        elif anchor == "above":
            target = line - 1
        elif anchor == "below":
            target = line + 1
        elif len(anchor) > 10:
            # Beyond any file's last line (and beyond what `int` converts in full): an
            # expectation that no diagnostic can meet.
            target = -1
        else:
            target = line + int(anchor)
        yield _Expectation(severity, text, target, match.start())
