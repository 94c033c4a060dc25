"""The pipeline library's entry points used directly: `run_pipeline` checks the types of
its arguments (a wrong one is a `TypeError` that names it, not a failure deep inside
xDSL, nor `123` read as 123 NUL bytes), and a `Pipeline` shared between threads keeps
refusing what it refused (its runs take turns: a run of carried text lets the shared
context accept unregistered dialects while it parses)."""

from __future__ import annotations

import io
import threading
from typing import Any

import pytest

from abi_compiler.pipeline import Pipeline, PipelineError, run_pipeline
from abi_compiler.pipeline import run as run_module
from abi_compiler.pipeline.run_diagnostics import SourceFile

TEXT = "func.func @f(%a: tuple<i32, f32>) -> i32 {\n  %0 = abi.tuple.get %a[0] : tuple<i32, f32> -> i32\n  return %0 : i32\n}\n"


@pytest.mark.parametrize(
    ("text", "pipeline", "message"),
    [
        (123, "", "run_pipeline: text must be MLIR as str or bytes, not int"),
        (None, "", "run_pipeline: text must be MLIR as str or bytes, not NoneType"),
        (TEXT, None, "run_pipeline: pipeline must be a str, not NoneType"),
        (TEXT, b"iree-abi-v1", "run_pipeline: pipeline must be a str, not bytes"),
        (TEXT, ["iree-abi-v1"], "run_pipeline: pipeline must be a str, not list"),
    ],
)
def test_run_pipeline_checks_its_arguments(text: Any, pipeline: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        run_pipeline(text, pipeline)
    assert str(caught.value) == message


def test_run_pipeline_checks_the_name() -> None:
    with pytest.raises(TypeError, match=r"^run_pipeline: name must be a str, not int$"):
        run_pipeline(TEXT, "", name=1)  # type: ignore[arg-type]


def test_run_pipeline_reads_str_and_bytes_alike() -> None:
    assert run_pipeline(TEXT, "iree-abi-v1") == run_pipeline(TEXT.encode(), "iree-abi-v1")
    assert run_pipeline(bytearray(TEXT.encode()), "iree-abi-v1") == run_pipeline(
        TEXT, "iree-abi-v1"
    )


# A generic-form module: the scanner does not carry it, so it is parsed whole with the
# pipeline's own setting for unregistered dialects.
REFUSED = '"builtin.module"() ({\n  "foo.bar"() : () -> ()\n}) : () -> ()\n'


def refuses(pipeline: Pipeline) -> bool:
    found = pipeline.run(SourceFile("refused.mlir", REFUSED), io.StringIO())
    return any("foo.bar is not registered" in item.message for item in found)


def test_a_shared_pipeline_keeps_refusing_unregistered_dialects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pipeline = Pipeline.parse("iree-abi-v1")
    assert refuses(pipeline)
    # Two runs of carried text in two threads, the second started while the first is
    # parsing. Before, the second saved the flag the first had set for its parse and put
    # it back after the first had restored it: unregistered dialects accepted for good.
    entered = [threading.Event(), threading.Event()]
    release = [threading.Event(), threading.Event()]
    calls: list[int] = []
    make_plan = run_module.make_plan

    def waiting_make_plan(*args: Any, **kwargs: Any) -> Any:
        turn = len(calls)
        calls.append(turn)
        entered[turn].set()
        release[turn].wait()
        return make_plan(*args, **kwargs)

    monkeypatch.setattr(run_module, "make_plan", waiting_make_plan)
    outputs: list[str] = []

    def run() -> None:
        sink = io.StringIO()
        assert pipeline.run(SourceFile("m.mlir", TEXT), sink) == []
        outputs.append(sink.getvalue())

    first = threading.Thread(target=run)
    first.start()
    entered[0].wait()
    second = threading.Thread(target=run)
    second.start()
    # The second run waits for its turn now (before, it went on to parse). Waiting longer
    # or shorter changes nothing below: the first run ends before the second parses.
    second_parsed_early = entered[1].wait(timeout=1.0)
    release[0].set()
    first.join()
    release[1].set()
    second.join()
    monkeypatch.setattr(run_module, "make_plan", make_plan)
    assert len(outputs) == 2 and outputs[0] == outputs[1]
    assert refuses(pipeline)
    assert not second_parsed_early
    with pytest.raises(PipelineError):
        run_pipeline(REFUSED, "iree-abi-v1")
