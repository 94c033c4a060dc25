"""`abi_compiler.iree.compile`: abi-opt in-process, then iree-compile; each tool's
failure is a `CompileError` with its diagnostics, warnings are `CompileWarning`s; and
the module's import names the extra when IREE is missing."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .conftest import needs_iree

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402

NAMED_FIRST = (
    'func.func @f(%a: i32 {abi.name = "x"}, %b: i32) -> i32 {\n  func.return %b : i32\n}\n'
)
MIXED_NAMES = (
    'func.func @f(%a: i32, %b: i32 {abi.name = "b"}) -> i32 {\n  func.return %b : i32\n}\n'
)
STRUCTURED = (
    "func.func @g(%t: tuple<i32, f32>) -> i32 {\n"
    "  %a = abi.tuple.get %t[0] : tuple<i32, f32> -> i32\n"
    "  func.return %a : i32\n"
    "}\n"
)


def test_abi_opt_errors_are_located() -> None:
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(NAMED_FIRST)
    assert caught.value.stage == "abi-opt"
    assert caught.value.diagnostics == (
        "<source>:1:40: error: named arguments must follow all positional arguments\n"
    )
    assert str(caught.value) == "abi-opt failed:\n" + caught.value.diagnostics


def test_a_text_source_is_named_as_asked() -> None:
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.lower("func.func @f(%a: i32 -> i32 {\n", name="model.mlir")
    assert caught.value.diagnostics == "model.mlir:1:22: error: ')' expected\n"


def test_a_file_source_is_named_by_its_path(tmp_path: Path) -> None:
    path = tmp_path / "model.mlir"
    path.write_text(NAMED_FIRST, encoding="utf-8")
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(path)
    assert caught.value.diagnostics == (
        f"{path}:1:40: error: named arguments must follow all positional arguments\n"
    )


def test_unknown_pipeline() -> None:
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile_vmfb(STRUCTURED, "no-such-pass")
    assert caught.value.diagnostics == (
        "abi-opt: error: unknown pass or pipeline 'no-such-pass' (see 'abi-opt --help')\n"
    )


def test_iree_compile_errors_carry_its_diagnostics() -> None:
    # Without a pipeline the `abi` ops reach IREE, which does not know them.
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile_vmfb(STRUCTURED, pipeline=None)
    assert caught.value.stage == "iree-compile"
    assert caught.value.diagnostics.startswith(
        "<stdin>:2:8: error: Dialect `abi' not found for custom op 'abi.tuple.get' \n"
    )


def test_warnings_are_compile_warnings() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = abi_iree.compile(MIXED_NAMES, "iree-abi-legacy", name="mixed.mlir")
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            abi_iree.CompileWarning,
            "mixed.mlir:1:1: warning: argument names dropped: a SIP root cannot mix "
            "positional and named arguments",
        )
    ]
    assert module.f.convention == "legacy"
    assert module.f(1, 2) == 2


def test_lower_is_abi_opt() -> None:
    lowered = abi_iree.lower(STRUCTURED)
    assert "func.func @g(%t: !util.list<?>) -> i32 attributes {iree.abi.stub" in lowered
    assert "func.func private @_g(" in lowered


def test_the_standard_streams_are_restored() -> None:
    streams = sys.stdin, sys.stdout, sys.stderr
    with pytest.raises(abi_iree.CompileError):
        abi_iree.lower(NAMED_FIRST)
    abi_iree.lower(STRUCTURED)
    assert (sys.stdin, sys.stdout, sys.stderr) == streams


def test_importing_without_iree_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['iree'] = None\n"
        "try:\n"
        "    import abi_compiler.iree\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output == (
        "abi_compiler.iree needs IREE's Python runtime (iree-base-runtime 3.13, with numpy "
        "and ml_dtypes): pip install 'abi-compiler[iree]'\n"
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        # a str was its characters, each given to iree-compile as an argument
        ({"extra_args": "--mlir-timing"}, "extra_args must be a sequence of str, not str"),
        ({"extra_args": [1]}, "extra_args must be a sequence of str, not of int"),
        ({"target": 3}, "target must be a str or a sequence of str, not int"),
    ],
)
def test_bad_compile_arguments(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError) as caught:
        abi_iree.compile_vmfb("func.func @f() {\n  return\n}\n", **arguments)
    assert str(caught.value) == message


def test_bad_load_arguments(v1_vmfb: bytes) -> None:
    with pytest.raises(TypeError, match=r"expected a \.vmfb path or bytes, got int"):
        abi_iree.load(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"results must be .numpy. or .device., not .host."):
        abi_iree.load(v1_vmfb, results="host")  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        abi_iree.load("/nonexistent/module.vmfb")
    with pytest.raises(AbiError, match="cannot load the compiled module: Error creating vm module"):
        abi_iree.load(b"not a module")  # IREE's own message


def test_the_readme_example() -> None:
    """docs/library.md, "Compile and call": examples/structured.mlir, compiled and called."""
    module = abi_iree.compile(Path(__file__).parents[2] / "examples" / "structured.mlir")
    weights, bias = np.eye(16, dtype=np.float32), np.zeros(16, np.float32)
    new_state, steps = module.update({"weights": weights, "bias": bias}, 41, [np.ones(3), 7])
    assert list(new_state) == ["bias", "weights"] and steps == 42
    assert np.array_equal(new_state["weights"], weights) and new_state["bias"].dtype == np.float32
    swapped = module.swap(([1.0, 2.0, 3.0, 4.0], [7, 8]))
    assert swapped[0].dtype == np.int32 and swapped[0].tolist() == [7, 8]
    assert swapped[1].dtype == np.float32 and swapped[1].tolist() == [1, 2, 3, 4]
    generated = module.generate([1, 2, 3], temperature=0.7, top_k=5)
    assert generated.dtype == np.int32 and generated.tolist() == [1, 2, 3]


def test_functions_hidden_from_function_names_are_not_reachable_by_name() -> None:
    # IREE adds `<name>$async` for torch input; a module built elsewhere may export one by
    # that name (`compile` refuses to: test_reserved_function_names).
    from iree.compiler import compile_str

    text = (
        'func.func @"main$async"(%a: i32) -> i32 {\n  func.return %a : i32\n}\n'
        "func.func @main(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"
    )
    module = abi_iree.load(compile_str(text, target_backends=["llvm-cpu"]))
    assert "main$async" in module.vm_module.function_names
    assert module.function_names == ["main"] and list(module) == ["main"]
    assert "main$async" not in module and "main" in module
    with pytest.raises(KeyError, match=r"exports no function 'main\$async'"):
        module["main$async"]
    with pytest.raises(AttributeError, match=r"exports no function 'main\$async'"):
        getattr(module, "main$async")
    assert module.main(3) == 3


def test_a_crash_of_iree_compile_is_one_line_after_its_diagnostics() -> None:
    from tests.frontends.test_iree_ir import INT8_TIMES_TWO  # crashes IREE 3.13's torch input

    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile_vmfb(INT8_TIMES_TWO, None, extra_args=["--iree-input-type=torch"])
    assert caught.value.stage == "iree-compile"
    lines = caught.value.diagnostics.splitlines()
    assert lines[0].startswith("<stdin>:3:8: error: unimplemented: for conversion to byte")
    assert lines[-1].startswith("iree-compile: crashed (SIG")
    assert lines[-1].endswith("), a defect of IREE")
    assert not any("Stack dump" in line or line.startswith(" #") for line in lines)


@pytest.mark.parametrize("name", ["__init", "__deinit", "__notify", "main$async", "global$w$get"])
def test_reserved_function_names(name: str) -> None:
    """A module exporting a function under a name IREE reserves does not load (the VM's
    life-cycle functions) or has a function nobody can call: refused when it is built,
    whether the name is the function's own or a mapping's key; renamed by a key, the
    function compiles."""
    text = f'func.func @"{name}"(%a: i32) -> i32 {{\n  func.return %a : i32\n}}\n'
    message = f"the function name '{name}' is one IREE reserves (the VM's __init, __deinit"
    for source in (text, {name: "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"}):
        with pytest.raises(AbiError) as caught:
            abi_iree.compile_vmfb(source)
        assert str(caught.value).startswith(message)
    assert abi_iree.compile({"main": text}).main(3) == 3


GENERAL_OFF = ("--iree-opt-generalize-matmul=false",)

# One row times a transposed weight (torch's `linear` in a decode step).
LINEAR_ROW = """
func.func @main(%x: tensor<1x256xf32>, %w: tensor<512x256xf32>) -> tensor<1x512xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %t = linalg.transpose ins(%w : tensor<512x256xf32>) outs(%e : tensor<256x512xf32>)
         permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<1x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<1x512xf32>) -> tensor<1x512xf32>
  %r = linalg.matmul ins(%x, %t : tensor<1x256xf32>, tensor<256x512xf32>)
         outs(%f : tensor<1x512xf32>) -> tensor<1x512xf32>
  return %r : tensor<1x512xf32>
}
"""


@pytest.mark.parametrize(("extra", "kernel"), [((), b"matvec_like"), (GENERAL_OFF, b"matmul_1x")])
def test_a_one_row_matmul_compiles_as_a_matrix_vector_product(
    extra: tuple[str, ...], kernel: bytes
) -> None:
    """`--iree-opt-generalize-matmul=true` (docs/calling.md, "Compiler flags"): IREE's
    code generator sees the product as a matrix-vector one (a dispatch named so) instead
    of a matmul tiled for many rows; its values do not change."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        vmfb = abi_iree.compile_vmfb(LINEAR_ROW, extra_args=extra)
    assert kernel in vmfb
    # Small integers: every sum is exact in float32, in any order.
    x = (np.arange(256, dtype=np.float32) % 7 - 3).reshape(1, 256)
    w = (np.arange(512 * 256, dtype=np.float32) % 5 - 2).reshape(512, 256)
    np.testing.assert_array_equal(abi_iree.load(vmfb).main(x, w), x @ w.T)


