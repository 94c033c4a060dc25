"""Cross-check of the reflection the passes write (docs/spec.md §4–§8).

Every input of the lit suite that a RUN line feeds to one of this project's passes or
pipelines (each `--split-input-file` chunk on its own), plus `examples/structured.mlir`,
goes through each pass configuration below in-process. Inputs that do not parse and
verify, and configurations that end in an `AbiError` (the error tests), are skipped; any
other exception fails. For every exported function, each attribute the passes wrote is
decoded with the codecs and compared with the model built from the *input* function
(`passes/structure.function_signature`, `Signature.flat()`, `Signature.sip_roots()`), in
the view each encoding keeps:

* `iree.abi` (JSON): argument keys become positions, leaves are numbered in natural
  order, `si`/`ui` scalars are `i` (docs/spec.md §4.1);
* `f` (raw): the §5 type table — `i1`/`i8`/`si8` are sint8 …, unrecognized types `U`,
  references `O`;
* `sip`: no leaf types, no list/tuple distinction, empty structures vanish (§8).

An entry that already existed in the input must come out unchanged (§7). Functions that
are not exported get no reflection. A second run of each configuration on its own
output, and a run on a fresh parse of the input, give byte-identical text (§7).

A module mixing every supported feature (and a saved-model one) also goes through each
pass twice and must print exactly as after one run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

from abi_compiler.attribute_names import ABI_STUB, IREE_ABI, REFLECTION
from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.raw import decode_raw
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.dialects import tf_saved_model
from abi_compiler.dialects.hal import BufferViewType
from abi_compiler.dialects.util import ListType
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    MAX_RAW_DIM,
    Argument,
    Dict,
    FlatSignature,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Signature,
    SipSignature,
    Unknown,
    ValueType,
    leaves,
)
from abi_compiler.model import Sequence as SequenceNode
from abi_compiler.passes.structure import (
    exported_functions,
    function_signature,
    is_saved_model,
    is_structured_type,
    value_type,
)
from tests.lowering.helpers import apply_passes, parse, print_module

ROOT = Path(__file__).resolve().parents[2]
FILECHECK = ROOT / "tests" / "filecheck"
EXAMPLE = ROOT / "examples" / "structured.mlir"

OUR_PASSES = re.compile(
    r"materialize-(?:iree|raw|sip)-abi|flatten-signatures|wrap-entry-points|iree-abi-(?:v1|legacy)"
)
SPLIT_MARKER = re.compile(r"^[ \t]*// -----[^\n]*(?:\n|\Z)", re.MULTILINE)
BLANK = re.compile(r"(?:\s|//[^\n]*)*")

CONFIGS: dict[str, tuple[str, ...]] = {
    "materialize-iree-abi": ("materialize-iree-abi",),
    "materialize-raw-abi": ("materialize-raw-abi",),
    "flatten+materialize-raw-abi": ("flatten-signatures", "materialize-raw-abi"),
    "materialize-sip-abi": ("materialize-sip-abi",),
    "flatten+materialize-sip-abi": ("flatten-signatures", "materialize-sip-abi"),
    "iree-abi-v1": ("iree-abi-v1",),
    "iree-abi-legacy": ("iree-abi-legacy",),
}
LOWERING = {"flatten-signatures", "iree-abi-v1", "iree-abi-legacy"}

# --------------------------------------------------------------------------------------
# The inputs.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Input:
    name: str
    text: str
    allow_unregistered: bool


def lit_inputs() -> Iterator[Input]:
    for path in sorted(FILECHECK.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        run_lines = [line for line in text.splitlines() if "RUN:" in line]
        if not any(OUR_PASSES.search(line) for line in run_lines):
            continue
        allow = any("--allow-unregistered-dialect" in line for line in run_lines)
        name = str(path.relative_to(FILECHECK))
        if any("--split-input-file" in line for line in run_lines):
            chunks = SPLIT_MARKER.split(text)
            for i, chunk in enumerate(chunks):
                yield Input(f"{name}-chunk{i}", chunk, allow)
        else:
            yield Input(name, text, allow)
    yield Input("examples/structured.mlir", EXAMPLE.read_text(encoding="utf-8"), False)


def parses(source: Input) -> bool:
    if BLANK.fullmatch(source.text):
        return False
    try:
        parse(source.text, source.allow_unregistered)
    except Exception:  # a parse, verifier or attribute-verifier error: not an input
        return False
    return True


INPUTS = [source for source in lit_inputs() if parses(source)]


def test_there_are_inputs() -> None:
    names = {source.name.split("-chunk")[0] for source in INPUTS}
    assert len(INPUTS) >= 50, [source.name for source in INPUTS]
    for expected in (
        "materialize-iree-abi/structures.mlir",
        "materialize-sip-abi/index-paths.mlir",
        "flatten-signatures/saved-model.mlir",
        "wrap-entry-points/arguments.mlir",
        "examples/structured.mlir",
    ):
        assert expected in names


# --------------------------------------------------------------------------------------
# Views of the model: what each encoding keeps.
# --------------------------------------------------------------------------------------


def json_type(t: ValueType | None) -> ValueType:
    """docs/spec.md §4.1: integers of any signedness are `i<w>`."""
    if isinstance(t, Scalar):
        return Scalar("i", t.width) if t.kind in ("si", "ui") else t
    if isinstance(t, NDArray):
        return NDArray(json_type(t.element), t.dims)
    if isinstance(t, ListRef):
        return ListRef(json_type(t.element))
    return Unknown()


def renumbered(node: Node, counter: list[int], view: object) -> Node:
    """``node`` with leaves numbered from ``counter`` in natural order and their types
    mapped by ``view`` (a function, or None to drop types)."""
    if isinstance(node, Leaf):
        counter[0] += 1
        leaf_type = view(node.type) if callable(view) else None
        return Leaf(leaf_type, counter[0] - 1)
    if isinstance(node, SequenceNode):
        return SequenceNode(
            node.kind,
            tuple(None if item is None else renumbered(item, counter, view) for item in node.items),
        )
    return Dict(tuple((key, renumbered(item, counter, view)) for key, item in node.items))


def json_view(signature: Signature) -> Signature:
    """What the `iree.abi` JSON keeps of a signature."""
    counter = [0]
    arguments = tuple(
        Argument(position, renumbered(arg.node, counter, json_type), arg.name)
        for position, arg in enumerate(signature.arguments)
    )
    counter = [0]
    results = tuple(renumbered(node, counter, json_type) for node in signature.results)
    return Signature(arguments, results)


RAW_SCALARS = {
    ("i", 1): Scalar("i", 8),
    **{(kind, w): Scalar("i", w) for kind in ("i", "si") for w in (8, 16, 32, 64)},
    **{("ui", w): Scalar("ui", w) for w in (8, 16, 32, 64)},
    ("f", 16): Scalar("f", 16),
    ("f", 32): Scalar("f", 32),
    ("f", 64): Scalar("f", 64),
    ("bf", 16): Scalar("bf", 16),
}


def raw_type(t: ValueType) -> ValueType:
    """docs/spec.md §5's type table, as the raw signature decodes again."""
    if isinstance(t, Scalar):
        return RAW_SCALARS.get((t.kind, t.width), Unknown())
    if isinstance(t, ListRef):
        return ListRef(Unknown())
    if isinstance(t, NDArray):
        if isinstance(t.element, ListRef):
            return ListRef(Unknown())  # an ND-array of references is an object (§8.3)
        element = raw_type(t.element) if isinstance(t.element, Scalar) else Unknown()
        if t.dims is None or isinstance(element, Unknown):
            return Unknown()
        if any(dim is not None and not 0 <= dim <= MAX_RAW_DIM for dim in t.dims):
            return Unknown()
        return NDArray(element, t.dims)
    return Unknown()


