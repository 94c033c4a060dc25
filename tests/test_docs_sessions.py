"""The terminal sessions in README.md and in docs/ (code blocks whose lines start with
`$ `) are what the commands really print: each is run, in order, in a folder that holds
the repository's `examples/`. Every command the README shows is run: its sessions here,
its Quick start by tests/test_docs.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"```[a-z]*\n(\$ .*?)```", re.S)


def _sessions() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, match in enumerate(_BLOCK.finditer(page.read_text())):
            found.append((f"{page.relative_to(ROOT).as_posix()}#{number}", match.group(1)))
    return found


SESSIONS = _sessions()


def test_every_readme_command_is_in_a_session() -> None:
    """No `$ ` line of the README escapes the sessions run below."""
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^\$ .*$", readme, re.M)
    run = re.findall(
        r"^\$ .*$", "".join(text for name, text in SESSIONS if name.startswith("README.md#")), re.M
    )
    assert commands and commands == run


def test_the_show_and_diff_sessions_are_among_them() -> None:
    texts = "".join(text for _, text in SESSIONS)
    assert "$ abi-sig show old.mlir new.mlir\n" in texts
    assert "$ abi-sig diff old.mlir new.mlir\n" in texts


@pytest.mark.skipif(shutil.which("bash") is None, reason="the sessions are bash")
@pytest.mark.parametrize(("name", "session"), SESSIONS, ids=[name for name, _ in SESSIONS])
def test_session(name: str, session: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    environment = dict(os.environ)
    scripts = sysconfig.get_path("scripts")
    environment["PATH"] = os.pathsep.join(
        [scripts, os.path.dirname(sys.executable), environment["PATH"]]
    )
    status = 0
    # Each command with the output lines that follow it.
    for command, expected in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", session, re.M):
        if command == "echo $?":
            assert f"{status}\n" == expected, name
            continue
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        status = done.returncode
        assert done.stdout == expected, f"{name}: {command}\n{done.stderr}"
