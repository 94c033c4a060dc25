"""What the torch frontend writes on the linalg module IREE's torch input pipeline gives it
(`abi_compiler.frontends.iree_ir.lower_torch`), for iree-compile. docs/calling.md,
"What the torch frontend rewrites" and "Compiler flags".

* `hint_weight_products`: IREE's data-tiling hint (`DATA_TILING_HINT`) on each product
  of a tensor by a matrix of static shape (a `linear`'s weight). With data tiling on,
  IREE 3.13 packs those weights once, where they are loaded, and multiplies the packed
  tiles: a prompt's many-row products take about half the time of either the named or the
  generalized product, a decode step's one-row products a little less than the
  generalized ones. A function that carries a hint has only its hinted ops data-tiled
  (IREE's own choice, every contraction, is then not made): the products of two
  activations (a prompt's attention, with the number of keys dynamic) stay as they are,
  which IREE 3.13's data tiling cannot compile (vectors and stack frames beyond its
  limits). A weight of fewer than `MIN_HINTED_WEIGHT` elements is not hinted: each call
  would pack its product's rows in a dispatch of their own, which costs more than the
  tiles save on a product that small. `abi_compiler.calling.compiling.compile_flags`
  turns data tiling on for a module that carries the hint.

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["DATA_TILING_HINT", "MIN_HINTED_WEIGHT", "hint_weight_products"]

#: IREE's unit attribute that asks its data tiling for this op (and, present on any op of
#: a function, for the hinted ops only): ``linalg.matmul {iree.opt.data_tiling}``.
DATA_TILING_HINT = "iree.opt.data_tiling"

#: The fewest elements of a weight whose products are hinted (a 32 x 32 matrix): a
#: two-`linear` MLP of 8 rows (or 1), IREE's own invoke on prebuilt lists, data-tiled ÷
#: not, median of 5 interleaved rounds: 1.07-1.12 at 16 x 16, 0.99-1.05 at 24 x 24,
#: 0.95-1.00 at 32 x 32, 0.89-0.97 at 64 x 64, 0.81-0.87 at 256 x 256 (docs/calling.md,
#: "Compiler flags").
MIN_HINTED_WEIGHT = 1024

# The named products the torch pipeline writes (a `linear`, `matmul`, `bmm`).
_PRODUCTS = ("linalg.matmul", "linalg.batch_matmul")
# The element types hinted: IREE 3.13's data tiling packs an integer or bool product's
# operands with a padding of another type (`linalg.pack` refused: i8 against i1).
_FLOATS = {"f16", "bf16", "f32", "f64"}


def hint_weight_products(module: Any) -> int:
    """Put `DATA_TILING_HINT` on each `linalg.matmul` and `linalg.batch_matmul` of
    ``module`` (builtin tensors: `lower_torch`'s) whose second operand has a static shape
    of at least `MIN_HINTED_WEIGHT` elements and whose operands and result are of one
    floating-point type. The hint changes how IREE lays
    out and tiles the product, not what it computes (the bench's Llama gave bitwise the
    same logits with and without it). Returns how many ops were hinted."""
    from iree.compiler import ir

    found: list[Any] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name in _PRODUCTS and _weight_product(operation):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for operation in found:
        operation.attributes[DATA_TILING_HINT] = ir.UnitAttr.get(operation.context)
    return len(found)


def _weight_product(operation: Any) -> bool:
    from iree.compiler import ir

    if len(operation.operands) != 3 or len(operation.results) != 1:
        return False
    types = [ir.RankedTensorType(value.type) for value in operation.operands]
    elements = {str(kind.element_type) for kind in types}
    weight = types[1]
    if len(elements) != 1 or not elements <= _FLOATS or not weight.has_static_shape:
        return False
    return math.prod(weight.shape) >= MIN_HINTED_WEIGHT
