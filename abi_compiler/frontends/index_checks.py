"""Bounds checks the compiled module runs itself, written into a torch-dialect module
(iree-turbine's import of a torch program, IREE's import of an ONNX model) before IREE's
torch lowering (`abi_compiler.frontends.iree_ir.lower_torch`).

IREE 3.13 lowers the ops that index a buffer with a tensor's values (`index_select`,
`embedding`, `gather`, `scatter`, `index_put`, `index_copy`, `index`; ONNX's `Gather`,
`GatherElements`, `ScatterElements`, `GatherND`, `ScatterND`) to loads and stores with no
bounds check: an index outside the buffer read or wrote outside it (wrong numbers, or a
crash of the calling process) where eager torch and ONNX Runtime refuse it. Before each
such op whose index can come from a caller's value (an argument, a module global: anything
but constants), `insert_index_checks` writes the check as torch ops: the index tensor's
smallest and largest value against the indexed dim, reduced to one number read back to the
host, and a `torch.runtime.assert` (IREE's `cf.assert`: the call fails with its message,
which the caller's side raises as an `AbiError`; `INDEX_CHECK_MARK` starts it). The checks
of the ops whose indices are all computed before the first of them are merged into one
read-back there (docs/calling.md, "What the original call checks"). An index that counts
from the end (`index_put`, ONNX) is also made non-negative before the op, which IREE's
lowering of those ops needs to give the framework's values.

Needs IREE's compiler package (its `iree.compiler.ir` bindings), not torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from abi_compiler.attribute_names import INDEX_CHECK_MARK

__all__ = ["INDEX_CHECK_MARK", "insert_index_checks"]


@dataclass(frozen=True)
class _Indexing:
    """How an op indexes a buffer: its operands (the buffer, the index or the list of
    indices one per leading dim), which dim (an operand holding a constant, an ONNX
    attribute, or dim 0) and the indices it takes: ``[0, size)``, or ``[-size, size)``
    with ``negatives`` (made non-negative before the op with ``normalize``)."""

    buffer: int
    index: int
    dim: int | str | None = None
    negatives: bool = False
    normalize: bool = False
    listed: bool = False
    nd: bool = False


_IN_RANGE = _Indexing(0, 2, 1)
_LISTED = _Indexing(0, 1, negatives=True, listed=True)
_LISTED_PUT = _Indexing(0, 1, negatives=True, normalize=True, listed=True)
_ONNX = _Indexing(0, 1, "torch.onnx.axis", negatives=True, normalize=True)
_ONNX_ND = _Indexing(0, 1, "torch.onnx.batch_dims", negatives=True, normalize=True, nd=True)

# Eager torch refuses a negative index for all but `index` and `index_put`, which count it
# from the end; ONNX counts every negative index from the end.
INDEXING_OPS: dict[str, _Indexing] = {
    "torch.aten.index_select": _IN_RANGE,
    "torch.aten.embedding": _Indexing(0, 1),
    "torch.aten.gather": _IN_RANGE,
    "torch.aten.scatter.src": _IN_RANGE,
    "torch.aten.scatter.value": _IN_RANGE,
    "torch.aten.scatter.reduce": _IN_RANGE,
    "torch.aten.scatter.value_reduce": _IN_RANGE,
    "torch.aten.scatter_add": _IN_RANGE,
    "torch.aten.scatter_reduce.two": _IN_RANGE,
    "torch.aten.index_copy": _IN_RANGE,
    "torch.aten.index_add": _IN_RANGE,
    "torch.aten.index.Tensor": _LISTED,
    "torch.aten.index.Tensor_hacked_twin": _LISTED,
    "torch.aten._unsafe_index.Tensor": _LISTED,
    "torch.aten.index_put": _LISTED_PUT,
    "torch.aten.index_put_": _LISTED_PUT,
    "torch.aten.index_put.hacked_twin": _LISTED_PUT,
    "torch.aten._unsafe_index_put": _LISTED_PUT,
    "torch.aten._index_put_impl": _LISTED_PUT,
    "onnx.Gather": _ONNX,
    "onnx.GatherElements": _ONNX,
    "onnx.ScatterElements": _ONNX,
    "onnx.Scatter": _ONNX,
    "onnx.GatherND": _ONNX_ND,
    "onnx.ScatterND": _ONNX_ND,
}

_VTENSOR = re.compile(r"!torch\.vtensor<\[([^\]]*)\],((?:si|ui)\d+)>")
_ANY_VTENSOR = re.compile(r"!torch\.vtensor<\[([^\]]*)\],[^>]+>")
_CONSTANT_OPS = frozenset(
    {
        "torch.constant.int",
        "torch.constant.bool",
        "torch.constant.float",
        "torch.constant.none",
        "torch.constant.str",
        "torch.constant.device",
        "torch.vtensor.literal",
        "torch.tensor.literal",
    }
)
# How far back an index is followed to the arguments it comes from (ops visited).
_MAX_FOLLOWED = 4096
# Checks merged into one read-back at most (their failure code is one small integer).
_MAX_MERGED = 1 << 20


def insert_index_checks(module: Any, argument_names: list[str] | None = None) -> int:
    """Write, in a torch-dialect module (``module``: an `ir.Module` of IREE's bindings),
    the bounds check of every index of every op of `INDEXING_OPS` that can come from a
    caller's value, and make the indices that count from the end non-negative. The
    messages name the op, the dim, its size and the arguments the index comes from
    (``argument_names``: the names of the functions' arguments, by position). Returns
    how many indices are checked."""
    from iree.compiler import ir

    blocks: list[Any] = []

    def visit(op: Any) -> Any:
        for region in op.operation.regions:
            blocks.extend(region.blocks)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    checked = 0
    for block in blocks:
        checked += _check_block(block, argument_names or [])
        checked += _check_numbers(block, argument_names or [])
    return checked


# Ops that index a buffer with one number (a `!torch.int`, e.g. `aten.item` of a caller's
# 0-d tensor, as `t[3 - pos]` exports): the buffer's operand, the dim's, the number's.
# Eager torch takes [-size, size) (IREE's lowering counts a negative one from the end too).
_NUMBER_INDEXING = {"torch.aten.select.int": _Indexing(0, 2, 1, negatives=True)}


def _check_numbers(block: Any, argument_names: list[str]) -> int:
    """The bounds check of every number an op of `_NUMBER_INDEXING` indexes with that can
    come from a caller's value, written before the op (the number is on the host already:
    no read-back)."""
    checked = 0
    for operation in list(block.operations):
        operation = operation.operation
        indexing = _NUMBER_INDEXING.get(_op_name(operation))
        if indexing is None:
            continue
        operands = list(operation.operands)
        buffer, number = operands[indexing.buffer], operands[indexing.index]
        shape = _shape(buffer.type)
        if shape is None or str(number.type) != "!torch.int" or not _from_caller(number):
            continue
        dim = _dim(operation, indexing, len(shape))
        if dim is None:
            continue
        size = shape[dim]
        high = str(size) if size is not None else "size"
        name = _op_name(operation).removeprefix("torch.")
        check = _Check(
            number,
            size,
            buffer,
            dim,
            True,
            f"{INDEX_CHECK_MARK}: {name} got an index outside [-{high}, {high}) for dim {dim}"
            f"{_sources(number, argument_names)}",
        )
        with operation.context, operation.location:
            build = _Builder(operation)
            above = build.op("torch.aten.ge.int", "!torch.bool", [number, build.low(check)])
            build.assertion(above, check.message)
            below = build.op("torch.aten.lt.int", "!torch.bool", [number, build.size(check)])
            build.assertion(below, check.message)
        checked += 1
    return checked


@dataclass
class _Check:
    """One index of one op: the index tensor, the bounds it must keep, the message."""

    index: Any
    size: int | None  # a static size, or None: `aten.size.int` of the buffer's dim
    buffer: Any
    dim: int
    negatives: bool
    message: str
    component: int | None = None  # ONNX's `GatherND`: the index of the last dim


def _check_block(block: Any, argument_names: list[str]) -> int:
    """The checks of one block's indexing ops, merged per group: an op joins the group
    before it when its indices are computed before the group's first op, or can be (a
    few pure ops, moved there: `_hoisted`)."""
    operations = list(block.operations)
    position = {_key(operation): at for at, operation in enumerate(operations)}
    groups: list[tuple[Any, list[_Check], list[Any]]] = []
    normalized: list[tuple[Any, _Indexing]] = []
    moved: set[Any] = set()
    # The IR is read first, then written (an op's hash changes with its operands).
    for operation in operations:
        operation = operation.operation
        indexing = INDEXING_OPS.get(_op_name(operation))
        if indexing is None:
            continue
        checks = _checks(operation, indexing, argument_names)
        if indexing.normalize:
            normalized.append((operation, indexing))
        if not checks:
            continue
        hoisted = _hoisted(checks, groups[-1][0], block, position, moved) if groups else None
        if hoisted is None:
            groups.append((operation, checks, []))
            continue
        anchor, group, moving = groups[-1]
        moving.extend(hoisted)
        moved.update(_key(op) for op in hoisted)
        # The same index of the same bounds, for the same message, is checked once.
        group.extend(check for check in checks if not _known(check, group))
    for anchor, checks, moving in groups:
        for op in sorted(moving, key=lambda op: position[_key(op)]):
            op.move_before(anchor)
        for start in range(0, len(checks), _MAX_MERGED):
            _write_checks(anchor, checks[start : start + _MAX_MERGED])
    for operation, indexing in normalized:
        _normalize(operation, indexing)
    return sum(len(checks) for _, checks, _ in groups)


# Ops moved before a group's first indexing op, at most, for one more index.
_MAX_HOISTED = 64
# Ops with effects or a draw of random numbers, which are never moved.
_NOT_MOVED = ("rand", "bernoulli", "normal", "uniform", "dropout", "exponential", "multinomial")


def _hoisted(
    checks: list[_Check], anchor: Any, block: Any, position: dict[Any, int], moved: set[Any]
) -> list[Any] | None:
    """The ops of ``block`` after ``anchor`` that compute the values the checks read
    (their indices, a buffer whose size is dynamic), when they can all be moved before it
    (`_movable`, at most `_MAX_HOISTED`): the empty list when the values are there
    already, None when they cannot be."""
    limit = position[_key(anchor)]
    found: list[Any] = []
    seen: set[Any] = set()
    stack = [
        value
        for check in checks
        # A static size reads nothing of the buffer.
        for value in ((check.index,) if check.size is not None else (check.index, check.buffer))
    ]
    while stack:
        owner = stack.pop().owner
        if not hasattr(owner, "name"):  # a block argument
            continue
        operation = owner.operation
        key = _key(operation)
        if operation.block != block or key in seen or key in moved:
            continue
        if position.get(key, limit) < limit:
            continue
        seen.add(key)
        if len(seen) > _MAX_HOISTED or not _movable(operation):
            return None
        found.append(operation)
        stack.extend(operation.operands)
    return found


def _movable(operation: Any) -> bool:
    """An op of values only (no region, no `!torch.tensor`, ATen or a constant), which
    computes the same wherever it runs, and indexes nothing."""
    name = str(operation.name)
    if operation.regions and len(operation.regions):
        return False
    if not (
        name.startswith(("torch.aten.", "torch.constant.", "torch.prim.ListConstruct"))
        or name in ("torch.vtensor.literal", "torch.prim.NumToTensor.Scalar")
    ):
        return False
    if any(word in name for word in _NOT_MOVED) or name.endswith("_"):
        return False
    if _op_name(operation) in INDEXING_OPS:  # it would run before its own check
        return False
    types = [*(v.type for v in operation.operands), *(v.type for v in operation.results)]
    return not any(str(t).startswith("!torch.tensor") for t in types)


def _known(check: _Check, checks: list[_Check]) -> bool:
    return any(
        check.index == other.index
        and check.message == other.message
        and check.size is not None
        and check.size == other.size
        for other in checks
    )


def _key(operation: Any) -> Any:
    return operation.operation


def _op_name(operation: Any) -> str:
    from iree.compiler import ir

    name = str(operation.name)
    if name == "torch.operator":  # an op torch-mlir has no definition of
        name = ir.StringAttr(operation.attributes["name"]).value
        name = name.removesuffix(".default")
    return name


def _checks(operation: Any, indexing: _Indexing, argument_names: list[str]) -> list[_Check]:
    """The checks of one op's indices that can come from a caller's value."""
    operands = list(operation.operands)
    if max(indexing.buffer, indexing.index) >= len(operands):
        return []
    buffer = operands[indexing.buffer]
    shape = _shape(buffer.type)
    if shape is None:
        return []
    name = _op_name(operation).removeprefix("torch.")
    found: list[_Check] = []
    if indexing.listed:
        for dim, index in enumerate(_listed(operands[indexing.index])):
            if index is not None and dim < len(shape):
                found.append(_check(name, index, buffer, shape, dim, indexing, argument_names))
    elif indexing.nd:
        found.extend(_nd_checks(operation, name, operands, shape, indexing, argument_names))
    else:
        axis = _dim(operation, indexing, len(shape))
        if axis is not None:
            index = operands[indexing.index]
            found.append(_check(name, index, buffer, shape, axis, indexing, argument_names))
    return [check for check in found if check is not None and _from_caller(check.index)]


def _check(
    name: str,
    index: Any,
    buffer: Any,
    shape: list[int | None],
    dim: int,
    indexing: _Indexing,
    argument_names: list[str],
) -> Any:
    if _VTENSOR.fullmatch(str(index.type)) is None:
        return None  # not an integer tensor (a mask), or of unknown rank
    size = shape[dim]
    high = str(size) if size is not None else "size"
    low = f"-{high}" if indexing.negatives else "0"
    message = (
        f"{INDEX_CHECK_MARK}: {name} got an index outside [{low}, {high}) for dim {dim}"
        f"{_sources(index, argument_names)}"
    )
    return _Check(index, size, buffer, dim, indexing.negatives, message)


def _listed(value: Any) -> list[Any]:
    """The optional tensors of a `torch.prim.ListConstruct` (None for `None`)."""
    owner = value.owner
    if getattr(owner, "name", None) != "torch.prim.ListConstruct":
        return []
    return [None if str(item.type) == "!torch.none" else item for item in list(owner.operands)]


def _dim(operation: Any, indexing: _Indexing, rank: int) -> int | None:
    """The dim an op indexes, made non-negative; None when it is not a constant."""
    dim: int | None
    if indexing.dim is None:
        dim = 0
    elif isinstance(indexing.dim, str):
        attributes = operation.attributes
        dim = _integer(attributes[indexing.dim]) if indexing.dim in attributes else 0
    else:
        operands = list(operation.operands)
        if indexing.dim >= len(operands):
            return None
        owner = operands[indexing.dim].owner
        if getattr(owner, "name", None) != "torch.constant.int":
            return None
        dim = _integer(owner.attributes["value"])
    if dim is None or not -rank <= dim < rank:
        return None
    return dim + rank if dim < 0 else dim


def _integer(attribute: Any) -> int | None:
    text = str(attribute).split(":")[0].strip()
    try:
        return int(text)
    except ValueError:
        return None


def _shape(value_type: Any) -> list[int | None] | None:
    found = _ANY_VTENSOR.fullmatch(str(value_type))
    if found is None:
        return None
    dims = found.group(1)
    return [None if d.strip() == "?" else int(d) for d in dims.split(",")] if dims else []


def _from_caller(value: Any) -> bool:
    """Whether ``value`` can depend on a caller's value: it is reached from an argument
    or an op with no operands other than a constant (a global's load, a random number)."""
    seen = 0
    stack = [value]
    visited: set[Any] = set()
    while stack:
        current = stack.pop()
        owner = current.owner
        if not hasattr(owner, "name"):
            return True  # a block argument
        key = _key(owner)
        if key in visited:
            continue
        visited.add(key)
        seen += 1
        if seen > _MAX_FOLLOWED:
            return True
        operands = list(owner.operands)
        if not operands:
            if str(owner.name) not in _CONSTANT_OPS:
                return True
            continue
        stack.extend(operands)
    return False


def _sources(value: Any, argument_names: list[str]) -> str:
    """`` (from argument 'pos')``: the function arguments ``value`` is computed from."""
    found: list[int] = []
    stack = [value]
    visited: set[Any] = set()
    while stack and len(visited) < _MAX_FOLLOWED:
        current = stack.pop()
        owner = current.owner
        if not hasattr(owner, "name"):
            number = current.arg_number
            if number not in found:
                found.append(number)
            continue
        key = _key(owner)
        if key in visited:
            continue
        visited.add(key)
        stack.extend(owner.operands)
    names = [repr(argument_names[n]) if n < len(argument_names) else str(n) for n in sorted(found)]
    if not names:
        return ""
    label = "argument" if len(names) == 1 else "arguments"
    return f", computed from {label} {', '.join(names)}"


def _nd_checks(
    operation: Any,
    name: str,
    operands: list[Any],
    shape: list[int | None],
    indexing: _Indexing,
    argument_names: list[str],
) -> list[Any]:
    """ONNX's `GatherND`/`ScatterND`: the last dim of the indices holds ``k`` indices, of
    the data's dims ``batch_dims`` … ``batch_dims + k - 1``; each is checked as one index
    tensor (`_Component`)."""
    index = operands[indexing.index]
    index_shape = _shape(index.type)
    batch = _dim(operation, indexing, len(shape) + 1) or 0
    if not index_shape or index_shape[-1] is None or batch + index_shape[-1] > len(shape):
        return []
    checks = []
    for component in range(index_shape[-1]):
        check = _check(name, index, operands[0], shape, batch + component, indexing, argument_names)
        if check is not None:
            check.component = component
            checks.append(check)
    return checks


class _Builder:
    """Torch ops written before one op, at its location."""

    def __init__(self, before: Any) -> None:
        from iree.compiler import ir

        self.ir = ir
        self.before = before
        self.at = ir.InsertionPoint(before)
        self.ints: dict[int, Any] = {}

    def op(self, name: str, result: str | None, operands: list[Any], **attributes: Any) -> Any:
        created = self.ir.Operation.create(
            name,
            results=[self.ir.Type.parse(result)] if result is not None else [],
            operands=operands,
            attributes=attributes,
            ip=self.at,
        )
        return created.results[0] if result is not None else created

    def int(self, value: int) -> Any:
        if value not in self.ints:
            self.ints[value] = self.op(
                "torch.constant.int",
                "!torch.int",
                [],
                value=self.ir.IntegerAttr.get(self.ir.IntegerType.get_signless(64), value),
            )
        return self.ints[value]

    def int64(self, value: Any) -> Any:
        """A 0-d integer tensor converted to int64 (`aten.to.dtype`, dtype 4)."""
        false = self.op("torch.constant.bool", "!torch.bool", [], value=self.ir.BoolAttr.get(False))
        none = self.op("torch.constant.none", "!torch.none", [])
        return self.op("torch.aten.to.dtype", _CODE, [value, self.int(4), false, false, none])

    def size(self, check: _Check) -> Any:
        if check.size is not None:
            return self.int(check.size)
        return self.op("torch.aten.size.int", "!torch.int", [check.buffer, self.int(check.dim)])

    def low(self, check: _Check) -> Any:
        if not check.negatives:
            return self.int(0)
        if check.size is not None:
            return self.int(-check.size)
        return self.op("torch.aten.neg.int", "!torch.int", [self.size(check)])

    def assertion(self, condition: Any, message: str) -> None:
        self.op("torch.runtime.assert", None, [condition], message=self.ir.StringAttr.get(message))


_BOOL = "!torch.vtensor<[],i1>"
_CODE = "!torch.vtensor<[],si64>"


def _write_checks(anchor: Any, checks: list[_Check]) -> None:
    """The checks, before ``anchor``: each index's smallest and largest value against its
    bounds, the first failing check's number read back once (one number for all), one
    assertion per check."""
    with anchor.context, anchor.location:
        build = _Builder(anchor)
        fine = []
        for check in checks:
            index = check.index
            if check.component is not None:
                index = build.op(
                    "torch.aten.select.int",
                    _component_type(index.type),
                    [index, build.int(-1), build.int(check.component)],
                )
            element = _VTENSOR.fullmatch(str(index.type))
            assert element is not None  # `_check` took integer tensors only
            scalar = f"!torch.vtensor<[],{element.group(2)}>"
            smallest = build.op("torch.aten.min", scalar, [index])
            largest = build.op("torch.aten.max", scalar, [index])
            if element.group(2) != "si64":  # compared with an int as int64 (IREE's lowering
                # compares a narrower tensor's element with the i64 number as it is)
                smallest, largest = build.int64(smallest), build.int64(largest)
            above = build.op("torch.aten.ge.Scalar", _BOOL, [smallest, build.low(check)])
            below = build.op("torch.aten.lt.Scalar", _BOOL, [largest, build.size(check)])
            fine.append(build.op("torch.aten.logical_and", _BOOL, [above, below]))
        if len(fine) == 1:
            condition = build.op("torch.aten.Bool.Tensor", "!torch.bool", [fine[0]])
            build.assertion(condition, checks[0].message)
            return
        count = build.int(len(fine))
        code = None
        for number, ok in enumerate(fine):
            failing = build.op("torch.aten.where.Scalar", _CODE, [ok, count, build.int(number)])
            code = (
                failing if code is None else build.op("torch.aten.minimum", _CODE, [code, failing])
            )
        first = build.op("torch.aten.item", "!torch.int", [code])
        for number, check in enumerate(checks):
            passed = build.op("torch.aten.ne.int", "!torch.bool", [first, build.int(number)])
            build.assertion(passed, check.message)


def _component_type(index_type: Any) -> str:
    found = _VTENSOR.fullmatch(str(index_type))
    assert found is not None
    dims = found.group(1).split(",")[:-1]
    return f"!torch.vtensor<[{','.join(dims)}],{found.group(2)}>"


def _normalize(operation: Any, indexing: _Indexing) -> None:
    """Each index of ``operation`` that may be negative replaced by ``index + size``
    where negative (counted from the end, as the framework does)."""
    operands = list(operation.operands)
    shape = _shape(operands[indexing.buffer].type)
    if shape is None:
        return
    with operation.context, operation.location:
        build = _Builder(operation)
        if indexing.listed:
            listed = operands[indexing.index]
            items = list(listed.owner.operands) if _listed(listed) else []
            changed = False
            for dim, item in enumerate(items):
                if str(item.type) != "!torch.none" and dim < len(shape):
                    made = _non_negative(build, item, shape, dim)
                    if made is not None:
                        items[dim], changed = made, True
            if changed:
                new_list = build.op("torch.prim.ListConstruct", str(listed.type), items)
                operation.operands[indexing.index] = new_list
            return
        index = operands[indexing.index]
        if indexing.nd:
            made = _non_negative_nd(build, operation, index, shape, indexing)
        else:
            axis = _dim(operation, indexing, len(shape))
            made = None if axis is None else _non_negative(build, index, shape, axis)
        if made is not None:
            operation.operands[indexing.index] = made


def _non_negative(build: _Builder, index: Any, shape: list[int | None], dim: int) -> Any:
    found = _VTENSOR.fullmatch(str(index.type))
    if found is None or not _from_caller(index):
        return None
    size = shape[dim]
    if size is None:
        return None  # IREE's own lowering counts it from the end (ONNX) or checks it
    mask = f"!torch.vtensor<[{found.group(1)}],i1>"
    negative = build.op("torch.aten.lt.Scalar", mask, [index, build.int(0)])
    added = build.op(
        "torch.aten.add.Scalar", str(index.type), [index, build.int(size), build.int(1)]
    )
    return build.op("torch.aten.where.self", str(index.type), [negative, added, index])


def _non_negative_nd(
    build: _Builder, operation: Any, index: Any, shape: list[int | None], indexing: _Indexing
) -> Any:
    found = _VTENSOR.fullmatch(str(index.type))
    index_shape = _shape(index.type)
    if found is None or not index_shape or index_shape[-1] is None or not _from_caller(index):
        return None
    batch = _dim(operation, indexing, len(shape) + 1) or 0
    sizes = shape[batch : batch + index_shape[-1]]
    if len(sizes) != index_shape[-1] or any(size is None for size in sizes):
        return None
    element = found.group(2)
    literal = build.op(
        "torch.vtensor.literal",
        f"!torch.vtensor<[{len(sizes)}],{element}>",
        [],
        value=build.ir.Attribute.parse(
            f"dense<[{', '.join(str(size) for size in sizes)}]> : "
            f"tensor<{len(sizes)}x{element.replace('s', '', 1) if element.startswith('si') else element}>"
        ),
    )
    mask = f"!torch.vtensor<[{found.group(1)}],i1>"
    negative = build.op("torch.aten.lt.Scalar", mask, [index, build.int(0)])
    added = build.op("torch.aten.add.Tensor", str(index.type), [index, literal, build.int(1)])
    return build.op("torch.aten.where.self", str(index.type), [negative, added, index])
