"""Rewrites of the torch-dialect module iree-turbine imports, before IREE's torch lowering
(`abi_compiler.frontends.iree_ir.lower_torch`): each spells an op that IREE 3.13's torch
pipeline (torch-mlir) refuses or lowers to other numbers as ops it lowers and that give
eager torch's values; `single_query_attention` and `prompt_attention` spell a decoding
step's and a prompt's attention as ops IREE runs faster, with eager's values. One section
per rewrite, each naming the upstream gap; `rewrite` runs them all. docs/calling.md, "What the torch frontend rewrites".

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "OPERATOR_ALIASES",
    "SCALAR_OPERATOR_ALIASES",
    "diff_as_subtractions",
    "index_copy_as_index_put",
    "prompt_attention",
    "rewrite",
    "single_query_attention",
    "spell_operators_as_bitwise",
]


def rewrite(module: Any) -> int:
    """Every rewrite of this module, in place, on ``module`` (iree-turbine's
    `mlir_module`; the frontend then runs `torch_rewrites_models`', which build on this
    one). Returns how many ops were rewritten."""
    return (
        spell_operators_as_bitwise(module)
        + index_copy_as_index_put(module)
        + diff_as_subtractions(module)
        + single_query_attention(module)
        + prompt_attention(module)
    )


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


# --- diff as subtractions of slices ---------------------------------------------------

# `aten.diff(self, n, dim, prepend, append)` (`torch.diff`; transformers' masks compute
# `torch.diff(position_ids, prepend=…)` to find packed sequences when a model is called
# without an `attention_mask`) has no torch-mlir op: it is imported as `torch.operator
# "torch.aten.diff"`, which IREE 3.13 refuses (`failed to legalize operation
# 'torch.operator'`). It is torch's own reference decomposition (`torch._refs.diff`):
# `prepend`, `self` and `append` concatenated at ``dim``, then ``n`` times
# `x[1:] - x[:-1]` at ``dim`` (`logical_xor` for bool), which are exact.
DIFF = "torch.aten.diff"
# What `x[1:]` reads to: the end torch.export writes for an open slice.
_SLICE_TO_THE_END = 2**63 - 1


def diff_as_subtractions(module: Any) -> int:
    """Rewrite, in a torch-dialect module (iree-turbine's), each `aten.diff(self, n, dim,
    prepend, append)` whose ``n`` (at least 1) and ``dim`` are constants and whose
    ``prepend`` and ``append`` are None or tensors of ``self``'s rank and element type as
    `aten.cat` of them and ``n`` subtractions (`aten.sub.Tensor`; `aten.logical_xor` for
    bool) of `aten.slice.Tensor`s at ``dim``: the same result type and location. Returns
    how many ops were rewritten; another `diff` stays as it is (IREE reports it)."""
    from iree.compiler import ir

    found = [
        (operation, form)
        for operation in _imported_as_operator(module, DIFF)
        if (form := _diff_form(operation)) is not None
    ]
    for operation, (order, dim) in found:
        with operation.context, operation.location:
            _write_diff(operation, order, dim, _Builder(ir.InsertionPoint(operation)))
    return len(found)


def _imported_as_operator(module: Any, name: str) -> list[Any]:
    """The ops of ``module`` torch-mlir has no definition of, imported as `torch.operator`
    named ``name`` (or its ``.default`` overload)."""
    from iree.compiler import ir

    found: list[Any] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name != "torch.operator":
            return ir.WalkResult.ADVANCE
        if ir.StringAttr(operation.attributes["name"]).value in (name, name + ".default"):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _diff_form(operation: Any) -> tuple[int, int] | None:
    """``(n, dim)`` of a `diff` `diff_as_subtractions` rewrites (``dim`` made
    non-negative), or None for another."""
    operands = list(operation.operands)
    if len(operands) != 5 or len(operation.results) != 1:
        return None
    source, order, dim, *ends = operands
    dims, element = _shape(source)
    result_dims, result_element = _shape(operation.results[0])
    if not element or result_element != element or len(result_dims) != len(dims) or not dims:
        return None
    for end in ends:
        if _constant(end, "torch.constant.none") is None:
            end_dims, end_element = _shape(end)
            if end_element != element or len(end_dims) != len(dims):
                return None
    written_order = _constant(order, "torch.constant.int")
    written_dim = _constant(dim, "torch.constant.int")
    if written_order is None or written_dim is None or int(written_order) < 1:
        return None
    at = int(written_dim) + len(dims) if int(written_dim) < 0 else int(written_dim)
    return (int(written_order), at) if 0 <= at < len(dims) else None


def _write_diff(operation: Any, order: int, dim: int, build: _Builder) -> None:
    """Replace the `diff` ``operation`` (one `_diff_form` took) by its subtractions."""
    source, _, _, prepend, append = list(operation.operands)
    parts = [
        part for part in (prepend, source, append) if _constant(part, "torch.constant.none") is None
    ]
    dims, element = _shape(source)
    combined = source
    if len(parts) > 1:
        lengths = [_shape(part)[0][dim] for part in parts]
        length = str(sum(map(int, lengths))) if all(x.isdigit() for x in lengths) else "?"
        dims = [*dims[:dim], length, *dims[dim + 1 :]]
        listed = build.op("torch.prim.ListConstruct", "!torch.list<vtensor>", *parts)
        combined = build.op("torch.aten.cat", _vtensor(dims, element), listed, build.integer(dim))
    step = "torch.aten.logical_xor" if element == "i1" else "torch.aten.sub.Tensor"
    if dims[dim].isdigit():  # past its length a diff is empty, and stays so
        order = min(order, int(dims[dim]) + 1)
    for _ in range(order):
        length = dims[dim]
        dims[dim] = str(max(int(length) - 1, 0)) if length.isdigit() else "?"
        shorter = _vtensor(dims, element)
        later = _slice(build, combined, shorter, dim, 1, _SLICE_TO_THE_END)
        earlier = _slice(build, combined, shorter, dim, 0, -1)
        alpha = [] if element == "i1" else [build.integer(1)]
        combined = build.op(step, shorter, later, earlier, *alpha)
    result = operation.results[0]
    if str(combined.type) != str(result.type):  # the result's dims as torch.export knew them
        combined = build.op("torch.tensor_static_info_cast", str(result.type), combined)
    result.replace_all_uses_with(combined)
    operation.erase()


def _slice(build: _Builder, tensor: Any, result: str, dim: int, start: int, end: int) -> Any:
    """`tensor[start:end]` at ``dim``, of type ``result``."""
    return build.op(
        "torch.aten.slice.Tensor",
        result,
        tensor,
        build.integer(dim),
        build.integer(start),
        build.integer(end),
        build.integer(1),
    )


# --- attention of one query -------------------------------------------------------------

# `aten.scaled_dot_product_attention` with one query row per head (a decoding step) over
# the keys of a static cache, three costs that grow with the cache length, none of which
# eager torch pays so (bench/RESULTS_generate.md):
# * IREE 3.13 lowers the op to `iree_linalg_ext.attention`, whose llvm-cpu code for one
#   query row is slow: 383 us for 4 heads over 1024 keys, where the two batch matmuls and
#   the softmax written out take 7 + 6 + 9 us on the same CPU (decomposing the op before
#   dispatch formation for CPU targets is what a review of
#   https://github.com/iree-org/iree/pull/24177 reports doing).
# * Grouped-query attention as torch.export records it repeats each key and value head for
#   its group of query heads (transformers' `repeat_kv`: unsqueeze, expand, clone, view), a
#   copy of the whole cache per step, where the group's queries can be the rows of one
#   query of the key's head instead (transformers' `pack_gqa`, which its eager mode does
#   and torch.export's does not).
# * The mask hides the cache past the current position, but the whole cache is multiplied.
# So the op becomes its math, `_safe_softmax(q @ k^T * scale + mask) @ v`, on the key and
# value heads themselves when they are so repeated, and, with a bool mask, over the keys up
# to the last one any row of the mask allows (a length computed on the device and read by
# the host, which then sizes the products).
# docs/calling.md, "What the torch frontend rewrites".
SDPA = "torch.aten.scaled_dot_product_attention"
# The ops of a repeat of heads, from the repeated tensor back to its source.
_VIEWS = ("torch.aten._unsafe_view", "torch.aten.view", "torch.aten.reshape")
_VTENSOR = re.compile(r"!torch\.vtensor<\[([^\]]*)\],([^>]+)>")
# The element types whose math is eager's: torch's math kernel upcasts half precision on
# the CPU, which these ops would not.
_ATTENTION_ELEMENTS = ("f32", "f64")


def single_query_attention(module: Any) -> int:
    """Rewrite, in a torch-dialect module (iree-turbine's), each
    `aten.scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale,
    enable_gqa)` of rank-4 f32 or f64 operands with one query row (``q`` of shape
    ``[B, H, 1, D]``, ``k`` and ``v`` of ``[B, H, S, D]``), ``dropout_p`` 0, ``is_causal``
    and ``enable_gqa`` false, a constant or default ``scale`` and no mask or a bool or
    additive one of known shape, as
    `_safe_softmax(q @ k^T * scale + mask) @ v` (a bool mask is -inf where false; a row
    that allows no key gives 0, as torch's does).

    When ``k`` and ``v`` are both ``x[:, :, None].expand(B, G, n, S, D).reshape(B, G * n,
    S, D)`` (`repeat_kv`), the products take ``x`` itself and ``q`` as ``[B, G, n, D]``
    (the ``n`` heads of a group become rows of its query; a mask of one row per head
    likewise), and the result is reshaped back. With a bool mask of ``S`` columns the
    products stop at the last key any of its rows allows: the keys past it add exactly 0.
    Returns how many ops were rewritten; any other attention stays as it is."""
    return _attention_as_math(module, one_row=True)


def prompt_attention(module: Any) -> int:
    """`single_query_attention` for an attention of several query rows (``q`` of shape
    ``[B, H, L, D]``, ``L`` a number other than 1 or dynamic: a prompt's), with the same
    conditions and math. With repeated key and value heads, the ``n`` query heads of a
    group and their ``L`` rows become the ``n * L`` rows of the group's query (``[B, G, n
    * L, D]``: one batched product per key head, no copy of the keys), and a mask's rows
    are repeated for the ``n`` heads of a group (or reshaped likewise, one mask per head).
    IREE 3.13 lowers the attention op itself to `iree_linalg_ext.attention`, whose llvm-cpu
    code is several times slower than these products. Returns how many ops were
    rewritten."""
    return _attention_as_math(module, one_row=False)


def _attention_as_math(module: Any, one_row: bool) -> int:
    from iree.compiler import ir

    found: list[tuple[Any, float]] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name == SDPA:
            scale = _single_query_scale(operation, one_row)
            if scale is not None:
                found.append((operation, scale))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for operation, scale in found:
        with operation.context, operation.location:
            _write_attention(operation, scale, _Builder(ir.InsertionPoint(operation)), one_row)
    return len(found)


def _shape(value: Any) -> tuple[list[str], str]:
    """The dims (as written, ``?`` for a dynamic one) and element type of a value of type
    `!torch.vtensor`, or ``([], "")`` for a value of another type."""
    match = _VTENSOR.fullmatch(str(value.type))
    if match is None:
        return [], ""
    return (match.group(1).split(",") if match.group(1) else []), match.group(2)


def _constant(value: Any, name: str) -> str | None:
    """The value (as text; ``"none"`` for `torch.constant.none`) of ``value`` if the
    constant op ``name`` makes it, or None."""
    owner = value.owner
    if getattr(owner, "name", None) != name:
        return None
    if name == "torch.constant.none":
        return "none"
    return str(owner.attributes["value"]).split(":")[0].strip()


def _single_query_scale(operation: Any, one_row: bool = True) -> float | None:
    """The scale of an attention `single_query_attention` (``one_row``) or
    `prompt_attention` rewrites, or None for another."""
    operands = list(operation.operands)
    if len(operands) != 8 or len(operation.results) != 1:
        return None
    query, key, value, mask, dropout, causal, scale, gqa = operands
    (q_dims, element), (k_dims, k_element), (v_dims, v_element) = (
        _shape(query),
        _shape(key),
        _shape(value),
    )
    if element not in _ATTENTION_ELEMENTS or {k_element, v_element} != {element}:
        return None
    if not len(q_dims) == len(k_dims) == len(v_dims) == 4:
        return None
    # One query row; no broadcasting between the operands, so every product's shape is
    # known.
    if (q_dims[2] == "1") != one_row or not q_dims[3].isdigit() or q_dims[3] != k_dims[3]:
        return None
    if q_dims[:2] != k_dims[:2] or k_dims[:3] != v_dims[:3]:
        return None
    if _mask_dims(mask, element, [*q_dims[:3], k_dims[2]]) is None:
        return None
    if _constant(causal, "torch.constant.bool") != "false":
        return None
    if _constant(gqa, "torch.constant.bool") != "false":
        return None
    dropout_p = _constant(dropout, "torch.constant.float")
    if dropout_p is None or float(dropout_p) != 0.0:
        return None
    if _constant(scale, "torch.constant.none") is not None:
        return 1.0 / math.sqrt(int(q_dims[3]))
    written = _constant(scale, "torch.constant.float")
    return None if written is None else float(written)


def _mask_dims(mask: Any, element: str, scores: list[str]) -> list[str] | None:
    """The dims of an attention's mask (``[]`` for none) if it is one the rewrite takes: a
    bool or ``element`` tensor of known dims (a dynamic one only where ``scores`` has the
    same) that broadcasts to ``scores`` (``[B, H, L, S]``) without growing it."""
    if _constant(mask, "torch.constant.none") is not None:
        return []
    dims, mask_element = _shape(mask)
    if mask_element not in ("i1", element) or not 0 < len(dims) <= len(scores):
        return None
    for dim, target in zip(reversed(dims), reversed(scores), strict=False):
        if dim != target and dim != "1":
            return None
    return dims


def _repeated_heads(value: Any) -> tuple[Any, int] | None:
    """``(x, n)`` when ``value`` is ``x`` (``[B, G, S, D]``) with each head repeated ``n``
    times, as `repeat_kv` writes it (unsqueeze at 2, expand, an optional clone, a view or
    reshape to ``[B, G * n, S, D]``), or None. Read from the types: an unsqueeze and the
    expand of the size-1 dim it made, and a row-major reshape, are fixed by their shapes."""
    view = value.owner
    if getattr(view, "name", None) not in _VIEWS:
        return None
    expanded = view.operands[0]
    if getattr(expanded.owner, "name", None) == "torch.aten.clone":
        expanded = expanded.owner.operands[0]
    if getattr(expanded.owner, "name", None) != "torch.aten.expand":
        return None
    unsqueezed = expanded.owner.operands[0]
    if getattr(unsqueezed.owner, "name", None) != "torch.aten.unsqueeze":
        return None
    source = unsqueezed.owner.operands[0]
    dims, expanded_dims, unsqueezed_dims, source_dims = (
        _shape(item)[0] for item in (value, expanded, unsqueezed, source)
    )
    if len(source_dims) != 4 or len(expanded_dims) != 5:
        return None
    heads, repeats = source_dims[1], expanded_dims[2]
    if not (heads.isdigit() and repeats.isdigit()):
        return None
    batch, rest = source_dims[0], source_dims[2:]
    if unsqueezed_dims != [batch, heads, "1", *rest]:
        return None
    if expanded_dims != [batch, heads, repeats, *rest]:
        return None
    if dims != [batch, str(int(heads) * int(repeats)), *rest]:
        return None
    return source, int(repeats)


class _Builder:
    """Creates torch-dialect ops at one insertion point."""

    def __init__(self, at: Any) -> None:
        self.at = at

    def op(self, name: str, result: str, *operands: Any, **attributes: Any) -> Any:
        from iree.compiler import ir

        created = ir.Operation.create(
            name,
            results=[ir.Type.parse(result)],
            operands=list(operands),
            attributes=attributes,
            ip=self.at,
        )
        return created.results[0]

    def integer(self, value: int | str) -> Any:
        from iree.compiler import ir

        attribute = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
        return self.op("torch.constant.int", "!torch.int", value=attribute)

    def integers(self, *values: int | str) -> Any:
        items = [self.integer(value) for value in values]
        return self.op("torch.prim.ListConstruct", "!torch.list<int>", *items)

    def number(self, value: float) -> Any:
        from iree.compiler import ir

        return self.op("torch.constant.float", "!torch.float", value=ir.FloatAttr.get_f64(value))

    def boolean(self, value: bool) -> Any:
        from iree.compiler import ir

        return self.op("torch.constant.bool", "!torch.bool", value=ir.BoolAttr.get(value))

    def none(self) -> Any:
        return self.op("torch.constant.none", "!torch.none")

    def reshape(self, value: Any, dims: list[str]) -> Any:
        """``value`` reshaped to ``dims`` (a dynamic one as -1)."""
        sizes = [dim if dim.isdigit() else "-1" for dim in dims]
        return self.op(
            "torch.aten.reshape", _vtensor(dims, _shape(value)[1]), value, self.integers(*sizes)
        )


def _vtensor(dims: list[str], element: str) -> str:
    return f"!torch.vtensor<[{','.join(dims)}],{element}>"


def _write_attention(operation: Any, scale: float, build: _Builder, one_row: bool) -> None:
    """Replace the attention ``operation`` (one `_single_query_scale` took) by its math."""
    query, key, value, mask = list(operation.operands)[:4]
    q_dims, element = _shape(query)
    batch, heads, rows, depth = q_dims
    mask_dims = _mask_dims(mask, element, [*q_dims[:3], _shape(key)[0][2]])
    assert mask_dims is not None
    mask_element = _shape(mask)[1] if mask_dims else ""
    repeated_keys, repeated_values = _repeated_heads(key), _repeated_heads(value)
    packed = (
        repeated_keys is not None
        and repeated_values is not None
        and repeated_keys[1] == repeated_values[1]
        and heads.isdigit()
        # A mask per head but one row for all: the packed rows would need it repeated.
        and not (rows != "1" and len(mask_dims) >= 3 and mask_dims[-3] != "1" == mask_dims[-2])
    )
    if packed:
        assert repeated_keys is not None and repeated_values is not None
        (key, repeats), value = repeated_keys, repeated_values[0]
        # The group's heads, each with its rows, as the rows of one query: [B, G, n * L, D].
        heads, rows = str(int(heads) // repeats), _times(repeats, rows)
        query = build.reshape(query, [batch, heads, rows, depth])
        if len(mask_dims) >= 3 and mask_dims[-3] != "1":  # one mask per query head
            mask_dims = [*mask_dims[:-3], heads, rows, mask_dims[-1]]
            mask = build.reshape(mask, mask_dims)
        elif len(mask_dims) >= 2 and mask_dims[-2] != "1":  # rows shared by the heads
            mask, mask_dims = _repeat_rows(build, mask, mask_dims, repeats)
    length = _shape(key)[0][2]
    if mask_element == "i1" and length.isdigit() and int(length) > 1 and mask_dims[-1] == length:
        key, value, mask, length = _allowed_keys(build, key, value, mask, mask_dims)
    value_depth = _shape(value)[0][3]
    scores_type = _vtensor([batch, heads, rows, length], element)
    transposed = build.op(
        "torch.aten.transpose.int",
        _vtensor([batch, heads, depth, length], element),
        key,
        build.integer(2),
        build.integer(3),
    )
    scores = build.op("torch.aten.matmul", scores_type, query, transposed)
    scores = build.op("torch.aten.mul.Scalar", scores_type, scores, build.number(scale))
    if mask_element == "i1":
        scores = build.op(
            "torch.aten.where.ScalarOther", scores_type, mask, scores, build.number(-math.inf)
        )
    elif mask_element:
        scores = build.op("torch.aten.add.Tensor", scores_type, scores, mask, build.integer(1))
    if not one_row and mask_element == "i1" and length == "?":  # (keys cut: `_allowed_keys`)
        weights = _safe_softmax(build, scores, [batch, heads, rows, length], element)
    else:
        weights = build.op(
            "torch.aten._safe_softmax", scores_type, scores, build.integer(3), build.none()
        )
    result = build.op(
        "torch.aten.matmul", _vtensor([batch, heads, rows, value_depth], element), weights, value
    )
    if packed:
        result = build.reshape(result, [*q_dims[:3], value_depth])
    operation.results[0].replace_all_uses_with(result)
    operation.erase()


def _safe_softmax(build: _Builder, scores: Any, dims: list[str], element: str) -> Any:
    """`aten._safe_softmax(scores, -1)` written out: ``exp(scores - max) / sum``, a row
    whose max is -inf (no key allowed) giving 0 as torch's does. IREE 3.13 lowers the op
    to `linalg.softmax`, whose llvm-cpu code for a prompt's dynamic rows and keys took 4
    times these ops' time (2 × 512 × 128 scores: 1.7 ms against 0.4). Written only for
    the keys cut at a bool mask (a dynamic number): with the keys' static number of an
    additive mask, IREE 3.13 compiled this form to wrong values (a key head's rows all
    0; tests/frontends/test_torch_rewrites.py), the op stays there."""
    row = [*dims[:-1], "1"]
    last = build.integers(len(dims) - 1)

    def over_keys(name: str, value: Any, *rest: Any) -> Any:
        return build.op(name, _vtensor(row, element), value, last, build.boolean(True), *rest)

    top = over_keys("torch.aten.amax", scores)
    nothing = build.op("torch.aten.eq.Scalar", _vtensor(row, "i1"), top, build.number(-math.inf))
    top = build.op(
        "torch.aten.masked_fill.Scalar", _vtensor(row, element), top, nothing, build.number(0.0)
    )
    shifted = build.op(
        "torch.aten.sub.Tensor", _vtensor(dims, element), scores, top, build.integer(1)
    )
    powers = build.op("torch.aten.exp", _vtensor(dims, element), shifted)
    total = over_keys("torch.aten.sum.dim_IntList", powers, build.none())
    # (a row of no key: its exps are all 0, divided by 1)
    total = build.op(
        "torch.aten.masked_fill.Scalar", _vtensor(row, element), total, nothing, build.number(1.0)
    )
    return build.op("torch.aten.div.Tensor", _vtensor(dims, element), powers, total)


def _allowed_keys(
    build: _Builder, key: Any, value: Any, mask: Any, mask_dims: list[str]
) -> tuple[Any, Any, Any, str]:
    """``key``, ``value`` and the bool ``mask`` cut (on the keys' dim) after the last key
    any row of the mask allows (at least one key), and their length (``?``): the scores of
    the keys past it are -inf in every row, which add exactly 0 to each softmax."""
    length = mask_dims[-1]
    allowed = mask
    if len(mask_dims) > 1:
        rows = "1"
        for dim in mask_dims[:-1]:
            rows = _times(int(rows), dim) if rows.isdigit() else "?"
        allowed = build.reshape(mask, [rows, length])
        allowed = build.op(
            "torch.aten.any.dim",
            _vtensor([length], "i1"),
            allowed,
            build.integer(0),
            build.boolean(False),
        )
    none = build.none()
    ends = build.op(
        "torch.aten.arange.start",
        _vtensor([length], "si64"),
        build.integer(1),
        build.integer(int(length) + 1),
        build.integer(4),  # torch.int64
        none,
        none,
        none,
    )
    one = build.op(
        "torch.vtensor.literal",
        "!torch.vtensor<[],si64>",
        value=_parse_attribute("dense<1> : tensor<si64>"),
    )
    ends = build.op("torch.aten.where.self", _vtensor([length], "si64"), allowed, ends, one)
    end = build.op("torch.aten.max", "!torch.vtensor<[],si64>", ends)
    end = build.op("torch.aten.item", "!torch.int", end)

    def cut(tensor: Any, dim: int) -> Any:
        dims, element = _shape(tensor)
        dims = [*dims[:dim], "?", *dims[dim + 1 :]]
        return build.op(
            "torch.aten.slice.Tensor",
            _vtensor(dims, element),
            tensor,
            build.integer(dim),
            build.integer(0),
            end,
            build.integer(1),
        )

    return cut(key, 2), cut(value, 2), cut(mask, len(mask_dims) - 1), "?"


def _times(count: int, dim: str) -> str:
    """The dim ``count`` times ``dim`` (``?`` for a dynamic one)."""
    return str(count * int(dim)) if dim.isdigit() else "?"


def _repeat_rows(
    build: _Builder, mask: Any, mask_dims: list[str], repeats: int
) -> tuple[Any, list[str]]:
    """A mask (``[..., L, S]``) whose rows the ``repeats`` query heads of a group share,
    as the mask of their ``repeats * L`` rows (``[..., repeats * L, S]``, the heads'
    rows one after another as `_write_attention` packs the queries)."""
    at = len(mask_dims) - 2
    _, element = _shape(mask)
    unsqueezed = [*mask_dims[:at], "1", *mask_dims[at:]]
    mask = build.op("torch.aten.unsqueeze", _vtensor(unsqueezed, element), mask, build.integer(at))
    expanded = [*mask_dims[:at], str(repeats), *mask_dims[at:]]
    sizes = [*(["-1"] * at), str(repeats), "-1", "-1"]
    mask = build.op(
        "torch.aten.expand",
        _vtensor(expanded, element),
        mask,
        build.integers(*sizes),
        build.boolean(False),
    )
    dims = [*mask_dims[:at], _times(repeats, mask_dims[at]), mask_dims[-1]]
    return build.reshape(mask, dims), dims


def _parse_attribute(text: str) -> Any:
    from iree.compiler import ir

    return ir.Attribute.parse(text)


# What `torch_rewrites_models` builds its rewrites with: ops created, and types and
# constants read, as here.
OpBuilder = _Builder
vtensor_dims = _shape
constant_value = _constant
