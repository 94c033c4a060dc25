"""`wrap-entry-points`: the V1 native calling convention (docs/spec.md §8.2, §8.3).

Each exported function whose structure comes from index paths, or whose signature holds a
tuple, `!abi.dict` or ND-array of reference type, becomes a private, flattened `_<name>`
behind a public wrapper `<name>` (marked `iree.abi.stub`) that takes every structure as
one `!util.list<?>`, unpacks it, calls `_<name>` and packs the result structures.
"""

from __future__ import annotations

from collections.abc import Hashable
from collections.abc import Sequence as SequenceABC  # `Sequence` is the model's node
from dataclasses import dataclass, field
from typing import ClassVar, Generic, Protocol, TypeVar

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import (
    Attribute,
    Block,
    Operation,
    Region,
    SSAValue,
)
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from abi_compiler.attribute_names import (
    ABI_INDEX_PATH,
    ABI_NAME,
    ABI_OUTPUT,
    ABI_STUB,
    ALIASING_OUTPUT,
    IREE_ABI,
    JAX_ARG_INFO,
    JAX_RESULT_INFO,
    MODULE_EXPORT,
    RAW,
    RAW_KEYS,
    REFLECTION,
    SIP_KEYS,
)
from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.raw import encode_raw
from abi_compiler.dialects.abi import RefArrayFromListsOp, RefArrayToListsOp
from abi_compiler.dialects.hal import (
    BufferViewDimOp,
    TensorAliasOp,
    TensorExportOp,
    TensorImportOp,
)
from abi_compiler.dialects.util import (
    ListCreateOp,
    ListGetOp,
    ListResizeOp,
    ListSetOp,
    ListType,
)
from abi_compiler.errors import AbiError
from abi_compiler.ir import diagnostics
from abi_compiler.ir.attribute_text import AttributeTexts
from abi_compiler.ir.location_table import argument_names
from abi_compiler.model import (
    IndexPath,
    Leaf,
    Node,
    Signature,
    format_index_path,
    slots,
)
from abi_compiler.model import leaves as leaves_of
from abi_compiler.passes.contract import AbiPass, BodyAccess
from abi_compiler.passes.decompose import decompose_module, flat_types, leaf_types
from abi_compiler.passes.jax_export import jax_paths
from abi_compiler.passes.legacy_lists import respell_legacy_lists
from abi_compiler.passes.materialize import (
    materialize_iree_abi,
    materialize_raw_abi,
    materialize_sip_abi,
    raw_signature,
)
from abi_compiler.passes.reflection import (
    adopt_bare_iree_abi,
    existing_decoded,
    reflection_entries,
)
from abi_compiler.passes.saved_model import (
    adopt_saved_model_exports,
    rename_functions,
    symbol_names,
)
from abi_compiler.passes.structure import (
    check_bound_inputs,
    compact_value_attrs,
    exported_functions,
    function_signature,
    functions,
    index_path_attribute,
    is_ref_array_type,
    is_structured_type,
    structure_source,
    type_text,
)
from abi_compiler.passes.wrapper_text import BUFFER_VIEW, VARIANT_LIST, TextOps
from abi_compiler.text import lexer


def needs_wrapper(func: FuncOp) -> bool:
    """Index-path and JAX-path functions, and functions with a structure or an ND-array
    of reference type anywhere in their signature (docs/spec.md §8.2, §3.3)."""
    if structure_source(func) is not None:
        return True
    types = (*func.function_type.inputs.data, *func.function_type.outputs.data)
    return any(is_structured_type(t) or is_ref_array_type(t) for t in types)


def native_abi_rejects(type: Attribute) -> bool:
    """Types IREE's native ABI does not accept at the boundary (docs/spec.md §8.2)."""
    if isinstance(type, UnrankedTensorType) or is_ref_array_type(type):
        return True
    if isinstance(type, IntegerType) and type.signedness.data != Signedness.SIGNLESS:
        return True
    return isinstance(type, ComplexType)


