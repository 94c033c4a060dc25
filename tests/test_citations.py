"""Every citation in the code, the tests and the docs names something that exists in the
repository: a section number (`docs/spec.md §3.2`, or a bare `§3.2`) is a heading of
docs/spec.md, `docs/<page>.md#<anchor>` an anchor of that page, `docs/<page>.md, "<heading>"`
the start of one of its headings, and no citation points at documents a clone does not
have: the contract outside the repository (SPEC.md), the project's seed documents (a seed
by its number: cite IREE's public pages, docs/formats.md#upstream-documents) or its issue
tracker (an issue by its number: cite the docs/ section that says the behaviour). An upstream project's issue
is cited by its URL (https://github.com/<owner>/<repo>/issues/<n>)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SECTION_SIGN = "\N{SECTION SIGN}"

#: Where citations are written: sources, tests, lit files, benchmarks, examples, docs.
CITING = [
    *sorted(
        path
        for pattern in ("**/*.py", "**/*.mlir", "**/*.md")
        for folder in ("abi_compiler", "dialects", "passes", "tests", "bench", "examples", "docs")
        for path in (ROOT / folder).glob(pattern)
        # (Not lit's `Output/` folders: files the tests write, not the repository's.)
        if not path.is_symlink() and not {"__pycache__", "Output"} & set(path.parts)
    ),
    ROOT / "README.md",
    ROOT / "lit.cfg.py",
]

SECTION = re.compile(SECTION_SIGN + r"\s*(\d+(?:\.\d+)*)")
OUTSIDE = re.compile(r"\bSPEC\s*" + SECTION_SIGN + r"|\.\./shared|SPEC\.md")
ANCHOR = re.compile(r"docs/([\w-]+\.md)#([\w-]+)")
QUOTED = re.compile(r'docs/([\w-]+\.md),\s+"([^"]+)"')
#: Citations of documents a clone does not have. (A URL's `/issues/<n>` does not match.)
PRIVATE = re.compile(
    r"\bseeds?\s+#?0\d\d\b|\bthe\s+seed(?:'s|\s+grammar|\s+documents?)\b|\bissues?\s+#?\d+\b",
    re.IGNORECASE,
)
HEADING = re.compile(r"^#+\s+(.*?)\s*$", re.M)


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _headings(page: str) -> list[str]:
    return HEADING.findall((DOCS / page).read_text())


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading (as tests/test_docs.py computes it)."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def _spec_sections() -> set[str]:
    numbers = set()
    for heading in _headings("spec.md"):
        match = re.match(r"(\d+(?:\.\d+)*)\.?\s", heading)
        if match:
            numbers.add(match.group(1))
    return numbers


def test_the_contract_has_its_sections() -> None:
    """docs/spec.md holds the numbered sections the code cites, from 1 to 12."""
    sections = _spec_sections()
    assert {str(n) for n in range(1, 13)} <= sections
    assert {"3.3", "8.2", "8.6", "9.1", "10.1"} <= sections


@pytest.mark.parametrize(
    "text",
    [
        # (spelled in two pieces, so that this file does not cite what it tests for)
        "seed" + " 001",
        "Seed" + " 000's composite",
        "the seed grammar",
        "issue" + " 14",
        "Issue" + " 21:",
        "issues" + " 14 and 15",
        "issue" + " #6",
    ],
)
def test_private_citations_are_caught(text: str) -> None:
    assert PRIVATE.search(text)


@pytest.mark.parametrize(
    "text",
    ["https://github.com/llvm/torch-mlir/issues/4625", "a fixed seed", "--seed 1", "seed=0"],
)
def test_public_citations_and_seeds_pass(text: str) -> None:
    assert not PRIVATE.search(text)


@pytest.mark.parametrize("path", CITING, ids=_name)
def test_citations_resolve(path: Path) -> None:
    if path == Path(__file__).resolve():
        return
    text = path.read_text()
    problems = [
        f"refers outside the repository: {m.group(0)!r}"
        for m in OUTSIDE.finditer(text)
        if path != ROOT / "tests" / "test_docs.py"  # (which forbids these in the docs)
    ]
    problems += [
        f"cites {m.group(0)!r}, which a clone does not have (cite docs/ or a public URL)"
        for m in PRIVATE.finditer(text)
    ]
    sections = _spec_sections()
    problems += [
        f"cites {SECTION_SIGN}{m.group(1)}, which is no heading of docs/spec.md"
        for m in SECTION.finditer(text)
        if m.group(1) not in sections
    ]
    for match in ANCHOR.finditer(text):
        page, anchor = match.groups()
        if not (DOCS / page).is_file():
            problems.append(f"cites docs/{page}, which does not exist")
        elif anchor not in {_slug(h) for h in _headings(page)}:
            problems.append(f"cites docs/{page}#{anchor}, which is no heading there")
    for match in QUOTED.finditer(text):
        page, quoted = match.groups()
        quoted = " ".join(quoted.split())
        if not (DOCS / page).is_file():
            problems.append(f"cites docs/{page}, which does not exist")
        elif not any(h.startswith(quoted) for h in _headings(page)):
            problems.append(f'cites docs/{page}, "{quoted}", which is no heading there')
    assert not problems, f"{_name(path)}: " + "; ".join(problems)
