"""`abi-sig show` and `diff` on compiled modules (`.vmfb`, through IREE's runtime): the
same signatures as the MLIR that was compiled, for V1, legacy and unreflected functions;
IREE's own functions (`$async`, `__init`) hidden; the errors without the runtime and on
a file that is not a module. Compiling needs IREE's compiler: those tests skip without
it (about a second per module)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from abi_compiler.signatures.module_signatures import (
    NEEDS_RUNTIME,
    FunctionSignature,
    ReadError,
    read_module,
)
from abi_compiler.signatures.signature_diff import diff_modules
from tests.calling.helpers import compile_quietly

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "examples" / "structured.mlir"

# No reflection: IREE gives these its own ABI, and `iree.abi.declaration` names the types.
FLAT = """
func.func @scale(%a: tensor<?x4xf32>, %s: f32) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
func.func @count(%l: !util.list<?>, %n: i64) -> (i32, tensor<2xi8>) {
  %c = arith.constant 0 : i32
  %t = arith.constant dense<1> : tensor<2xi8>
  return %c, %t : i32, tensor<2xi8>
}
"""

# torch input: IREE adds `main$async` (coarse fences) next to `main`, and neither carries
# a declaration: only the VM calling convention says what they take.
TORCH = """
func.func @main(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  return %arg0 : !torch.vtensor<[4],f32>
}
"""


def compile_vmfb(source: str | Path, pipeline: str | None) -> bytes:
    return compile_quietly(source, pipeline, vmfb=True)


def visible(functions: list[FunctionSignature]) -> list[FunctionSignature]:
    return [function for function in functions if function.caller_visible]


def made_here(functions: list[FunctionSignature]) -> list[FunctionSignature]:
    """The functions of a module `compile_vmfb` made, without its `abi.provenance` (which
    its MLIR has not), after checking that every one has it."""
    assert all(function.provenance is not None for function in functions)
    return [dataclasses.replace(function, provenance=None) for function in functions]


def lowered(source: Path, pipeline: str) -> list[FunctionSignature]:
    from abi_compiler import iree as abi_iree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        text = abi_iree.lower(source, pipeline)
    return read_module(text.encode(), "lowered.mlir")


@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
def test_a_vmfb_shows_what_its_mlir_shows(pipeline: str) -> None:
    compiled = made_here(visible(read_module(compile_vmfb(EXAMPLE, pipeline), "structured.vmfb")))
    assert compiled == lowered(EXAMPLE, pipeline)
    source = "iree.abi" if pipeline == "iree-abi-v1" else "legacy"
    assert {function.source for function in compiled} == {source}
    assert (
        diff_modules(
            {f.name: f.signature for f in compiled},
            {f.name: f.signature for f in lowered(EXAMPLE, pipeline)},
        )
        == []
    )


def test_v1_lines() -> None:
    compiled = read_module(compile_vmfb(EXAMPLE, "iree-abi-v1"), "structured.vmfb")
    assert [function.line() for function in visible(compiled)] == [
        "predict(tensor<?x224x224x3xf32>, f32) -> (tensor<?x1000xf32>)",
        "swap(tuple[tensor<4xf32>, tensor<?xi32>]) -> (tensor<?xi32>, tensor<4xf32>)",
        "update(dict{bias: tensor<16xf32>, weights: tensor<16x16xf32>}, i64, list<?>) -> "
        "(dict{bias: tensor<16xf32>, weights: tensor<16x16xf32>}, i64)",
        "generate(tensor<?xi32>, temperature: f32, top_k: i32) -> (tensor<?xi32>)",
    ]


def test_legacy_lines() -> None:
    compiled = read_module(compile_vmfb(EXAMPLE, "iree-abi-legacy"), "structured.vmfb")
    assert [function.line() for function in visible(compiled)] == [
        "predict(tensor<?x224x224x3xf32>, f32) -> (tensor<?x1000xf32>)",
        "swap(list[tensor<4xf32>, tensor<?xi32>]) -> (tensor<?xi32>, tensor<4xf32>)",
        "update(dict{bias: tensor<16xf32>, weights: tensor<16x16xf32>}, i64, list<?>) -> "
        "(dict{bias: tensor<16xf32>, weights: tensor<16x16xf32>}, i64)",
        # A SIP root cannot mix positional and named arguments: the names are dropped.
        "generate(tensor<?xi32>, f32, i32) -> (tensor<?xi32>)",
    ]


def test_unreflected_functions_from_iree_declarations() -> None:
    compiled = made_here(visible(read_module(compile_vmfb(FLAT, None), "flat.vmfb")))
    assert [function.line() for function in compiled] == [
        "scale(tensor<?x4xf32>, f32) -> (tensor<?x4xf32>)  (no reflection)",
        "count(list<?>, i64) -> (i32, tensor<2xi8>)  (no reflection)",
    ]
    assert compiled == read_module(FLAT.encode(), "flat.mlir")


def test_async_variants_and_initializers_are_not_caller_visible() -> None:
    torch = read_module(compile_vmfb(TORCH, None), "torch.vmfb")
    assert [(f.line(), f.caller_visible) for f in torch] == [
        ("main$async(?, ?, ?) -> (?)  (no reflection)", False),
        ("main(?) -> (?)  (no reflection)", True),
    ]
    # The example's constants make IREE write a VM initializer.
    example = read_module(compile_vmfb(EXAMPLE, "iree-abi-v1"), "structured.vmfb")
    assert [(f.line(), f.caller_visible) for f in example if f.name.startswith("__")] == [
        ("__init() -> ()  (no reflection)", False)
    ]


@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
def test_diff_of_two_compiled_versions(pipeline: str) -> None:
    version2 = EXAMPLE.read_text().replace("tensor<16x16xf32>", "tensor<16x32xf32>")
    old = {f.name: f.signature for f in read_module(compile_vmfb(EXAMPLE, pipeline), "a")}
    new = {f.name: f.signature for f in read_module(compile_vmfb(version2, pipeline), "b")}
    assert [finding.line() for finding in diff_modules(old, new)] == [
        "breaking: update: argument 0['weights']: shape 16x16 -> 16x32",
        "breaking: update: result[0]['weights']: shape 16x16 -> 16x32",
    ]


def test_diff_across_formats(tmp_path: Path) -> None:
    version2 = EXAMPLE.read_text().replace("tensor<16x16xf32>", "tensor<16x32xf32>")
    # The command line, across formats: the old version as MLIR, the new compiled.
    (tmp_path / "old.mlir").write_text(EXAMPLE.read_text())
    (tmp_path / "new.vmfb").write_bytes(compile_vmfb(version2, "iree-abi-v1"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "abi_compiler.commands.opt_main",
            "-p",
            "iree-abi-v1",
            "old.mlir",
            "-o",
            "v1.mlir",
        ],
        cwd=tmp_path,
        check=True,
    )
    done = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.sig_main", "diff", "v1.mlir", "new.vmfb"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "breaking: update: argument 0['weights']: shape 16x16 -> 16x32",
        "breaking: update: result[0]['weights']: shape 16x16 -> 16x32",
    ]


# An f8 tensor and a TensorFlow-style `__call__`: the records say `f8` for every 8-bit
# float, IREE's declaration of the function says which.
F8 = """
func.func @__call__(%a: tensor<4xf8E4M3FN>, %t: tuple<tensor<2xf32>, i32>) -> tensor<4xf8E4M3FN> {
  return %a : tensor<4xf8E4M3FN>
}
"""


def test_diff_of_element_types_records_do_not_name() -> None:
    old = read_module(compile_vmfb(F8, "iree-abi-v1"), "old.vmfb")
    new = read_module(compile_vmfb(F8.replace("f8E4M3FN", "f8E5M2"), "iree-abi-v1"), "new")
    assert [(f.line(), f.caller_visible) for f in old] == [
        ("__call__(tensor<4xf8>, tuple[tensor<2xf32>, i32]) -> (tensor<4xf8>)", True)
    ]
    findings = diff_modules({f.name: f.signature for f in old}, {f.name: f.signature for f in new})
    assert [finding.line() for finding in findings] == [
        "breaking: __call__: argument 0: dtype f8E4M3FN -> f8E5M2",
        "breaking: __call__: result: dtype f8E4M3FN -> f8E5M2",
    ]
    assert (
        diff_modules({f.name: f.signature for f in old}, {f.name: f.signature for f in old}) == []
    )


def test_not_a_module() -> None:
    pytest.importorskip("iree.runtime")
    with pytest.raises(ReadError) as caught:
        read_module(b"PK\x03\x04 not an archive", "broken.vmfb")
    (line,) = caught.value.lines("abi-sig")
    # IREE's own words follow (they name its source files).
    assert line.startswith("broken.vmfb: error: cannot load the compiled module: ")
    assert "INVALID_ARGUMENT" in line


def test_without_the_runtime(tmp_path: Path) -> None:
    # IREE's runtime hidden from the import system: the error names the extra.
    (tmp_path / "m.vmfb").write_bytes(b"PK\x03\x04 as any .vmfb starts")
    code = (
        "import sys; sys.modules['iree.runtime'] = None; sys.modules['iree'] = None; "
        "from abi_compiler.commands import sig_main; sys.exit(sig_main.main(['show', 'm.vmfb']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, check=False
    )
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == f"m.vmfb: error: {NEEDS_RUNTIME}\n"
    assert NEEDS_RUNTIME == (
        "input is a compiled IREE module: install abi-compiler[iree] (IREE's runtime) to read it"
    )