@dataclass
class _Plan:
    """A function to wrap: its export name, structure and reflection."""

    func: FuncOp
    name: str
    signature: Signature
    reflection: dict[str, Attribute] = field(default_factory=dict)
    arg_names: list[str | None] = field(default_factory=list)
    recompute_legacy: bool = False  # iree-abi-legacy's entries for the flat function
    #: Implementation argument → the result stored into its buffer (`iree.abi.output`).
    outputs: dict[int, int] = field(default_factory=dict)


def _plan(func: FuncOp) -> _Plan:
    name = func.sym_name.data
    signature = function_signature(func)
    entries = reflection_entries(func)
    adopt_bare_iree_abi(func, entries)
    described = existing_decoded(func, entries, IREE_ABI, decode_json)
    if described is None:
        entries[IREE_ABI] = StringAttr(encode_json(signature))
    elif len(described.arguments) != len(signature.arguments) or len(described.results) != len(
        signature.results
    ):
        raise AbiError(f"existing iree.abi does not match the signature of @{name}", op=func)
    return _Plan(
        func,
        name,
        signature,
        dict(sorted(entries.items())),
        _root_arg_names(func, signature),
        _written_by_legacy_pipeline(func, entries),
    )


def _written_by_legacy_pipeline(func: FuncOp, entries: dict[str, Attribute]) -> bool:
    """True when ``func`` is `iree-abi-legacy`'s output: flattened with index paths, and
    its `f` describes those flat types. Entries a frontend wrote are left as they are."""
    if index_path_attribute(func) is None or RAW not in entries:
        return False
    with diagnostics.collect():
        own = encode_raw(raw_signature(func))
    f = entries[RAW]
    return isinstance(f, StringAttr) and f.data == own


# What MLIR's lexer reads as an SSA name after `%` (not a number, which the printer
# gives). xDSL's `SSAValue.is_valid_name` also admits non-ASCII word characters (`%A¹`),
# which print but do not parse back.
_SSA_NAME = lexer.NAMED_SUFFIX_IDENTIFIER


def _root_arg_names(func: FuncOp, signature: Signature) -> list[str | None]:
    """SSA names for the wrapper's arguments: the original argument's name for typed
    functions, the argument name for named index-path arguments and the parameter name
    for JAX-path ones (when it is one)."""
    source = structure_source(func)
    if source is None:
        # (xDSL's parser gives `%_1` the hint "", which it then refuses as a name.)
        return [arg.name_hint or None for arg in func.args]
    if source == JAX_ARG_INFO:
        jax = jax_paths(func, warn=False)
        assert jax is not None  # `structure_source` just read them
        return [
            name if name is not None and _SSA_NAME.fullmatch(name) else None
            for name in jax.parameters
        ]
    return [
        arg.name if arg.name is not None and _SSA_NAME.fullmatch(arg.name) else None
        for arg in signature.arguments
    ]


def _warn_rejected_types(plan: _Plan) -> None:
    func = plan.func
    sides = (
        ("argument", func.function_type.inputs.data),
        ("result", func.function_type.outputs.data),
    )
    for side, types in sides:
        for i, type in enumerate(types):
            for leaf in leaf_types(type):
                if native_abi_rejects(leaf):
                    diagnostics.warn(
                        f"type {type_text(leaf)} is not supported by IREE's native ABI",
                        func,
                        (side, i),
                    )


def _refuse_unranked_in_structures(plan: _Plan) -> None:
    """An unranked tensor inside a structure has no form the wrapper could write: a list
    carries a tensor as a `!hal.buffer_view`, and `hal.tensor.import` needs a ranked type
    (IREE's verifier refuses the module). At the root (or as an item of an inlined single
    result) it stays a tensor (with a warning, `_warn_rejected_types`); inside a list it is
    an error."""
    func = plan.func
    sides = (
        ("argument", [a.node for a in plan.signature.arguments], func.function_type.inputs.data),
        ("result", _result_roots(plan.signature), func.function_type.outputs.data),
    )
    for side, nodes, types in sides:
        flat = flat_types(types)
        for position, node in enumerate(nodes):
            if node is None or isinstance(node, Leaf):
                continue
            for leaf in leaves_of(node):
                type = flat[leaf.index] if leaf.index < len(flat) else None
                if isinstance(type, UnrankedTensorType):
                    raise AbiError(
                        f"{side} {position}: the unranked {type_text(type)} inside a structure "
                        "cannot be passed through IREE's native ABI (a list carries a tensor as "
                        "a !hal.buffer_view, whose import needs a ranked type)",
                        op=func,
                    )


