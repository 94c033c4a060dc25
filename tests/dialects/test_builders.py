"""The Python constructors of the ops, as rewrites use them: each builds a verified op
whose result type is inferred wherever the op determines it."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    IndexType,
    TensorType,
    TupleType,
    f32,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer

from abi_compiler.dialects.abi import (
    DictGetOp,
    DictPackOp,
    DictType,
    RefArrayFromListsOp,
    RefArrayToListsOp,
    TupleGetOp,
    TuplePackOp,
)
from abi_compiler.dialects.hal import (
    BufferViewDimOp,
    BufferViewType,
    TensorExportOp,
    TensorImportOp,
)
from abi_compiler.dialects.iree import IreeListType
from abi_compiler.dialects.util import (
    ListCreateOp,
    ListGetOp,
    ListResizeOp,
    ListSetOp,
    ListSizeOp,
    ListType,
)


def values(**types: Attribute) -> dict[str, SSAValue]:
    """Block arguments named after the keywords."""
    block = Block(arg_types=types.values())
    for name, argument in zip(types, block.args, strict=True):
        argument.name_hint = name
    return dict(zip(types, block.args, strict=True))


def printed(op: Operation) -> str:
    op.verify()
    for i, result in enumerate(op.results):
        result.name_hint = f"r{i}"
    stream = StringIO()
    Printer(stream=stream).print_op(op)
    return stream.getvalue()


def test_util_builders() -> None:
    v = values(l=ListType(), m=ListType(i32), i=IndexType(), x=i32, bv=BufferViewType())
    assert printed(ListCreateOp()) == "%r0 = util.list.create : !util.list<?>"
    assert printed(ListCreateOp(ListType(i32), v["i"])) == (
        "%r0 = util.list.create %i : !util.list<i32>"
    )
    assert printed(ListSizeOp(v["l"])) == "%r0 = util.list.size %l : !util.list<?>"
    assert printed(ListResizeOp(v["l"], v["i"])) == "util.list.resize %l, %i : !util.list<?>"
    assert printed(ListGetOp(v["m"], v["i"])) == "%r0 = util.list.get %m[%i] : !util.list<i32>"
    assert printed(ListGetOp(v["l"], v["i"], BufferViewType())) == (
        "%r0 = util.list.get %l[%i] : !util.list<?> -> !hal.buffer_view"
    )
    assert printed(ListSetOp(v["m"], v["i"], v["x"])) == (
        "util.list.set %m[%i], %x : !util.list<i32>"
    )
    assert printed(ListSetOp(v["l"], v["i"], v["bv"])) == (
        "util.list.set %l[%i], %bv : !hal.buffer_view -> !util.list<?>"
    )


def test_list_get_on_a_variant_list_needs_a_result_type() -> None:
    v = values(l=ListType(), i=IndexType())
    with pytest.raises(ValueError, match="needs a result type"):
        ListGetOp(v["l"], v["i"])


def test_list_types_compare_by_spelling_and_element_type() -> None:
    # `!util.list` and `!iree.list` share a base class that declares `element_type`.
    assert ListType(i32) == ListType(i32)
    assert hash(ListType(i32)) == hash(ListType(i32))
    assert ListType(i32) != ListType()
    assert IreeListType(i32) != IreeListType(f32)
    assert ListType(i32) != IreeListType(i32)


def test_abi_builders() -> None:
    dict_type = DictType([("m", f32), ("k", i32)])
    array_type = TensorType(ListType(i32), [2, DYNAMIC_INDEX])
    v = values(
        a=i32,
        b=f32,
        t=TupleType(ArrayAttr([i32, f32])),
        d=dict_type,
        arr=array_type,
        lists=ListType(),
    )
    assert printed(TuplePackOp([v["a"], v["b"]])) == (
        "%r0 = abi.tuple.pack %a, %b : (i32, f32) -> tuple<i32, f32>"
    )
    assert printed(TuplePackOp([])) == "%r0 = abi.tuple.pack : () -> tuple<>"
    assert printed(TupleGetOp(v["t"], 1)) == "%r0 = abi.tuple.get %t[1] : tuple<i32, f32> -> f32"
    # Values in sorted key order: "k" (i32) before "m" (f32).
    assert printed(DictPackOp([v["a"], v["b"]], dict_type)) == (
        '%r0 = abi.dict.pack %a, %b : (i32, f32) -> !abi.dict<"m": f32, "k": i32>'
    )
    assert printed(DictGetOp(v["d"], "k")) == (
        '%r0 = abi.dict.get %d["k"] : !abi.dict<"m": f32, "k": i32> -> i32'
    )
    assert printed(RefArrayToListsOp(v["arr"])) == (
        "%r0 = abi.ref_array.to_lists %arr : tensor<2x?x!util.list<i32>> -> !util.list<?>"
    )
    assert printed(RefArrayFromListsOp(v["lists"], array_type)) == (
        "%r0 = abi.ref_array.from_lists %lists : !util.list<?> -> tensor<2x?x!util.list<i32>>"
    )


def test_abi_builders_reject_missing_slots() -> None:
    v = values(t=TupleType(ArrayAttr([i32])), d=DictType([("k", i32)]))
    with pytest.raises(ValueError, match="no element 1 in tuple<i32>"):
        TupleGetOp(v["t"], 1)
    with pytest.raises(ValueError, match=r'no key "m" in !abi\.dict<"k": i32>'):
        DictGetOp(v["d"], "m")


def test_hal_builders() -> None:
    dynamic = TensorType(f32, [DYNAMIC_INDEX, 4])
    v = values(bv=BufferViewType(), t=dynamic, d0=IndexType())
    assert printed(BufferViewDimOp(v["bv"], 0)) == (
        "%r0 = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index"
    )
    assert printed(TensorImportOp(v["bv"], dynamic, [v["d0"]])) == (
        "%r0 = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%d0}"
    )
    assert printed(TensorImportOp(v["bv"], TensorType(f32, [4]))) == (
        "%r0 = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32>"
    )
    assert printed(TensorExportOp(v["t"], [v["d0"]])) == (
        "%r0 = hal.tensor.export %t : tensor<?x4xf32>{%d0} -> !hal.buffer_view"
    )
