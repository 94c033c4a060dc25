"""`torch.export.ExportedProgram` → MLIR whose `main` takes the original call (docs/spec.md §3.4).

    import torch
    from abi_compiler import iree as abi_iree

    program = torch.export.export(model, args, kwargs)
    module = abi_iree.compile(program)
    outputs = module.main(*args, **kwargs)     # the model's own pytree, torch.Tensor leaves

The MLIR comes from iree-turbine (`iree.turbine.aot.export(program)`): one function
`@main` whose arguments are the program's tensor inputs in flatten order, with the lifted
parameters and buffers inside the module (constants, and globals for mutated buffers),
never arguments; `program` leaves those of `EXTERNAL_BYTES` or more out of the text, as
named parameters the module reads (`Program.parameters`). The new value of an input the
program updates in place is one more result, after the program's own, which the call
writes back into the caller's array (`abi.call`'s ``updates``: `_returned_updates`). Operators IREE cannot lower
are rewritten first (`abi_compiler.frontends.torch_rewrites`). Its torch-dialect body is lowered to builtin tensors with IREE's own
torch pipeline (`iree_ir.lower_torch`), and the structure of the program's input and
output tree specs — ``(args, kwargs)`` — is written on it (`pytree.structure`):
positional parameters are positional roots, keyword arguments `named` roots; tuples and
namedtuples are `stuple`, lists `slist`, dicts `sdict`. Inputs torch specialized
(Python numbers, strings, `None`) have no record: the adapter checks that a call passes
the same value, as the exported program itself does. A `register_dataclass` class is a
`dataclass` node of all its fields (its None ones `none`), a transformers `ModelOutput` a
`model_output` node; size symbols are called by the user's `Dim` names (`_user_names`).

Dtypes: float16, bfloat16, float32, float64, int8 to int64, uint8, bool, complex64 and
complex128; another dtype among the program's inputs or outputs is an `AbiError` here,
before anything is compiled. Results come back as `torch.Tensor`s of the program's
output dtypes, sharing the memory of the host arrays the call returned.

Needs ``pip install 'abi-compiler[torch]'`` (torch and iree-turbine).
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import keyword
from collections.abc import Mapping
from typing import Any

try:
    import torch
    from iree.turbine import aot
    from torch.export.graph_signature import (
        ConstantArgument,
        ExportGraphSignature,
        OutputKind,
        OutputSpec,
    )
    from torch.utils import _pytree as pytree_utils
except ImportError as _error:  # pragma: no cover - exercised without torch installed
    raise ImportError(
        "abi_compiler.frontends.torch needs torch and iree-turbine: "
        "pip install 'abi-compiler[torch]'"
    ) from _error

from abi_compiler.attribute_names import PARAMETER_SCOPE
from abi_compiler.call_model import (
    Array,
    CallNode,
    Container,
    Dim,
    NoneLeaf,
    Symbol,
    Terms,
    ValueRange,
)
from abi_compiler.codecs.call_json import constant
from abi_compiler.errors import AbiError, CompileError
from abi_compiler.frontends import Program, quiet
from abi_compiler.frontends.index_checks import insert_index_checks
from abi_compiler.frontends.iree_ir import (
    annotate,
    find_function,
    import_error,
    leaf_types,
    lower_torch,
    write_outputs,
)
from abi_compiler.frontends.linalg_rewrites import (
    hint_activation_products,
    hint_weight_products,
)
from abi_compiler.frontends.pytree import original_call, structure
from abi_compiler.frontends.torch_ranges import value_ranges
from abi_compiler.frontends.torch_rewrites import rewrite
from abi_compiler.frontends.torch_rewrites_models import gelu_tanh_as_math, unknown_operators

__all__ = ["program", "to_mlir"]

# The dtypes whose tensors IREE's runtime takes and returns (`abi_compiler.iree`).
SUPPORTED_DTYPES = frozenset(
    {
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.uint8,
        torch.bool,
        torch.complex64,
        torch.complex128,
    }
)


# Parameters and buffers of at least this many bytes leave the text (`program`).
EXTERNAL_BYTES = 1 << 16


def to_mlir(program: torch.export.ExportedProgram) -> str:
    """The MLIR text of ``program`` with its structure written on `@main` (every
    parameter inside it)."""
    return _program(program, None).mlir


def program(
    program: torch.export.ExportedProgram, *, external_bytes: int | None = EXTERNAL_BYTES
) -> Program:
    """`to_mlir`, with the adapter that takes the program's original call. Parameters
    and buffers of at least ``external_bytes`` bytes are left out of the text (None:
    none): the module reads them by name from an IREE parameter provider, and the
    `Program` holds them (`Program.parameters`)."""
    return _program(program, external_bytes)


def _program(exported: torch.export.ExportedProgram, external_bytes: int | None) -> Program:
    if not isinstance(exported, torch.export.ExportedProgram):
        raise TypeError(f"expected a torch.export.ExportedProgram, got {type(exported).__name__}")
    # iree-turbine does not import in-place ops (a buffer updated in forward), which
    # torch.export's default (training) IR keeps: those programs are made functional
    # first (which retraces them, about a second for a small model).
    if _mutates(exported):
        with quiet():
            exported = exported.run_decompositions({})
    exported = _without_unread_buffer_updates(exported)
    exported, updated = _returned_updates(exported)
    in_spec, out_spec = exported.call_spec.in_spec, exported.call_spec.out_spec
    if in_spec is None or out_spec is None:
        raise AbiError("the exported program has no input or output tree spec")
    ranges = value_ranges(exported)
    inputs = _Leaves(
        _user_values(exported, "inputs"),
        argument=True,
        ranges=[ranges.get(name or "", ()) for name in _user_input_names(exported)],
    )
    outputs = _Leaves(_user_values(exported, "outputs"), argument=False)
    args_spec, kwargs_spec = _children(in_spec)
    positional = [
        _tree(spec, inputs, f"argument {position}")
        for position, spec in enumerate(_children(args_spec))
    ]
    keywords = {
        str(name): _tree(spec, inputs, f"argument {name!r}")
        for name, spec in zip(kwargs_spec.context, _children(kwargs_spec), strict=True)
    }
    result = _tree(out_spec, outputs, "result")
    # The new values of the inputs the program updates: results after the program's own.
    written = [outputs.next(f"input {name!r}") for name in updated]
    records_result = Container("tuple", (result, *written)) if written else result

    parameters = _external_parameters(exported, external_bytes)
    try:
        module = _import(exported)
    finally:
        for tensor in parameters.values():
            delattr(tensor, "_turbine_external_tensor_trait")
    # Before `rewrite`: an `index_copy` is checked as one (it refuses negative indices).
    insert_index_checks(module, [name for name in _user_input_names(exported) if name])
    rewrite(module)
    gelu_tanh_as_math(module)
    _name_state(module, exported)
    try:
        module = lower_torch(module)
    except CompileError as error:
        unknown = unknown_operators(module)
        if unknown:  # what IREE could not lower, named
            raise AbiError(unknown) from error
        raise
    hint_weight_products(module)
    hint_activation_products(module)
    main = find_function(module, "main")
    argument_types, result_types = leaf_types(main)
    found = structure(positional, keywords, records_result, argument_types, result_types)
    names = _user_names(exported)
    positional = [_renamed(node, names) for node in positional]
    keywords = {key: _renamed(node, names) for key, node in keywords.items()}
    result = _renamed(result, names)
    symbols = tuple(Symbol(names.get(s.name, s.name), s.low, s.high) for s in _symbols(exported))
    call = original_call(positional, keywords, result, found, "torch", symbols)
    labels = _parameter_names(exported, len(positional), keywords)
    call = dataclasses.replace(
        call, labels=labels or (), by_name=labels is not None, keyword_only=True
    )
    # The updated inputs: their positions among @main's arguments and results (flatten
    # order), and as leaves of the records (which sort dict keys).
    inputs_at = _tensor_inputs(exported)
    aliased = {
        inputs_at[name]: array.index
        for name, array in zip(updated, written, strict=True)
        if isinstance(array, Array)
    }
    if aliased:
        call = dataclasses.replace(
            call,
            updates=tuple(
                (found.argument_order[argument], found.result_order[result])
                for argument, result in aliased.items()
            ),
        )
    annotate(main, found, call)
    # Each updated input's buffer takes its new value (`hal.tensor.alias`, written by
    # `wrap-entry-points`): a device array passed for it is written in place.
    write_outputs(main, aliased)
    return Program(
        str(module),
        "main",
        call,
        {name: _bytes(tensor) for name, tensor in parameters.items()},
        _classes(in_spec, out_spec),
    )


def _classes(*specs: Any) -> tuple[type, ...]:
    """The classes of the specs' containers other than tuple, list and dict (a namedtuple,
    a transformers `ModelOutput`, an `OrderedDict`), one per name: `compile(program)`
    returns results in them, as the program does."""
    found: dict[str, type] = {}

    def visit(spec: Any) -> None:
        if spec.is_leaf():
            return
        node_type = spec.type
        cls = spec.context if node_type is pytree_utils.namedtuple else node_type
        if isinstance(cls, type) and cls not in (tuple, list, dict, collections.defaultdict):
            found.setdefault(cls.__name__, cls)
        for child in _children(spec):
            visit(child)

    for spec in specs:
        visit(spec)
    return tuple(found.values())


def _external_parameters(
    exported: torch.export.ExportedProgram, external_bytes: int | None
) -> dict[str, torch.Tensor]:
    """The parameters and buffers (never a buffer the program mutates) of at least
    ``external_bytes`` bytes, each marked with iree-turbine's `ExternalTensorTrait`, which
    makes turbine's import write a `util.global` initialized from
    `#flow.parameter.named<"model"::"<name>">` instead of the tensor's contents (what
    `aot.externalize_module_parameters` does to a module). The caller removes the marks."""
    if external_bytes is None:
        return {}
    from iree.turbine.aot.tensor_traits import ExternalTensorTrait

    signature = exported.graph_signature
    mutated = set(signature.buffers_to_mutate.values())
    found: dict[str, torch.Tensor] = {}
    for name, tensor in exported.state_dict.items():
        if name in mutated or tensor.numel() * tensor.element_size() < external_bytes:
            continue
        if ExternalTensorTrait.get(tensor) is not None:  # marked by the caller, or tied
            continue
        ExternalTensorTrait(external_scope=PARAMETER_SCOPE, external_name=name).set(tensor)
        found[name] = tensor
    return found


def _bytes(tensor: torch.Tensor) -> Any:
    """A copy of the bytes of ``tensor``, as a numpy uint8 array: IREE reads a
    parameter from the host array it is given for as long as the module lives, and the
    module must not see later changes to the model's own tensors. Copied by torch, whose
    allocations IREE maps as they are (a numpy copy was copied once more on loading)."""
    return tensor.detach().cpu().clone().reshape(-1).view(torch.uint8).numpy()


def _import(exported: torch.export.ExportedProgram) -> Any:
    """iree-turbine's import of ``exported`` (without its `None` outputs): its MLIR
    module (torch dialect). Its failures are a `CompileError`; the deprecation warnings
    torch and iree-turbine raise on the way say nothing to the caller and are kept from
    them (`quiet`)."""
    with quiet():
        exported = _without_none_outputs(exported)
    try:
        with quiet():
            return aot.export(exported).mlir_module
    except Exception as error:  # iree-turbine and torch raise their own types
        raise import_error("iree-turbine import", error) from error


def _name_state(module: Any, exported: torch.export.ExportedProgram) -> int:
    """Name the module's state after the buffers it holds (``key_cache_0``): iree-turbine
    names the mutable global of each buffer the program updates after its shape and
    dtype (``__auto.constant_1_2_32_8_torch.float32$3``), which says nothing of which
    buffer it is (`abi-sig show` prints the names; `abi-sig diff` compares state by
    name). The globals are made in the order of the program's buffer inputs; they are
    renamed only when there are as many as there are updated buffers and each one's
    shape and element width are its buffer's. Returns how many were renamed."""
    from iree.compiler import ir

    top = module.operation
    ops = list(top.regions[0].blocks[0].operations)

    signature = exported.graph_signature
    updated = set(signature.buffers_to_mutate.values())
    buffers = [
        spec.target
        for spec in signature.input_specs
        if spec.kind.name == "BUFFER" and spec.target in updated
    ]
    found = [
        op.operation
        for op in ops
        if op.operation.name == "util.global" and "is_mutable" in op.operation.attributes
    ]
    if not buffers or len(found) != len(buffers):
        return 0
    tensors = {**exported.state_dict, **exported.constants}
    for op, target in zip(found, buffers, strict=True):
        tensor = tensors.get(target)
        held = ir.RankedTensorType(ir.TypeAttr(op.attributes["type"]).value)
        if (
            not isinstance(tensor, torch.Tensor)
            or tuple(held.shape) != tuple(tensor.shape)
            or _bits(str(held.element_type)) != _bits_of(tensor)
        ):
            return 0
    taken = {
        ir.StringAttr(op.operation.attributes["sym_name"]).value
        for op in ops
        if "sym_name" in op.operation.attributes
    }
    renamed = 0
    for op, target in zip(found, buffers, strict=True):
        old = ir.StringAttr(op.attributes["sym_name"]).value
        new = _state_name(target, taken)
        ir.SymbolTable.replace_all_symbol_uses(old, new, top)
        ir.SymbolTable.set_symbol_name(op, new)
        taken.add(new)
        renamed += 1
    return renamed


