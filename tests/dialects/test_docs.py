"""docs/dialects.md is generated from the dialect definitions and must be in sync."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from abi_compiler.commands import docgen


def test_committed_docs_are_up_to_date() -> None:
    committed = docgen.DOCS_PATH.read_text(encoding="utf-8")
    assert committed == docgen.render(), (
        "docs/dialects.md is out of date: run `python -m abi_compiler.commands.docgen`"
    )


def test_check_mode_exit_status(tmp_path: Path) -> None:
    output = tmp_path / "dialects.md"
    assert docgen.main(["--check", "--output", str(output)]) == 1
    assert docgen.main(["--output", str(output)]) == 0
    assert docgen.main(["--check", "--output", str(output)]) == 0
    output.write_text(output.read_text(encoding="utf-8") + "stale\n", encoding="utf-8")
    assert docgen.main(["--check", "--output", str(output)]) == 1


def test_check_from_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.docgen", "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_render_is_deterministic() -> None:
    assert docgen.render() == docgen.render()


def documented_classes() -> list[type]:
    classes: list[type] = []
    for name in docgen.DIALECT_MODULES:
        module = __import__(f"abi_compiler.dialects.{name}", fromlist=["_"])
        dialect = docgen.dialect_of(module)
        classes += list(dialect.operations) + list(dialect.attributes)
        for op in dialect.operations:
            definition = op.get_irdl_definition()  # type: ignore[attr-defined]
            classes += list(definition.custom_directives.values())
    return classes


@pytest.mark.parametrize("cls", documented_classes(), ids=lambda cls: cls.__name__)
def test_every_definition_has_a_one_line_summary_and_a_description(cls: type) -> None:
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
    lines = doc.splitlines()
    assert lines and lines[0].strip(), f"{cls.__name__} has no summary"
    if len(lines) > 1:
        assert not lines[1].strip(), f"{cls.__name__}: the summary must be one line"
    if cls.__name__.endswith("Op"):
        assert len(lines) > 2, f"{cls.__name__} has no description"
