"""What the torch frontend writes on the linalg module IREE's torch input pipeline gives it
(`abi_compiler.frontends.iree_ir.lower_torch`), for iree-compile. docs/calling.md,
"What the torch frontend rewrites" and "Compiler flags".

* `hint_weight_products`: IREE's data-tiling hint (`DATA_TILING_HINT`) on each product
  of a tensor by a matrix of static shape (a `linear`'s weight). With data tiling on,
  IREE 3.13 packs those weights once, where they are loaded, and multiplies the packed
  tiles: a prompt's many-row products take about half the time of either the named or the
  generalized product, a decode step's one-row products a little less than the
  generalized ones. A function that carries a hint has only its hinted ops data-tiled
  (IREE's own choice, every contraction, is then not made). A weight of fewer than
  `MIN_HINTED_WEIGHT` elements is not hinted: each call would pack its product's rows in a
  dispatch of their own, which costs more than the tiles save on a product that small.
  `abi_compiler.calling.compiling.compile_flags` turns data tiling on for a module that
  carries the hint.
* `hint_activation_products`: the hint on the products of two activations of many rows
  (a prompt's attention: the scores ``Q·Kᵀ`` and their product by ``V``), each operand
  passed through a compute barrier of IREE's (`iree_tensor_ext.compute_barrier.start`)
  and its result through another (`.end`), and marked `ACTIVATION_PRODUCT`. The barriers
  keep IREE from fusing the elementwise ops around the product (the mask's `where`, the
  softmax's division) into its data-tiled dispatch, which IREE 3.13 cannot compile; the
  mark lets `abi_compiler.calling.compiling.compile_vmfb` take these hints back alone
  where iree-compile still fails. A product of fewer than `MIN_HINTED_ROWS` rows (a
  decode step's) is left as it is.

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = [
    "ACTIVATION_PRODUCT",
    "DATA_TILING_HINT",
    "MIN_HINTED_ROWS",
    "MIN_HINTED_WEIGHT",
    "hint_activation_products",
    "hint_weight_products",
]

#: IREE's unit attribute that asks its data tiling for this op (and, present on any op of
#: a function, for the hinted ops only): ``linalg.matmul {iree.opt.data_tiling}``.
DATA_TILING_HINT = "iree.opt.data_tiling"

#: The fewest elements of a weight whose products are hinted (a 32 x 32 matrix): a
#: two-`linear` MLP of 8 rows (or 1), IREE's own invoke on prebuilt lists, data-tiled ÷
#: not, median of 5 interleaved rounds: 1.07-1.12 at 16 x 16, 0.99-1.05 at 24 x 24,
#: 0.95-1.00 at 32 x 32, 0.89-0.97 at 64 x 64, 0.81-0.87 at 256 x 256 (docs/calling.md,
#: "Compiler flags").
MIN_HINTED_WEIGHT = 1024

#: Our unit attribute on a product of two activations that `hint_activation_products`
#: hinted: ``linalg.batch_matmul {abi.activation_product, iree.opt.data_tiling}``.
ACTIVATION_PRODUCT = "abi.activation_product"

#: The fewest rows (the left operand's, static) of a product of two activations that is
#: hinted: a decode step's one or two rows per head stay as they are (its products
#: are matrix-vector products, which packing would only slow); a dynamic number of rows
#: (a prompt's) is hinted.
MIN_HINTED_ROWS = 16

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

    found = _products(module, _weight_product)
    for operation in found:
        operation.attributes[DATA_TILING_HINT] = ir.UnitAttr.get(operation.context)
    return len(found)


def _products(module: Any, accepts: Callable[[list[Any]], bool]) -> list[Any]:
    """The `_PRODUCTS` ops of ``module`` (two operands and an init, one result) whose
    operands and result are of one type of `_FLOATS` and whose operand types (ranked
    tensor types: left, right, init) ``accepts``."""
    from iree.compiler import ir

    found: list[Any] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if (
            operation.name in _PRODUCTS
            and len(operation.operands) == 3
            and len(operation.results) == 1
        ):
            types = [ir.RankedTensorType(value.type) for value in operation.operands]
            elements = {str(kind.element_type) for kind in types}
            if len(elements) == 1 and elements <= _FLOATS and accepts(types):
                found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _weight_product(types: list[Any]) -> bool:
    """A product by a weight: a right operand of a static shape, of at least
    `MIN_HINTED_WEIGHT` elements."""
    weight = types[1]
    return bool(weight.has_static_shape) and math.prod(weight.shape) >= MIN_HINTED_WEIGHT


def hint_activation_products(module: Any) -> int:
    """Put `DATA_TILING_HINT` and `ACTIVATION_PRODUCT` on each `linalg.matmul` and
    `linalg.batch_matmul` of ``module`` whose operands and result are of one
    floating-point type, whose second operand has a dynamic shape (an activation, not a
    weight) and whose rows (the first operand's next-to-last dimension) are dynamic or at
    least `MIN_HINTED_ROWS`; its two operands pass through an
    `iree_tensor_ext.compute_barrier.start` and its result through a
    `compute_barrier.end` (with the dynamic sizes, from `tensor.dim`). Values unchanged
    (the barriers only bound IREE's fusion). Returns how many ops were hinted."""
    from iree.compiler import ir

    found = _products(module, _activation_product)
    for operation in found:
        with operation.context, operation.location:
            with ir.InsertionPoint(operation):
                for position in (0, 1):
                    value = operation.operands[position]
                    operation.operands[position] = _barrier("start", value)
            result = operation.results[0]
            # Its users before the barrier's own `tensor.dim`s are added.
            users = [(use.owner, use.operand_number) for use in result.uses]
            with ir.InsertionPoint.after(operation):
                ended = _barrier("end", result)
            for user, position in users:
                user.operands[position] = ended
            operation.attributes[DATA_TILING_HINT] = ir.UnitAttr.get()
            operation.attributes[ACTIVATION_PRODUCT] = ir.UnitAttr.get()
    return len(found)


def _barrier(kind: str, value: Any) -> Any:
    """``value`` through an `iree_tensor_ext.compute_barrier.<kind>` (at the current
    insertion point), its dynamic sizes from `tensor.dim`: the barrier's result."""
    from iree.compiler import ir

    shaped = ir.RankedTensorType(value.type)
    index = ir.IndexType.get()
    sizes = []
    for axis, size in enumerate(shaped.shape):
        if ir.ShapedType.is_dynamic_size(size):
            position = ir.Operation.create(
                "arith.constant",
                results=[index],
                attributes={"value": ir.IntegerAttr.get(index, axis)},
            )
            dim = ir.Operation.create(
                "tensor.dim", results=[index], operands=[value, position.result]
            )
            sizes.append(dim.result)
    barrier = ir.Operation.create(
        f"iree_tensor_ext.compute_barrier.{kind}", results=[value.type], operands=[value, *sizes]
    )
    return barrier.result


def _activation_product(types: list[Any]) -> bool:
    """A product of two activations of many rows: a right operand of a dynamic shape,
    rows dynamic or at least `MIN_HINTED_ROWS`."""
    from iree.compiler import ir

    if types[1].has_static_shape:
        return False
    rows = types[0].shape[-2]
    return bool(ir.ShapedType.is_dynamic_size(rows)) or rows >= MIN_HINTED_ROWS