def raw_view(flat: FlatSignature) -> FlatSignature:
    return FlatSignature(
        tuple(raw_type(t) for t in flat.inputs), tuple(raw_type(t) for t in flat.results)
    )


def sip_node(node: Node | None) -> Node | None:
    """SIP's view of a node: untyped leaves, tuple-kind sequences (the decoder's choice
    does not matter: compared after normalizing both sides), empty structures gone."""
    if node is None:
        return None
    if isinstance(node, Leaf):
        return Leaf(None, node.index)
    if not leaves(node):
        return None
    if isinstance(node, SequenceNode):
        items = [sip_node(item) for item in node.items]
        while items and items[-1] is None:
            items.pop()
        return SequenceNode("tuple", tuple(items))
    kept = [(key, sip_node(item)) for key, item in node.items]
    return Dict(tuple((key, item) for key, item in kept if item is not None))


def sip_view(sip: SipSignature) -> SipSignature:
    return SipSignature(sip_node(sip.inputs), sip_node(sip.results))


# --------------------------------------------------------------------------------------
# Reading functions.
# --------------------------------------------------------------------------------------


def functions_by_name(module: ModuleOp) -> dict[str, FuncOp]:
    return {op.sym_name.data: op for op in module.body.ops if isinstance(op, FuncOp)}


