"""A campaign over index arithmetic (docs/calling.md, "What the original call checks"): index
forms of torch, JAX and ONNX programs, each indexing a buffer with a value computed from
the caller's argument by arithmetic the frontends' value ranges do not follow, called with
values inside the buffer, at its edges and outside it; the framework itself is the oracle.

* torch (eager `nn.Module`) and ONNX (ONNX Runtime): a value the framework takes gives its
  numbers; one it refuses is an `AbiError` (the module's own check, or the recorded
  ranges' early message), never numbers.
* JAX (`jax.jit` on the CPU): JAX's own numbers for every value (its gathers clamp, its
  scatters drop what falls outside).

Run as ``python -m tests.hardening.index_campaign torch|jax|onnx`` (a crash of the compiled
code would end this process, not the test's: `test_index_campaign` runs it as a child).
It prints one line per case (``form value outcome``) and ``cases N failures M``; exit
status 0 when every case matches the oracle. Forms that index the same way share one
module (one compile each); a call with a value out of bounds for them fails as a whole.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

SIZE = 10
VALUES = (0, 3, SIZE - 1, -1, -SIZE, SIZE, -SIZE - 1, 100000, 2**40)
# An AbiError of the module's own check, or of the recorded ranges.
REFUSALS = ("index out of bounds", "is outside")


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as error:  # the oracle's refusal, or the compiled call's
        return type(error).__name__, str(error)


def _same(expected: Any, got: Any) -> bool:
    if isinstance(expected, (tuple, list)):
        return len(expected) == len(got) and all(
            _same(e, g) for e, g in zip(expected, got, strict=True)
        )
    expected = np.asarray(expected)
    got = np.asarray(got)
    return expected.shape == got.shape and np.array_equal(expected, got, equal_nan=True)


def _judge(form: str, value: int, expected: tuple[str, Any], got: tuple[str, Any]) -> bool:
    """One case: print it, return whether it matches the oracle."""
    if expected[0] == "ok":
        fine = got[0] == "ok" and _same(expected[1], got[1])
        seen = "equal" if fine else f"differ: {got[0]} {str(got[1])[:200]}"
    else:
        fine = got[0] == "AbiError" and any(text in got[1] for text in REFUSALS)
        seen = f"refused: {got[1]}" if fine else f"not refused: {got[0]} {str(got[1])[:200]}"
    print(f"{form} {value} {seen}", flush=True)
    return fine


def torch_campaign() -> tuple[int, int]:
    import torch
    import torch.nn.functional as F

    from abi_compiler import iree as abi_iree

    table = torch.arange(SIZE * 4, dtype=torch.float32).reshape(SIZE, 4)
    square = torch.arange(SIZE * SIZE, dtype=torch.float32).reshape(SIZE, SIZE)
    ones = torch.ones(1, 4)

    def row(p: Any) -> Any:
        return p.reshape(1, 1).expand(1, 4)

    # Forms by how the op takes an index: eager torch's range is the same in a group.
    groups: dict[str, dict[str, Callable[[Any], Any]]] = {
        "index": {
            "rsub": lambda p: table[3 - (3 - p)],
            "mul": lambda p: table[p * 1],
            "neg": lambda p: table[-(0 - p)],
            "flip": lambda p: table[p.flip(0)],
            "slice_add": lambda p: table[p + p[0:1] * 0],
            "floordiv": lambda p: table[(p * 2) // 2],
            "where": lambda p: table[torch.where(p > 2**50, p * 0, p)],
            "two_dims": lambda p: square[p * 1, 3 - (3 - p)],
            "column": lambda p: table[:, 0][p * 1],
        },
        "index_select": {
            "sub_tensor": lambda p: table.index_select(0, p - torch.tensor([1]) + 1),
            "mul": lambda p: table.index_select(0, p * 1),
            "flip": lambda p: table.index_select(0, p.flip(0)),
            "cat": lambda p: table.index_select(0, torch.cat([p, p * 1])),
            "int32": lambda p: table.index_select(0, (p * 1).to(torch.int32)),
        },
        "embedding": {
            "mul": lambda p: F.embedding(p * 1, table),
            "unsqueeze": lambda p: F.embedding((p + 0 * p).unsqueeze(0), table),
        },
        "gather": {
            "mul": lambda p: table.gather(0, row(p * 1)),
            "rsub": lambda p: torch.gather(table, 0, row(3 - (3 - p))),
        },
        "scatter": {
            "scatter": lambda p: table.scatter(0, row(p * 1), ones),
            "scatter_add": lambda p: table.scatter_add(0, row(-(0 - p)), ones),
        },
        "index_put": {
            "set": lambda p: table.index_put((p * 1,), torch.tensor(-1.0)),
            "accumulate": lambda p: table.index_put((3 - (3 - p),), torch.tensor(1.0), True),
        },
        "index_copy": {
            "mul": lambda p: table.index_copy(0, p * 1, ones),
            "flip": lambda p: table.index_copy(0, p.flip(0), ones * 2),
        },
    }

    class Forms(torch.nn.Module):
        def __init__(self, forms: dict[str, Callable[[Any], Any]]) -> None:
            super().__init__()
            self.forms = forms

        def forward(self, p: Any) -> Any:
            return tuple(form(p) for form in self.forms.values())

    class Cache(torch.nn.Module):
        """A cache updated in place at a computed position (a module buffer: state)."""

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("cache", torch.zeros(SIZE, 4))

        def forward(self, p: Any, x: Any) -> Any:
            self.cache.index_copy_(0, p * 1, x)
            self.cache[p.flip(0)] = x * 2
            return self.cache * 1

    cases = failures = 0
    example = (torch.tensor([2]),)
    modules: list[tuple[str, Any, Callable[..., Any], Callable[[int], tuple[Any, ...]]]] = []
    for group, forms in groups.items():
        module = Forms(forms)
        modules.append((group, module, module, lambda v: (torch.tensor([v]),)))
    modules.append(
        ("cache", Cache(), Cache(), lambda v: (torch.tensor([v]), torch.full((1, 4), 1.0)))
    )
    for name, traced, eager, arguments in modules:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exported = torch.export.export(traced, arguments(2) if name == "cache" else example)
            compiled = abi_iree.compile(exported)
        forms = ",".join(groups.get(name, {"index_copy_,index_put_": None}))
        for value in VALUES:
            args = arguments(value)
            cases += 1
            failures += not _judge(
                f"torch.{name}[{forms}]", value, *_torch_call(eager, compiled, args)
            )
        # The module stays usable after a refused call.
        cases += 1
        failures += not _judge(
            f"torch.{name}.after", 1, *_torch_call(eager, compiled, arguments(1))
        )
    return cases, failures


def _torch_call(eager: Any, compiled: Any, args: tuple[Any, ...]) -> tuple[Any, Any]:
    """The eager module's outcome and the compiled module's, on ``args``."""
    import torch

    with torch.no_grad():
        expected = _outcome(lambda: _numpy(eager(*args)))
    return expected, _outcome(lambda: compiled.main(*(a.numpy() for a in args)))


def _numpy(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_numpy(item) for item in value)
    return value.detach().numpy().copy()


def jax_campaign() -> tuple[int, int]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    from abi_compiler import iree as abi_iree

    table = jnp.arange(SIZE * 4, dtype=jnp.float32).reshape(SIZE, 4)
    square = jnp.arange(SIZE * SIZE, dtype=jnp.float32).reshape(SIZE, SIZE)
    forms: dict[str, Callable[[Any], Any]] = {
        "mul": lambda p: table[p * 1],
        "rsub": lambda p: table[3 - (3 - p)],
        "neg": lambda p: table[-(0 - p)],
        "flip": lambda p: table[jnp.flip(p)],
        "slice_add": lambda p: table[p + p[0:1] * 0],
        "scalar": lambda p: table[p[0]],
        "take_fill": lambda p: jnp.take(table, p, axis=0),
        "take_clip": lambda p: jnp.take(table, p * 1, axis=0, mode="clip"),
        "take_flat": lambda p: jnp.take(table.ravel(), p * 1),
        "take_along_axis": lambda p: jnp.take_along_axis(
            table, jnp.broadcast_to((p * 1).reshape(1, 1), (1, 4)), axis=0
        ),
        "columns": lambda p: table[:, p * 1],
        "two_dims": lambda p: square[p * 1, 3 - (3 - p)],
        "dynamic_slice": lambda p: lax.dynamic_slice(table, (p[0] * 1, 0), (2, 4)),
        "dynamic_index": lambda p: lax.dynamic_index_in_dim(table, p[0]),
        "dynamic_update_slice": lambda p: lax.dynamic_update_slice(
            table, jnp.zeros((2, 4)), (p[0] * 1, 0)
        ),
        "set": lambda p: table.at[p].set(-1.0),
        "add": lambda p: table.at[p * 1].add(1.0),
        "max": lambda p: table.at[3 - (3 - p)].max(100.0),
        "point_set": lambda p: square.at[p * 1, 3 - (3 - p)].set(-1.0),
        "row_window": lambda p: lax.dynamic_update_slice(square, jnp.ones((1, 3)), (0, p[0])),
        "get_fill": lambda p: table.at[p * 1].get(mode="fill", fill_value=-7.0),
    }

    def program(p: Any) -> Any:
        return tuple(form(p) for form in forms.values())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = jax.export.export(jax.jit(program))(jax.ShapeDtypeStruct((1,), jnp.int32))
        compiled = abi_iree.compile(exported)
    cases = failures = 0
    jitted = jax.jit(program)
    for value in VALUES:
        if not -(2**31) <= value < 2**31:
            continue  # an int32 argument: the call refuses it (its dtype's range)
        argument = np.array([value], dtype=np.int32)
        expected = _outcome(lambda a=argument: [np.asarray(x) for x in jitted(a)])
        got = _outcome(lambda a=argument: compiled.main(a))
        for number, name in enumerate(forms):
            cases += 1
            pick = (expected[0], expected[1][number]) if expected[0] == "ok" else expected
            seen = (got[0], got[1][number]) if got[0] == "ok" else got
            failures += not _judge(f"jax.{name}", value, pick, seen)
    return cases, failures


def onnx_campaign() -> tuple[int, int]:
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    from abi_compiler import iree as abi_iree

    table = np.arange(SIZE * 4, dtype=np.float32).reshape(SIZE, 4)

    def model(op: str, index_shape: list[int], out_shape: list[int], **attributes: Any) -> Any:
        inputs = ["table", "i"] + (["u"] if op.startswith("Scatter") else [])
        node = helper.make_node(op, inputs, ["out"], **attributes)
        graph_inputs = [helper.make_tensor_value_info("i", TensorProto.INT64, index_shape)]
        if op.startswith("Scatter"):
            graph_inputs.append(helper.make_tensor_value_info("u", TensorProto.FLOAT, [1, 4]))
        graph = helper.make_graph(
            [node],
            "main",
            graph_inputs,
            [helper.make_tensor_value_info("out", TensorProto.FLOAT, out_shape)],
            [numpy_helper.from_array(table, "table")],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    forms = {
        "Gather": (model("Gather", [1], [1, 4]), lambda v: np.array([v])),
        "Gather_axis1": (model("Gather", [1], [SIZE, 1], axis=1), lambda v: np.array([v % 4])),
        "GatherElements": (model("GatherElements", [1, 4], [1, 4]), lambda v: np.full((1, 4), v)),
        "GatherND": (model("GatherND", [1, 2], [1]), lambda v: np.array([[v, 1]])),
        "ScatterElements": (
            model("ScatterElements", [1, 4], [SIZE, 4]),
            lambda v: np.full((1, 4), v),
        ),
        "ScatterND": (model("ScatterND", [1, 1], [SIZE, 4]), lambda v: np.array([[v]])),
    }
    cases = failures = 0
    for name, (proto, make) in forms.items():
        onnx.checker.check_model(proto)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = abi_iree.compile(proto)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4
        session = onnxruntime.InferenceSession(proto.SerializeToString(), options)
        for value in (*VALUES, 1):
            feeds = {"i": make(value).astype(np.int64)}
            if name.startswith("Scatter"):
                feeds["u"] = np.full((1, 4), -5.0, dtype=np.float32)
            cases += 1
            failures += not _judge(f"onnx.{name}", value, *_onnx_call(session, compiled, feeds))
    return cases, failures


def _onnx_call(session: Any, compiled: Any, feeds: dict[str, Any]) -> tuple[Any, Any]:
    expected = _outcome(lambda: session.run(None, feeds)[0])
    return expected, _outcome(lambda: np.asarray(compiled.main(**feeds)["out"]))


CAMPAIGNS = {"torch": torch_campaign, "jax": jax_campaign, "onnx": onnx_campaign}


def main(argv: list[str]) -> int:
    cases, failures = CAMPAIGNS[argv[0]]()
    print(f"cases {cases} failures {failures}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
