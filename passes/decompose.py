"""Whole-module decomposition of structured values (docs/spec.md §8), shared by both lowering
passes, as MLIR's call-graph type decomposition does.

After `decompose_module` no function (exported or private) takes or returns a `tuple`
or `!abi.dict`: each structured argument/result is replaced by its leaves in natural
order (tuples positionally, dicts by sorted key, depth first), `func.return` and
`func.call` are rewritten to match, and `abi` pack/get ops fold away. A structured value
used or produced by any other op is a located error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnregisteredOp,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue, SSAValues
from xdsl.rewriter import InsertPoint, Rewriter

from abi_compiler.dialects.abi import DictGetOp, DictPackOp, TupleGetOp, TuplePackOp
from abi_compiler.errors import AbiError
from abi_compiler.ir import changes, diagnostics
from abi_compiler.ir.location_table import inherit_location
from abi_compiler.passes.structure import (
    compact_value_attrs,
    functions,
    is_structured_type,
    type_items,
    type_text,
)
from abi_compiler.xdsl_boundary.xdsl_compat import set_block_arguments


def leaf_types(type: Attribute) -> list[Attribute]:
    """The leaf types of ``type`` in natural order (a non-structured type is its own leaf):
    depth first over `structure.type_items`, the order of `model.leaf_paths`."""
    items = type_items(type)
    if items is None:
        return [type]
    return [leaf for _, item in items for leaf in leaf_types(item)]


def flat_types(types: tuple[Attribute, ...] | list[Attribute]) -> list[Attribute]:
    return [leaf for type in types for leaf in leaf_types(type)]


def has_structure(types: tuple[Attribute, ...] | list[Attribute]) -> bool:
    return any(is_structured_type(type) for type in types)


@dataclass
class StructTree:
    """A structured SSA value taken apart: its items in natural order."""

    type: Attribute
    items: list[Tree]

    def leaves(self) -> Iterator[SSAValue]:
        for item in self.items:
            if isinstance(item, StructTree):
                yield from item.leaves()
            else:
                yield item


Tree = SSAValue | StructTree


def build_tree(type: Attribute, leaves: Iterator[SSAValue]) -> Tree:
    """Assemble the tree of a value of ``type`` from its leaves, in natural order."""
    items = type_items(type)
    if items is None:
        return next(leaves)
    return StructTree(type, [build_tree(item, leaves) for _, item in items])


def op_name(op: Operation) -> str:
    """The op's name as written (an unregistered op's own name, not xDSL's stand-in)."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def discard(op: Operation) -> None:
    """Erase ``op`` and break the reference cycle between it and its results, so that
    reference counting frees it at once: the driver keeps the parsed IR out of the cyclic
    garbage collector's reach while passes run (`AbiOptMain._process_chunk`)."""
    Rewriter.erase_op(op)
    op.operands = ()
    op.results = SSAValues()


def _slot_position(op: TupleGetOp | DictGetOp, structure_type: Attribute) -> int:
    """Which item (natural order) an `abi.tuple.get` / `abi.dict.get` reads."""
    key = op.index.value.data if isinstance(op, TupleGetOp) else op.key.data
    items = type_items(structure_type)
    assert items is not None  # the ops' verifiers require a tuple / a dict
    return [item_key for item_key, _ in items].index(key)


class _FunctionDecomposer:
    def __init__(self, func: FuncOp) -> None:
        self.func = func
        self.trees: dict[SSAValue, Tree] = {}
        self.folded: list[Operation] = []
        self.returns_rewritten = False

    def error(
        self, value: SSAValue, op: Operation, role: Literal["used", "produced"] = "used"
    ) -> AbiError:
        """The value cannot be lowered because ``op`` (its user, or its producer with
        ``role="produced"``) cannot be decomposed."""
        return AbiError(
            f"cannot lower structured value of type {type_text(value.type)}: "
            f"{role} by '{op_name(op)}'",
            op=op,
        )

    def tree(self, value: SSAValue, user: Operation) -> Tree:
        if not is_structured_type(value.type):
            return value
        found = self.trees.get(value)
        if found is None:
            # docs/spec.md §8 words the error for a user only; a producer gets the same form.
            if isinstance(value.owner, Operation):
                raise self.error(value, value.owner, "produced")
            raise self.error(value, user)
        return found

    def flat_operands(self, op: Operation) -> list[SSAValue]:
        flat: list[SSAValue] = []
        for operand in op.operands:
            tree = self.tree(operand, op)
            flat.extend(tree.leaves() if isinstance(tree, StructTree) else [tree])
        return flat

    def run(self) -> None:
        if self.func.is_declaration:
            return
        entry = self.func.body.blocks.first
        assert entry is not None
        replaced_args = self._split_arguments(entry)
        for op in list(self.func.body.walk()):
            self._rewrite(op)
        for op in reversed(self.folded):
            discard(op)
        if replaced_args:
            _remove_arguments(entry, replaced_args)
        if replaced_args or self.folded or self.returns_rewritten:
            changes.changed(self.func)

    def _split_arguments(self, entry: Block) -> list[BlockArgument]:
        """Put the leaves of each structured argument right after it (it goes once its
        uses are folded, `_remove_arguments`). The argument list is rebuilt once: xDSL's
        `Block.insert_arg` renumbers every later argument, one call per leaf was
        quadratic in the number of leaves."""
        if not any(is_structured_type(arg.type) for arg in entry.args):
            return []
        replaced: list[BlockArgument] = []
        arguments: list[BlockArgument] = []
        for arg in entry.args:
            arguments.append(arg)
            if not is_structured_type(arg.type):
                continue
            new_args = []
            for leaf_type in leaf_types(arg.type):
                new_arg = BlockArgument(leaf_type, entry, 0, arg.location)
                # Diagnostics about a leaf point at the structured argument it came from.
                inherit_location(new_arg, arg)
                new_args.append(new_arg)
            arguments.extend(new_args)
            self.trees[arg] = build_tree(arg.type, iter(new_args))
            replaced.append(arg)
        set_block_arguments(entry, arguments)
        return replaced

    def _rewrite(self, op: Operation) -> None:
        if isinstance(op, (TuplePackOp, DictPackOp)):
            self.trees[op.results[0]] = StructTree(
                op.results[0].type, [self.tree(operand, op) for operand in op.operands]
            )
            self.folded.append(op)
        elif isinstance(op, (TupleGetOp, DictGetOp)):
            structure = op.operands[0]
            tree = self.tree(structure, op)
            assert isinstance(tree, StructTree)
            item = tree.items[_slot_position(op, structure.type)]
            if isinstance(item, StructTree):
                self.trees[op.results[0]] = item
            else:
                op.results[0].replace_all_uses_with(item)
            self.folded.append(op)
        elif isinstance(op, ReturnOp):
            if any(is_structured_type(operand.type) for operand in op.operands):
                Rewriter.insert_op(ReturnOp(*self.flat_operands(op)), InsertPoint.before(op))
                discard(op)
                self.returns_rewritten = True
        elif isinstance(op, CallOp):
            self._rewrite_call(op)
        else:
            for operand in op.operands:
                if is_structured_type(operand.type):
                    raise self.error(operand, op)

    def _rewrite_call(self, call: CallOp) -> None:
        result_types = [result.type for result in call.results]
        if not has_structure([o.type for o in call.operands]) and not has_structure(result_types):
            return
        new_call = CallOp(call.callee, self.flat_operands(call), flat_types(result_types))
        Rewriter.insert_op(new_call, InsertPoint.before(call))
        new_results = iter(new_call.results)
        for result in call.results:
            if is_structured_type(result.type):
                self.trees[result] = build_tree(result.type, new_results)
            else:
                result.replace_all_uses_with(next(new_results))
        self.folded.append(call)


