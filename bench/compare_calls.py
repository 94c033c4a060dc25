"""Per-call cost of `abi_compiler.runtime` and `abi_compiler.iree` against another commit's,
in one process: the other commit's `runtime.py` and `iree.py` are loaded under other
module names (sharing every other module of this tree, so only those two files may
differ), and both run the cases of `bench_runtime.py` (pack + unpack, V1 and legacy) and
of `bench_iree_invoker.py` (``dict8``, ``flat4`` on ``local-task`` and ``local-sync``,
with IREE's own `FunctionInvoker` as the yardstick). Rounds alternate the two versions;
each figure is the best round, and the ratio is this tree's / the other's in the same
run (below 1.0: faster). Not part of the test suite:

    python bench/compare_calls.py --base main [--rounds 15] [--calls 2000]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tarfile
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_iree_invoker
import bench_runtime
import numpy as np

import abi_compiler.runtime as this_runtime

ROOT = Path(__file__).resolve().parents[1]


def _extract(revision: str, directory: Path) -> Path:
    """The files of ``revision`` (a git revision of this repository) under ``directory``."""
    archive = directory / "base.tar"
    with archive.open("wb") as stream:
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision, "abi_compiler"], stdout=stream, check=True
        )
    with tarfile.open(archive) as tar:
        tar.extractall(directory, filter="data")
    return directory / "abi_compiler"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _best(functions: dict[str, Callable[[], object]], rounds: int, calls: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(rounds):
        for tag, function in functions.items():
            seconds = timeit.Timer(function).timeit(calls) / calls
            best[tag] = min(best.get(tag, seconds), seconds)
    return best


def compare_runtime(base: ModuleType, rounds: int) -> None:
    print("runtime: pack + unpack, µs per call")
    for case in bench_runtime._cases():
        results = case.vm_results()
        f, sip, args, kwargs, flat_results = bench_runtime._legacy_form(case)
        for form in ("v1", "legacy"):
            functions: dict[str, Callable[[], object]] = {}
            for tag, module in (("base", base), ("this", this_runtime)):
                if form == "v1":
                    functions[tag] = _v1_call(module, case, results)
                else:
                    functions[tag] = _legacy_call(module, f, sip, args, kwargs, flat_results)
            calls, _ = timeit.Timer(functions["base"]).autorange()
            best = _best(functions, rounds, calls)
            print(
                f"  {case.name[:40]:40} {form:6}  base {best['base'] * 1e6:7.1f}  "
                f"this {best['this'] * 1e6:7.1f}  this/base {best['this'] / best['base']:.2f}"
            )


def _v1_call(module: ModuleType, case: Any, results: list[Any]) -> Callable[[], object]:
    return lambda: (
        module.pack(case.abi, *case.args, **case.kwargs),
        module.unpack(case.abi, results),
    )


def _legacy_call(
    module: ModuleType, f: str, sip: str, args: Any, kwargs: Any, results: list[Any]
) -> Callable[[], object]:
    return lambda: (
        module.pack_legacy(f, sip, *args, **kwargs),
        module.unpack_legacy(f, sip, results),
    )


def compare_iree(base_iree: ModuleType, this_iree: ModuleType, rounds: int, calls: int) -> None:
    from iree import runtime as rt

    vmfb = this_iree.compile_vmfb(bench_iree_invoker.SOURCE)
    tensors = {k: np.arange(4, dtype=np.float32) + i for i, k in enumerate(bench_iree_invoker.KEYS)}
    flat = [tensors[k] for k in bench_iree_invoker.KEYS[:4]]
    print("abi_compiler.iree: µs per call (IREE's FunctionInvoker as the yardstick)")
    for device in ("local-task", "local-sync"):
        base = base_iree.load(vmfb, device=device)
        this = this_iree.load(vmfb, device=device)
        config = rt.Config(device=rt.get_device(device))
        context = rt.SystemContext(config=config)
        context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
        theirs = context.modules.module
        for name, make in (
            ("dict8", lambda m: lambda: m.dict8(tensors, 3, 1.5)),
            ("flat4", lambda m: lambda: m.flat4(*flat)),
        ):
            best = _best(
                {"base": make(base), "this": make(this), "iree": make(theirs)}, rounds, calls
            )
            print(
                f"  {device:10} {name}  base {best['base'] * 1e6:6.1f} "
                f"({best['base'] / best['iree']:.2f} x IREE)  this {best['this'] * 1e6:6.1f} "
                f"({best['this'] / best['iree']:.2f} x IREE)  this/base "
                f"{best['this'] / best['base']:.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="git revision to compare against")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000, help="calls per round (iree)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        package = _extract(args.base, Path(directory))
        base_runtime = _load("abi_compiler.runtime_base", package / "runtime.py")
        print(f"base: {args.base}; this tree: {ROOT}")
        compare_runtime(base_runtime, args.rounds)
        try:
            from abi_compiler import iree as this_iree
        except ImportError:
            print("abi_compiler.iree: IREE's runtime is not installed, skipped")
            return
        # The base iree.py binds the base runtime's functions at import.
        sys.modules["abi_compiler.runtime"] = base_runtime
        try:
            base_iree = _load("abi_compiler.iree_base", package / "iree.py")
        finally:
            sys.modules["abi_compiler.runtime"] = this_runtime
        compare_iree(base_iree, this_iree, args.rounds, args.calls)


if __name__ == "__main__":
    main()
