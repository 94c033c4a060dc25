"""Rewrites of the torch-dialect module iree-turbine imports, before IREE's torch lowering
(`abi_compiler.frontends.iree_ir.lower_torch`): each spells an op that IREE 3.13's torch
pipeline (torch-mlir) refuses or lowers to other numbers as ops it lowers and that give
eager torch's values. One section per rewrite, each naming the upstream gap;
`rewrite` runs them all. docs/calling.md, "What the torch frontend rewrites".

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "OPERATOR_ALIASES",
    "SCALAR_OPERATOR_ALIASES",
    "index_copy_as_index_put",
    "rewrite",
    "single_query_attention",
    "spell_operators_as_bitwise",
]


def rewrite(module: Any) -> int:
    """Every rewrite of this module, in place, on ``module`` (iree-turbine's
    `mlir_module`). Returns how many ops were rewritten."""
    return (
        spell_operators_as_bitwise(module)
        + index_copy_as_index_put(module)
        + single_query_attention(module)
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


# --- attention of one query -------------------------------------------------------------

# `aten.scaled_dot_product_attention` with one query row per head (a decoding step) and
# keys and values of many positions: IREE 3.13 lowers it to `iree_linalg_ext.attention`,
# whose llvm-cpu code for a single query runs at a fraction of the speed of the matmuls
# it amounts to (383 us for 4 heads over a 1024-position cache, against 7 + 6 + 9 us for
# the two batch matmuls and the softmax written out, on the same CPU); IREE's own
# developers decompose the op before dispatch formation for CPU targets
# (https://github.com/iree-org/iree/pull/24177). And grouped-query attention as
# torch.export records it repeats each key and value head for its group of query heads
# (transformers' `repeat_kv`: unsqueeze, expand, clone, view), a copy of the whole cache
# per step, where the group's queries can instead be the rows of one head's query (what
# transformers' own `pack_gqa` does in eager mode, not under torch.export). So such an
# attention is rewritten as torch's math: `softmax(q @ k^T * scale + mask) @ v`, on the
# key and value heads themselves when they are so repeated. docs/calling.md, "What the
# torch frontend rewrites".
SDPA = "torch.aten.scaled_dot_product_attention"
# The ops of a repeat of heads, from the repeated tensor back to its source.
_VIEWS = ("torch.aten._unsafe_view", "torch.aten.view", "torch.aten.reshape")
_VTENSOR = re.compile(r"!torch\.vtensor<\[([^\]]*)\],([^>]+)>")
# The element types the rewrite computes in as eager torch does (its math kernel
# upcasts half precision on the CPU).
_ATTENTION_ELEMENTS = ("f32", "f64")


def single_query_attention(module: Any) -> int:
    """Rewrite, in a torch-dialect module (iree-turbine's), each
    `aten.scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale,
    enable_gqa)` of rank-4 f32 or f64 operands with one query row (``q`` of shape
    ``[B, H, 1, D]``), ``dropout_p`` 0, ``is_causal`` and ``enable_gqa`` false and a
    constant or default ``scale``, as `_safe_softmax(q @ k^T * scale + mask) @ v` (a bool
    mask is -inf where false; a row with no key gives 0, as torch's does). When ``k`` and
    ``v`` are both ``x[:, :, None].expand(B, G, n, S, D).reshape(B, G * n, S, D)`` of
    ``G`` heads (`repeat_kv`), the product takes ``x`` itself and ``q`` as ``[B, G, n,
    D]`` (its ``n`` heads of a group become rows; a mask of one row per head likewise),
    and the result is reshaped back. Returns how many ops were rewritten; any other
    attention stays as it is."""
    from iree.compiler import ir

    found: list[tuple[Any, float]] = []

    def visit(op: Any) -> Any:
        operation = op.operation
        if operation.name == SDPA:
            scale = _single_query_scale(operation)
            if scale is not None:
                found.append((operation, scale))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for operation, scale in found:
        with operation.context, operation.location:
            _write_attention(operation, scale, ir.InsertionPoint(operation))
    return len(found)


def _shape(value: Any) -> tuple[list[str], str] | None:
    """The dims (as written, ``?`` for a dynamic one) and element type of a value of
    type `!torch.vtensor`, or None."""
    match = _VTENSOR.fullmatch(str(value.type))
    if match is None:
        return None
    return (match.group(1).split(",") if match.group(1) else []), match.group(2)


def _constant(value: Any, name: str) -> str | None:
    """The value attribute (as text) of ``value`` made by the constant op ``name``, or
    None."""
    owner = value.owner
    if getattr(owner, "name", None) != name:
        return None
    if name == "torch.constant.none":
        return "none"
    return str(owner.attributes["value"]).split(":")[0].strip()


def _single_query_scale(operation: Any) -> float | None:
    """The scale of an attention `single_query_attention` rewrites, or None for another."""
    operands = list(operation.operands)
    if len(operands) != 8 or len(operation.results) != 1:
        return None
    query, key, value, mask, dropout, causal, scale, gqa = operands
    shapes = [_shape(item) for item in (query, key, value)]
    if any(shape is None or len(shape[0]) != 4 for shape in shapes):
        return None
    (q_dims, element), (k_dims, k_element), (v_dims, v_element) = shapes  # type: ignore[misc]
    if element not in _ATTENTION_ELEMENTS or {k_element, v_element} != {element}:
        return None
    if q_dims[2] != "1" or not q_dims[3].isdigit():
        return None
    # Without broadcasting between them, so that each product's shape is known.
    if q_dims[:2] != k_dims[:2] or k_dims[:3] != v_dims[:3] or q_dims[3] != k_dims[3]:
        return None
    if _mask_dims(mask, element) is None:
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


def _mask_dims(mask: Any, element: str) -> list[str] | None:
    """The dims of an attention's mask (``[]`` for none) if it is one the rewrite takes: a
    bool or ``element`` tensor of known dims, of rank at most 4, with one query row."""
    if _constant(mask, "torch.constant.none") is not None:
        return []
    shape = _shape(mask)
    if shape is None or shape[1] not in ("i1", element):
        return None
    dims = shape[0]
    if len(dims) > 4 or not all(dim.isdigit() for dim in dims):
        return None
    return dims if len(dims) < 2 or dims[-2] == "1" else None


def _repeated_heads(value: Any) -> tuple[Any, int] | None:
    """``(x, n)`` when ``value`` is ``x`` (``[B, G, S, D]``) with each head repeated ``n``
    times, as `repeat_kv` writes it (unsqueeze at 2, expand, an optional clone, a view or
    reshape to ``[B, G * n, S, D]``), or None. Read from the types alone: an unsqueeze
    and an expand of a size-1 dim, and a row-major reshape, are fixed by their shapes."""
    target = _shape(value)
    view = value.owner
    if target is None or getattr(view, "name", None) not in _VIEWS:
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
    shapes = [_shape(item) for item in (expanded, unsqueezed, source)]
    if any(shape is None for shape in shapes):
        return None
    (e_dims, _), (u_dims, _), (s_dims, _) = shapes  # type: ignore[misc]
    dims = target[0]
    if len(s_dims) != 4 or not (s_dims[1].isdigit() and e_dims[2:3] and e_dims[2].isdigit()):
        return None
    heads, repeats = int(s_dims[1]), int(e_dims[2])
    if u_dims != [*s_dims[:2], "1", *s_dims[2:]] or e_dims != [*s_dims[:2], str(repeats), *s_dims[2:]]:
        return None
    if dims != [s_dims[0], str(heads * repeats), *s_dims[2:]]:
        return None
    return source, repeats


def _write_attention(operation: Any, scale: float, at: Any) -> None:
    """Replace the attention ``operation`` (one `_single_query_scale` took) by its math,
    inserted at ``at``."""
    from iree.compiler import ir

    def make(name: str, result: str, operands: list[Any], **attributes: Any) -> Any:
        created = ir.Operation.create(
            name, results=[ir.Type.parse(result)], operands=operands, attributes=attributes, ip=at
        )
        return created.results[0]

    def integers(*values: int | str) -> Any:
        items = [
            make(
                "torch.constant.int",
                "!torch.int",
                [],
                value=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(item)),
            )
            for item in values
        ]
        return make("torch.prim.ListConstruct", "!torch.list<int>", items)

    def number(value: float) -> Any:
        return make("torch.constant.float", "!torch.float", [], value=ir.FloatAttr.get_f64(value))

    def vtensor(dims: list[str], element: str) -> str:
        return f"!torch.vtensor<[{','.join(dims)}],{element}>"

    query, key, value, mask = list(operation.operands)[:4]
    (q_dims, element), (k_dims, _), (v_dims, _) = (
        _shape(query),
        _shape(key),
        _shape(value),
    )  # type: ignore[misc]
    mask_dims = _mask_dims(mask, element)
    assert mask_dims is not None
    batch = q_dims[0] if q_dims[0].isdigit() else "-1"
    repeated, values = _repeated_heads(key), _repeated_heads(value)
    packed = (
        repeated is not None
        and values is not None
        and repeated[1] == values[1]
        and q_dims[1].isdigit()
    )
    if packed:
        key, repeats = repeated  # type: ignore[misc]
        value = values[0]  # type: ignore[index]
        heads = str(int(q_dims[1]) // repeats)
        rows_dims = [q_dims[0], heads, str(repeats), q_dims[3]]
        query = make("torch.aten.reshape", vtensor(rows_dims, element), [query, integers(batch, heads, repeats, q_dims[3])])
        if len(mask_dims) >= 3 and mask_dims[-3] == q_dims[1] and mask_dims[-3] != "1":
            new_mask = [*mask_dims[:-3], heads, str(repeats), mask_dims[-1]]
            mask = make("torch.aten.reshape", vtensor(new_mask, _shape(mask)[1]), [mask, integers(*new_mask)])  # type: ignore[index]
        rows, heads_dims = str(repeats), [q_dims[0], heads]
    else:
        rows, heads_dims = "1", q_dims[:2]
    k_dims, _ = _shape(key)  # type: ignore[misc]
    v_dims, _ = _shape(value)  # type: ignore[misc]
    length = k_dims[2]
    mask_shape = _shape(mask) if mask_dims else None
    if mask_shape is not None and mask_shape[1] == "i1" and length.isdigit() and mask_dims[-1] == length and int(length) > 1:
        def const_int(v: int) -> Any:
            return make("torch.constant.int", "!torch.int", [], value=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v))
        flat = mask
        if len(mask_dims) > 1:
            rows_total = math.prod(int(d) for d in mask_dims[:-1])
            flat = make("torch.aten.reshape", vtensor([str(rows_total), length], "i1"), [mask, integers(rows_total, length)])
            false = make("torch.constant.bool", "!torch.bool", [], value=ir.BoolAttr.get(False))
            flat = make("torch.aten.any.dim", vtensor([length], "i1"), [flat, const_int(0), false])
        none_ = make("torch.constant.none", "!torch.none", [])
        ends = make("torch.aten.arange.start", vtensor([length], "si64"), [const_int(1), const_int(int(length) + 1), const_int(4), none_, none_, none_])
        one_t = make("torch.vtensor.literal", "!torch.vtensor<[],si64>", [], value=ir.Attribute.parse("dense<1> : tensor<si64>"))
        ends = make("torch.aten.where.self", vtensor([length], "si64"), [flat, ends, one_t])
        end = make("torch.aten.max", "!torch.vtensor<[],si64>", [ends])
        end = make("torch.aten.item", "!torch.int", [end])
        def cut(x: Any, dim: int) -> Any:
            dims, el = _shape(x)  # type: ignore[misc]
            dims = list(dims); dims[dim] = "?"
            return make("torch.aten.slice.Tensor", vtensor(dims, el), [x, const_int(dim), const_int(0), end, const_int(1)])
        key, value = cut(key, 2), cut(value, 2)
        mask = cut(mask, len(mask_dims) - 1)
        k_dims, _ = _shape(key)  # type: ignore[misc]
        v_dims, _ = _shape(value)  # type: ignore[misc]
        length = "?"
    transposed = make(
        "torch.aten.transpose.int",
        vtensor([*heads_dims, k_dims[3], length], element),
        [key, *(make("torch.constant.int", "!torch.int", [], value=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)) for d in (2, 3))],
    )
    scores_type = vtensor([*heads_dims, rows, length], element)
    scores = make("torch.aten.matmul", scores_type, [query, transposed])
    scores = make("torch.aten.mul.Scalar", scores_type, [scores, number(scale)])
    if mask_dims:
        if _shape(mask)[1] == "i1":  # type: ignore[index]
            scores = make("torch.aten.where.ScalarOther", scores_type, [mask, scores, number(-math.inf)])
        else:
            one = make("torch.constant.int", "!torch.int", [], value=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1))
            scores = make("torch.aten.add.Tensor", scores_type, [scores, mask, one])
    last = make("torch.constant.int", "!torch.int", [], value=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3))
    none = make("torch.constant.none", "!torch.none", [])
    weights = make("torch.aten._safe_softmax", scores_type, [scores, last, none])
    result = make("torch.aten.matmul", vtensor([*heads_dims, rows, v_dims[3]], element), [weights, value])
    if packed:
        result = make("torch.aten.reshape", str(operation.results[0].type), [result, integers(batch, q_dims[1], 1, v_dims[3])])
    operation.results[0].replace_all_uses_with(result)
    operation.erase()