def entries_of(func: FuncOp) -> dict[str, str]:
    attr = func.attributes.get(REFLECTION)
    found: dict[str, str] = {}
    if attr is not None:
        for key, value in getattr(attr, "data", {}).items():
            found[key] = value.data if isinstance(value, StringAttr) else repr(value)
    bare = func.attributes.get(IREE_ABI)
    if isinstance(bare, StringAttr) and IREE_ABI not in found:
        found[IREE_ABI] = bare.data
    return found


def runtime_name(func: FuncOp, saved_model: bool, lowered: bool) -> str:
    """The name a runtime caller uses after the configuration: the lowering passes adopt
    a saved-model export's single exported name (docs/spec.md §6)."""
    names = func.attributes.get(tf_saved_model.EXPORTED_NAMES)
    if lowered and saved_model and isinstance(names, ArrayAttr) and len(names.data) == 1:
        name = names.data[0]
        assert isinstance(name, StringAttr)
        return name.data
    return func.sym_name.data


def signature_or_none(func: FuncOp) -> Signature | None:
    """The model of an exported function, or None when its signature is an error."""
    try:
        signature: Signature = function_signature(func)
    except AbiError:
        return None
    return signature


def has_structured_types(func: FuncOp) -> bool:
    types = (*func.function_type.inputs.data, *func.function_type.outputs.data)
    return any(is_structured_type(t) for t in types)


@dataclass
class Before:
    """What the input says about one exported function."""

    func: FuncOp
    signature: Signature | None
    entries: dict[str, str]
    structured: bool


def run_config(source: Input, passes: Sequence[str]) -> tuple[ModuleOp, str] | None:
    module = parse(source.text, source.allow_unregistered)
    try:
        apply_passes(module, passes)
    except AbiError:
        return None
    return module, print_module(module)


# --------------------------------------------------------------------------------------
# The checks.
# --------------------------------------------------------------------------------------


def check_iree_abi(name: str, text: str, signature: Signature | None) -> None:
    decoded = decode_json(text)
    assert encode_json(decoded) == text, f"@{name}: iree.abi is not in canonical form"
    if signature is not None:
        assert decoded == json_view(signature), f"@{name}: iree.abi {text}"


def check_raw(name: str, text: str, expected: FlatSignature | None) -> None:
    decoded = decode_raw(text)
    if expected is not None:
        assert decoded == raw_view(expected), f"@{name}: f = {text}"


def check_sip(name: str, text: str, expected: SipSignature | None) -> None:
    decoded = decode_sip(text)
    assert encode_sip(decoded) == text, f"@{name}: sip is not in canonical form"
    if expected is not None:
        assert sip_view(decoded) == sip_view(expected), f"@{name}: sip = {text}"


def is_ref_array(t: ValueType | None) -> bool:
    return isinstance(t, NDArray) and isinstance(t.element, ListRef)


