"""A function whose reflection carries `abi.call` (the original call) beside `iree.abi`:
compiled from MLIR text, called with the original call after `load`, saved and loaded
again, and still called by IREE's own `FunctionInvoker` by its records."""

from __future__ import annotations

import collections
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import mlir_string, needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.call_model import (  # noqa: E402
    Array,
    Constant,
    Container,
    NoneLeaf,
    OriginalCall,
    Symbol,
    Unused,
)
from abi_compiler.codecs.call_json import encode_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402

F = "float32"
# f(state: State(step, params={"w", "b"}), opt: EmptyState(), n: 2, x[b, 2], *, scale)
#   -> (State(step + 1, params), {"z": x * scale, "a": None})
CALL = OriginalCall(
    positional=(
        Container(
            "namedtuple",
            (
                Array(0, "int32", ()),
                Container("dict", (Array(2, F, (2,)), Array(1, F, (2,))), ("w", "b")),
            ),
            ("step", "params"),
            "State",
        ),
        Container("namedtuple", (), (), "EmptyState"),
        Constant(2, "int"),
        Array(3, F, ("b", 2)),
        Unused(F, (4,)),
    ),
    keywords=(("scale", Array(4, F, ())),),
    result=Container(
        "tuple",
        (
            Container(
                "dataclass",
                (
                    Array(0, "int32", ()),
                    Container("dict", (Array(2, F, (2,)), Array(1, F, (2,))), ("w", "b")),
                ),
                ("step", "params"),
                "TrainState",
            ),
            Container("dict", (Array(3, F, ("b", 2)), NoneLeaf()), ("z", "a")),
        ),
    ),
    labels=("state", None, None, "x", None),
    symbols=(Symbol("b", 1, 8),),
)

TEXT = f"""
func.func @main(%step: tensor<i32> {{abi.index_path = [0, 0]}},
                %w: tensor<2xf32> {{abi.index_path = [0, 1, "w"]}},
                %b: tensor<2xf32> {{abi.index_path = [0, 1, "b"]}},
                %x: tensor<?x2xf32> {{abi.index_path = [1]}},
                %scale: tensor<f32> {{abi.index_path = ["scale"]}})
    -> (tensor<i32> {{abi.index_path = [0, 0]}}, tensor<2xf32> {{abi.index_path = [0, 1, "w"]}},
        tensor<2xf32> {{abi.index_path = [0, 1, "b"]}}, tensor<?x2xf32> {{abi.index_path = [1, "z"]}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(CALL))}"}}}} {{
  %one = arith.constant dense<1> : tensor<i32>
  %next = arith.addi %step, %one : tensor<i32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x2xf32>
  %empty = tensor.empty(%rows) : tensor<?x2xf32>
  %z = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>,
                        affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %scale : tensor<?x2xf32>, tensor<f32>) outs(%empty : tensor<?x2xf32>) {{
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  }} -> tensor<?x2xf32>
  return %next, %w, %b, %z : tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<?x2xf32>
}}
"""

State = collections.namedtuple("State", ["step", "params"])
EmptyState = collections.namedtuple("EmptyState", [])


@dataclasses.dataclass(frozen=True)
class TrainState:
    step: Any
    params: Any


def _args() -> tuple[Any, ...]:
    params = {"w": np.array([1, 2], np.float32), "b": np.array([3, 4], np.float32)}
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    return (State(np.int32(5), params), EmptyState(), 2, x, np.zeros(4, np.float32))


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    return compile_quietly(TEXT, vmfb=True)


def test_loaded_module_takes_and_returns_the_original_call(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb)
    state, out = module.main(*_args(), scale=np.float32(0.5))
    assert type(state).__name__ == "TrainState" and dataclasses.is_dataclass(state)
    assert int(state.step) == 6 and list(state.params) == ["w", "b"]
    np.testing.assert_array_equal(state.params["b"], [3, 4])
    assert list(out) == ["z", "a"] and out["a"] is None
    np.testing.assert_array_equal(out["z"], np.arange(6, dtype=np.float32).reshape(3, 2) / 2)


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (
            "TrainState",
            "types: expected classes or a mapping of recorded names to classes, got str",
        ),
        (5, "types: expected classes or a mapping of recorded names to classes, got int"),
        ([TrainState, 5], "types: expected classes, got int"),
        (
            {"TrainState": 5},
            "types: expected a mapping of recorded names to classes, got str -> int",
        ),
    ],
)
def test_types_that_are_not_classes(vmfb: bytes, types: Any, message: str) -> None:
    """Refused by `load` (an AttributeError, or an int called, at the first call that
    rebuilt a result before)."""
    with pytest.raises(TypeError) as error:
        abi_iree.load(vmfb, types=types)
    assert str(error.value) == message