def _bits(element_type: str) -> int | None:
    """The width of an MLIR element type written ``f32``, ``bf16``, ``i1``, ``ui8``."""
    digits = element_type.lstrip("abcdefghijklmnopqrstuvwxyzE")
    return int(digits) if digits.isdigit() else None


def _bits_of(tensor: torch.Tensor) -> int:
    return 1 if tensor.dtype == torch.bool else tensor.element_size() * 8


def _state_name(target: str, taken: set[str]) -> str:
    """A buffer's name as a symbol of its own: its dotted path, with other characters
    than letters, digits, ``_``, ``.`` and ``$`` as ``_``; ``$1``, ``$2`` … after one
    already taken."""
    name = "".join(c if c.isalnum() or c in "_.$" else "_" for c in target) or "state"
    if not (name[0].isalpha() or name[0] == "_"):
        name = f"_{name}"
    found, count = name, 0
    while found in taken:
        count += 1
        found = f"{name}${count}"
    return found


def _without_none_outputs(exported: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """``exported`` without its `None` outputs, which iree-turbine cannot import (the
    original call gives them back: they are `NoneLeaf`s of the result). Another
    constant output has no value a compiled function could return: an `AbiError`."""
    specs = exported.graph_signature.output_specs
    kept = []
    for position, spec in enumerate(specs):
        argument = spec.arg
        if spec.kind.name == "USER_OUTPUT" and isinstance(argument, ConstantArgument):
            if argument.value is not None:
                raise AbiError(
                    f"result: the program returns the constant {argument.value!r}, which a "
                    "compiled function cannot return (only tensors and None)"
                )
            continue
        kept.append(position)
    return _keeping_outputs(exported, kept)


def _keeping_outputs(
    exported: torch.export.ExportedProgram, kept: list[int]
) -> torch.export.ExportedProgram:
    """``exported`` with only the outputs at the positions ``kept`` (all: itself)."""
    specs = exported.graph_signature.output_specs
    if len(kept) == len(specs):
        return exported
    graph_module = copy.deepcopy(exported.graph_module)
    output = next(node for node in graph_module.graph.nodes if node.op == "output")
    values = output.args[0]
    output.args = (tuple(values[position] for position in kept),)
    graph_module.recompile()
    return with_outputs(exported, graph_module, [specs[position] for position in kept])


def with_outputs(
    exported: torch.export.ExportedProgram, graph_module: Any, output_specs: list[Any]
) -> torch.export.ExportedProgram:
    """``exported`` with ``graph_module`` (a copy of its graph module, its output node
    changed) and those ``output_specs``; its inputs, state and constants as they are."""
    signature = ExportGraphSignature(
        input_specs=list(exported.graph_signature.input_specs), output_specs=output_specs
    )
    return torch.export.ExportedProgram(
        root=graph_module,
        graph=graph_module.graph,
        graph_signature=signature,
        state_dict=exported.state_dict,
        range_constraints=exported.range_constraints,
        module_call_graph=copy.deepcopy(exported.module_call_graph),
        example_inputs=exported.example_inputs,
        constants=exported.constants,
        verifiers=exported.verifiers,
    )


def _symbols(exported: torch.export.ExportedProgram) -> tuple[Symbol, ...]:
    """The program's size symbols with their bounds (`_symbol_bounds`)."""
    return tuple(Symbol(name, low, high) for name, low, high in _symbol_bounds(exported))


def _user_names(exported: torch.export.ExportedProgram) -> dict[str, str]:
    """The user's names of the program's size symbols (``Dim("seqlen")``: ``s52`` →
    ``seqlen``), as torch keeps them: its `ShapeEnv`'s ``var_to_sources`` gives the inputs'
    sizes a symbol stands for, ``source_name_to_debug_name`` the `Dim` name given for
    them. A symbol without one, or whose name another symbol has or that is not an
    identifier, keeps torch's name."""
    env = None
    for node in exported.graph.nodes:
        value = node.meta.get("val") if node.op == "placeholder" else None
        for size in getattr(value, "shape", ()) if isinstance(value, torch.Tensor) else ():
            env = getattr(getattr(size, "node", None), "shape_env", None)
            if env is not None:
                break
        if env is not None:
            break
    if env is None:
        return {}
    debug = getattr(env, "source_name_to_debug_name", None) or {}
    sources = getattr(env, "var_to_sources", None) or {}
    symbols = {str(expr) for expr in exported.range_constraints if expr.is_Symbol}
    found: dict[str, str] = {}
    for expr in exported.range_constraints:
        if not expr.is_Symbol:
            continue
        for source in sources.get(expr, ()):
            source_name = getattr(source, "name", None)  # a method in older torch
            if callable(source_name):
                source_name = source_name()
            name = debug.get(source_name) if isinstance(source_name, str) else None
            if isinstance(name, str) and name.isidentifier():
                found[str(expr)] = name
                break
    taken = list(found.values())
    return {
        symbol: name
        for symbol, name in found.items()
        if taken.count(name) == 1 and (name == symbol or name not in symbols)
    }


def _renamed(node: CallNode, names: dict[str, str]) -> CallNode:
    """``node`` with its arrays' symbols renamed by ``names``."""
    if not names:
        return node
    if isinstance(node, Array) and node.dims is not None:
        dims = tuple(_renamed_dim(dim, names) for dim in node.dims)
        return dataclasses.replace(node, dims=dims)
    if isinstance(node, Container):
        children = tuple(_renamed(child, names) for child in node.children)
        return Container(node.kind, children, node.keys, node.name)
    return node


def _renamed_dim(dim: Any, names: dict[str, str]) -> Any:
    if isinstance(dim, str):
        return names.get(dim, dim)
    if isinstance(dim, tuple):
        return tuple(
            (coefficient, tuple(sorted(names.get(s, s) for s in symbols)))
            for coefficient, symbols in dim
        )
    return dim


def _dim(size: Any) -> Dim:
    """One dim of an input's example value: its size, or the sympy expression of a
    symbolic one as `abi_compiler.call_model.Dim` keeps it (None: not a polynomial)."""
    if isinstance(size, int):
        return size
    expr = getattr(getattr(size, "node", None), "expr", None)
    if expr is None:
        return None
    if expr.is_Integer:
        return int(expr)
    if expr.is_Symbol:
        return str(expr)
    return _polynomial(expr)


def _polynomial(expr: Any) -> Terms | None:
    """A sympy expression of the program's size symbols as its `Terms`; None for one
    that is not a polynomial with integer coefficients (``FloorDiv``, ``Mod``…)."""
    symbols = expr.free_symbols
    if not all(symbol.is_Symbol for symbol in symbols) or not expr.is_polynomial(*symbols):
        return None
    terms = []
    for monomial, coefficient in sorted(expr.expand().as_coefficients_dict().items(), key=str):
        if not coefficient.is_Integer:
            return None
        names: list[str] = []
        if monomial != 1:
            for base, power in monomial.as_powers_dict().items():
                if not base.is_Symbol or not power.is_Integer or power < 1:
                    return None
                names += [str(base)] * int(power)
        terms.append((int(coefficient), tuple(sorted(names))))
    return tuple(terms)


def _symbol_bounds(
    exported: torch.export.ExportedProgram,
) -> tuple[tuple[str, int, int | None], ...]:
    """The bounds of the program's size symbols, from its ``range_constraints`` (an
    unbounded side is None), as torch's own guards check them: a lower bound of 2 or
    less is not checked (torch's 0/1 specialization makes ``Dim("b")`` read ``[2, …]``
    and still takes sizes 0 and 1). The ranges torch keeps for expressions of the
    symbols (derived dims) follow from these and are not repeated."""
    symbols: list[tuple[str, int, int | None]] = []
    for expr, bounds in exported.range_constraints.items():
        if expr.is_Symbol:
            low, high = _finite(bounds.lower), _finite(bounds.upper)
            symbols.append((str(expr), low if low is not None and low > 2 else 0, high))
    return tuple(sorted(symbols))


def _finite(bound: Any) -> int | None:
    """A bound of a range constraint as an int; None for an infinite one (torch's
    ``int_oo``, which sympy calls finite, converts to no int)."""
    try:
        return int(bound)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None


def _mutates(exported: torch.export.ExportedProgram) -> bool:
    """Whether the program's graph calls an op that writes one of its operands."""
    for node in exported.graph.nodes:
        schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
        if schema is not None and schema.is_mutable:
            return True
    return False


def _without_unread_buffer_updates(
    exported: torch.export.ExportedProgram,
) -> torch.export.ExportedProgram:
    """``exported`` without the updates of buffers that the graph never reads (their input
    has no user): a value no call can see, which iree-turbine cannot import (it stores
    only to a buffer it has loaded: `Cannot store value to unmapped global`). Phi-3's
    LongRoPE (transformers' `longrope_frequency_update`) writes `inv_freq` with `copy_`
    each call and reads the new value, never the buffer (docs/calling.md,
    "Architectures")."""
    signature = exported.graph_signature
    buffers = {
        spec.target: spec.arg.name for spec in signature.input_specs if spec.kind.name == "BUFFER"
    }
    nodes = {node.name: node for node in exported.graph.nodes if node.op == "placeholder"}
    specs = signature.output_specs
    kept = [
        position
        for position, spec in enumerate(specs)
        if spec.kind.name != "BUFFER_MUTATION"
        or spec.target not in buffers
        or nodes[buffers[spec.target]].users
    ]
    return _keeping_outputs(exported, kept)


def _returned_updates(
    exported: torch.export.ExportedProgram,
) -> tuple[torch.export.ExportedProgram, list[str]]:
    """``exported`` with the new value of each user input it updates in place (torch.export's
    `user_inputs_to_mutate`, an output of kind ``USER_INPUT_MUTATION``) made a user output,
    after the program's own outputs; and the names of those inputs, in that order.

    iree-turbine imports an updated input as a `!torch.tensor` written by
    `torch.overwrite.tensor.contents`, which IREE's torch pipeline only lowers in a
    function it turns into its own ABI (never in one `wrap-entry-points` wraps): as an
    output, the input is a plain value tensor and the new value a result, which the call
    writes back into the caller's array (`abi.call`'s ``updates``, docs/calling.md,
    "Inputs the program updates in place")."""
    specs = exported.graph_signature.output_specs
    updates = [
        position for position, spec in enumerate(specs) if spec.kind.name == "USER_INPUT_MUTATION"
    ]
    if not updates:
        return exported, []
    order = [position for position in range(len(specs)) if position not in updates] + updates
    graph_module = copy.deepcopy(exported.graph_module)
    output = next(node for node in graph_module.graph.nodes if node.op == "output")
    values = output.args[0]
    output.args = (tuple(values[position] for position in order),)
    graph_module.recompile()
    output_specs = [
        specs[position]
        if position not in updates
        else OutputSpec(OutputKind.USER_OUTPUT, specs[position].arg, None)
        for position in order
    ]
    names = [str(specs[position].target) for position in updates]
    return with_outputs(exported, graph_module, output_specs), names


def _tensor_inputs(exported: torch.export.ExportedProgram) -> dict[str, int]:
    """The name of each tensor user input → its position among them (its array index)."""
    nodes = {node.name: node for node in exported.graph.nodes}
    found: dict[str, int] = {}
    for spec in exported.graph_signature.input_specs:
        if spec.kind.name != "USER_INPUT" or not hasattr(spec.arg, "name"):
            continue
        if isinstance(nodes[spec.arg.name].meta.get("val"), torch.Tensor):
            found[spec.arg.name] = len(found)
    return found


def _user_values(exported: torch.export.ExportedProgram, side: str) -> list[Any]:
    """The example value of each user input (or output) in flatten order: a fake
    tensor, or the constant torch specialized."""
    signature = exported.graph_signature
    kind = "USER_INPUT" if side == "inputs" else "USER_OUTPUT"
    specs = signature.input_specs if side == "inputs" else signature.output_specs
    nodes = {node.name: node for node in exported.graph.nodes}
    values = []
    for spec in specs:
        if spec.kind.name != kind:
            continue
        argument = spec.arg
        if hasattr(argument, "value"):  # ConstantArgument
            values.append(argument.value)
        else:
            values.append(nodes[argument.name].meta.get("val"))
    return values


def _parameter_names(
    exported: torch.export.ExportedProgram, count: int, keywords: Mapping[str, Any]
) -> tuple[str, ...] | None:
    """The names of the ``count`` positional parameters of the program's `forward`, as
    torch.export records them (its ``forward_arg_names``: the positional ones, then the
    keyword ones), when they are distinct Python names; None else (they are then taken
    by position only)."""
    graph = getattr(exported, "module_call_graph", None) or [None]
    signature = getattr(graph[0], "signature", None)
    names = list(getattr(signature, "forward_arg_names", None) or ())
    if len(names) != count + len(keywords) or set(names[count:]) != set(keywords):
        return None
    positional = tuple(names[:count])
    if len(set(names)) != len(names) or not all(
        isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
        for name in positional
    ):
        return None
    return positional


def _user_input_names(exported: torch.export.ExportedProgram) -> list[str | None]:
    """The placeholder name of each user input in flatten order (None: a constant)."""
    return [
        getattr(spec.arg, "name", None) if not hasattr(spec.arg, "value") else None
        for spec in exported.graph_signature.input_specs
        if spec.kind.name == "USER_INPUT"
    ]


class _Leaves:
    """The example values of one side's leaves, in flatten order; tensors numbered, with
    the value ranges of each (`torch_ranges.value_ranges`; arguments only)."""

    def __init__(
        self,
        values: list[Any],
        *,
        argument: bool,
        ranges: list[tuple[ValueRange, ...]] | None = None,
    ) -> None:
        self.values = iter(values)
        self.ranges = iter(ranges if ranges is not None else [()] * len(values))
        self.argument = argument
        self.count = 0

    def next(self, where: str) -> CallNode:
        example = next(self.values)
        ranges = next(self.ranges)
        if isinstance(example, torch.Tensor):
            dtype = example.dtype
            if dtype not in SUPPORTED_DTYPES:
                raise AbiError(f"{where}: dtype {dtype} is not supported by IREE's runtime ABI")
            dims = tuple(_dim(size) for size in example.shape)
            self.count += 1
            return Array(self.count - 1, str(dtype).removeprefix("torch."), dims, ranges)
        if example is None:
            return NoneLeaf()
        return constant(example)


def _children(spec: Any) -> list[Any]:
    """A TreeSpec's children (`children()` in newer torch, `children_specs` in older)."""
    children = getattr(spec, "children", None)
    return list(children()) if callable(children) else list(spec.children_specs)


def _tree(spec: Any, leaves: _Leaves, where: str) -> CallNode:
    """The original-call node of one torch TreeSpec."""
    if spec.is_leaf():
        return leaves.next(where)
    node_type = spec.type
    children = tuple(_tree(child, leaves, where) for child in _children(spec))
    if node_type is tuple:
        return Container("tuple", children)
    if node_type is list:
        return Container("list", children)
    context = spec.context
    if isinstance(node_type, type) and issubclass(node_type, dict):
        if dataclasses.is_dataclass(node_type):
            return _model_output(node_type, context, children, where)
        keys = tuple(context if node_type is not collections.defaultdict else context[1])
        if not all(isinstance(key, str) for key in keys):
            raise AbiError(f"{where}: a dict with keys {keys!r}: only string keys have a record")
        return Container("dict", children, keys, None if node_type is dict else node_type.__name__)
    if node_type is pytree_utils.namedtuple:  # torch's marker; the class is the context
        return Container("namedtuple", children, tuple(context._fields), context.__name__)
    name = getattr(node_type, "__name__", str(node_type))
    if dataclasses.is_dataclass(node_type) and _registered_dataclass(context, len(children)):
        # `torch.export.register_dataclass`: the context is ``[field_names, none_names]``,
        # the children the fields of ``field_names``; the others were None.
        fields, nones = context
        none_leaves = tuple(NoneLeaf() for _ in nones)
        return Container("dataclass", children + none_leaves, (*fields, *nones), name)
    if (
        isinstance(context, (list, tuple))
        and len(context) == len(children)
        and all(isinstance(key, str) for key in context)
    ):
        if dataclasses.is_dataclass(node_type):
            return Container("dataclass", children, tuple(context), name)
        return Container("node", children, tuple(context), name)
    return Container("node", children, (), name)


def _registered_dataclass(context: Any, count: int) -> bool:
    """Whether ``context`` is the one `torch.export.register_dataclass` flattens with:
    ``[field_names, none_names]``, names of ``count`` children and of the None fields."""
    return (
        isinstance(context, (list, tuple))
        and len(context) == 2
        and all(isinstance(part, (list, tuple)) for part in context)
        and len(context[0]) == count
        and all(isinstance(key, str) for part in context for key in part)
        and len({*context[0], *context[1]}) == len(context[0]) + len(context[1])
    )


def _model_output(
    node_type: type, context: Any, children: tuple[CallNode, ...], where: str
) -> CallNode:
    """A transformers `ModelOutput` (a dataclass that is a dict, flattened by its keys:
    the fields that are not None): a ``model_output`` node of those keys, then its other
    fields as None leaves, which it gives as attributes but not as keys."""
    keys = tuple(context) if isinstance(context, (list, tuple)) else ()
    if len(keys) != len(children) or not all(isinstance(key, str) for key in keys):
        raise AbiError(f"{where}: a {node_type.__name__} with keys {keys!r}: expected field names")
    others = tuple(field.name for field in dataclasses.fields(node_type) if field.name not in keys)
    return Container(
        "model_output",
        children + tuple(NoneLeaf() for _ in others),
        (*keys, *others),
        node_type.__name__,
    )