def check_wrapper_boundary(wrapper: FuncOp, signature: Signature) -> None:
    """The wrapper's types are the root records' calling convention (docs/spec.md §8.2): a
    structure or ND-array of references is one `!util.list<?>`, a leaf its own type; a
    single structured result is returned inlined."""
    name = wrapper.sym_name.data

    def boundary(node: Node | None, t: Attribute) -> None:
        if isinstance(node, Leaf) and isinstance(node.type, NDArray) and t == BufferViewType():
            return  # an array whose buffer takes a result (`iree.abi.output`): its view
        if isinstance(node, Leaf) and not is_ref_array(node.type):
            assert json_type(value_type(t)) == json_type(node.type), f"@{name}: {t}"
        else:
            assert t == ListType(), f"@{name}: {t} for {node}"

    inputs = wrapper.function_type.inputs.data
    assert len(inputs) == len(signature.arguments), f"@{name}: argument count"
    for arg, t in zip(signature.arguments, inputs, strict=True):
        boundary(arg.node, t)
    outputs = wrapper.function_type.outputs.data
    root_results: Sequence[Node | None]
    if signature.inlined_result:
        root = signature.results[0]
        root_results = (
            root.items if isinstance(root, SequenceNode) else [item for _, item in root.items]  # type: ignore[union-attr]
        )
    else:
        root_results = signature.results
    assert len(outputs) == len(root_results), f"@{name}: result count"
    for node, t in zip(root_results, outputs, strict=True):
        boundary(node, t)


def actual_types(func: FuncOp) -> FlatSignature:
    """The raw view of an unflattened function: its own types, structures unrecognized
    (docs/spec.md §5)."""

    def view(types: Sequence[Attribute]) -> tuple[ValueType, ...]:
        return tuple(Unknown() if is_structured_type(t) else value_type(t) for t in types)

    return FlatSignature(
        view(func.function_type.inputs.data), view(func.function_type.outputs.data)
    )


def check_raw_entry(label: str, text: str, before: Before, func: FuncOp, lowered: bool) -> None:
    """`f` is the input's leaves after flattening (and the lowered function's own model
    agrees), or the function's own types when nothing flattened it."""
    if lowered or not before.structured:
        check_raw(label, text, before.signature.flat() if before.signature else None)
        own = signature_or_none(func)
        check_raw(label, text, own.flat() if own else None)
    else:
        check_raw(label, text, actual_types(func))


def check_sip_entry(label: str, text: str, before: Before, func: FuncOp) -> None:
    """`sip` is the input's structure, and the (flattened) function's own model."""
    check_sip(label, text, before.signature.sip_roots() if before.signature else None)
    own = signature_or_none(func)
    check_sip(label, text, own.sip_roots() if own else None)


def check_not_exported_untouched(
    label: str, before_module: ModuleOp, after_functions: dict[str, FuncOp], exported: set[str]
) -> None:
    """Functions that are not exported get no reflection."""
    for name, func in functions_by_name(before_module).items():
        if name in exported or name not in after_functions:
            continue
        written = after_functions[name].attributes.get(REFLECTION)
        assert written is None or written == func.attributes.get(REFLECTION), (
            f"{label}: @{name} is not exported but got reflection"
        )


