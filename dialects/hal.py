"""A minimal `hal` dialect with IREE's textual form, for `wrap-entry-points`.

Tensors inside lists travel as `!hal.buffer_view`, because that is what IREE's compiler
accepts. Only the forms the V1 wrapper writes are declared: IREE's optional `wait(...)` fences,
`"name"` labels, `as` storage encodings and affinities are not. The custom forms print
byte for byte as IREE 3.13 does; the generic forms differ from IREE's (which carry
`operandSegmentSizes` and encoding properties for those optional parts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    IndexType,
    IndexTypeConstr,
    IntegerAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class BufferViewType(ParametrizedAttribute, TypeAttribute):
    """`!hal.buffer_view`: a buffer with a shape and an element type.

    IREE's runtime form of a tensor crossing the ABI inside a list.
    """

    name = "hal.buffer_view"


def dynamic_dim_count(type: Attribute) -> int:
    """How many `?` dims a tensor type has (0 for anything else)."""
    if not isinstance(type, TensorType):
        return 0
    return sum(1 for dim in type.get_shape() if dim < 0)


@irdl_custom_directive
class ShapedTypeWithDims(CustomDirective):
    """A tensor type and its dynamic dims: `tensor<4xf32>`, `tensor<?x4xf32>{%d0}`.

    One index value per dynamic dim, in braces, only when the type has dynamic dims (as
    IREE's `hal.tensor.*` ops spell it); after a static type a `{...}` is the attribute
    dictionary.
    """

    type: TypeDirective
    dims: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        start = parser.pos
        type = parser.parse_type()
        end = parser.pos
        self.type.set(state, (type,))
        if not (count := dynamic_dim_count(type)):
            self.dims.set(state, ())
            return
        if parser.parse_optional_punctuation("{") is None:
            parser.raise_error(
                f"expected {{...}} with {count} dim values (one index per '?') after {type}",
                start,
                end,
            )
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation("}")
        self.dims.set(state, dims)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        (type,) = self.type.get(op)
        state.print_whitespace(printer)
        printer.print_attribute(type)
        dims = self.dims.get(op)
        if dims:
            with printer.in_braces():
                printer.print_list(dims, printer.print_ssa_value)


def _verify_dims(type: Attribute, dims: Sequence[SSAValue], role: str) -> None:
    expected = dynamic_dim_count(type)
    if len(dims) != expected:
        raise VerifyException(
            f"expected {expected} dim values for {role} type {type} (one index per '?'), "
            f"got {len(dims)}"
        )


@irdl_op_definition
class TensorImportOp(IRDLOperation):
    """Imports a buffer view as a tensor.

    Reads a tensor that arrived inside a list as `!hal.buffer_view`. The
    result's dynamic dims are passed explicitly, one index per `?`, in order; the V1
    wrapper reads them with `hal.buffer_view.dim`. At run time IREE checks that the buffer
    view's shape and element type match.
    """

    name = "hal.tensor.import"

    source = operand_def(BufferViewType)
    target_dims = var_operand_def(IndexTypeConstr)
    # Unranked tensors are accepted (docs/spec.md §8.2 lowers them, with a warning).
    target = result_def(base(TensorType) | base(UnrankedTensorType))

    traits = traits_def(Pure())

    custom_directives = (ShapedTypeWithDims,)
    assembly_format = (
        "$source `:` type($source) `->` custom<ShapedTypeWithDims>(type($target), $target_dims)"
        " attr-dict"
    )

    def __init__(
        self,
        source: SSAValue | Operation,
        target_type: TensorType | UnrankedTensorType,
        target_dims: Sequence[SSAValue | Operation] = (),
    ) -> None:
        super().__init__(operands=[source, target_dims], result_types=[target_type])

    def verify_(self) -> None:
        _verify_dims(self.target.type, self.target_dims, "result")


@irdl_op_definition
class TensorExportOp(IRDLOperation):
    """Exports a tensor as a buffer view.

    Writes a tensor into a list as `!hal.buffer_view`. The source's dynamic
    dims are passed explicitly, one index per `?`, in order (the V1 wrapper reads them
    with `tensor.dim`).
    """

    name = "hal.tensor.export"

    source = operand_def(TensorType | UnrankedTensorType)
    source_dims = var_operand_def(IndexTypeConstr)
    target = result_def(BufferViewType)

    traits = traits_def(Pure())

    custom_directives = (ShapedTypeWithDims,)
    assembly_format = (
        "$source `:` custom<ShapedTypeWithDims>(type($source), $source_dims) `->` type($target)"
        " attr-dict"
    )

    def __init__(
        self,
        source: SSAValue | Operation,
        source_dims: Sequence[SSAValue | Operation] = (),
    ) -> None:
        super().__init__(operands=[source, source_dims], result_types=[BufferViewType()])

    def verify_(self) -> None:
        _verify_dims(self.source.type, self.source_dims, "source")


@irdl_op_definition
class BufferViewDimOp(IRDLOperation):
    """Returns the size of one dimension of a buffer view.

    `index` is the dimension, counted from 0; reading a dimension beyond the buffer
    view's rank is a runtime error (the rank is not known statically).
    """

    name = "hal.buffer_view.dim"

    buffer_view = operand_def(BufferViewType)
    index = prop_def(IntegerAttr[IndexType])
    result = result_def(IndexTypeConstr)

    traits = traits_def(Pure())

    assembly_format = (
        "`<` $buffer_view `:` type($buffer_view) `>` `` `[` $index `]` `:` type($result)"
        " attr-dict-with-keyword"
    )

    def __init__(self, buffer_view: SSAValue | Operation, index: int) -> None:
        super().__init__(
            operands=[buffer_view],
            properties={"index": IntegerAttr(index, IndexType())},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        if self.index.value.data < 0:
            raise VerifyException(f"dimension index {self.index.value.data} is negative")


@irdl_op_definition
class TensorAliasOp(IRDLOperation):
    """Stores a tensor into the buffer of a buffer view.

    The result is the source's value, held in ``storage``'s buffer: the V1 wrapper aliases
    the new value of an argument the function updates in place (`iree.abi.output` on the
    implementation's argument) into the buffer view the caller passed for it, so that
    IREE writes it there. The source's dynamic dims are passed explicitly, one index per
    `?`, in order.
    """

    name = "hal.tensor.alias"

    T: ClassVar = VarConstraint("T", base(TensorType))
    source = operand_def(T)
    source_dims = var_operand_def(IndexTypeConstr)
    storage = operand_def(BufferViewType)
    result = result_def(T)

    custom_directives = (ShapedTypeWithDims,)
    assembly_format = (
        "$source `:` custom<ShapedTypeWithDims>(type($source), $source_dims) `to` $storage `:`"
        " type($storage) attr-dict"
    )

    def __init__(
        self,
        source: SSAValue | Operation,
        storage: SSAValue | Operation,
        source_dims: Sequence[SSAValue | Operation] = (),
    ) -> None:
        value = SSAValue.get(source)
        super().__init__(operands=[source, source_dims, storage], result_types=[value.type])

    def verify_(self) -> None:
        _verify_dims(self.source.type, self.source_dims, "source")


Hal = Dialect(
    "hal", [TensorImportOp, TensorExportOp, TensorAliasOp, BufferViewDimOp], [BufferViewType]
)