def _result_roots(signature: Signature) -> list[Node | None]:
    """The results the wrapper returns one by one: an inlined structure's items, or the
    results themselves."""
    if signature.inlined_result:
        return [child for _, child in slots(signature.results[0])]
    return list(signature.results)


V = TypeVar("V")


class WrapperOps(Protocol[V]):
    """What a wrapper is written with: one method per op the wrapper uses (docs/spec.md §8.2),
    each appending the op and returning its result. ``V`` is a value: an `SSAValue` when
    the wrapper is built as IR (`_IrOps`), a name and a type when it is written as text
    (`wrapper_text.TextOps`). `write_wrapper` decides which ops, in which order."""

    def arguments(self, types: list[Attribute], names: list[str | None]) -> list[V]: ...

    def type_of(self, value: V) -> Attribute: ...

    def index(self, value: int) -> V:
        """`arith.constant <value> : index`."""
        ...

    def list_get(self, lst: V, index: V, type: Attribute) -> V: ...

    def buffer_view_dim(self, view: V, axis: int) -> V: ...

    def tensor_import(self, view: V, type: Attribute, dims: list[V]) -> V: ...

    def ref_array_from_lists(self, lists: V, type: Attribute) -> V: ...

    def ref_array_to_lists(self, value: V) -> V: ...

    def list_create(self, size: V) -> V: ...

    def list_resize(self, lst: V, size: V) -> None: ...

    def list_set(self, lst: V, index: V, value: V) -> None: ...

    def tensor_dim(self, value: V, index: V) -> V: ...

    def tensor_export(self, value: V, dims: list[V]) -> V: ...

    def tensor_alias(self, value: V, view: V, dims: list[V]) -> V: ...

    def call(self, callee: str, operands: list[V], types: list[Attribute]) -> list[V]: ...

    def return_(self, values: list[V]) -> None: ...


