"""`abi-opt` in-process: pass errors and warnings, pass options, pipelines, locations.

A fixture pass registered on a subclass of the driver stands in for passes that fail,
warn, crash, or break the IR, so these tests do not depend on the project's passes.
"""

from __future__ import annotations

import dataclasses
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics
from abi_compiler.ir.location_table import inherit_location
from abi_compiler.pipeline.run_diagnostics import SourceFile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "structured.mlir"

MODULE = """\
func.func @first(%a: i32,
                 %b: f32) -> i32 {
  func.return %a : i32
}
"""


@dataclass(frozen=True)
class FixturePass(ModulePass):
    """Does to the first function whatever ``action`` says."""

    name = "fixture"

    action: Literal["none", "warn", "fail", "fail-unlocated", "crash", "break", "clone"] = "none"
    index: int = 0
    where: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        function = next((o for o in op.walk() if isinstance(o, func.FuncOp)), None)
        if function is None:
            return
        where = (self.where, self.index) if self.where else None
        if self.action == "warn":
            diagnostics.warn(f"careful with {function.sym_name.data}", function, where)
        elif self.action == "fail":
            raise AbiError("this function is wrong", op=function, where=where)
        elif self.action == "fail-unlocated":
            raise AbiError("something is wrong")
        elif self.action == "crash":
            raise RuntimeError("boom")
        elif self.action == "break":
            inputs = function.function_type.inputs.data
            function.function_type = func.FunctionType.from_lists(inputs, [inputs[1]])
        elif self.action == "clone":
            # A pass-created function: diagnostics fall back to the nearest located
            # ancestor, or to the function it replaces with inherit_location.
            copy = function.clone()
            copy.sym_name = type(function.sym_name)(f"{function.sym_name.data}_copy")
            op.body.block.add_op(copy)
            if self.index:
                inherit_location(copy, function)
            diagnostics.warn("about the copy", copy, where)


class FixtureMain(AbiOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.register_pass("fixture", lambda: FixturePass, "A pass for the driver's tests.")


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str = MODULE) -> Run:
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        status = FixtureMain.main(args)
    finally:
        sys.stdin = old_stdin
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return Run(status, captured.out, captured.err)


