"""What running IREE's torch input pipeline in a child process (``iree-opt``, where a
crash of it cannot take the caller's process) costs, against running it in-process through
IREE's MLIR bindings (what the torch frontend did before), in the same run.

The program is the MLP of tests/frontends/generate/models.py. Three measurements, each the
median of ``--rounds`` rounds, the two ways interleaved:

* lowering: `iree_ir.lower_torch` alone, on a fresh iree-turbine import;
* frontend: `abi_compiler.frontends.torch.program(program)` (import, lowering, structure);
* compile: `abi_compiler.iree.compile(program)` (the frontend, abi-opt, iree-compile, load).

Both ways give the same MLIR text (checked first).

    python bench/bench_lowering.py [--rounds 20]

Needs torch and iree-turbine (the `torch` extra). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch
from iree.compiler import ir, passmanager
from iree.turbine import aot

from abi_compiler import iree as abi_iree
from abi_compiler.attribute_names import ABI_STUB
from abi_compiler.frontends import iree_ir
from abi_compiler.frontends import torch as torch_frontend
from tests.frontends.generate import models

Lowering = Callable[[Any], Any]


def in_process(module: Any) -> Any:
    """The lowering as the frontend ran it before: in place, in the caller's process."""
    op = module.operation
    with op.context:
        marked = []
        for func in iree_ir.functions(module):
            if ABI_STUB not in func.attributes:
                func.attributes[ABI_STUB] = ir.UnitAttr.get()
                marked.append(func)
        passmanager.PassManager.parse(iree_ir._TORCH_PIPELINE).run(op)
        for func in marked:
            del func.attributes[ABI_STUB]
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    model, args, kwargs = models.torch_mlp()
    program = torch.export.export(model, args, kwargs)

    def with_lowering(lowering: Lowering, run: Callable[[], Any]) -> float:
        saved = torch_frontend.lower_torch
        torch_frontend.lower_torch = lowering
        try:
            start = time.perf_counter()
            run()
            return time.perf_counter() - start
        finally:
            torch_frontend.lower_torch = saved

    def lowering(lower: Lowering) -> float:
        module = aot.export(program).mlir_module
        start = time.perf_counter()
        lower(module)
        return time.perf_counter() - start

    def frontend(lower: Lowering) -> float:
        return with_lowering(lower, lambda: torch_frontend.program(program))

    def compile_(lower: Lowering) -> float:
        return with_lowering(lower, lambda: abi_iree.compile(program))

    texts = []
    for lower in (in_process, iree_ir.lower_torch):
        saved = torch_frontend.lower_torch
        torch_frontend.lower_torch = lower
        texts.append(torch_frontend.program(program).mlir)
        torch_frontend.lower_torch = saved
    assert texts[0] == texts[1], "the two lowerings give different MLIR"

    for name, measure in (("lowering", lowering), ("frontend", frontend), ("compile", compile_)):
        before: list[float] = []
        child: list[float] = []
        measure(in_process)
        measure(iree_ir.lower_torch)
        for _ in range(options.rounds):
            before.append(measure(in_process))
            child.append(measure(iree_ir.lower_torch))
        a, b = statistics.median(before), statistics.median(child)
        print(
            f"{name}: in-process {a * 1000:.1f} ms, child process {b * 1000:.1f} ms "
            f"(+{(b - a) * 1000:.1f} ms, ratio {b / a:.2f})"
        )


if __name__ == "__main__":
    main()
