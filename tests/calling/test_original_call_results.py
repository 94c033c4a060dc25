"""Results of the original call rebuilt without the framework (docs/calling.md, "From a
framework's object"): a transformers `ModelOutput` (`model_output` node) that indexes,
keys and converts as transformers' own, a registered dataclass with its None fields, the
caller's classes whose static fields the file cannot hold, and the framework's own
unflatten. No IREE, no framework."""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from typing import Any

import pytest

from abi_compiler.call_model import Array, Constant, Container, NoneLeaf, OriginalCall
from abi_compiler.calling.leaf_values import leaf_packer
from abi_compiler.calling.original_call import CallPlan, TypesError
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.errors import AbiError
from abi_compiler.model import leaves

F32 = '["ndarray","f32",1,2]'
# One argument; three result arrays: a tuple (x, (y, z)) in the records.
ABI = f'{{"a":[{F32}],"r":[["stuple",{F32},["stuple",{F32},{F32}]]],"v":1}}'


def arr(index: int) -> Array:
    return Array(index, "float32", (2,))


def plan(result: Any, **options: Any) -> CallPlan:
    call = OriginalCall((arr(0),), (), result, "numpy")
    signature = decode_json(ABI)
    by_index = {leaf.index: leaf for arg in signature.arguments for leaf in leaves(arg.node)}

    def leaf(array: Array) -> Any:
        return leaf_packer(by_index[array.index].type, False)

    return CallPlan(decode_call(encode_call(call)), signature, leaf, **options)


MODEL_OUTPUT = Container(
    "model_output",
    (arr(0), Container("tuple", (arr(1), arr(2))), NoneLeaf()),
    ("last_hidden_state", "hidden_states", "pooler_output"),
    "BaseModelOutputWithPooling",
)


def test_a_rebuilt_model_output_behaves_like_one() -> None:
    out = plan(MODEL_OUTPUT).rebuild(["x", "y", "z"])
    assert type(out).__name__ == "BaseModelOutputWithPooling"
    # As transformers' ModelOutput: the None field is an attribute, not a key; an int
    # or a slice indexes to_tuple().
    assert list(out.keys()) == ["last_hidden_state", "hidden_states"]
    assert out[0] == "x" and out["last_hidden_state"] == "x" and out.last_hidden_state == "x"
    assert out[1] == ("y", "z") and out[-1] == ("y", "z") and out[:1] == ("x",)
    assert out.to_tuple() == ("x", ("y", "z"))
    assert out.pooler_output is None
    with pytest.raises(KeyError):
        out["pooler_output"]
    assert dict(out) == {"last_hidden_state": "x", "hidden_states": ("y", "z")}
    assert repr(out) == (
        "BaseModelOutputWithPooling(last_hidden_state='x', hidden_states=('y', 'z'), "
        "pooler_output=None)"
    )
    copied = copy.deepcopy(out)
    assert type(copied) is type(out) and copied.to_tuple() == out.to_tuple()
    assert copied.pooler_output is None
    out.pooler_output = "p"  # as transformers' own: setting a field sets its key
    assert out["pooler_output"] == "p" and out.to_tuple()[-1] == "p"


