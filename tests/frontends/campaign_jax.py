"""A generated campaign comparing our call checks with JAX itself
(docs/calling.md#what-the-original-call-checks): random
exports with symbolic shapes (shared symbols, ``k*s + c`` dims, static dims, constraints)
called with consistent and mismatched shapes, and integer arguments of every dtype
called with Python ints in and out of range. For every call, the checks a loaded module
makes before the VM must refuse it exactly when `exported.call` (JAX's own check)
refuses it; an int exactly when numpy refuses it in the dtype (JAX takes no Python int
for a dtype other than its default one, the module takes those that fit).

The checks are the module's own: `abi_compiler.frontends.jax.program(exported)` is
lowered by `-p iree-abi-v1` (`abi_compiler.iree.lower`, in-process), the reflection of
`@main` (`iree.abi`, `abi.call`) is read from the lowered text as `abi-sig show` reads
it, and a `Function` is built from it exactly as `abi_compiler.iree.load` builds one
(`reflected_function`: the same `CallPlan` and argument packing, on a module that holds
no compiled code). Nothing is compiled by IREE unless ``--compile N``: then the first N
exports (and the int exports of the first N dtypes) are compiled
(`abi_compiler.iree.compile`) and called with every generated call: the compiled
function must refuse exactly the calls the reflected one refuses, and give the results
`exported.call` gives for the others (exactly for ints).

Needs JAX and IREE's runtime; not collected by pytest (tests/hardening/test_call_campaign.py
runs the framework-free campaign in the suite):

    PYTHONPATH=. python tests/frontends/campaign_jax.py [exports] [calls per export] [seed]
        [--compile N]
"""

from __future__ import annotations

import argparse
import functools
import random
import warnings
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from iree import runtime as iree_runtime
from jax import export

from abi_compiler import iree
from abi_compiler.calling.modules import Function
from abi_compiler.calling.vm import Marshal
from abi_compiler.errors import AbiError
from abi_compiler.frontends import jax as jax_frontend
from abi_compiler.signatures.module_signatures import read_functions

SYMBOLS = ("a", "b", "c")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def random_dim(rng: random.Random) -> str:
    kind = rng.choice(["static", "symbol", "symbol", "linear"])
    if kind == "static":
        return str(rng.randint(1, 4))
    symbol = rng.choice(SYMBOLS)
    if kind == "symbol":
        return symbol
    k, c = rng.randint(2, 3), rng.randint(0, 2)
    return f"{k}*{symbol}" + (f" + {c}" if c else "")


def random_export(rng: random.Random) -> tuple[Any, list[str], tuple[str, ...]] | None:
    specs = [
        ", ".join(random_dim(rng) for _ in range(rng.randint(0, 3)))
        for _ in range(rng.randint(1, 3))
    ]
    constraints: tuple[str, ...] = ()
    if rng.random() < 0.4:
        first, second = rng.sample(SYMBOLS, 2)
        constraints = (rng.choice([f"{first} >= {second}", f"{first} <= {rng.randint(2, 9)}"]),)
    scope = export.SymbolicScope(constraints)
    try:
        shapes = [export.symbolic_shape(spec, scope=scope) if spec else () for spec in specs]
        arguments = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in shapes]
        exported = export.export(jax.jit(lambda *xs: [x.sum() for x in xs]))(*arguments)
    except Exception:  # a combination JAX refuses to export (an unsolvable symbol)
        return None
    return exported, specs, constraints


def concrete(spec: str, values: dict[str, int]) -> tuple[int, ...]:
    if not spec:
        return ()
    return tuple(_size(dim, values) for dim in spec.split(", "))


def _size(dim: str, values: dict[str, int]) -> int:
    """A dim as `random_dim` writes it (``3``, ``b``, ``2*b + 1``) for the symbols' values."""
    total = 0
    for term in dim.split(" + "):
        factors = term.split("*")
        product = 1
        for factor in factors:
            product *= values[factor] if factor in values else int(factor)
        total += product
    return total