def check_output(source: Input, config: str, before_module: ModuleOp, after: ModuleOp) -> int:
    """Compare every attribute the configuration wrote with the input's model; returns
    the number of exported functions checked."""
    passes = set(CONFIGS[config])
    lowered = bool(LOWERING & passes)
    writes_json = bool({"materialize-iree-abi", "iree-abi-v1"} & passes)
    writes_raw = bool({"materialize-raw-abi", "iree-abi-legacy"} & passes)
    writes_sip = bool({"materialize-sip-abi", "iree-abi-legacy"} & passes)
    saved_model = is_saved_model(before_module)
    after_functions = functions_by_name(after)
    exported = [
        Before(func, signature_or_none(func), entries_of(func), has_structured_types(func))
        for func in exported_functions(before_module)
    ]
    check_not_exported_untouched(
        f"{source.name} {config}",
        before_module,
        after_functions,
        {before.func.sym_name.data for before in exported},
    )
    for before in exported:
        name = runtime_name(before.func, saved_model, lowered)
        label = f"{source.name} {config} @{name}"
        func = after_functions[name]
        got = entries_of(func)
        for key, value in before.entries.items():
            assert got.get(key) == value, f"{label}: existing '{key}' changed"
        fresh = {key: got[key] for key in got if key not in before.entries}
        if writes_json:
            assert IREE_ABI in got, f"{label}: no iree.abi"
            if IREE_ABI in fresh:
                check_iree_abi(label, fresh[IREE_ABI], before.signature)
        if "iree-abi-v1" in passes and ABI_STUB in func.attributes:
            assert f"_{name}" in after_functions, f"{label}: no implementation"
            if before.signature is not None:
                check_wrapper_boundary(func, before.signature)
        if writes_raw:
            assert got.get("fv") == "1" and "f" in got, f"{label}: no fv/f"
            if "f" in fresh:
                check_raw_entry(label, fresh["f"], before, func, lowered)
        if writes_sip:
            assert got.get("abi") == "sip" and got.get("sipv") == "1", f"{label}: no abi/sipv"
            if "sip" in fresh:
                check_sip_entry(label, fresh["sip"], before, func)
    return len(exported)


@pytest.mark.parametrize("source", INPUTS, ids=[source.name for source in INPUTS])
def test_written_reflection_decodes_to_the_model(source: Input) -> None:
    before_module = parse(source.text, source.allow_unregistered)
    for config, passes in CONFIGS.items():
        result = run_config(source, passes)
        if result is None:
            continue
        after, text = result
        check_output(source, config, before_module, after)
        # Deterministic, and a second run changes nothing (docs/spec.md §7).
        again = parse(text, source.allow_unregistered)
        apply_passes(again, passes)
        assert print_module(again) == text, f"{source.name}: a second {config} changed the output"
        rerun = run_config(source, passes)
        assert rerun is not None and rerun[1] == text, (
            f"{source.name}: {config} is not deterministic"
        )


# Configurations that fail on purpose on inputs that are not error tests.
EXPECTED_FAILURES = {
    ("materialize-iree-abi/index-paths.mlir", "iree-abi-v1"): "no value at result path",
}


def test_inputs_without_expected_errors_go_through_every_configuration() -> None:
    """Only the error tests fail on purpose; every other input goes through every
    configuration, or the cross-check above would silently check little. The exceptions:
    materialize-sip-abi alone on structured types without index paths (docs/spec.md §8.5 says to
    flatten first), and `EXPECTED_FAILURES`."""
    succeeded = 0
    for source in INPUTS:
        if "expected-error" in source.text or source.name.startswith("driver/located-errors"):
            continue
        for config, passes in CONFIGS.items():
            module = parse(source.text, source.allow_unregistered)
            try:
                apply_passes(module, passes)
                succeeded += 1
            except AbiError as error:
                expected = EXPECTED_FAILURES.get((source.name, config))
                if config == "materialize-sip-abi":
                    expected = "run flatten-signatures before materialize-sip-abi"
                assert expected is not None and expected in str(error), (
                    f"{source.name}: {config} failed: {error}"
                )
    assert succeeded >= 120, succeeded


# --------------------------------------------------------------------------------------
# A module mixing every supported feature, through each pass twice.
# --------------------------------------------------------------------------------------