class _WrapperBody(Generic[V]):
    """The body of one wrapper, written through ``ops``: arguments unpacked, the call,
    results packed. One `arith.constant` per distinct index, at its first use."""

    def __init__(
        self,
        ops: WrapperOps[V],
        impl_inputs: list[Attribute],
        impl_outputs: list[Attribute],
        outputs: dict[int, int] | None = None,
    ) -> None:
        self.ops = ops
        self.impl_inputs = impl_inputs
        self.impl_outputs = impl_outputs
        self.constants: dict[int, V] = {}
        self.outputs = outputs or {}  # argument leaf → the result stored into its buffer
        self.storage: dict[int, V] = {}  # argument leaf → the buffer view it came in

    def index(self, value: int) -> V:
        found = self.constants.get(value)
        if found is None:
            found = self.constants[value] = self.ops.index(value)
        return found

    # -- arguments ---------------------------------------------------------------------

    def boundary_arg_type(self, node: Node) -> Attribute:
        if isinstance(node, Leaf):
            type = self.impl_inputs[node.index]
            if node.index in self.outputs:
                return BUFFER_VIEW  # its buffer takes a result (`hal.tensor.alias`)
            return VARIANT_LIST if is_ref_array_type(type) else type
        return VARIANT_LIST

    def unpack_root(self, value: V, node: Node, leaves: dict[int, V]) -> None:
        if isinstance(node, Leaf):
            type = self.impl_inputs[node.index]
            if node.index in self.outputs:
                leaves[node.index] = self.import_view(value, type, node.index)
                return
            if is_ref_array_type(type):
                value = self.ops.ref_array_from_lists(value, type)
            leaves[node.index] = value
            return
        self.unpack_structure(value, node, leaves)

    def import_view(self, view: V, type: Attribute, leaf: int | None = None) -> V:
        """The tensor of a buffer view (its dynamic dims read from it); ``leaf``: kept
        as the storage of that argument when a result is stored into it."""
        dims: list[V] = []
        if isinstance(type, TensorType):
            for axis, size in enumerate(type.get_shape()):
                if size < 0:
                    dims.append(self.ops.buffer_view_dim(view, axis))
        if leaf is not None and leaf in self.outputs:
            self.storage[leaf] = view
        return self.ops.tensor_import(view, type, dims)

    def unpack_structure(self, lst: V, node: Node, leaves: dict[int, V]) -> None:
        for slot, (_, child) in enumerate(slots(node)):
            if child is None or not leaves_of(child):
                continue  # gaps and empty structures carry no value to read
            index = self.index(slot)
            if isinstance(child, Leaf):
                type = self.impl_inputs[child.index]
                leaves[child.index] = self.read_leaf(lst, index, type, child.index)
            else:
                sub = self.ops.list_get(lst, index, VARIANT_LIST)
                self.unpack_structure(sub, child, leaves)

    def read_leaf(self, lst: V, index: V, type: Attribute, leaf: int | None = None) -> V:
        ops = self.ops
        if is_ref_array_type(type):
            return ops.ref_array_from_lists(ops.list_get(lst, index, VARIANT_LIST), type)
        if isinstance(type, (TensorType, UnrankedTensorType)):
            return self.import_view(ops.list_get(lst, index, BUFFER_VIEW), type, leaf)
        return ops.list_get(lst, index, type)

    def alias_results(self, results: SequenceABC[V]) -> list[V]:
        """``results`` with each one an argument takes stored into that argument's buffer
        view (`hal.tensor.alias`, in argument order)."""
        found = list(results)
        for leaf, result in sorted(self.outputs.items()):
            view = self.storage.get(leaf)
            if view is None:
                continue
            value = found[result]
            dims: list[V] = []
            type = self.ops.type_of(value)
            if isinstance(type, TensorType):
                for axis, size in enumerate(type.get_shape()):
                    if size < 0:
                        dims.append(self.ops.tensor_dim(value, self.index(axis)))
            found[result] = self.ops.tensor_alias(value, view, dims)
        return found

    # -- results -----------------------------------------------------------------------

    def pack_root(self, node: Node, results: SequenceABC[V], path: IndexPath) -> V:
        if isinstance(node, Leaf):
            value = results[node.index]
            if is_ref_array_type(self.ops.type_of(value)):
                return self.ops.ref_array_to_lists(value)
            return value
        return self.pack_structure(node, results, path)

    def pack_structure(self, node: Node, results: SequenceABC[V], path: IndexPath) -> V:
        ops = self.ops
        items = slots(node)
        size = self.index(len(items))
        lst = ops.list_create(size)
        ops.list_resize(lst, size)
        for slot, (key, child) in enumerate(items):
            if child is None:
                raise AbiError(f"no value at result path {format_index_path((*path, key))}")
            if isinstance(child, Leaf):
                value = self.write_leaf(results[child.index])
            else:
                value = self.pack_structure(child, results, (*path, key))
            ops.list_set(lst, self.index(slot), value)
        return lst

    def write_leaf(self, value: V) -> V:
        ops = self.ops
        type = ops.type_of(value)
        if is_ref_array_type(type):
            return ops.ref_array_to_lists(value)
        if isinstance(type, (TensorType, UnrankedTensorType)):
            dims: list[V] = []
            if isinstance(type, TensorType):
                for axis, size in enumerate(type.get_shape()):
                    if size < 0:
                        dims.append(ops.tensor_dim(value, self.index(axis)))
            return ops.tensor_export(value, dims)
        return value