# -- our side: the function a loaded module would have ---------------------------------


@functools.cache
def _marshal() -> Marshal:
    """What a module loaded with `load`'s defaults marshals with, on a local CPU."""
    return Marshal(iree_runtime.get_device("local-sync"), False, "numpy")


def reflected_function(exported: Any) -> Function:
    """The `Function` `abi_compiler.iree.load` would make of ``exported`` compiled, built
    from the reflection `-p iree-abi-v1` writes on `@main` (the entries iree-compile
    carries into the module) on a module that holds no code: its `CallPlan` and packing
    are the loaded function's, only the VM call is missing."""
    program = jax_frontend.program(exported)
    lowered = iree.lower(program.mlir, name="<campaign>")
    [header] = [f for f in read_functions(lowered, "<campaign>") if f.name == program.function]
    module = SimpleNamespace(context=None, _marshal=_marshal(), types=None, results=None)
    function = Function(  # type: ignore[arg-type]
        module, SimpleNamespace(name=header.name, reflection=header.reflection)
    )
    assert function.convention == "v1" and function._call == function._call_original
    return function


def our_check(function: Function, args: list[Any]) -> tuple[bool, str]:
    """Whether the loaded function would take ``args``: what `Function.__call__` does
    before the VM (the plan binds and checks, then the VM argument list is packed)."""
    try:
        packed = function._plan.arguments(tuple(args), {})
        function._vm_arguments(packed, False)
    except AbiError as error:
        return False, str(error)
    return True, ""


def jax_accepts(exported: Any, args: list[Any]) -> bool:
    try:
        exported.call(*args)
    except (ValueError, TypeError):
        return False
    return True


# -- the compiled sample ---------------------------------------------------------------