def _flat_attrs(
    attrs: ArrayAttr[DictionaryAttr] | None, types: tuple[Attribute, ...]
) -> ArrayAttr[DictionaryAttr] | None:
    """Argument/result attributes kept in sync with the flattened signature: a
    decomposed value's leaves get empty dictionaries."""
    if attrs is None:
        return None
    flat: list[DictionaryAttr] = []
    for attr, type in zip(attrs.data, types, strict=True):
        if is_structured_type(type):
            flat.extend([DictionaryAttr({})] * len(leaf_types(type)))
        else:
            flat.append(attr)
    return ArrayAttr(flat)


def flatten_function_type(func: FuncOp) -> None:
    inputs = func.function_type.inputs.data
    outputs = func.function_type.outputs.data
    if not has_structure(inputs) and not has_structure(outputs):
        return
    func.arg_attrs = compact_value_attrs(_flat_attrs(func.arg_attrs, inputs))
    func.res_attrs = compact_value_attrs(_flat_attrs(func.res_attrs, outputs))
    func.function_type = FunctionType.from_lists(flat_types(inputs), flat_types(outputs))
    changes.changed(func)


def _remove_arguments(block: Block, removed: list[BlockArgument]) -> None:
    """`Block.erase_arg` of each of ``removed`` (which must have no uses left), at once."""
    gone = set(removed)
    set_block_arguments(block, [arg for arg in block.args if arg not in gone])
    for arg in removed:
        arg.erase(safe_erase=True)


def decompose_module(module: ModuleOp) -> None:
    """Remove every `tuple` and `!abi.dict` from the signatures and bodies of every
    function of the module (docs/spec.md §8)."""
    funcs = list(functions(module))
    before = [func.function_type for func in funcs]
    for func in funcs:
        _FunctionDecomposer(func).run()
    for func in funcs:
        signature = func.function_type
        structured = has_structure(signature.inputs.data) or has_structure(signature.outputs.data)
        if structured and func.is_declaration and func.sym_visibility is None:
            diagnostics.warn(
                f"the signature of public declaration @{func.sym_name.data} is flattened: "
                "its structured types are replaced by their leaves",
                func,
            )
        flatten_function_type(func)
    retyped = {
        func.sym_name.data: func.function_type
        for func, old in zip(funcs, before, strict=True)
        if func.function_type != old
    }
    if retyped:
        _retype_function_constants(module, retyped)


_FUNC_CONSTANT = StringAttr("func.constant")


def _retype_function_constants(module: ModuleOp, retyped: dict[str, FunctionType]) -> None:
    """A `func.constant @f` (generic: xDSL has no such op) takes the new type of `@f`
    (a symbol use, like a call; what uses the constant is not rewritten)."""
    for top in module.body.ops:
        touched = False
        for op in top.walk():
            if not isinstance(op, UnregisteredOp) or len(op.results) != 1:
                continue
            if op.attributes.get("op_name__") != _FUNC_CONSTANT:
                continue
            value = op.properties.get("value") or op.attributes.get("value")
            if not isinstance(value, SymbolRefAttr) or value.nested_references.data:
                continue
            new_type = retyped.get(value.root_reference.data)
            if new_type is not None and op.results[0].type != new_type:
                Rewriter.replace_value_with_new_type(op.results[0], new_type)
                touched = True
        if touched:
            changes.changed(top)