def write_wrapper(
    plan: _Plan, impl: FuncOp, ops: WrapperOps[V]
) -> tuple[list[Attribute], list[Attribute]]:
    """Write the body of ``plan``'s wrapper of ``impl`` through ``ops`` (docs/spec.md §8.2);
    returns the wrapper's argument and result types. A gap in a result structure is
    the `AbiError` `no value at result path <path>`, at ``impl``."""
    signature = plan.signature
    body = _WrapperBody(
        ops,
        list(impl.function_type.inputs.data),
        list(impl.function_type.outputs.data),
        plan.outputs,
    )
    arg_types = [body.boundary_arg_type(arg.node) for arg in signature.arguments]
    args = ops.arguments(arg_types, plan.arg_names)
    leaves: dict[int, V] = {}
    for arg, value in zip(signature.arguments, args, strict=True):
        body.unpack_root(value, arg.node, leaves)
    operands = [leaves[i] for i in range(len(body.impl_inputs))]
    results = body.alias_results(ops.call(impl.sym_name.data, operands, body.impl_outputs))
    try:
        if signature.inlined_result:
            returned = []
            for key, child in slots(signature.results[0]):
                if child is None:
                    raise AbiError(f"no value at result path {format_index_path((key,))}")
                returned.append(body.pack_root(child, results, (key,)))
        else:
            returned = [
                body.pack_root(node, results, (i,)) for i, node in enumerate(signature.results)
            ]
    except AbiError as error:
        error.op = impl
        raise
    ops.return_(returned)
    return arg_types, [ops.type_of(value) for value in returned]


class _IrOps:
    """`WrapperOps` building IR: the ops appended to one block."""

    def __init__(self) -> None:
        self.block = Block()

    def _add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def arguments(self, types: list[Attribute], names: list[str | None]) -> list[SSAValue]:
        self.block = Block(arg_types=types)
        for value, name in zip(self.block.args, names, strict=False):
            value.name_hint = name
        return list(self.block.args)

    def type_of(self, value: SSAValue) -> Attribute:
        return value.type

    def index(self, value: int) -> SSAValue:
        return self._add(arith.ConstantOp.from_int_and_width(value, IndexType()))

    def list_get(self, lst: SSAValue, index: SSAValue, type: Attribute) -> SSAValue:
        return self._add(ListGetOp(lst, index, type))

    def buffer_view_dim(self, view: SSAValue, axis: int) -> SSAValue:
        return self._add(BufferViewDimOp(view, axis))

    def tensor_import(self, view: SSAValue, type: Attribute, dims: list[SSAValue]) -> SSAValue:
        assert isinstance(type, (TensorType, UnrankedTensorType))
        return self._add(TensorImportOp(view, type, dims))

    def ref_array_from_lists(self, lists: SSAValue, type: Attribute) -> SSAValue:
        assert isinstance(type, TensorType)
        return self._add(RefArrayFromListsOp(lists, type))

    def ref_array_to_lists(self, value: SSAValue) -> SSAValue:
        return self._add(RefArrayToListsOp(value))

    def list_create(self, size: SSAValue) -> SSAValue:
        return self._add(ListCreateOp(ListType(), size))

    def list_resize(self, lst: SSAValue, size: SSAValue) -> None:
        self.block.add_op(ListResizeOp(lst, size))

    def list_set(self, lst: SSAValue, index: SSAValue, value: SSAValue) -> None:
        self.block.add_op(ListSetOp(lst, index, value))

    def tensor_dim(self, value: SSAValue, index: SSAValue) -> SSAValue:
        return self._add(tensor.DimOp(value, index))

    def tensor_export(self, value: SSAValue, dims: list[SSAValue]) -> SSAValue:
        return self._add(TensorExportOp(value, dims))

    def tensor_alias(self, value: SSAValue, view: SSAValue, dims: list[SSAValue]) -> SSAValue:
        return self._add(TensorAliasOp(value, view, dims))

    def call(self, callee: str, operands: list[SSAValue], types: list[Attribute]) -> list[SSAValue]:
        call = CallOp(callee, operands, types)
        self.block.add_op(call)
        return list(call.results)

    def return_(self, values: list[SSAValue]) -> None:
        self.block.add_op(ReturnOp(*values))