class Compiled:
    """The first ``limit`` exports compiled and called with every generated call."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts = {
            "modules": 0,
            "calls": 0,
            "equal": 0,
            "different": 0,
            "refused": 0,
            "check_disagreements": 0,
        }

    def module(self, exported: Any) -> Any:
        if self.counts["modules"] >= self.limit:
            return None
        self.counts["modules"] += 1
        return iree.compile(exported, device="local-sync")

    def call(
        self,
        module: Any,
        exported: Any,
        args: list[Any],
        jax_args: list[Any] | None,
        accepted: bool,
        what: str,
    ) -> None:
        """Call the compiled function with ``args``: it must refuse them exactly when the
        reflected function does (``accepted``), and give the results `exported.call`
        gives for ``jax_args`` (None: JAX takes no such values) when it takes them."""
        try:
            ours = module.main(*args)
        except AbiError as error:
            if accepted:
                self.counts["check_disagreements"] += 1
                print(f"COMPILED REFUSES {what}: {error}")
            self.counts["refused"] += 1
            return
        if not accepted:
            self.counts["check_disagreements"] += 1
            print(f"COMPILED ACCEPTS {what}")
        self.counts["calls"] += 1
        if jax_args is None:
            return
        theirs = exported.call(*jax_args)
        try:
            assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
            for got, want in zip(
                jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True
            ):
                got, want = np.asarray(got), np.asarray(want)
                assert got.dtype == want.dtype, (got.dtype, want.dtype)
                if want.dtype.kind in "iub":
                    np.testing.assert_array_equal(got, want)
                else:
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
        except AssertionError as error:
            self.counts["different"] += 1
            print(f"DIFFERENT RESULT {what}: {error}")
            return
        self.counts["equal"] += 1


# -- the campaigns ---------------------------------------------------------------------


def dims_campaign(
    rng: random.Random, seed: int, exports: int, calls: int, compiled: Compiled
) -> dict[str, int]:
    counts = {"exports": 0, "skipped": 0, "accepted": 0, "refused": 0, "disagreements": 0}
    values_rng = np.random.default_rng(seed)  # the arrays' values: the shapes are rng's
    while counts["exports"] < exports:
        made = random_export(rng)
        if made is None:
            counts["skipped"] += 1
            continue
        exported, specs, constraints = made
        counts["exports"] += 1
        function = reflected_function(exported)
        module = compiled.module(exported)
        for _ in range(calls):
            values = {symbol: rng.randint(1, 6) for symbol in SYMBOLS}
            shapes = [list(concrete(spec, values)) for spec in specs]
            if rng.random() < 0.6:
                candidates = [(i, k) for i, shape in enumerate(shapes) for k in range(len(shape))]
                if candidates:
                    i, k = rng.choice(candidates)
                    shapes[i][k] = max(0, shapes[i][k] + rng.choice([-2, -1, 1, 2]))
            args = [values_rng.standard_normal(shape).astype(np.float32) for shape in shapes]
            ours, message = our_check(function, args)
            theirs = jax_accepts(exported, args)
            counts["accepted" if theirs else "refused"] += 1
            what = f"{specs} {constraints} {shapes}"
            if ours != theirs:
                counts["disagreements"] += 1
                print(f"DISAGREE {what}: ours {ours} ({message}), JAX {theirs}")
            if module is not None:
                compiled.call(module, exported, args, args, ours, what)
    return counts


def ints_campaign(rng: random.Random, calls: int, compiled: Compiled) -> dict[str, int]:
    counts = {"calls": 0, "accepted": 0, "refused": 0, "disagreements": 0}
    with jax.enable_x64(True):
        exports = {
            dtype: export.export(jax.jit(lambda x: x + 1))(jax.ShapeDtypeStruct((2,), dtype))
            for dtype in INT_DTYPES
        }
        functions = {dtype: reflected_function(exports[dtype]) for dtype in INT_DTYPES}
        modules = {dtype: compiled.module(exports[dtype]) for dtype in INT_DTYPES}
    for _ in range(calls):
        dtype = rng.choice(INT_DTYPES)
        info = np.iinfo(dtype)
        low, high = int(info.min), int(info.max)
        pick = [low, high, low - 1, high + 1, rng.randint(low, high), rng.randint(-(2**70), 2**70)]
        value = [rng.choice(pick), rng.choice(pick)]
        try:
            np.array(value, dtype)
            numpy_ok = all(low <= v <= high for v in value)
        except OverflowError:
            numpy_ok = False
        ours, message = our_check(functions[dtype], [value])
        counts["calls"] += 1
        counts["accepted" if numpy_ok else "refused"] += 1
        what = f"{dtype} {value}"
        if ours != numpy_ok:
            counts["disagreements"] += 1
            print(f"DISAGREE {what}: ours {ours} ({message}), numpy {numpy_ok}")
        module = modules[dtype]
        if module is not None:
            # Our module takes the Python ints; JAX takes them as an array of the dtype.
            jax_args = [np.array(value, dtype)] if numpy_ok else None
            with jax.enable_x64(True):
                compiled.call(module, exports[dtype], [value], jax_args, ours, what)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exports", type=int, nargs="?", default=100)
    parser.add_argument("calls", type=int, nargs="?", default=10)
    parser.add_argument("seed", type=int, nargs="?", default=29)
    parser.add_argument(
        "--compile",
        type=int,
        default=0,
        metavar="N",
        help="compile and call the first N exports (and N of the int exports)",
    )
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = random.Random(options.seed)
    dims = Compiled(options.compile)
    print(
        "dims:", dims_campaign(rng, options.seed, options.exports, options.calls, dims), flush=True
    )
    ints = Compiled(min(options.compile, len(INT_DTYPES)))
    print("ints:", ints_campaign(rng, options.exports * options.calls, ints), flush=True)
    if options.compile:
        print("compiled dims:", dims.counts)
        print("compiled ints:", ints.counts)


if __name__ == "__main__":
    main()
