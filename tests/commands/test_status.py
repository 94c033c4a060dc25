"""`abi_compiler.commands.status`: the one usage error of the three command-line tools and
the one place their runs' ends become exit statuses (docs/design.md, "Modules")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from abi_compiler.commands import compile_main, opt_main, output, sig_main, status

COMMANDS = Path(status.__file__).parent


def test_one_usage_error_and_one_parser() -> None:
    # No command defines its own usage error or its own argparse error hook.
    found = sorted(
        f"{path.name}:{node.name}"
        for path in COMMANDS.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if (isinstance(node, ast.ClassDef) and node.name.endswith("UsageError"))
        or (isinstance(node, ast.FunctionDef) and node.name == "error")
    )
    assert found == ["status.py:UsageError", "status.py:error"]
    with pytest.raises(status.UsageError, match="unrecognized arguments: --nope"):
        compile_main._parser().parse_args(["m.onnx", "-o", "m.vmfb", "--nope"])


def raising(error: BaseException) -> int:
    raise error


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (status.UsageError("no input"), 1, "abi-x: error: no input\n"),
        (output.StreamError("cannot write"), 1, "abi-x: error: cannot write\n"),
        (KeyboardInterrupt(), 130, ""),
    ],
)
def test_the_ends_every_tool_reports_alike(
    error: BaseException, code: int, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert status.finish("abi-x", lambda: raising(error)) == code
    assert capsys.readouterr() == ("", said)


def test_a_tool_words_its_usage_errors_and_its_other_failures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def lines(message: str) -> list[str]:
        return [f"x: error: {message}", "x: note: more"]

    assert status.finish("x", lambda: raising(status.UsageError("bad")), usage=lines) == 1
    assert status.finish("x", lambda: raising(ValueError("v")), internal=lambda e: 7) == 7
    assert capsys.readouterr().err == "x: error: bad\nx: note: more\n"
    with pytest.raises(ValueError, match="v"):
        status.finish("x", lambda: raising(ValueError("v")))
    assert status.finish("x", lambda: 2) == 2


def test_the_statuses_of_each_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert opt_main.main(["--no-such-flag"]) == status.FAILED
    assert compile_main.main([]) == status.FAILED
    assert sig_main.main(["diff", "-", "-"]) == status.UNREADABLE
    assert sig_main.main(["show", "-", "-"]) == status.FAILED
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "abi-opt: error: unrecognized arguments: --no-such-flag"
    assert err[-2:] == ["abi-sig: error: standard input ('-') is given more than once"] * 2
