"""A minimal `hal` dialect with IREE's textual form (SPEC §8.2): tensors inside lists
travel as `!hal.buffer_view`."""

from __future__ import annotations

from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class BufferViewType(ParametrizedAttribute, TypeAttribute):
    """`!hal.buffer_view`: a buffer with shape and element type, IREE's runtime form of a
    tensor crossing the ABI inside a list."""

    name = "hal.buffer_view"


Hal = Dialect("hal", [], [BufferViewType])