def _build_wrapper(plan: _Plan, impl: FuncOp) -> FuncOp:
    ops = _IrOps()
    arg_types, result_types = write_wrapper(plan, impl, ops)
    wrapper = FuncOp(plan.name, (arg_types, result_types), Region(ops.block))
    wrapper.attributes.update(wrapper_attributes(plan, arg_types, result_types))
    return wrapper


def wrapper_attributes(
    plan: _Plan, arg_types: list[Attribute], result_types: list[Attribute]
) -> dict[str, Attribute]:
    """The wrapper's attributes, in order: `iree.abi.stub` and its `iree.reflection`."""
    attributes: dict[str, Attribute] = {
        ABI_STUB: UnitAttr(),
        REFLECTION: _sorted_dict(plan.reflection),
    }
    if plan.recompute_legacy:
        # The entries describe the wrapper's types: a declaration of them is enough.
        header = FuncOp(plan.name, (arg_types, result_types), Region())
        header.attributes.update(attributes)
        _recompute_legacy_reflection(header, plan.reflection)
        attributes = dict(header.attributes)
    return attributes


def _recompute_legacy_reflection(wrapper: FuncOp, moved: dict[str, Attribute]) -> None:
    """Legacy entries moved from the implementation (`iree-abi-legacy` ran first)
    described its flat signature; on the wrapper they are recomputed for the wrapper's
    own signature (structures as `!util.list<?>`: `O1!`, trivial SIP), so that every
    entry describes the function it is on — what `iree-abi-legacy` run after
    `iree-abi-v1` writes on the same wrapper."""
    raw = any(key in moved for key in RAW_KEYS)
    sip = any(key in moved for key in SIP_KEYS)
    if not raw and not sip:
        return
    entries = {key: value for key, value in moved.items() if key not in RAW_KEYS + SIP_KEYS}
    wrapper.attributes[REFLECTION] = _sorted_dict(entries)
    # Building a wrapper must not warn (`prepare`); what these would say about the
    # values, iree-abi-legacy said when it ran on the implementation.
    with diagnostics.collect():
        if raw:
            materialize_raw_abi(wrapper)
        if sip:
            materialize_sip_abi(wrapper)


def _sorted_dict(entries: dict[str, Attribute]) -> DictionaryAttr:
    return DictionaryAttr(dict(sorted(entries.items())))


# What a private implementation no longer carries on its values: its structure is the
# wrapper's (docs/spec.md §8.2, §3.3). Other frontend attributes (`mhlo.sharding`, …) stay.
_BOUNDARY_ATTRS = frozenset({ABI_INDEX_PATH, ABI_NAME, JAX_ARG_INFO, JAX_RESULT_INFO})


def _make_private_impl(plan: _Plan, taken: set[str]) -> str:
    """Make the function private and strip its boundary attributes; returns its new name
    (the caller renames every implementation, and redirects calls, in one walk)."""
    func = plan.func
    impl_name = f"_{plan.name}"
    if impl_name in taken:
        raise AbiError(f"symbol @{impl_name} already exists", op=func)
    taken.add(impl_name)
    func.sym_visibility = StringAttr("private")
    for key in (REFLECTION, IREE_ABI, MODULE_EXPORT):
        func.attributes.pop(key, None)
    for attrs_name in ("arg_attrs", "res_attrs"):
        attrs = getattr(func, attrs_name)
        if attrs is None:
            continue
        # (Unchanged attributes keep their object, which other functions may share.)
        if any(key in _BOUNDARY_ATTRS for a in attrs.data for key in a.data) or not any(
            a.data for a in attrs.data
        ):
            kept = [
                DictionaryAttr({k: v for k, v in a.data.items() if k not in _BOUNDARY_ATTRS})
                for a in attrs.data
            ]
            setattr(func, attrs_name, compact_value_attrs(ArrayAttr(kept)))
    return impl_name


