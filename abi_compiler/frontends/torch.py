"""`torch.export.ExportedProgram` → MLIR whose `main` takes the original call (SPEC §3.4).

    import torch
    from abi_compiler import iree as abi_iree

    program = torch.export.export(model, args, kwargs)
    module = abi_iree.compile(program)
    outputs = module.main(*args, **kwargs)     # the model's own pytree, torch.Tensor leaves

The MLIR comes from iree-turbine (`iree.turbine.aot.export(program)`): one function
`@main` whose arguments are the program's tensor inputs in flatten order, with the lifted
parameters and buffers inside the module (constants, and globals for mutated buffers),
never arguments. Its torch-dialect body is lowered to builtin tensors with IREE's own
torch pipeline (`iree_ir.lower_torch`), and the structure of the program's input and
output tree specs — ``(args, kwargs)`` — is written on it (`pytree.structure`):
positional parameters are positional roots, keyword arguments `named` roots; tuples and
namedtuples are `stuple`, lists `slist`, dicts `sdict`. Inputs torch specialized
(Python numbers, strings, `None`) have no record: the adapter checks that a call passes
the same value, as the exported program itself does.

Dtypes: float16, bfloat16, float32, float64, int8 to int64, uint8, bool, complex64 and
complex128; another dtype among the program's inputs or outputs is an `AbiError` here,
before anything is compiled. Results come back as `torch.Tensor`s of the program's
output dtypes, sharing the memory of the host arrays the call returned.

Needs ``pip install 'abi-compiler[torch]'`` (torch and iree-turbine).
"""

from __future__ import annotations

import copy
from typing import Any

try:
    import numpy as np
    import torch
    from iree.turbine import aot
    from torch.export.graph_signature import ConstantArgument, ExportGraphSignature
    from torch.utils import _pytree as pytree_utils
except ImportError as _error:  # pragma: no cover - exercised without torch installed
    raise ImportError(
        "abi_compiler.frontends.torch needs torch and iree-turbine: "
        "pip install 'abi-compiler[torch]'"
    ) from _error

from abi_compiler.errors import AbiError
from abi_compiler.frontends import Program, quiet
from abi_compiler.frontends.iree_ir import (
    annotate,
    find_function,
    import_error,
    leaf_types,
    lower_torch,
)
from abi_compiler.frontends.pytree import Tree, TreeAdapter, structure

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
# Complex tensors have the record "unknown" (SPEC §4.1): their dtype is checked here.
_COMPLEX = frozenset({torch.complex64, torch.complex128})


def to_mlir(program: torch.export.ExportedProgram) -> str:
    """The MLIR text of ``program`` with its structure written on `@main`."""
    return _program(program).mlir


def program(program: torch.export.ExportedProgram) -> Program:
    """`to_mlir`, with the adapter that takes the program's original call."""
    return _program(program)


def _program(exported: torch.export.ExportedProgram) -> Program:
    if not isinstance(exported, torch.export.ExportedProgram):
        raise TypeError(f"expected a torch.export.ExportedProgram, got {type(exported).__name__}")
    # iree-turbine does not import in-place ops (a buffer updated in forward), which
    # torch.export's default (training) IR keeps: those programs are made functional
    # first (which retraces them, about a second for a small model).
    if _mutates(exported):
        with quiet():
            exported = exported.run_decompositions({})
    in_spec, out_spec = exported.call_spec.in_spec, exported.call_spec.out_spec
    if in_spec is None or out_spec is None:
        raise AbiError("the exported program has no input or output tree spec")
    inputs = _user_values(exported, "inputs")
    outputs = _user_values(exported, "outputs")
    input_leaves = iter(inputs)
    output_leaves = iter(outputs)
    args_spec, kwargs_spec = _children(in_spec)
    positional = [
        _tree(spec, input_leaves, f"argument {position}")
        for position, spec in enumerate(_children(args_spec))
    ]
    keywords = {
        str(name): _tree(spec, input_leaves, f"argument {name!r}")
        for name, spec in zip(kwargs_spec.context, _children(kwargs_spec), strict=True)
    }
    result = _tree(out_spec, output_leaves, "result")

    module = lower_torch(_import(exported))
    main = find_function(module, "main")
    argument_types, result_types = leaf_types(main)
    annotate(main, structure(positional, keywords, result, argument_types, result_types))
    return Program(str(module), "main", TreeAdapter(positional, keywords, result, _tensor))


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


