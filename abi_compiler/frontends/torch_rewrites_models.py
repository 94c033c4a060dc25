"""Rewrites of the torch-dialect module iree-turbine imports that transformers' decoder-only
architectures needed (`TorchExportableModuleForDecoderOnlyLM`'s programs: Llama, GPT-2,
Qwen2/3, Mistral, Phi-3, Gemma 1/2/3): each spells an op whose IREE 3.13 lowering gives
other numbers than eager torch as ops that give eager's, to float rounding. One section per
rewrite, each naming the upstream gap; the torch frontend runs
them with the others. `unknown_operators` names what no rewrite gives IREE (a mixture of
experts' `aten.histc`), for the frontend's refusal. docs/calling.md, "What the torch
frontend rewrites" and "Architectures".

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import math
import re
from typing import Any

from abi_compiler.frontends.torch_rewrites import OpBuilder, constant_value, vtensor_dims

__all__ = ["GELU", "gelu_tanh_as_math", "unknown_operators"]


# --- the tanh approximation of GELU ---------------------------------------------------

# `aten.gelu(x, approximate="tanh")` (transformers' `gelu_pytorch_tanh`, the MLP activation
# of every Gemma): torch-mlir's linalg lowering (lib/Conversion/TorchToLinalg/
# Uncategorized.cpp) writes sqrt(2/pi) as 0.7977240352174656 where it is
# 0.7978845608028654, so IREE's GELU is off by up to 5e-5 at |x| ≈ 2 (eager's float32
# rounding: 4e-7), which a Gemma's logits carry (1e-5 against eager's 1e-7). Written out
# as torch's CPU kernel computes it, with torch's own `tanh`, it is eager's to rounding.
GELU = "torch.aten.gelu"
# sqrt(2) * (2 / sqrt(pi)) / 2 and the cube's coefficient, as torch's kernel spells them.
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5
_GELU_KAPPA = 0.044715
# The element type rewritten: torch computes half precision in float32 and rounds once,
# which ops of the tensor's own type would not do, and IREE's llvm-cpu links no float64
# `tanh` (`undefined symbol: tanh`), with or without the rewrite.
_GELU_ELEMENTS = ("f32",)


def gelu_tanh_as_math(module: Any) -> int:
    """Rewrite, in a torch-dialect module (iree-turbine's), each `aten.gelu(x, "tanh")` of
    an f32 tensor as ``0.5 * x * (1 + tanh(beta * (x + kappa * (x * x * x))))``
    (``beta`` = sqrt(2/pi), ``kappa`` = 0.044715; the order of torch's CPU kernel): the
    same result type and location. Returns how many ops were rewritten; a GELU of another
    element type, and the exact (`"none"`) one, stay as they are."""
    from iree.compiler import ir

    found: list[Any] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name == GELU and _is_tanh_gelu(operation):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for operation in found:
        with operation.context, operation.location:
            build = OpBuilder(ir.InsertionPoint(operation))
            x = operation.operands[0]
            kind = str(x.type)
            cube = build.op("torch.aten.mul.Tensor", kind, x, x)
            cube = build.op("torch.aten.mul.Tensor", kind, cube, x)
            inner = build.op("torch.aten.mul.Scalar", kind, cube, build.number(_GELU_KAPPA))
            inner = build.op("torch.aten.add.Tensor", kind, x, inner, build.integer(1))
            inner = build.op("torch.aten.mul.Scalar", kind, inner, build.number(_GELU_BETA))
            tanh = build.op("torch.aten.tanh", kind, inner)
            one = build.number(1.0)
            plus = build.op("torch.aten.add.Scalar", kind, tanh, one, build.integer(1))
            half = build.op("torch.aten.mul.Scalar", kind, x, build.number(0.5))
            result = build.op("torch.aten.mul.Tensor", kind, half, plus)
            operation.results[0].replace_all_uses_with(result)
            operation.erase()
    return len(found)


def _is_tanh_gelu(operation: Any) -> bool:
    """Whether a `torch.aten.gelu` is the tanh approximation of an f32 tensor whose result
    has the operand's type."""
    operands = list(operation.operands)
    if len(operands) != 2 or len(operation.results) != 1:
        return False
    x, approximate = operands
    if str(x.type) != str(operation.results[0].type) or vtensor_dims(x)[1] not in _GELU_ELEMENTS:
        return False
    return constant_value(approximate, "torch.constant.str") == '"tanh"'


# --- ops torch-mlir has no definition of: named -----------------------------------------

# An ATen op torch-mlir does not define is imported as `torch.operator "torch.aten.<name>"`,
# which IREE's torch pipeline refuses with `failed to legalize operation 'torch.operator'`
# and a page of notes (a Mixtral's router counts tokens per expert with `aten.histc`). When
# the lowering fails on such ops, the frontend names them and where the program calls them.
_FRAME = re.compile(r'"([^"]+)":(\d+):\d+')


def unknown_operators(module: Any) -> str:
    """A message naming each distinct op of ``module`` (torch dialect) that torch-mlir
    has no definition of (`torch.operator`), with the first source line the import
    recorded for it; "" when there is none."""
    from iree.compiler import ir

    found: dict[str, str] = {}

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name == "torch.operator":
            name = ir.StringAttr(operation.attributes["name"]).value.removeprefix("torch.")
            frame = _FRAME.search(str(operation.location))
            found.setdefault(name, f" ({frame.group(1)}:{frame.group(2)})" if frame else "")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if not found:
        return ""
    named = ", ".join(f"{name}{where}" for name, where in found.items())
    return (
        f"the program calls {named}, which IREE's torch lowering has no op for: "
        'export the model without it (docs/calling.md, "Architectures")'
    )