def test_clean_run_prints_module(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(["-p", "fixture"], capsys)
    assert (result.status, result.stderr) == (0, "")
    assert result.stdout.startswith("builtin.module {\n  func.func @first(%a: i32, %b: f32)")


def test_warning_is_printed_and_output_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.mlir"
    result = run(["-p", "fixture{action=warn}", "-o", str(out)], capsys)
    assert result.status == 0
    assert result.stderr == "<stdin>:1:1: warning: careful with first\n"
    assert result.stdout == ""
    assert "func.func @first" in out.read_text()


@pytest.mark.parametrize(
    ("options", "position"),
    [
        ("", "1:1"),
        (" where=argument index=0", "1:18"),
        (" where=argument index=1", "2:18"),
        # No such argument, or a result: the function itself.
        (" where=argument index=7", "1:1"),
        (' where="result" index=0', "1:1"),
    ],
)
def test_pass_error_location(
    options: str, position: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.mlir"
    result = run(["-p", f"fixture{{action=fail{options}}}", "-o", str(out)], capsys)
    assert result.status == 1
    assert result.stderr == f"<stdin>:{position}: error: this function is wrong\n"
    assert result.stdout == ""
    assert not out.exists()


def test_pass_error_without_operation_is_located_at_the_module(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = "// a comment\n\nbuiltin.module {\n" + MODULE + "}\n"
    result = run(["-p", "fixture{action=fail-unlocated}"], capsys, stdin=source)
    assert (result.status, result.stderr) == (1, "<stdin>:3:1: error: something is wrong\n")


def test_ops_created_by_passes_fall_back_to_a_located_ancestor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = "// a comment\nbuiltin.module {\n" + MODULE + "}\n"
    result = run(["-p", "fixture{action=clone}"], capsys, stdin=source)
    assert (result.status, result.stderr) == (0, "<stdin>:2:1: warning: about the copy\n")
    result = run(["-p", "fixture{action=clone index=1}"], capsys, stdin=source)
    assert (result.status, result.stderr) == (0, "<stdin>:3:1: warning: about the copy\n")


def test_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ABI_OPT_TRACEBACK", raising=False)
    result = run(["-p", "fixture{action=crash}"], capsys)
    assert result.status == 1
    assert result.stderr == (
        "abi-opt: error: internal error: RuntimeError: boom "
        "(set ABI_OPT_TRACEBACK=1 for a traceback)\n"
    )


def test_internal_error_traceback_on_request(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ABI_OPT_TRACEBACK", "1")
    sys.stdin, old = io.TextIOWrapper(io.BytesIO(MODULE.encode())), sys.stdin
    try:
        status = FixtureMain.main(["-p", "fixture{action=crash}"])
    finally:
        sys.stdin = old
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("Traceback (most recent call last):")
    assert err.endswith("abi-opt: error: internal error: RuntimeError: boom\n")


def test_ir_broken_by_a_pass_is_a_located_verifier_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = run(["-p", "fixture{action=break}"], capsys)
    assert result.status == 1
    assert result.stderr == (
        "<stdin>:3:3: error: Expected arguments to have the same types as the function "
        "output types: expected [f32], got [i32]\n"
    )


@pytest.mark.parametrize(
    ("pipeline", "message"),
    [
        (
            "fixture{bogus=1}",
            "pass 'fixture' has no option 'bogus' (options: action, index, where)",
        ),
        (
            "fixture{index=}",
            "malformed pass pipeline 'fixture{index=}' at column 15: Unknown argument "
            "value, wrap argument in quotes to pass arbitrary string values",
        ),
        (
            'fixture{index="many"}',
            "invalid value '\"many\"' for option 'index' of pass 'fixture': expected an integer",
        ),
        (
            "fixture{action=explode}",
            "invalid value '\"explode\"' for option 'action' of pass 'fixture': expected one of "
            "'none', 'warn', 'fail', 'fail-unlocated', 'crash', 'break', 'clone'",
        ),
        (
            "fixture{index=1,2}",
            "invalid value '1,2' for option 'index' of pass 'fixture': expected an integer",
        ),
        (
            "fixture,,fixture",
            "malformed pass pipeline 'fixture,,fixture' at column 9: Expected pass name here",
        ),
    ],
)
def test_bad_pass_options(pipeline: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(["-p", pipeline], capsys)
    assert (result.status, result.stdout) == (1, "")
    assert result.stderr == f"abi-opt: error: {message}\n"


def test_help_lists_passes_and_pipelines(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        FixtureMain.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    from abi_compiler.passes.registry import PASSES, PIPELINES

    for name, entry in PASSES.items():
        line = next(line for line in out.splitlines() if line.split()[:1] == [name])
        assert entry.summary in line or name in PIPELINES
    for name in PIPELINES:
        assert any(line.split()[:1] == [name] for line in out.splitlines())
    assert "fixture" in out and "A pass for the driver's tests." in out


def test_named_pipeline_equals_its_passes(capsys: pytest.CaptureFixture[str]) -> None:
    from abi_compiler.passes.registry import PIPELINES

    for name, pipeline in PIPELINES.items():
        named = run([str(EXAMPLE), "-p", name], capsys)
        spelled = run([str(EXAMPLE), "-p", ",".join(pipeline.passes)], capsys)
        assert named.status == 0
        assert (named.stdout, named.stderr) == (spelled.stdout, spelled.stderr)


def test_verify_diagnostics_matches_pass_diagnostics(capsys: pytest.CaptureFixture[str]) -> None:
    source = "// expected-warning @+1 {{careful with first}}\n" + MODULE
    result = run(["--verify-diagnostics", "-p", "fixture{action=warn}"], capsys, stdin=source)
    assert (result.status, result.stderr) == (0, "")
    assert "func.func @first" in result.stdout


def test_verify_diagnostics_unknown_location(capsys: pytest.CaptureFixture[str]) -> None:
    source = "// expected-error @unknown {{something is wrong}}\nbuiltin.module {\n}\n"
    # The module is located, so @unknown does not match it.
    result = run(["--verify-diagnostics", "-p", "fixture{action=none}"], capsys, stdin=source)
    assert result.status == 1
    assert result.stderr == (
        '<stdin>:1:4: error: expected error "something is wrong" was not produced\n'
    )


def test_pipeline_table() -> None:
    """One table (`registry.PIPELINES`): the driver's pipelines are its entries, and each
    pipeline is also a pass without options that runs its members."""
    from abi_compiler.passes.registry import PASSES, PIPELINES, pipeline_pass

    tool = AbiOptMain(args=[])
    assert set(PIPELINES) == {"iree-abi-v1", "iree-abi-legacy"}
    for name, pipeline in PIPELINES.items():
        assert all(member in PASSES for member in pipeline.passes)
        info = tool.passes[name]
        assert (info.members, info.summary) == (",".join(pipeline.passes), pipeline.summary)
        cls = info.load()
        assert cls is pipeline_pass(name)
        assert (cls.name, cls.members, dataclasses.fields(cls)) == (name, pipeline.passes, ())


def test_pipeline_pass_runs_its_members() -> None:
    from abi_compiler.passes.registry import PASSES, PIPELINES, pipeline_pass
    from tests.lowering.helpers import parse, print_module

    source = EXAMPLE.read_text()
    for name, pipeline in PIPELINES.items():
        whole = parse(source)
        pipeline_pass(name)().apply(Context(), whole)
        members = parse(source)
        for member in pipeline.passes:
            PASSES[member].load()().apply(Context(), members)
        assert print_module(whole) == print_module(members)


def test_source_positions() -> None:
    source = SourceFile("f.mlir", "ab\ncd\n\nx")
    assert [source.line_col(i) for i in (0, 1, 2, 3, 5, 6, 7)] == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
        (2, 3),
        (3, 1),
        (4, 1),
    ]
    assert source.position(4) == "f.mlir:2:2"


def test_many_functions_error_located_in_the_last(capsys: pytest.CaptureFixture[str]) -> None:
    body = "".join(
        f"func.func @f{i}(%a: i32) -> i32 {{\n  func.return %a : i32\n}}\n" for i in range(2000)
    )
    body += "func.func @bad(%a: i32) -> f32 {\n  func.return %a : i32\n}\n"
    result = run(["--parse-all"], capsys, stdin=body)
    assert result.status == 1
    assert result.stderr.startswith("<stdin>:6002:3: error: Expected arguments")