def test_a_model_output_argument_is_a_mapping_or_an_object_with_its_fields() -> None:
    call = OriginalCall((MODEL_OUTPUT,), (), arr(0), "numpy")
    abi = f'{{"a":[["stuple",{F32},["stuple",{F32},{F32}]]],"r":[{F32}],"v":1}}'
    signature = decode_json(abi)
    by_index = {leaf.index: leaf for arg in signature.arguments for leaf in leaves(arg.node)}
    made = CallPlan(
        decode_call(encode_call(call)),
        signature,
        lambda array: leaf_packer(by_index[array.index].type, False),
    )
    value = plan(MODEL_OUTPUT).rebuild([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert made.arguments((value,), {}) == [[[1.0, 2.0], [[3.0, 4.0], [5.0, 6.0]]]]
    assert made.arguments((dict(value),), {}) == [[[1.0, 2.0], [[3.0, 4.0], [5.0, 6.0]]]]
    with pytest.raises(AbiError, match=r"argument 0: expected a BaseModelOutputWithPooling "):
        made.arguments(({"last_hidden_state": [1.0, 2.0]},), {})


def test_a_registered_dataclass_keeps_its_fields() -> None:
    # torch.export.register_dataclass: the None field is a None leaf of the dataclass.
    node = Container("dataclass", (arr(0), arr(1), arr(2), NoneLeaf()), ("a", "b", "c", "d"), "Out")
    out = plan(node).rebuild(["x", "y", "z"])
    assert dataclasses.is_dataclass(out) and type(out).__name__ == "Out"
    assert [field.name for field in dataclasses.fields(out)] == ["a", "b", "c", "d"]
    assert (out.a, out.b, out.c, out.d) == ("x", "y", "z", None)


@dataclasses.dataclass(frozen=True)
class State:
    step: Any
    apply_fn: Any  # static: not a value of the call
    params: Any
    tx: Any = None


STATE = Container("dataclass", (arr(0), arr(1), arr(2)), ("step", "params", "extra"), "State")


def test_static_fields_the_file_cannot_hold_are_named() -> None:
    with pytest.raises(TypesError) as info:
        plan(STATE, types=[State])
    assert str(info.value) == (
        "types: State takes the fields apply_fn, which are not values of the call (static "
        "fields the file does not hold); give them with "
        "types={'State': functools.partial(State, apply_fn=…)}"
    )


def test_static_fields_given_with_a_partial() -> None:
    @dataclasses.dataclass(frozen=True)
    class Small:
        step: Any
        params: Any
        extra: Any
        apply_fn: Any

    own = functools.partial(Small, apply_fn=print)
    out = plan(STATE, types={"State": own}).rebuild(["x", "y", "z"])
    assert out == Small("x", "y", "z", print)


def test_the_frameworks_own_unflatten_gets_the_arrays_in_flatten_order() -> None:
    # Flatten order is the call's (depth first); the records' order may differ.
    node = Container("dict", (arr(2), arr(0), NoneLeaf(), arr(1)), ("w", "b", "none", "c"))
    seen: list[Any] = []

    def unflatten(flat: list[Any]) -> Any:
        seen.append(flat)
        return ("mine", *flat)

    assert plan(node, unflatten=unflatten).rebuild(["r0", "r1", "r2"]) == (
        "mine",
        "r2",
        "r0",
        "r1",
    )
    assert seen == [["r2", "r0", "r1"]]


def test_recorded_static_fields_build_the_callers_class() -> None:
    # A JAX export records a dataclass's static fields of JSON values (`s`).
    node = Container(
        "dataclass",
        (arr(0), arr(1)),
        ("step", "params"),
        "Layer",
        (("width", Constant(4, "int")), ("tag", Constant(None, "float", "nan"))),
    )

    @dataclasses.dataclass(frozen=True)
    class Layer:
        step: Any
        width: int
        params: Any
        tag: Any

    made = plan(Container("tuple", (node, arr(2))), types=[Layer]).rebuild(["x", "y", "z"])
    layer = made[0]
    assert (layer.step, layer.width, layer.params) == ("x", 4, "y")
    assert isinstance(layer.tag, float) and layer.tag != layer.tag  # nan, from its repr
    # Rebuilt without the class: the fields that are values of the call.
    rebuilt = plan(Container("tuple", (node, arr(2)))).rebuild(["x", "y", "z"])[0]
    assert [field.name for field in dataclasses.fields(rebuilt)] == ["step", "params"]


@pytest.mark.parametrize(
    ("static", "message"),
    [
        ('[["width",{"t":"array","i":0}]]', "s: a static field's value is a 'const' node"),
        ('[["step",{"t":"const","type":"int","value":1}]]', "s: static fields are distinct"),
        (
            '[["w",{"t":"const","type":"int","value":1}],["w",{"t":"const","type":"int","value":1}]]',
            "s: static fields are distinct",
        ),
        ('{"w":1}', "s: expected a list, got dict"),
        ('[[1,{"t":"const","type":"int","value":1}]]', "s: expected [field, constant] pairs"),
    ],
)
def test_malformed_static_fields_are_refused(static: str, message: str) -> None:
    text = (
        '{"args":[],"kwargs":[],"result":{"t":"dataclass","name":"S","k":["step"],'
        f'"c":[{{"t":"none"}}],"s":{static}}},"v":1}}'
    )
    with pytest.raises(AbiError, match=re.escape(f"abi.call: {message}")):
        decode_call(text)
