"""The torch tensor types built from Python, and how the passes read them: the builtin
tensor a value tensor stands for (`structure.value_type`)."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.dialects.builtin import ComplexType, IntegerType, Signedness, f32, i1
from xdsl.ir import Attribute
from xdsl.printer import Printer

from abi_compiler.dialects.torch import NonValueTensorType, ValueTensorType
from abi_compiler.model import NDArray, Scalar, Unknown, ValueType
from abi_compiler.passes.structure import value_type

si64 = IntegerType(64, Signedness.SIGNED)
ui8 = IntegerType(8, Signedness.UNSIGNED)


def text(attr: Attribute) -> str:
    stream = StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


@pytest.mark.parametrize(
    ("type", "printed", "shape", "value"),
    [
        (
            ValueTensorType((2, -1), f32),
            "!torch.vtensor<[2,?],f32>",
            (2, None),
            NDArray(Scalar("f", 32), (2, None)),
        ),
        (ValueTensorType((), si64), "!torch.vtensor<[],si64>", (), NDArray(Scalar("si", 64), ())),
        (ValueTensorType(None, f32), "!torch.vtensor<*,f32>", None, NDArray(Scalar("f", 32), None)),
        (
            ValueTensorType((3,), ui8),
            "!torch.vtensor<[3],ui8>",
            (3,),
            NDArray(Scalar("ui", 8), (3,)),
        ),
        (ValueTensorType((4,), i1), "!torch.vtensor<[4],i1>", (4,), NDArray(Scalar("i", 1), (4,))),
        (
            ValueTensorType((2,), ComplexType(f32)),
            "!torch.vtensor<[2],complex<f32>>",
            (2,),
            NDArray(Unknown(), (2,)),
        ),
        (ValueTensorType((2,)), "!torch.vtensor<[2],unk>", (2,), Unknown()),
        (ValueTensorType(), "!torch.vtensor", None, Unknown()),
        (NonValueTensorType((2,), f32), "!torch.tensor<[2],f32>", (2,), Unknown()),
        (NonValueTensorType(), "!torch.tensor", None, Unknown()),
    ],
)
def test_types(type: ValueTensorType, printed: str, shape: object, value: ValueType) -> None:
    type.verify()
    assert text(type) == printed
    assert type.shape == shape
    assert value_type(type) == value


def test_value_and_non_value_tensors_differ() -> None:
    assert ValueTensorType((2,), f32) != NonValueTensorType((2,), f32)
    assert ValueTensorType((2,), f32) == ValueTensorType((2,), f32)
    assert ValueTensorType((2,), f32) != ValueTensorType((3,), f32)
