"""The user documentation (README.md, docs/) stands on its own in a clone: no links out of
the repository's tree, every relative link and anchor resolves, every pass has its page
whose example is what `abi-opt` really prints, and docs/design.md maps every module.
(The generated dialect reference is checked by tests/dialects/test_docs.py.)"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.passes.registry import PASSES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted(DOCS.rglob("*.md"))]


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_reference_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    # The contract the project was built against is not part of a clone: no links to
    # it (its sections are docs/spec.md's; tests/test_citations.py checks every §).
    for outside in ("../shared", "SPEC"):
        assert outside not in text, f"{_name(page)} refers to {outside!r}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.M)}


_LINK = re.compile(r"\]\(([^)\s]+)\)")


# A file of the repository named in prose (`bench/RESULTS_call.md`, `docs/calling.md`).
_NAMED_FILE = re.compile(r"(?<![/\w.-])((?:bench|docs|examples|tests)/[\w/.-]+\.(?:md|py|mlir))\b")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_named_files_exist(page: Path) -> None:
    for named in sorted(set(_NAMED_FILE.findall(page.read_text()))):
        assert (ROOT / named).exists(), f"{_name(page)} names {named}, which does not exist"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_relative_links_resolve(page: Path) -> None:
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", page.read_text(), flags=re.S))
    for target in _LINK.findall(prose):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL
        path_text, _, anchor = target.partition("#")
        linked = (page.parent / path_text).resolve() if path_text else page
        assert linked.exists(), f"{_name(page)}: {target} does not exist"
        assert ROOT in linked.parents or linked == ROOT, f"{_name(page)}: {target} leaves the tree"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{_name(page)}: no heading for #{anchor}"


def test_every_pass_has_a_page() -> None:
    pages = {path.stem for path in (DOCS / "passes").glob("*.md")} - {"README"}
    assert pages == set(PASSES)
    index = (DOCS / "passes" / "README.md").read_text()
    for name in PASSES:
        assert f"[`{name}`]({name}.md)" in index


def test_design_maps_every_module() -> None:
    design = (DOCS / "design.md").read_text()
    modules = sorted(
        _name(path)
        for folder in ("abi_compiler", "dialects", "passes")
        for path in (ROOT / folder).rglob("*.py")
        if path.name != "__init__.py" or folder == "dialects"
    )
    missing = [module for module in modules if f"`{module}`" not in design]
    assert not missing, f"docs/design.md does not list {missing}"


@dataclass
class Example:
    page: str
    command: str
    source: str
    stdout: str
    stderr: str


_EXAMPLE = re.compile(r"<!-- example: (abi-opt [^>]*?) -->\n(.*?)(?=\n## |\Z)", re.S)
_BLOCK = re.compile(r"```[a-z]*\n(.*?)```", re.S)


def _examples() -> list[Example]:
    found = []
    for page in sorted((DOCS / "passes").glob("*.md")):
        for match in _EXAMPLE.finditer(page.read_text()):
            blocks = _BLOCK.findall(match.group(2))
            assert len(blocks) in (2, 3), f"{_name(page)}: input, output and optional stderr"
            stderr = blocks[2] if len(blocks) == 3 else ""
            found.append(Example(_name(page), match.group(1), blocks[0], blocks[1], stderr))
    return found


EXAMPLES = _examples()


def test_every_pass_page_has_an_example() -> None:
    assert sorted(example.page for example in EXAMPLES) == sorted(
        f"docs/passes/{name}.md" for name in PASSES
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.page)
def test_pass_page_example_is_real_output(
    example: Example,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "input.mlir").write_text(example.source)
    capsys.readouterr()
    status = AbiOptMain.main(shlex.split(example.command)[1:])
    captured = capsys.readouterr()
    assert (status, captured.out, captured.err) == (0, example.stdout, example.stderr)


def test_help_texts_point_to_the_docs(capsys: pytest.CaptureFixture[str]) -> None:
    from abi_compiler.commands import sig_main

    for main in (AbiOptMain.main, sig_main.main):
        with pytest.raises(SystemExit):
            main(["--help"])
        text = capsys.readouterr().out
        assert "SPEC" not in text
        assert "docs/formats.md" in text


def test_the_readme_is_short() -> None:
    """The README is what a newcomer reads in five minutes; the reference lives in docs/."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines (at most 300)"


def test_the_readme_maps_every_page() -> None:
    """The README's map of the docs links every page of docs/ (docs/passes/ by its index)
    and bench/README.md."""
    readme = (ROOT / "README.md").read_text()
    pages = [_name(path) for path in sorted(DOCS.glob("*.md"))]
    pages += ["docs/passes/README.md", "bench/README.md"]
    missing = [page for page in pages if f"| [{page}]" not in readme and f"]({page})" not in readme]
    assert not missing, f"README.md's map of the docs lacks {missing}"


def _quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = _BLOCK.findall(section)
    assert len(block) == 1, "the Quick start has one block of commands"
    return block[0].splitlines()


def test_the_quick_start_commands_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Quick start's two commands: each installs the `test` extra (the install is the
    test run's own), then the set-up's main job, which runs here, and the test command,
    which is the one `.ci/run` runs."""
    install = "python -m pip install -q -e '.[test]' && "
    first, second = _quick_start()
    assert first.startswith(install) and second.startswith(install)
    main_job = shlex.split(first.removeprefix(install))
    assert main_job == ["abi-opt", "-p", "iree-abi-v1", "examples/structured.mlir"]
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    assert AbiOptMain.main(main_job[1:]) == 0
    assert "func.func @swap(%pair: !util.list<?>)" in capsys.readouterr().out
    test_command = second.removeprefix(install)
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == test_command == "python -m pytest"
