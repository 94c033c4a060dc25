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

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abi_compiler.driver.opt_main import AbiOptMain
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