MIXED = """
builtin.module {
  func.func @scalars(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64, %f: si8, %g: ui64, %h: f16,
                     %i: f32, %j: f64, %k: bf16, %l: index, %m: complex<f32>) -> (i32, f64) {
    func.return %d, %j : i32, f64
  }
  func.func @tensors(%a: tensor<4xf32>, %b: tensor<?x4xi32>, %c: tensor<f64>, %d: tensor<*xf32>,
                     %e: tensor<2x?x3xi8>) -> tensor<?x4xi32> {
    func.return %b : tensor<?x4xi32>
  }
  func.func @lists(%a: !util.list<i32>, %b: !util.list<?>, %c: !iree.list<f32>,
                   %d: tensor<2x!util.list<i32>>) -> !util.list<?> {
    func.return %b : !util.list<?>
  }
  func.func @structures(%t: tuple<tensor<4xf32>, tuple<i32, tuple<>>, tuple<f32>>,
                        %d: !abi.dict<"zeta": i64, "alpha": tuple<i8, tensor<?xf32>>, "mid": !abi.dict<>>,
                        %x: tensor<2xf32> {abi.name = "x"}, %y: i32 {abi.name = "y"})
      -> tuple<i64, !abi.dict<"b": i32, "a": tensor<2xf32>>> {
    %z = abi.dict.get %d["zeta"] : !abi.dict<"zeta": i64, "alpha": tuple<i8, tensor<?xf32>>, "mid": !abi.dict<>> -> i64
    %r = abi.dict.pack %x, %y : (tensor<2xf32>, i32) -> !abi.dict<"b": i32, "a": tensor<2xf32>>
    %p = abi.tuple.pack %z, %r : (i64, !abi.dict<"b": i32, "a": tensor<2xf32>>) -> tuple<i64, !abi.dict<"b": i32, "a": tensor<2xf32>>>
    func.return %p : tuple<i64, !abi.dict<"b": i32, "a": tensor<2xf32>>>
  }
  func.func @all_named(%a: tuple<i32, i64> {abi.name = "first"}, %b: f32 {abi.name = "second"})
      -> (tuple<i32, i64>, f32, tuple<>) {
    %e = abi.tuple.pack : () -> tuple<>
    %r = func.call @helper(%a) : (tuple<i32, i64>) -> tuple<i32, i64>
    func.return %r, %b, %e : tuple<i32, i64>, f32, tuple<>
  }
  func.func private @helper(%a: tuple<i32, i64>) -> tuple<i32, i64> {
    func.return %a : tuple<i32, i64>
  }
  func.func @calls_export(%a: tuple<i32, i64>, %b: f32) -> tuple<i32, i64> {
    %r:3 = func.call @all_named(%a, %b) : (tuple<i32, i64>, f32) -> (tuple<i32, i64>, f32, tuple<>)
    func.return %r#0 : tuple<i32, i64>
  }
  func.func @paths(%a: tensor<4xf32> {abi.index_path = [0, "y"]},
                   %b: i32 {abi.index_path = [0, "x"]},
                   %c: f32 {abi.index_path = ["named"]},
                   %d: i64 {abi.index_path = [2, 2]})
      -> (i32 {abi.index_path = [0]}, f32 {abi.index_path = [1, "k"]}) {
    func.return %b, %c : i32, f32
  }
  func.func @merged(%a: tuple<i32>) attributes {
      iree.reflection = {zzz = "kept", aaa = 1 : i64, fv = "1", f = "I6!S3!t6R1!"}} {
    func.return
  }
  func.func @bare(%a: tuple<i32, f32>) -> i32 attributes {
      iree.abi = "{\\22a\\22:[[\\22stuple\\22,\\22i32\\22,\\22f32\\22]],\\22r\\22:[\\22i32\\22],\\22v\\22:1}"} {
    %x = abi.tuple.get %a[0] : tuple<i32, f32> -> i32
    func.return %x : i32
  }
  func.func @empty() {
    func.return
  }
  func.func @opted_out(%a: tuple<index>) attributes {iree.abi.none} {
    func.return
  }
  func.func private @legacy_export(%a: tensor<3xi64>) -> tensor<3xi64> attributes {iree.module.export} {
    func.return %a : tensor<3xi64>
  }
  func.func private @declaration(tuple<i32, i32>) -> i32
  func.func private @uses_declaration(%a: i32) -> i32 {
    %t = abi.tuple.pack %a, %a : (i32, i32) -> tuple<i32, i32>
    %r = func.call @declaration(%t) : (tuple<i32, i32>) -> i32
    func.return %r : i32
  }
}
"""