# One dispatch, no loop; and three doublings in an `scf.for` on the host.
AFFINE = """func.func @f(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %p = arith.mulf %x, %y : tensor<8xf32>
  %s = arith.addf %p, %x : tensor<8xf32>
  return %s : tensor<8xf32>
}
"""
DOUBLINGS = """func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<8xf32>) {
    %s = arith.addf %a, %a : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""
EXECUTE_INDIRECT = b"hal.device.queue.execute.indirect"


@pytest.mark.parametrize(
    ("text", "direct"),
    [
        (b"func.func @f() {\n  return\n}\n", False),
        (DOUBLINGS.encode(), True),
        (b'%r = "stablehlo.while"(%x) ({\n', True),  # generic form
        (b"cf.br ^bb1", True),
        (b"ML\xefR\x00", True),  # bytecode: not read
    ],
)
def test_a_module_with_a_host_loop_records_its_command_buffers_per_call(
    text: bytes, direct: bool
) -> None:
    from abi_compiler.calling.compiling import (
        COMPILE_FLAGS,
        DIRECT_COMMAND_BUFFERS,
        compile_flags,
        plain_flags,
    )

    expected = (*COMPILE_FLAGS, DIRECT_COMMAND_BUFFERS) if direct else COMPILE_FLAGS
    assert plain_flags(text) == compile_flags(text) == expected
    assert DIRECT_COMMAND_BUFFERS == "--iree-hal-indirect-command-buffers=false"
    assert DIRECT_COMMAND_BUFFERS not in COMPILE_FLAGS


@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_a_module_without_a_host_loop_replays_command_buffers_recorded_once(device: str) -> None:
    """docs/calling.md, "Compiler flags": IREE's reusable command buffers, recorded where
    the module is loaded, each call binding its own buffers (a result keeps its values
    after the next call); a module with a host loop records them per call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        affine, doublings = abi_iree.compile_vmfb(AFFINE), abi_iree.compile_vmfb(DOUBLINGS)
    assert EXECUTE_INDIRECT in affine
    assert EXECUTE_INDIRECT not in doublings
    function = abi_iree.load(affine, device=device).f
    xs = [np.arange(8, dtype=np.float32) + shift for shift in (0.0, 1.0, -4.0)]
    results = [function(x, 2 * x) for x in xs]
    for x, result in zip(xs, results, strict=True):
        np.testing.assert_array_equal(result, 2 * x * x + x)
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(abi_iree.load(doublings, device=device).f(x), 8 * x)
