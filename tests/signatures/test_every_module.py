"""`abi-sig show` on every MLIR module of the test suite and the examples, and on what both
pipelines make of each: it lists the module's functions or says in one located line why
it cannot, never fails otherwise; after `iree-abi-v1` every function shows from its V1
`iree.abi`, after `iree-abi-legacy` from `f` + `sip` (or from an `iree.abi` the input
already had), and a lowered module compared with itself has no finding."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from abi_compiler.commands.opt_main import SPLIT_MARKER, AbiOptMain
from abi_compiler.signatures.module_signatures import FunctionSignature, ReadError, read_module
from abi_compiler.signatures.signature_diff import diff_modules

ROOT = Path(__file__).resolve().parent.parent.parent
MODULES = sorted(
    path
    for folder in ("tests", "examples")
    for path in (ROOT / folder).rglob("*.mlir")
    if "Output" not in path.parts
)
# A diagnostic of `abi-sig`: located in the input, or about the input as a whole.
DIAGNOSTIC = re.compile(r"(?:\S+:[0-9]+:[0-9]+|\S+|abi-sig): (?:error|note): [^\n]+")


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def chunks(path: Path) -> list[str]:
    """The modules of a file: its `// -----` chunks when its RUN lines split it."""
    text = path.read_text()
    return SPLIT_MARKER.split(text) if "--split-input-file" in text else [text]


def show(text: str, name: str) -> list[FunctionSignature] | None:
    """The functions of a module; None (after checking the diagnostic) if it is not one."""
    try:
        return read_module(text.encode(), name)
    except ReadError as error:
        for line in error.lines("abi-sig"):
            assert DIAGNOSTIC.fullmatch(line), line
        return None


def lower(text: str, pipeline: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> str | None:
    """`abi-opt -p <pipeline>`'s output for a module, None when abi-opt refuses it."""
    (folder / "input.mlir").write_text(text)
    status = AbiOptMain.main(
        [str(folder / "input.mlir"), "-p", pipeline, "-o", str(folder / "out.mlir")]
    )
    capsys.readouterr()  # diagnostics are abi-opt's business here
    return (folder / "out.mlir").read_text() if status == 0 else None


def test_there_are_modules() -> None:
    assert len(MODULES) > 80
    assert ROOT / "examples" / "structured.mlir" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_show_every_module_and_its_lowered_forms(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for index, text in enumerate(chunks(path)):
        name = f"{_name(path)}#{index}"
        readable = show(text, name) is not None
        for pipeline, source in (("iree-abi-v1", "iree.abi"), ("iree-abi-legacy", "legacy")):
            lowered = lower(text, pipeline, tmp_path, capsys)
            if lowered is None:
                continue
            functions = show(lowered, f"{name}:{pipeline}")
            if functions is None:
                # What the input had that show refused (a malformed reflection entry
                # the pipeline does not read) is still there.
                assert not readable, f"{name}: abi-sig cannot read what {pipeline} wrote"
                continue
            for function in functions:
                # An `iree.abi` the input had is kept by the legacy pipeline, and wins.
                expected = {source, "iree.abi"} if "iree.abi" in text else {source}
                assert function.source in expected, (name, pipeline, function)
            signatures = {function.name: function.signature for function in functions}
            assert diff_modules(signatures, signatures) == []
            assert show(lowered, "again") == functions