def take_outputs(func: FuncOp) -> dict[int, int]:
    """The arguments of the (flattened) implementation ``func`` whose buffer takes a result
    (`iree.abi.output = <result>`: an argument a torch program updates in place), each
    → that result; the attribute is removed (the wrapper writes the `hal.tensor.alias`).
    An argument and result that are not ranked tensors of one type are an `AbiError`."""
    attrs = func.arg_attrs
    if attrs is None or not any(ABI_OUTPUT in a.data for a in attrs.data):
        return {}
    inputs, results = func.function_type.inputs.data, func.function_type.outputs.data
    found: dict[int, int] = {}
    kept: list[DictionaryAttr] = []
    for position, a in enumerate(attrs.data):
        output = a.data.get(ABI_OUTPUT)
        if output is None:
            kept.append(a)
            continue
        result = output.value.data if isinstance(output, IntegerAttr) else -1
        if not (
            0 <= result < len(results)
            and isinstance(inputs[position], TensorType)
            and results[result] == inputs[position]
            and result not in found.values()
        ):
            raise AbiError(
                f"argument {position}: {ABI_OUTPUT} must name a result of its tensor type "
                "that no other argument names",
                op=func,
            )
        found[position] = result
        kept.append(DictionaryAttr({k: v for k, v in a.data.items() if k != ABI_OUTPUT}))
    func.arg_attrs = compact_value_attrs(ArrayAttr(kept))
    return found


def drop_result_aliasing(func: FuncOp) -> None:
    """Remove `tf.aliasing_output` (JAX's donation of an argument to a result) from an
    exported function's arguments, with one warning per function naming the donated
    leaves (docs/spec.md §3.3): IREE 3.13 honours it on a public function by writing the result
    into the argument's buffer, so a caller's device array passed there changes under
    its feet (docs/structure.md has the measurement). `jax.buffer_donor` stays: IREE
    does not act on it."""
    attrs = func.arg_attrs
    if attrs is None or not any(ALIASING_OUTPUT in a.data for a in attrs.data):
        return
    names = argument_names(func)
    kept: list[DictionaryAttr] = []
    dropped: list[tuple[int, str]] = []
    for i, a in enumerate(attrs.data):
        alias = a.data.get(ALIASING_OUTPUT)
        if alias is None:
            kept.append(a)
            continue
        target = f"result {alias.value.data}" if isinstance(alias, IntegerAttr) else "a result"
        name = names[i] if i < len(names) else None
        dropped.append(
            (i, f"{name} (argument {i} → {target})" if name else f"argument {i} → {target}")
        )
        kept.append(DictionaryAttr({k: v for k, v in a.data.items() if k != ALIASING_OUTPUT}))
    func.arg_attrs = compact_value_attrs(ArrayAttr(kept))
    if len(dropped) == 1:
        position, described = dropped[0]
        diagnostics.warn(
            f"{ALIASING_OUTPUT} dropped from {described}: IREE would write the result into "
            "the caller's array",
            func,
            ("argument", position),
        )
        return
    diagnostics.warn(
        f"{ALIASING_OUTPUT} dropped from {len(dropped)} arguments: "
        f"{', '.join(described for _, described in dropped)}: IREE would write each result "
        "into the caller's array",
        func,
    )