SAVED_MODEL = """
module attributes {tf_saved_model.semantics} {
  func.func @__inference_predict(%a: tensor<4xf32> {tf_saved_model.index_path = [0, "y"]},
                                 %b: tensor<?xf32> {tf_saved_model.index_path = [0, "x"]},
                                 %c: i32 {tf_saved_model.index_path = ["scale"]},
                                 %d: i64 {tf_saved_model.index_path = [2, 1]})
      -> (tensor<4xf32> {tf_saved_model.index_path = ["out", 0]},
          i32 {tf_saved_model.index_path = ["out", 1]})
      attributes {tf_saved_model.exported_names = ["serving_default"]} {
    func.return %a, %c : tensor<4xf32>, i32
  }
  func.func @__inference_other(%a: i64 {tf_saved_model.index_path = [0]})
      -> (i64 {tf_saved_model.index_path = []})
      attributes {tf_saved_model.exported_names = ["other"]} {
    func.return %a : i64
  }
  func.func @helper() {
    %0 = tensor.empty() : tensor<4xf32>
    %n = arith.constant 4 : index
    %1 = tensor.empty(%n) : tensor<?xf32>
    %2 = arith.constant 0 : i32
    %3 = arith.constant 0 : i64
    %r:2 = func.call @__inference_predict(%0, %1, %2, %3) : (tensor<4xf32>, tensor<?xf32>, i32, i64) -> (tensor<4xf32>, i32)
    func.return
  }
}
"""

PASSES_TWICE = [
    ("materialize-iree-abi",),
    ("materialize-raw-abi",),
    ("flatten-signatures",),
    ("wrap-entry-points",),
    ("iree-abi-v1",),
    ("iree-abi-legacy",),
]


def once_and_twice(text: str, passes: tuple[str, ...]) -> tuple[str, str, str]:
    """The output after one run, after two runs on the same module object, and after a
    run on the reparsed output of one run."""
    module = parse(text)
    apply_passes(module, passes)
    once = print_module(module)
    apply_passes(module, passes)
    twice_in_place = print_module(module)
    reparsed = parse(once)
    apply_passes(reparsed, passes)
    return once, twice_in_place, print_module(reparsed)


@pytest.mark.parametrize("module_name", ["mixed", "saved-model"])
@pytest.mark.parametrize("passes", PASSES_TWICE, ids=["+".join(p) for p in PASSES_TWICE])
def test_each_pass_twice_is_each_pass_once(module_name: str, passes: tuple[str, ...]) -> None:
    text = MIXED if module_name == "mixed" else SAVED_MODEL
    once, twice, reparsed = once_and_twice(text, passes)
    assert twice == once
    assert reparsed == once
    assert once_and_twice(text, passes)[0] == once  # deterministic


@pytest.mark.parametrize("module_name", ["mixed", "saved-model"])
def test_sip_twice_after_flattening_is_sip_once(module_name: str) -> None:
    # materialize-sip-abi needs index paths for structured types: flatten first.
    module = parse(MIXED if module_name == "mixed" else SAVED_MODEL)
    apply_passes(module, ["flatten-signatures"])
    once, twice, reparsed = once_and_twice(print_module(module), ("materialize-sip-abi",))
    assert twice == once == reparsed


def test_the_mixed_modules_pass_the_cross_check() -> None:
    """Both go through every configuration the lit inputs go through (sip alone only
    where there are no structured types), with nothing but warnings."""
    for name, text in (("mixed", MIXED), ("saved-model", SAVED_MODEL)):
        source = Input(name, text, False)
        before = parse(text)
        for config, passes in CONFIGS.items():
            result = run_config(source, passes)
            if result is None:
                assert name == "mixed" and config == "materialize-sip-abi", (name, config)
                continue
            assert check_output(source, config, before, result[0]) >= 2
