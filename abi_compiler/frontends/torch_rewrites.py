"""Rewrites of the torch-dialect module iree-turbine imports, before IREE's torch lowering
(`abi_compiler.frontends.iree_ir.lower_torch`): each spells an op that IREE 3.13's torch
pipeline (torch-mlir) refuses or lowers to other numbers as ops it lowers and that give
eager torch's values. One section per rewrite, each naming the upstream gap;
`rewrite` runs them all. docs/calling.md, "What the torch frontend rewrites".

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "OPERATOR_ALIASES",
    "SCALAR_OPERATOR_ALIASES",
    "index_copy_as_index_put",
    "rewrite",
    "spell_operators_as_bitwise",
]


def rewrite(module: Any) -> int:
    """Every rewrite of this module, in place, on ``module`` (iree-turbine's
    `mlir_module`). Returns how many ops were rewritten."""
    return spell_operators_as_bitwise(module) + index_copy_as_index_put(module)


# --- Python's bitwise operators as their ATen aliases ---------------------------------

# Python's operators on tensors, as torch.export records them, and the ATen op each is an
# alias of (`Tensor.__and__` calls `torch.bitwise_and`: same kernel, same promotion).
# IREE 3.13's torch lowering has patterns for the right-hand names only: `__and__.Tensor`
# fails to legalize (reported first at its `dense<true> : tensor<i1>` literal operand,
# llvm/torch-mlir#4625; the missing pattern is llvm/torch-mlir#4749), and torch-mlir has
# no op for `__xor__.Tensor`, `__lshift__.Tensor` or `__rshift__.Tensor` (imported as
# `torch.operator`). `__or__.Tensor` is already canonicalized to `bitwise_or.Tensor`
# upstream (llvm/torch-mlir#2437).
# docs/calling.md, "What the torch frontend rewrites".
OPERATOR_ALIASES = {
    "torch.aten.__and__.Tensor": "torch.aten.bitwise_and.Tensor",
    "torch.aten.__xor__.Tensor": "torch.aten.bitwise_xor.Tensor",
    "torch.aten.__lshift__.Tensor": "torch.aten.bitwise_left_shift.Tensor",
    "torch.aten.__rshift__.Tensor": "torch.aten.bitwise_right_shift.Tensor",
}
# The operators with a Python number (`mask | 1`, `x & 0xFF`), whose `bitwise_*.Scalar`
# aliases torch-mlir has no op for either: the tensor op, the number made a 0-d tensor
# (as torch itself wraps it: it does not promote the tensor's dtype).
SCALAR_OPERATOR_ALIASES = {
    "torch.aten.__and__.Scalar": "torch.aten.bitwise_and.Tensor",
    "torch.aten.__or__.Scalar": "torch.aten.bitwise_or.Tensor",
    "torch.aten.__xor__.Scalar": "torch.aten.bitwise_xor.Tensor",
}
# A shift by a constant outside [0, width) — torch gives 0, or the sign for `>>` of a
# signed tensor — for which IREE's lowering of `__lshift__`/`__rshift__.Scalar` folds to
# another number (`1 << 40` in int32 gave -2147483648): rewritten to an op that gives
# torch's (`a & 0`, `a >> (width - 1)`). Shifts by numbers in range lower as they are.
_SHIFTS = ("torch.aten.__lshift__.Scalar", "torch.aten.__rshift__.Scalar")


def spell_operators_as_bitwise(module: Any) -> int:
    """Rewrite, in a torch-dialect module (iree-turbine's), each op of `OPERATOR_ALIASES`
    and `SCALAR_OPERATOR_ALIASES` as the ATen op it is an alias of, which IREE's torch
    lowering knows, and each shift by a constant out of range as an op that gives torch's
    number: the same operands (a number as a 0-d tensor), result type and location.
    Returns how many ops were rewritten."""
    from iree.compiler import ir

    found: list[tuple[Any, str, tuple[str, str | None] | None]] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        name = operation.name
        if name == "torch.operator":  # an op torch-mlir has no definition of
            name = ir.StringAttr(operation.attributes["name"]).value
        if name in OPERATOR_ALIASES:
            found.append((operation, OPERATOR_ALIASES[name], None))
        elif name in SCALAR_OPERATOR_ALIASES or name in _SHIFTS:
            rewrite = _number_operand(operation, name)
            if rewrite is not None:
                alias, number = rewrite
                found.append((operation, alias, number))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for operation, alias, number in found:
        with operation.context, operation.location:
            at = ir.InsertionPoint(operation)
            operands = list(operation.operands)
            if number is not None:
                tensor_type, literal = number
                if literal is not None:
                    wrapped = ir.Operation.create(
                        "torch.vtensor.literal",
                        results=[ir.Type.parse(tensor_type)],
                        attributes={"value": ir.Attribute.parse(literal)},
                        ip=at,
                    )
                else:
                    wrapped = ir.Operation.create(
                        "torch.prim.NumToTensor.Scalar",
                        results=[ir.Type.parse(tensor_type)],
                        operands=[operands[1]],
                        ip=at,
                    )
                operands[1] = wrapped.results[0]
            renamed = ir.Operation.create(
                alias,
                results=[result.type for result in operation.results],
                operands=operands,
                ip=at,
            )
            for old, new in zip(operation.results, renamed.results, strict=True):
                old.replace_all_uses_with(new)
            operation.erase()
    return len(found)


# The 0-d tensor `torch.prim.NumToTensor.Scalar` makes of a number, by the number's type.
_NUMBER_TENSORS = {"!torch.int": "!torch.vtensor<[],si64>", "!torch.bool": "!torch.vtensor<[],i1>"}
_INTEGER_TENSOR = re.compile(r"!torch\.vtensor<\[[^\]]*\],((?:si|ui)(\d+))>")


def _number_operand(operation: Any, name: str) -> tuple[str, tuple[str, str | None]] | None:
    """For `tensor <op> number` (op ``name``): the tensor op to call instead, the type of
    the 0-d tensor the number becomes and the literal to make it of (None:
    `NumToTensor` of the number); None to leave the op as it is.

    A constant int for a tensor of integers is a literal of the tensor's type, wrapped to
    it as torch takes it (`uint8 ^ -1` is `^ 255`); IREE's lowering cannot convert an
    `si64` to 8 bits, so a number that is no constant is rewritten only for `&`, `|` and
    `^` on wider tensors."""
    tensor, number = list(operation.operands)[:2]
    number_type = str(number.type)
    made = _NUMBER_TENSORS.get(number_type)
    if made is None:
        return None
    integers = _INTEGER_TENSOR.fullmatch(str(tensor.type))
    if integers is None or number_type != "!torch.int":
        return None if name in _SHIFTS else (SCALAR_OPERATOR_ALIASES[name], (made, None))
    element, width = integers.group(1), int(integers.group(2))
    owner = number.owner
    value: int | None = None
    if getattr(owner, "name", None) == "torch.constant.int":
        value = int(str(owner.attributes["value"]).split(":")[0])
    if name in _SHIFTS:
        if value is None or 0 <= value < width:
            return None  # lowered as it is
        if name.endswith("__rshift__.Scalar") and element[0] == "s":
            return "torch.aten.bitwise_right_shift.Tensor", _literal(element, width - 1)
        return "torch.aten.bitwise_and.Tensor", _literal(element, 0)
    if value is not None:  # torch takes the number in the tensor's type, wrapped
        value &= (1 << width) - 1
        if element[0] == "s" and value >> (width - 1):
            value -= 1 << width
        return SCALAR_OPERATOR_ALIASES[name], _literal(element, value)
    if width == 8:
        return None
    return SCALAR_OPERATOR_ALIASES[name], (made, None)


def _literal(element: str, value: int) -> tuple[str, str]:
    """A 0-d tensor literal of ``value`` (its type, its value attribute)."""
    return f"!torch.vtensor<[],{element}>", f"dense<{value}> : tensor<{element}>"


# --- index_copy as index_put ------------------------------------------------------------

# `Tensor.index_copy_(dim, index, source)`, which transformers' `StaticCache` writes a
# step's keys and values with (torch.export's functional IR records `aten.index_copy`):
# torch-mlir has no op for it (imported as `torch.operator "torch.aten.index_copy"`), and
# IREE 3.13's torch pipeline refuses it (`failed to legalize operation 'torch.operator'`).
# It is `self[:, …, :, index] = source` with ``index`` at ``dim``: `aten.index_put` with
# `None` for the dims before, which IREE lowers to one `iree_linalg_ext.scatter` of the
# source's elements.
INDEX_COPY = "torch.aten.index_copy"
_VTENSOR_SHAPE = re.compile(r"!torch\.vtensor<\[([^\]]*)\],[^>]+>")


def index_copy_as_index_put(module: Any) -> int:
    """Rewrite, in a torch-dialect module (iree-turbine's), each `aten.index_copy(self,
    dim, index, source)` whose ``dim`` is a constant and whose ``index`` is 1-d as
    `aten.index_put(self, [None] * dim + [index], source, accumulate=False)`: the same
    result type and location. Returns how many ops were rewritten; another `index_copy`
    stays as it is (IREE reports it)."""
    from iree.compiler import ir

    found: list[tuple[Any, int]] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name == "torch.operator" and ir.StringAttr(
            operation.attributes["name"]
        ).value in (INDEX_COPY, INDEX_COPY + ".default"):
            dim = _index_copy_dim(operation)
            if dim is not None:
                found.append((operation, dim))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for operation, dim in found:
        target, _, index, source = list(operation.operands)
        with operation.context, operation.location:
            at = ir.InsertionPoint(operation)
            none = ir.Operation.create(
                "torch.constant.none", results=[ir.Type.parse("!torch.none")], ip=at
            )
            indices = ir.Operation.create(
                "torch.prim.ListConstruct",
                results=[ir.Type.parse("!torch.list<optional<vtensor>>")],
                operands=[none.results[0]] * dim + [index],
                ip=at,
            )
            false = ir.Operation.create(
                "torch.constant.bool",
                results=[ir.Type.parse("!torch.bool")],
                attributes={"value": ir.BoolAttr.get(False)},
                ip=at,
            )
            put = ir.Operation.create(
                "torch.aten.index_put",
                results=[result.type for result in operation.results],
                operands=[target, indices.results[0], source, false.results[0]],
                ip=at,
            )
            operation.results[0].replace_all_uses_with(put.results[0])
            operation.erase()
    return len(found)


def _index_copy_dim(operation: Any) -> int | None:
    """The dim of an `index_copy` (its constant, made non-negative by the rank of
    ``self``), or None when it is no constant, the ranks are unknown, or ``index`` is
    not 1-d."""
    operands = list(operation.operands)
    if len(operands) != 4 or len(operation.results) != 1:
        return None
    target, dim, index, _ = operands
    target_shape = _VTENSOR_SHAPE.fullmatch(str(target.type))
    index_shape = _VTENSOR_SHAPE.fullmatch(str(index.type))
    if target_shape is None or index_shape is None or "," in index_shape.group(1):
        return None
    if not index_shape.group(1):  # a 0-d index
        return None
    rank = len(target_shape.group(1).split(",")) if target_shape.group(1) else 0
    owner = dim.owner
    if getattr(owner, "name", None) != "torch.constant.int":
        return None
    value = int(str(owner.attributes["value"]).split(":")[0])
    value = value + rank if value < 0 else value
    return value if 0 <= value < rank else None
