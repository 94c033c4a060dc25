"""`abi-opt -p iree-abi-v1` defers the wrappers of its last pass to printing: each is
built, verified, printed and dropped in turn (`opt_main.AbiOptMain._print`,
`WrapEntryPointsPass.prepare`), so that a large module never holds all of them. The
output must be the module the whole pass produces (`WrapEntryPointsPass.apply`),
printed as usual."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.passes.contract import AbiPass, BodyAccess, contract_of
from abi_compiler.passes.wrap_entry_points import WrapEntryPointsPass
from tests.lowering.generators import function_specs, function_texts
from tests.lowering.helpers import run_passes

EXAMPLES = 500 if os.environ.get("ABI_SLOW") else 30


def abi_opt_stdout(text: str, *args: str) -> str:
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "in.mlir")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = AbiOptMain.main([path, *args])
    assert status == 0, stderr.getvalue()
    return stdout.getvalue()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(specs=st.lists(function_specs(), min_size=1, max_size=4))
def test_deferred_wrappers_print_the_module_the_pass_makes(specs: list) -> None:
    text = "\n".join(
        line
        for i, spec in enumerate(specs)
        for line in function_texts(spec, name=f"f{i}", helper_name=f"h{i}")
    )
    for pipeline in (["iree-abi-v1"], ["materialize-iree-abi", "wrap-entry-points"]):
        expected = run_passes(text, pipeline).text
        # --parse-all: the in-process passes print every body from the IR.
        assert abi_opt_stdout(text, "--parse-all", "-p", ",".join(pipeline)) == expected


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(specs=st.lists(function_specs(), min_size=1, max_size=3))
def test_wrappers_of_one_shape_print_as_if_each_was_built(specs: list) -> None:
    """Wrappers of the same shape are printed from the first one's text with their own
    names (`_print_wrapper`): the same module as the pass builds, wrapper by wrapper.
    Names that must be quoted, or that contain the other's, included."""
    text = "\n".join(
        line
        for i, spec in enumerate(specs)
        for j, name in enumerate([f"f{i}", f"f{i}_f{i}", f'"f {i}"', f"g.f{i}"])
        for line in function_texts(spec, name=name, helper_name=f"h{i}_{j}")
    )
    # --parse-all: the in-process pass prints every body from the IR.
    expected = run_passes(text, ["iree-abi-v1"]).text
    assert abi_opt_stdout(text, "--parse-all", "-p", "iree-abi-v1") == expected


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(specs=st.lists(function_specs(), min_size=1, max_size=4))
def test_wrappers_written_as_text_or_built_print_the_same(specs: list) -> None:
    """Deferred wrappers are written as text (`passes/wrapper_text.py`) unless the pass is
    asked to build them (``ir-wrappers``): the output is the same, carried or not."""
    text = "\n".join(
        line
        for i, spec in enumerate(specs)
        for line in function_texts(spec, name=f"f{i}", helper_name=f"h{i}")
    )
    for carried in ([], ["--parse-all"]):
        written = abi_opt_stdout(text, *carried, "-p", "iree-abi-v1")
        built = abi_opt_stdout(
            text, *carried, "-p", "materialize-iree-abi,wrap-entry-points{ir-wrappers=true}"
        )
        assert written == built


def test_wrappers_are_built_when_top_level_values_are_numbered() -> None:
    """A parsed top-level op with results takes numbers in the module's scope, which the
    printer continues in every function: the wrappers are then built and printed by
    xDSL, not written from 0 (the pass's own output, numbers included)."""
    text = (
        '%0 = "test.op"() : () -> i32\n'
        "func.func @f(%t: tuple<i32, tensor<?xf32>>) -> tensor<?xf32> {\n"
        "  %x = abi.tuple.get %t[1] : tuple<i32, tensor<?xf32>> -> tensor<?xf32>\n"
        "  func.return %x : tensor<?xf32>\n}\n"
    )
    expected = run_passes(text, ["iree-abi-v1"], allow_unregistered=True).text
    assert "%1 = arith.constant 0 : index" in expected
    args = ("--parse-all", "--allow-unregistered-dialect", "-p", "iree-abi-v1")
    assert abi_opt_stdout(text, *args) == expected


def test_not_deferred_when_wrap_entry_points_is_not_last() -> None:
    text = (
        "func.func @f(%t: tuple<i32>) -> i32 {\n"
        "  %x = abi.tuple.get %t[0] : tuple<i32> -> i32\n  func.return %x : i32\n}\n"
    )
    pipeline = ["wrap-entry-points", "materialize-iree-abi"]
    assert (
        abi_opt_stdout(text, "--parse-all", "-p", ",".join(pipeline))
        == run_passes(text, pipeline).text
    )


def test_the_driver_reads_prepare_from_the_contract() -> None:
    """`prepare` is part of the pass contract: `wrap-entry-points` defers its wrappers,
    an `AbiPass` that does not override it and a foreign `ModulePass` are applied whole
    (and defer nothing)."""

    @dataclass(frozen=True)
    class Mark(ModulePass):
        name = "mark"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            op.attributes["marked"] = StringAttr(type(self).__name__)

    @dataclass(frozen=True)
    class AbiMark(AbiPass, Mark):
        pass

    for item in (Mark(), AbiMark()):
        module = ModuleOp([])
        contract = contract_of(item)
        assert contract.prepare(Context(), module) is None
        assert module.attributes["marked"] == StringAttr(type(item).__name__)
    assert contract_of(Mark())[:3] == (False, False, BodyAccess.ALL)
    wrap = WrapEntryPointsPass()
    assert contract_of(wrap).prepare == wrap.prepare
    assert callable(wrap.prepare(Context(), ModuleOp([])))