def test_the_callers_classes_and_any_object_with_the_fields(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb, types=[TrainState])
    state, _, _, x, unused = _args()
    params = state.params
    # A plain tuple for the namedtuple, the dataclass result as the argument: fields.
    got, _ = module.main(TrainState(state.step, params), (), 2, x, unused, scale=np.float32(1))
    assert type(got) is TrainState and int(got.step) == 6
    got, _ = module.main((state.step, params), (), 2, x, unused.tolist(), np.float32(1))
    assert type(got) is TrainState


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda a: (a[0]._replace(params={"w": a[0].params["w"]}), *a[1:]),
            "argument state.params: expected a dict with keys ['b', 'w'], got keys ['w']",
        ),
        (
            lambda a: (a[0], (1,), *a[2:]),
            "argument 1: expected an EmptyState of 0 values, got a tuple of 1 value",
        ),
        (
            lambda a: (*a[:2], 3, *a[3:]),
            "argument 2: expected 2 (the value the program was exported with), got 3",
        ),
        (
            lambda a: (*a[:3], np.zeros((9, 2), np.float32), a[4]),
            "argument x: dimension 0 is 9, but symbol 'b' is at most 8",
        ),
        (
            lambda a: (a[0]._replace(step=np.float32(1)), *a[1:]),
            "argument state.step: expected int32[], got float32[] (convert=True converts it)",
        ),
        # An argument the export dropped is checked as JAX checks it, not passed on.
        (
            lambda a: (*a[:4], np.zeros(3, np.float32)),
            "argument 4: expected float32[4], got float32[3]",
        ),
        (
            lambda a: (*a[:4], np.zeros(4, np.int32)),
            "argument 4: expected float32[4], got int32[4] (convert=True converts it)",
        ),
        (lambda a: (*a[:4], None), "argument 4: expected float32[4], got None"),
    ],
)
def test_errors_name_the_original_path(vmfb: bytes, change: Any, message: str) -> None:
    module = abi_iree.load(vmfb)
    with pytest.raises(AbiError) as error:
        module.main(*change(_args()), scale=np.float32(1))
    assert str(error.value) == message


def test_save_writes_the_bytes_it_was_loaded_from(vmfb: bytes, tmp_path: Path) -> None:
    module = abi_iree.load(vmfb)
    module.save(tmp_path / "model.vmfb")
    assert (tmp_path / "model.vmfb").read_bytes() == vmfb == module.vmfb
    again = abi_iree.load(tmp_path / "model.vmfb")
    assert list(again.main(*_args(), scale=np.float32(1))[1]) == ["z", "a"]


def test_iree_function_invoker_calls_it_by_its_records(vmfb: bytes) -> None:
    from iree import runtime as rt

    context = rt.SystemContext(config=rt.Config("local-task"))
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
    main = context.modules.module["main"]
    x = np.ones((2, 2), np.float32)
    params = {"b": np.array([3, 4], np.float32), "w": np.array([1, 2], np.float32)}
    got = main([np.int32(1), params], x, scale=np.float32(2))
    assert int(np.asarray(got[0][0].to_host())) == 2
    np.testing.assert_array_equal(got[0][1]["w"].to_host(), [1, 2])
    np.testing.assert_array_equal(got[1]["z"].to_host(), 2 * x)
    reflection = abi_iree.load(vmfb).main.reflection
    assert sorted(reflection) == ["abi.call", "abi.provenance", "iree.abi", "iree.abi.declaration"]
    assert reflection["abi.call"] == encode_call(CALL)


# g(pixels: uint8[2], count: int32) -> pixels: the records are signless (`i8`, `i32`),
# the original call says which interpretation of the bits the framework's values have.
INTS = OriginalCall(
    (Array(0, "uint8", (2,)), Array(1, "int32", ())),
    (),
    Array(0, "uint8", (2,)),
)
INTS_TEXT = f"""
func.func @g(%pixels: tensor<2xi8> {{abi.index_path = [0]}}, %count: tensor<i32> {{abi.index_path = [1]}})
    -> (tensor<2xi8> {{abi.index_path = []}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(INTS))}"}}}} {{
  return %pixels : tensor<2xi8>
}}
"""


@pytest.fixture(scope="module")
def ints() -> Any:
    return compile_quietly(INTS_TEXT)


def test_integers_in_the_frameworks_dtype(ints: Any) -> None:
    got = ints.g(np.array([200, 7], np.uint8), np.int32(3))
    assert got.dtype == np.uint8 and got.tolist() == [200, 7]  # read back unsigned
    assert ints.g([255, 0], 2**31 - 1).tolist() == [255, 0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([256, 0], 1), "argument 0[0]: value 256 does not fit in uint8"),
        (([0, -1], 1), "argument 0[1]: value -1 does not fit in uint8"),
        (([0, 0], 2**31), "argument 1: value 2147483648 does not fit in int32"),
        (
            (np.array([1, 2], np.int8), 1),
            "argument 0: expected an array of uint8, got int8[2] (convert=True converts it)",
        ),
        # a class: its `dtype` is a descriptor numpy cannot read (a TypeError before)
        ((np.ndarray, 1), "argument 0: expected int8[2], got type"),
        (([0, 0], np.int32), "argument 1: expected int32[], got type"),
    ],
)
def test_integers_out_of_the_frameworks_range(ints: Any, args: Any, message: str) -> None:
    with pytest.raises(AbiError) as error:
        ints.g(*args)
    assert str(error.value) == message


@pytest.mark.parametrize("name", ["nosuchdtype", "float8_e9m9"])
def test_a_dtype_numpy_does_not_know(name: str) -> None:
    """A recorded dtype name numpy cannot read (the file's reflection, not a framework's)
    is no dtype: the records check the values, the result is the record's (np.dtype
    raised a TypeError when the function was looked up). A dtype that is not a name
    (``no-such-dtype``, a lone surrogate) is a malformed entry
    (tests/hardening/test_hostile_entries.py)."""
    unknown = OriginalCall(
        (Array(0, name, (2,)), Array(1, "int32", ())),
        (),
        Array(0, name, (2,)),
    )
    text = INTS_TEXT.replace(mlir_string(encode_call(INTS)), mlir_string(encode_call(unknown)))
    module = compile_quietly(text)
    got = module.g(np.array([-1, 2], np.int8), 1)
    assert got.dtype == np.int8 and got.tolist() == [-1, 2]
    with pytest.raises(AbiError) as error:
        module.g([256, 0], 1)
    assert str(error.value) == "argument 0[0]: value 256 does not fit in i8"


def test_convert_casts_the_other_signedness() -> None:
    module = compile_quietly(INTS_TEXT, convert=True)
    assert module.g(np.array([-1, 2], np.int8), 1).tolist() == [255, 2]
