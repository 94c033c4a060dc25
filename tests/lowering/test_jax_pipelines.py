"""Random JAX exports through both pipelines (docs/spec.md §3.3): pytrees of dicts, lists,
tuples and dataclass-like nodes, flattened and annotated the way JAX writes
`jax.arg_info` / `jax.result_info` (keys escaped as MLIR prints them), give the
`iree.abi` and `sip` of the same trees built directly, write no warning, and a second run
of each pipeline changes nothing. A gap in the result structure (JAX drops an empty
pytree, e.g. `return ((), x)`) keeps the flat signature, with a warning that names the
first gap (docs/spec.md §3.3)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.codecs.sip import encode_sip
from abi_compiler.model import (
    Argument,
    Leaf,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    ValueType,
    children,
    format_index_path,
)
from tests.codecs.test_jax_paths import expected_node, identifiers, jax_flatten, jax_keystr, pytrees
from tests.lowering.helpers import apply_passes, parse, print_module, reflection

FUZZ = settings(
    max_examples=300 if os.environ.get("ABI_SLOW") else 40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Leaf types: MLIR text and model value type.
LEAF_TYPES: dict[str, ValueType] = {
    "tensor<2xf32>": NDArray(Scalar("f", 32), (2,)),
    "tensor<?x3xi64>": NDArray(Scalar("i", 64), (None, 3)),
    "tensor<f32>": NDArray(Scalar("f", 32), ()),
    "i32": Scalar("i", 32),
}
RESULT_TYPE = "i32"


def mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal: printable ASCII as is, every other byte
    (quotes, backslashes, control and non-ASCII characters) as `\\XX`."""
    out = []
    for char in text:
        if " " <= char <= "~" and char not in '"\\':
            out.append(char)
        else:
            out.extend(f"\\{byte:02X}" for byte in char.encode("utf-8"))
    return '"' + "".join(out) + '"'


def with_types(node: Node | None, types: list[str]) -> Node | None:
    """``node`` with each leaf's type taken from ``types`` by its flat index."""
    if node is None or isinstance(node, Leaf):
        return None if node is None else Leaf(LEAF_TYPES[types[node.index]], node.index)
    if isinstance(node, Sequence):
        return Sequence(node.kind, tuple(with_types(item, types) for item in node.items))
    return type(node)(tuple((key, with_types(child, types)) for key, child in node.items))  # type: ignore[misc]


def first_gap(node: Node | None, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The first gap of a result structure, depth first in key order."""
    if isinstance(node, Sequence):
        for key, item in enumerate(node.items):
            found = (*path, key) if item is None else first_gap(item, (*path, key))
            if found is not None:
                return found
        return None
    if node is None or isinstance(node, Leaf):
        return None
    for key, child in children(node):
        found = first_gap(child, (*path, key))
        if found is not None:
            return found
    return None


def run(text: str, pipeline: str, expected_warnings: tuple[str, ...] = ()) -> str:
    module = parse(text, allow_unregistered=True)
    warnings = apply_passes(module, [pipeline])
    assert warnings == list(expected_warnings)
    output = print_module(module)
    again = parse(output, allow_unregistered=True)
    assert apply_passes(again, [pipeline]) == []
    assert print_module(again) == output
    return output


@FUZZ
@given(
    parameters=st.lists(st.tuples(identifiers, pytrees), max_size=3, unique_by=lambda p: p[0]),
    result=pytrees,
    prefix=st.booleans(),
    data=st.data(),
)
def test_random_exports(
    parameters: list[tuple[str, Any]], result: Any, prefix: bool, data: st.DataObject
) -> None:
    arguments_text: list[str] = []
    argument_types: list[str] = []
    arg_index: dict[tuple[Any, ...], int] = {}
    for position, (name, tree) in enumerate(parameters):
        for path in jax_flatten(tree, []):
            i = len(argument_types)
            arg_index[(position, *(key for _, key in path))] = i
            argument_types.append(data.draw(st.sampled_from(sorted(LEAF_TYPES)), label=f"arg {i}"))
            info = mlir_string(name + jax_keystr(path))
            arguments_text.append(f"%arg{i}: {argument_types[i]} {{jax.arg_info = {info}}}")
    result_paths = jax_flatten(result, [])
    result_index = {tuple(key for _, key in path): i for i, path in enumerate(result_paths)}
    results_text = [
        f"{RESULT_TYPE} {{jax.result_info = {mlir_string(('result' if prefix else '') + jax_keystr(path))}}}"
        for path in result_paths
    ]
    body = [f"    %c{i} = arith.constant {i} : i32" for i in range(len(result_paths))]
    values = ", ".join(f"%c{i}" for i in range(len(result_paths)))
    body.append(
        f"    return {values} : {', '.join([RESULT_TYPE] * len(result_paths))}"
        if values
        else "    return"
    )
    text = (
        "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
        f"  func.func public @main({', '.join(arguments_text)}) -> ({', '.join(results_text)}) {{\n"
        + "\n".join(body)
        + "\n  }\n}\n"
    )

    roots: list[Argument] = []
    for position, (_, tree) in enumerate(parameters):
        node = with_types(expected_node(tree, (position,), arg_index, "list"), argument_types)
        if node is not None:
            roots.append(Argument(len(roots), node))
    result_node = with_types(
        expected_node(result, (), result_index, "tuple"), [RESULT_TYPE] * len(result_paths)
    )
    expected = Signature(tuple(roots), () if result_node is None else (result_node,))

    gap = first_gap(result_node)
    if gap is not None:
        warning = (
            f"the result paths leave a gap at {format_index_path(gap)} (JAX writes no value "
            "for a None leaf or an empty container): the function keeps its flat signature; "
            "abi_compiler.frontends.jax.to_mlir(exported) writes the whole structure from the "
            "jax.export.Exported object"
        )
        run(text, "iree-abi-legacy", (warning,))
        assert "iree.abi.stub" not in run(text, "iree-abi-v1", (warning,))
        return
    legacy = run(text, "iree-abi-legacy")
    assert reflection(parse(legacy, True), "main")["sip"] == encode_sip(expected.sip_roots())
    v1 = run(text, "iree-abi-v1")
    assert reflection(parse(v1, True), "main")["iree.abi"] == encode_json(expected)