def _without_none_outputs(exported: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """``exported`` without its `None` outputs, which iree-turbine cannot import (the
    adapter gives them back: they are `Tree("none")` leaves of the result). Another
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
    if len(kept) == len(specs):
        return exported
    graph_module = copy.deepcopy(exported.graph_module)
    output = next(node for node in graph_module.graph.nodes if node.op == "output")
    values = output.args[0]
    output.args = (tuple(values[position] for position in kept),)
    graph_module.recompile()
    signature = ExportGraphSignature(
        input_specs=list(exported.graph_signature.input_specs),
        output_specs=[specs[position] for position in kept],
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


def _mutates(exported: torch.export.ExportedProgram) -> bool:
    """Whether the program's graph calls an op that writes one of its operands."""
    for node in exported.graph.nodes:
        schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
        if schema is not None and schema.is_mutable:
            return True
    return False


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


def _children(spec: Any) -> list[Any]:
    """A TreeSpec's children (`children()` in newer torch, `children_specs` in older)."""
    children = getattr(spec, "children", None)
    return list(children()) if callable(children) else list(spec.children_specs)


def _tree(spec: Any, leaves: Any, where: str) -> Tree:
    """The `Tree` of one torch TreeSpec; ``leaves`` yields each leaf's example value."""
    if spec.is_leaf():
        return _leaf(next(leaves), where)
    node_type = spec.type
    children = tuple(_tree(child, leaves, where) for child in _children(spec))
    if node_type is tuple:
        return Tree("tuple", children)
    if node_type is list:
        return Tree("list", children)
    if node_type is dict:
        keys = tuple(spec.context)
        if not all(isinstance(key, str) for key in keys):
            raise AbiError(f"{where}: a dict with keys {keys!r}: only string keys have a record")
        return Tree("dict", children, keys)
    if node_type is pytree_utils.namedtuple:  # torch's marker; the class is the context
        return Tree("tuple", children, cls=spec.context)
    return _node(spec, children)


def _node(spec: Any, children: tuple[Tree, ...]) -> Tree:
    """Another registered pytree node: flattened and rebuilt by torch's own functions."""
    node = pytree_utils.SUPPORTED_NODES[spec.type]
    context = spec.context

    def flatten(value: Any) -> list[Any]:
        items, _ = node.flatten_fn(value)
        return list(items)

    def unflatten(values: list[Any]) -> Any:
        return node.unflatten_fn(values, context)

    return Tree("node", children, cls=spec.type, flatten=flatten, unflatten=unflatten)


def _leaf(example: Any, where: str) -> Tree:
    if isinstance(example, torch.Tensor):
        dtype = example.dtype
        if dtype not in SUPPORTED_DTYPES:
            raise AbiError(f"{where}: dtype {dtype} is not supported by IREE's runtime ABI")
        check = _dtype_check(dtype) if dtype in _COMPLEX else None
        return Tree("leaf", meta=dtype, check=check)
    if example is None:
        return Tree("none")

    def check_constant(value: Any) -> str | None:
        if type(value) is type(example) and value == example:
            return None
        return f"expected {example!r} (the value the program was exported with), got {value!r}"

    return Tree("leaf", kept=False, meta=example, check=check_constant)


def _dtype_check(dtype: torch.dtype) -> Any:
    def check(value: Any) -> str | None:
        found = getattr(value, "dtype", None)
        if found in (dtype, np.dtype(str(dtype).removeprefix("torch."))):
            return None
        return f"expected an array of {dtype}, got {found if found is not None else type(value).__name__}"

    return check


def _tensor(value: Any, tree: Tree) -> Any:
    """A result array (numpy, from `abi_compiler.iree`) as a torch tensor of the
    program's dtype, sharing its memory."""
    dtype: torch.dtype = tree.meta
    array = np.asarray(value)
    if dtype == torch.bfloat16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    if dtype == torch.uint8 and array.dtype != np.uint8:
        array = array.view(np.uint8)  # an `i8` record reads as int8
    return torch.from_numpy(array)
