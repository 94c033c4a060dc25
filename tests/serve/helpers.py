"""Modules the serving tests serve: the structured function of
tests/calling/test_original_call_vm.py (a namedtuple of a dict in, a dataclass and a dict
with a None out, a specialized constant, a dropped argument, a keyword), and a function
whose module faults on a negative input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from abi_compiler.signatures.module_signatures import FunctionSignature, read_module
from tests.calling.helpers import compile_quietly
from tests.calling.test_original_call_vm import TEXT as STRUCTURED

CHECKED = """
func.func @checked(%x: tensor<i32>) -> tensor<i32> {
  %v = tensor.extract %x[] : tensor<i32>
  %zero = arith.constant 0 : i32
  %ok = arith.cmpi sge, %v, %zero : i32
  cf.assert %ok, "x must not be negative"
  %one = arith.constant dense<1> : tensor<i32>
  %y = arith.addi %x, %one : tensor<i32>
  return %y : tensor<i32>
}
"""

SOURCE = STRUCTURED + CHECKED


def compiled(directory: Path) -> tuple[Path, list[FunctionSignature]]:
    """The module compiled to ``directory``/model.vmfb, and its functions as read."""
    path = directory / "model.vmfb"
    path.write_bytes(compile_quietly(SOURCE, vmfb=True))
    return path, read_module(path.read_bytes(), str(path))


def structured_request(step: int, rows: int, scale: float) -> dict[str, Any]:
    """A JSON request of @main, and (by `direct_arguments`) the same call in Python."""
    x = (np.arange(rows * 2, dtype=np.float32) + step).reshape(rows, 2)
    return {
        "args": [
            {"step": step, "params": {"w": [1.0, float(step)], "b": [3.0, 4.0]}},
            [],
            2,
            x.tolist(),
            [0.0, 0.0, 0.0, 0.0],
        ],
        "kwargs": {"scale": scale},
    }


def direct_result(module: Any, request: dict[str, Any]) -> Any:
    """The direct `module.main(…)` of a request made by `structured_request`."""
    from tests.calling.test_original_call_vm import EmptyState, State

    state, _, n, x, unused = request["args"]
    params = {k: np.array(v, np.float32) for k, v in state["params"].items()}
    return module.main(
        State(np.int32(state["step"]), params),
        EmptyState(),
        n,
        np.array(x, np.float32),
        np.array(unused, np.float32),
        scale=np.float32(request["kwargs"]["scale"]),
    )