@dataclass(frozen=True)
class WrapEntryPointsPass(AbiPass):
    """Give every structured export a V1 wrapper taking structures as `!util.list<?>`;
    the implementation becomes private `_<name>`, flattened; other exports get
    `iree.abi` if missing (docs/spec.md §8.2)."""

    name = "wrap-entry-points"
    body_access: ClassVar[BodyAccess] = BodyAccess.STRUCTURED

    #: When last in a pipeline, build each wrapper as IR and have xDSL verify and print
    #: it, instead of writing its text (`wrapper_text`); the output is the same. For
    #: debugging (`-p 'materialize-iree-abi,wrap-entry-points{ir-wrappers=true}'`).
    ir_wrappers: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        wrapper_before = self.prepare(ctx, op)
        for func in functions(op):
            wrapper = wrapper_before(func)
            if wrapper is not None:
                Rewriter.insert_op(wrapper, InsertPoint.before(func))

    def prepare(self, ctx: Context, op: ModuleOp) -> DeferredWrappers:
        """`AbiPass.prepare` (`abi_compiler.passes.contract`): all of the pass but
        building the wrappers, which the returned function does: given a top-level op,
        the wrapper that goes right before it (None if it has none). Each wrapper
        depends on its implementation alone and nothing refers to it, so `abi-opt`
        builds, verifies, prints and drops them one at a time while printing the
        module: a large module never holds all of them at once. Building a wrapper may
        raise a located `AbiError` but must not warn (warnings are collected while
        passes run, not while printing)."""
        adopt_saved_model_exports(op)
        respell_legacy_lists(op)
        plans: list[_Plan] = []
        for func in exported_functions(op):
            check_bound_inputs(func)
            if ABI_STUB in func.attributes:
                continue
            drop_result_aliasing(func)
            if needs_wrapper(func):
                plans.append(_plan(func))
                _refuse_unranked_in_structures(plans[-1])
            else:
                materialize_iree_abi(func)
        taken = symbol_names(op)
        renames = []
        for plan in plans:
            _warn_rejected_types(plan)
            renames.append((plan.func, _make_private_impl(plan, taken)))
        rename_functions(op, renames)
        decompose_module(op)
        for plan in plans:
            plan.outputs.update(take_outputs(plan.func))
        return DeferredWrappers({plan.func: plan for plan in plans}, as_text=not self.ir_wrappers)


class DeferredWrappers:
    """What `WrapEntryPointsPass.prepare` leaves to build: calling it with a top-level op
    gives the wrapper that goes right before it (None if it has none)."""

    def __init__(self, by_impl: dict[Operation, _Plan], as_text: bool = True) -> None:
        self._by_impl = by_impl
        self._as_text = as_text
        self._texts: AttributeTexts | None = None  # of the last printer given to `text`

    def __call__(self, top: Operation) -> FuncOp | None:
        plan = self._by_impl.get(top)
        return None if plan is None else _build_wrapper(plan, plan.func)

    def text(self, top: Operation, printer: Printer, indent: str) -> str | None:
        """The wrapper of ``top`` as ``printer`` prints the op `__call__` builds, at
        ``indent`` (`wrapper_text`), from `func.func` to its closing brace; None when
        ``top`` has no wrapper, or when the pass was asked to build them
        (``ir-wrappers``). Raises the errors `__call__` raises."""
        plan = self._by_impl.get(top)
        if plan is None or not self._as_text:
            return None
        if self._texts is None or self._texts.printer is not printer:
            self._texts = AttributeTexts(printer)
        ops = TextOps(self._texts, indent)
        arg_types, result_types = write_wrapper(plan, plan.func, ops)
        return ops.function(
            plan.name, result_types, wrapper_attributes(plan, arg_types, result_types)
        )

    def shape(self, top: Operation) -> tuple[Hashable, str, str] | None:
        """(shape, name, callee) of the wrapper of ``top``: two wrappers of the same shape
        are the same text but for their own name and their callee's (everything
        `_build_wrapper` reads of the plan and the implementation but the names), so the
        driver builds, verifies and prints one of each shape. None without a wrapper."""
        plan = self._by_impl.get(top)
        if plan is None:
            return None
        # The signature and function type by identity (equal ones are usually the same
        # object: `function_signature` and the header reader share them; two equal but
        # distinct objects only cost a second build). They live as long as the plans.
        shape = (
            id(plan.signature),
            id(plan.func.function_type),
            tuple(plan.reflection.items()),
            tuple(plan.arg_names),
            plan.recompute_legacy,
            tuple(sorted(plan.outputs.items())),
        )
        return shape, plan.name, plan.func.sym_name.data
