"""A language model's prompt program cut to the last position's logits (docs/design.md,
"Generation"): generation reads only the logits after the prompt's last token, and the
final projection over every row (the `lm_head`, thousands of logits a token) is a large
share of a prompt's time. The program's own function keeps returning
every row (the original call); this one is compiled beside it, on the same cache, for
the generation loop (`abi.generation`'s ``prefill``).

The cut is generic: from the program's one result back through ops that act on each row
on its own (elementwise ops, the rest of their operands scalars or one row's worth, such
as a bias or Gemma's logit soft-capping) to the `aten.linear` that makes the logits, whose
input is sliced to its last row. Nothing per architecture; a program where the path is
anything else is not cut (None).

`static_length_program` exports such a program again at one static prompt length (a
chunk): IREE compiles a product of a static number of rows faster than one of a dynamic
number, and the generation loop feeds a long prompt to it a chunk at a time
(`abi.generation`'s ``chunk``; docs/design.md, "Generation").
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import torch

from abi_compiler.frontends import quiet
from abi_compiler.frontends.torch import with_outputs

__all__ = ["last_logits_program", "static_length_program"]

# The ops between the final projection and the logits that act on each row on its own
# (their other operands being scalars, or tensors of at most one row's dims).
_ROW_WISE = {
    getattr(getattr(torch.ops.aten, name), overload)
    for name, overloads in (
        ("alias", ("default",)),
        ("clone", ("default",)),
        ("_to_copy", ("default",)),
        ("to", ("dtype",)),
        ("tanh", ("default",)),
        *((name, ("Tensor", "Scalar")) for name in ("add", "sub", "mul", "div")),
    )
    for overload in overloads
}
_END = 2**63 - 1  # (aten.slice's "to the end")


def last_logits_program(
    exported: torch.export.ExportedProgram, ids: str
) -> torch.export.ExportedProgram | None:
    """``exported`` (a prompt program: its argument ``ids`` of shape ``[1, n]``, ``n``
    dynamic, and one result of logits ``[1, n, vocabulary]``) computing the logits of
    its last row only, ``[1, 1, vocabulary]`` — equal to the full program's last row
    within float rounding; None when it is not such a program or when the path from the
    result to its final `aten.linear` is not row-wise."""
    graph_module = copy.deepcopy(exported.graph_module)
    graph = graph_module.graph
    placeholders = {node.name: node for node in graph.nodes if node.op == "placeholder"}
    ids_node = placeholders.get(ids)
    if ids_node is None or ids not in exported.graph_signature.user_inputs:
        return None
    ids_shape = _shape(ids_node)
    if ids_shape is None or len(ids_shape) != 2 or isinstance(ids_shape[1], int):
        return None  # (a static length: a step, whose one row is already the last)
    user_outputs = exported.graph_signature.user_outputs
    output = graph.output_node()
    values = output.args[0]
    if len(user_outputs) != 1 or not isinstance(values, (tuple, list)):
        return None
    node = values[-1]  # (the user's output comes after the buffers' new values)
    if getattr(node, "name", None) != user_outputs[0]:
        return None
    logits_shape = _shape(node)
    if logits_shape is None or len(logits_shape) != 3 or not _same(logits_shape[1], ids_shape[1]):
        return None
    while node.target is not torch.ops.aten.linear.default:
        if node.target not in _ROW_WISE or len(node.users) != 1:
            return None
        rows = [a for a in node.args if isinstance(a, torch.fx.Node) and _has_rows(a, ids_shape)]
        if len(rows) != 1 or any(isinstance(a, torch.fx.Node) for a in node.kwargs.values()):
            return None
        node = rows[0]
    hidden = node.args[0]
    shape = _shape(hidden) if isinstance(hidden, torch.fx.Node) else None
    if shape is None or len(shape) != 3 or not _same(shape[1], ids_shape[1]):
        return None
    if len(node.users) != 1:
        return None
    with graph.inserting_before(node):
        last = graph.call_function(torch.ops.aten.slice.Tensor, (hidden, 1, -1, _END))
    value = hidden.meta["val"]
    with value.fake_mode:
        last.meta["val"] = torch.ops.aten.slice.Tensor(value, 1, -1, _END)
    node.replace_input_with(hidden, last)
    graph_module.recompile()
    cut = with_outputs(exported, graph_module, list(exported.graph_signature.output_specs))
    with quiet():  # (retraced: every shape after the slice is one row's)
        return cut.run_decompositions({})


def static_length_program(
    exported: torch.export.ExportedProgram, ids: str, positions: str, length: int
) -> torch.export.ExportedProgram | None:
    """``exported`` (a prompt program whose only arguments are ``ids`` of shape ``[1, n]``
    and ``positions`` of shape ``[n]``, by keyword, ``n`` dynamic) exported again with
    ``n`` = ``length``: the same graph, its state and weights of the same names; None when
    it is not such a program or ``length`` is outside the bounds of ``n``, and, with a
    warning, when torch cannot export it so."""
    placeholders = {node.name: node for node in exported.graph.nodes if node.op == "placeholder"}
    if sorted(exported.graph_signature.user_inputs) != sorted((ids, positions)):
        return None
    ids_shape, positions_shape = _shape(placeholders[ids]), _shape(placeholders[positions])
    if (
        ids_shape is None
        or positions_shape is None
        or len(ids_shape) != 2
        or len(positions_shape) != 1
        or isinstance(ids_shape[1], int)
        or not _same(ids_shape[1], positions_shape[0])
    ):
        return None
    bounds = exported.range_constraints.get(ids_shape[1].node.expr)
    if bounds is None or not bounds.lower <= length <= bounds.upper:
        return None
    ids_value, positions_value = placeholders[ids].meta["val"], placeholders[positions].meta["val"]
    arguments = {
        ids: torch.zeros((1, length), dtype=ids_value.dtype),
        positions: torch.arange(length, dtype=positions_value.dtype),
    }
    try:
        with quiet(), warnings.catch_warnings():
            # (torch's notes on what it traced, addressed to the model's authors)
            warnings.simplefilter("ignore", UserWarning)
            static = torch.export.export(exported.module(), (), arguments, strict=False)
            return static.run_decompositions({})  # (functional again: its state written)
    except Exception as error:  # torch.export's own exceptions, of many types
        # (the program is compiled without it: the prompt goes to the prefill function)
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        warnings.warn(
            f"torch cannot export the prompt program at a static length of {length} tokens "
            f"({type(error).__name__}: {first}): no chunk function",
            stacklevel=2,
        )
        return None


def _shape(node: Any) -> tuple[Any, ...] | None:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return tuple(value.shape) if isinstance(value, torch.Tensor) else None


def _has_rows(node: torch.fx.Node, ids_shape: tuple[Any, ...]) -> bool:
    """Whether ``node``'s value has the prompt's rows (a dim of the prompt's length)."""
    shape = _shape(node)
    return shape is not None and len(shape) >= 2 and any(_same(d, ids_shape[1]) for d in shape)


def _same(dim: Any, other: Any) -> bool:
    """Whether two dims are the same size expression (compared as text: comparing a
    symbolic size with ``==`` would add a guard to the program's shape environment)."""
    return str(dim) == str(other)
