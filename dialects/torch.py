"""The `torch` tensor types torch-mlir and its ONNX importer put on entry points.

Only the two tensor types are declared, in torch-mlir's textual form, so that modules
typed with them can be read: the reflection passes describe a value tensor exactly like
the builtin tensor it stands for (a leaf with its element type and dims). Other
`torch` types (`!torch.int`, `!torch.list<…>`, …) are not declared; with
`--allow-unregistered-dialect` they are read as opaque types (`"unknown"` records).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    ComplexType,
    IntAttr,
    IntegerType,
    NoneAttr,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

# torch-mlir's unknown size: written `?` (older modules: `-1`).
UNKNOWN_SIZE = -1


@dataclass(frozen=True, init=False)
class TorchTensorTypeBase(ParametrizedAttribute, TypeAttribute):
    """What `!torch.vtensor` and `!torch.tensor` share: optional sizes and an optional
    dtype, written `<[2,?],f32>`, `<*,f32>` (unknown sizes), `<[2],unk>` (unknown dtype),
    or nothing at all (neither known)."""

    sizes: ArrayAttr[IntAttr] | NoneAttr
    dtype: IntegerType | AnyFloat | ComplexType | NoneAttr

    def __init__(
        self, sizes: tuple[int, ...] | None = None, dtype: Attribute | None = None
    ) -> None:
        super().__init__(
            NoneAttr() if sizes is None else ArrayAttr([IntAttr(size) for size in sizes]),
            NoneAttr() if dtype is None else dtype,
        )

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        """The sizes (None for an unknown size), or None when the rank is unknown."""
        if isinstance(self.sizes, NoneAttr):
            return None
        return tuple(None if size.data < 0 else size.data for size in self.sizes)

    @property
    def element_type(self) -> Attribute | None:
        return None if isinstance(self.dtype, NoneAttr) else self.dtype

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        if parser.parse_optional_punctuation("<") is None:
            return [NoneAttr(), NoneAttr()]
        sizes: Attribute = NoneAttr()
        if parser.parse_optional_punctuation("*") is None:
            parser.parse_punctuation("[")
            values: list[IntAttr] = []
            if parser.parse_optional_punctuation("]") is None:
                while True:
                    if parser.parse_optional_punctuation("?") is not None:
                        values.append(IntAttr(UNKNOWN_SIZE))
                    else:
                        size = parser.parse_integer(
                            allow_boolean=False, context_msg=" as a torch tensor size"
                        )
                        values.append(IntAttr(UNKNOWN_SIZE if size < 0 else size))
                    if parser.parse_optional_punctuation(",") is None:
                        break
                parser.parse_punctuation("]")
            sizes = ArrayAttr(values)
        parser.parse_punctuation(",")
        dtype: Attribute = NoneAttr()
        if parser.parse_optional_keyword("unk") is None:
            position = parser.pos
            dtype = parser.parse_type()
            if not isinstance(dtype, (IntegerType, AnyFloat, ComplexType)):
                parser.raise_error(
                    "torch tensor dtype must be an integer, float or complex type",
                    position,
                    parser.pos,
                )
        parser.parse_punctuation(">")
        return [sizes, dtype]

    def print_parameters(self, printer: Printer) -> None:
        shape = self.shape
        element = self.element_type
        if shape is None and element is None:
            return
        with printer.in_angle_brackets():
            if shape is None:
                printer.print_string("*")
            else:
                text = ",".join("?" if size is None else str(size) for size in shape)
                printer.print_string(f"[{text}]")
            printer.print_string(",")
            if element is None:
                printer.print_string("unk")
            else:
                printer.print_attribute(element)


@irdl_attr_definition(init=False)  # type checkers: the __init__ is TorchTensorTypeBase's
class ValueTensorType(TorchTensorTypeBase):
    """`!torch.vtensor<[2,?],f32>`: a tensor with value semantics.

    What torch-mlir's FX and ONNX importers type entry points with. At the ABI it is the
    builtin tensor it stands for: `!torch.vtensor<[2,?],f32>` is `tensor<2x?xf32>`,
    `!torch.vtensor<[],si64>` is `tensor<si64>`, `!torch.vtensor<*,f32>` is
    `tensor<*xf32>`. Without a dtype (`<[2],unk>`, or no parameters) its element type is
    unknown.
    """

    name = "torch.vtensor"


@irdl_attr_definition(init=False)  # type checkers: the __init__ is TorchTensorTypeBase's
class NonValueTensorType(TorchTensorTypeBase):
    """`!torch.tensor<[2,?],f32>`: a tensor without value semantics (mutable, aliasable).

    Not a value a runtime can pass: the reflection passes describe it as unknown.
    """

    name = "torch.tensor"


Torch = Dialect("torch", [], [ValueTensorType, NonValueTensorType])
