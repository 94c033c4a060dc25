"""Runtime marshalling: Python values ↔ the argument and result lists of a function
(docs/spec.md §10), with IREE's runtime semantics (its `FunctionInvoker` and
`ArgumentPacker`). `pack(abi, *args, **kwargs)` binds Python values to the root records
of an `iree.abi` JSON and returns one value per record (a structure as a nested list of
its items in record order, the shape the V1 wrapper's `!util.list<?>` arguments take);
`unpack(abi, results)` re-assembles the results; `pack_legacy` / `unpack_legacy` do the
same by the legacy `f` + `sip` pair. numpy is never imported. This module holds the
structures and roots; one leaf value is `leaf_values`'s, the error and its words
`mismatch`'s. The value rules and every error are in docs/calling.md
("`abi_compiler.runtime`: value rules and errors").
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Callable, Mapping
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, cast

from abi_compiler.calling.leaf_values import (
    Converter,
    array_shape,
    dunder_array,
    host_tensor,
    value_converter,
)
from abi_compiler.calling.mismatch import (
    Mismatch,
    check_gap,
    describe,
    describe_type,
    format_path,
    is_sequence,
    keys_text,
    mapping_values,
    sequence_of,
    type_name,
)
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Dict,
    FlatSignature,
    IndexPathComponent,
    Leaf,
    Node,
    Sequence,
    Signature,
    SipSignature,
    ValueType,
    leaves,
    slots,
)

__all__ = [
    "pack",
    "pack_call",
    "pack_legacy",
    "unexpected_keyword",
    "unpack",
    "unpack_legacy",
    "value_shape",
]

AbiSource = str | bytes | Mapping[str, Any] | Signature
"""An `iree.abi` JSON text, the dict `json.loads` makes of it, or a decoded `Signature`."""


# --------------------------------------------------------------------------------------
# Structures (V1): nested values ↔ nested lists.
# --------------------------------------------------------------------------------------


def _convert_items(
    converters: list[Converter], keys: SequenceABC[IndexPathComponent], items: SequenceABC[Any]
) -> list[Any]:
    out: list[Any] = []
    append = out.append
    try:
        for convert, item in zip(converters, items, strict=True):
            append(convert(item))
    except Mismatch as mismatch:
        mismatch.inside(keys[len(out)])  # the item that failed
        raise
    return out


def _gap(value: Any) -> None:
    check_gap(value)
    return None


def _pack_converter(node: Node | None, convert: bool) -> Converter:
    """Python value → the record's packed form (nested lists)."""
    if node is None:
        return _gap
    if isinstance(node, Leaf):
        return value_converter(node.type, unpacking=False, opaque_refs=False, convert=convert)
    if isinstance(node, Sequence):
        converters = [_pack_converter(item, convert) for item in node.items]
        keys = range(len(converters))
        count = len(converters)
        return lambda value: _convert_items(converters, keys, sequence_of(value, count))
    dict_keys = tuple(key for key, _ in node.items)
    dict_converters = [_pack_converter(child, convert) for _, child in node.items]
    return lambda value: _convert_items(
        dict_converters, dict_keys, mapping_values(value, dict_keys)
    )


def _unpack_converter(node: Node | None) -> Converter:
    """Packed form (nested lists) → Python value: list, tuple or dict per record."""
    if node is None:
        return _gap
    if isinstance(node, Leaf):
        return value_converter(node.type, unpacking=True, opaque_refs=False)
    converters = [_unpack_converter(item) for _, item in slots(node)]
    count = len(converters)
    if isinstance(node, Sequence):
        keys = range(count)
        if node.kind == "tuple":
            return lambda value: tuple(_convert_items(converters, keys, sequence_of(value, count)))
        return lambda value: _convert_items(converters, keys, sequence_of(value, count))
    dict_keys = tuple(key for key, _ in node.items)
    return lambda value: dict(
        zip(
            dict_keys,
            _convert_items(converters, dict_keys, sequence_of(value, count)),
            strict=True,
        )
    )


# --------------------------------------------------------------------------------------
# Binding call arguments to root slots.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Slots:
    """The root slots of a call: a label per slot (its position, or its name), which
    slots positional values fill, and which names keywords fill."""

    labels: tuple[IndexPathComponent, ...]
    positional: int
    by_name: Mapping[str, int]
    #: What slot ``i`` takes (`describe`), for the message of a missing value.
    expected: Callable[[int], str]

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> list[Any]:
        if len(args) > self.positional:
            count = self.positional
            noun = "argument" if count == 1 else "arguments"
            raise AbiError(
                f"argument {count}: unexpected positional argument "
                f"(the function takes {count} positional {noun})"
            )
        values: list[Any] = list(args)
        if len(values) == len(self.labels) and not kwargs:
            return values
        values.extend([_MISSING] * (len(self.labels) - len(values)))
        for name, value in kwargs.items():
            slot = self.by_name.get(name)
            if slot is None:
                names = [key for key, _ in sorted(self.by_name.items(), key=lambda e: e[1])]
                raise unexpected_keyword(name, names)
            if values[slot] is not _MISSING:
                raise AbiError(f"argument {name!r}: given both positionally and by keyword")
            values[slot] = value
        for label, value in zip(self.labels, values, strict=True):
            if value is _MISSING:  # (identity only: arrays do not compare to a sentinel)
                expected = self.expected(self.labels.index(label))
                path = format_path("argument", label, ())
                raise AbiError(f"{path}: missing value, expected {expected}")
        return values


_MISSING = object()


def unexpected_keyword(name: str, keywords: SequenceABC[str]) -> AbiError:
    """The error for a keyword argument ``name`` that is none of ``keywords`` (in the
    function's order), worded the same for every function (records and frontends'
    adapters): ``argument 'z': unexpected keyword argument (keywords: 'x', 'y')``."""
    takes = f"keywords: {keys_text(keywords)}" if keywords else "it takes no keywords"
    return AbiError(f"argument {name!r}: unexpected keyword argument ({takes})")


def value_shape(value: Any) -> tuple[int, ...] | None:
    """The shape of an array value as the records read it (a ``.shape``, a torch tensor,
    nested lists, a number, an object with ``__array__``); None where they refuse it."""
    try:
        tensor = host_tensor(value, "an array")
        if tensor is not None:
            value = tensor
        try:
            return array_shape(value, "an array")
        except Mismatch:
            return dunder_array(value, "an array")[1]
    except Mismatch:
        return None


def _convert_roots(
    side: str,
    labels: SequenceABC[IndexPathComponent],
    converters: list[Converter],
    values: SequenceABC[Any],
) -> list[Any]:
    out = []
    for label, convert, value in zip(labels, converters, values, strict=True):
        try:
            out.append(convert(value))
        except Mismatch as mismatch:
            raise mismatch.error(side, label) from None
    return out


def _results_list(results: Any, expected: int) -> SequenceABC[Any]:
    if not is_sequence(results):
        raise AbiError(f"expected a sequence of results, got {type_name(results)}")
    if len(results) != expected:
        noun = "result" if expected == 1 else "results"
        raise AbiError(f"expected {expected} {noun}, got {len(results)}")
    return cast(SequenceABC[Any], results)


def _collect(values: list[Any]) -> Any:
    """0 results → None, 1 → the value, more → a tuple (as IREE's FunctionInvoker)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return tuple(values)


# --------------------------------------------------------------------------------------
# V1: `iree.abi`.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CallPlan:
    slots: _Slots
    packers: list[Converter]
    converting_packers: list[Converter]  # pack(..., convert=True)
    result_labels: tuple[int, ...]
    unpackers: list[Converter]
    inlined_items: int | None  # item count of an inlined structured result


def _call_plan(signature: Signature) -> _CallPlan:
    labels: list[IndexPathComponent] = []
    by_name: dict[str, int] = {}
    for position, argument in enumerate(signature.arguments):
        labels.append(position if argument.name is None else argument.name)
        if argument.name is not None:
            by_name[argument.name] = position
    nodes = [argument.node for argument in signature.arguments]
    slots = _Slots(tuple(labels), len(labels), by_name, lambda slot: describe(nodes[slot]))
    packers = [_pack_converter(argument.node, False) for argument in signature.arguments]
    converting = [_pack_converter(argument.node, True) for argument in signature.arguments]
    unpackers = [_unpack_converter(node) for node in signature.results]
    inlined_items = None
    if signature.inlined_result:
        root = signature.results[0]
        assert isinstance(root, (Sequence, Dict))
        inlined_items = len(root.items)
    return _CallPlan(
        slots, packers, converting, tuple(range(len(signature.results))), unpackers, inlined_items
    )


def pack(abi: AbiSource, /, *args: Any, convert: bool = False, **kwargs: Any) -> list[Any]:
    """Bind ``args``/``kwargs`` to the root records of ``abi`` and pack them: one value
    per record, structures as nested lists of their items in record order. With
    ``convert=True``, bools are accepted for numbers and arrays of another dtype are cast
    (``astype``) instead of refused. (An argument named ``convert`` cannot be given by
    keyword here: `pack_call` takes the keywords as a dict.)"""
    return pack_call(abi, args, kwargs, convert=convert)


def pack_call(
    abi: AbiSource,
    args: SequenceABC[Any],
    kwargs: Mapping[str, Any],
    *,
    convert: bool = False,
) -> list[Any]:
    """`pack` with the call's positional values and keywords given as they are: any
    argument name (``convert``, ``abi``, ``self``, a Python keyword) is a keyword."""
    plan = _v1_plan(abi)
    values = plan.slots.bind(tuple(args), kwargs)
    packers = plan.converting_packers if convert else plan.packers
    return _convert_roots("argument", plan.slots.labels, packers, values)


def unpack(abi: AbiSource, results: SequenceABC[Any]) -> Any:
    """Re-assemble a function's results per the `r` records of ``abi``: an inlined
    structured result from its items; `sdict` → dict, `slist` → list, `stuple` → tuple;
    0 results → None, 1 → the value, more → a tuple."""
    plan = _v1_plan(abi)
    if plan.inlined_items is not None:
        items = _results_list(results, plan.inlined_items)
        return _convert_roots("result", (0,), plan.unpackers, (items,))[0]
    values = _results_list(results, len(plan.unpackers))
    return _collect(_convert_roots("result", plan.result_labels, plan.unpackers, values))


# --------------------------------------------------------------------------------------
# Legacy: raw `f` + SIP `sip`.
# --------------------------------------------------------------------------------------

Scatter = Callable[[Any, list[Any]], None]
Gather = Callable[[SequenceABC[Any]], Any]


def _scatter(node: Node | None, types: tuple[ValueType, ...], converting: bool) -> Scatter:
    """Python value → its leaves, each written to its flat index."""
    if node is None:
        return lambda value, flat: check_gap(value)
    if isinstance(node, Leaf):
        index = node.index
        convert = value_converter(
            types[index], unpacking=False, opaque_refs=True, convert=converting
        )

        def scatter_leaf(value: Any, flat: list[Any]) -> None:
            flat[index] = convert(value)

        return scatter_leaf
    keyed = slots(node)
    keys = [key for key, _ in keyed]
    scatters = [_scatter(child, types, converting) for _, child in keyed]
    dict_keys = tuple(str(key) for key in keys) if isinstance(node, Dict) else None

    def scatter_structure(value: Any, flat: list[Any]) -> None:
        if dict_keys is None:
            items: SequenceABC[Any] = sequence_of(value, len(scatters))
        else:
            items = mapping_values(value, dict_keys)
        done = 0
        try:
            for scatter, item in zip(scatters, items, strict=True):
                scatter(item, flat)
                done += 1
        except Mismatch as mismatch:
            mismatch.inside(keys[done])
            raise

    return scatter_structure


def _gather(node: Node | None, types: tuple[ValueType, ...]) -> Gather:
    """Flat results → the value at ``node``: sequences as tuples (§3.2), dicts as dicts."""
    if node is None:
        return lambda flat: None
    if isinstance(node, Leaf):
        index = node.index
        convert = value_converter(types[index], unpacking=True, opaque_refs=True)
        return lambda flat: convert(flat[index])
    keyed = slots(node)
    keys = [key for key, _ in keyed]
    gathers = [_gather(child, types) for _, child in keyed]

    def gather_items(flat: SequenceABC[Any]) -> list[Any]:
        out: list[Any] = []
        append = out.append
        try:
            for gather in gathers:
                append(gather(flat))
        except Mismatch as mismatch:
            mismatch.inside(keys[len(out)])
            raise
        return out

    if isinstance(node, Dict):
        return lambda flat: dict(zip(keys, gather_items(flat), strict=True))
    return lambda flat: tuple(gather_items(flat))


@dataclass(frozen=True)
class _LegacyPlan:
    slots: _Slots
    scatters: list[Scatter]
    converting_scatters: list[Scatter]  # pack_legacy(..., convert=True)
    input_count: int
    result_labels: tuple[IndexPathComponent, ...]
    gathers: list[Gather]
    result_count: int
    collect: bool  # a sequence results root collects like several results


def _root_children(root: Node | None) -> list[tuple[IndexPathComponent, Node | None]]:
    if root is None:
        return []
    if isinstance(root, Leaf):
        return [(0, root)]
    return slots(root)


def _check_leaf_indices(side: str, root: Node | None, count: int) -> None:
    found = sorted(leaf.index for leaf in leaves(root)) if root is not None else []
    if found != list(range(count)):
        raise AbiError(f"sip {side} leaf indices {found} do not match the {count} raw {side} of f")


def _describe_legacy(node: Node | None, types: tuple[ValueType, ...]) -> str:
    """`describe` for a SIP node, whose leaves are typed by the raw signature."""
    if isinstance(node, Leaf):
        return describe_type(types[node.index])
    return describe(node)


def _first_leaf_index(node: Node | None, otherwise: int) -> int:
    found = leaves(node) if node is not None else []
    return min((leaf.index for leaf in found), default=otherwise)


def _legacy_plan(flat: FlatSignature, sip: SipSignature) -> _LegacyPlan:
    _check_leaf_indices("inputs", sip.inputs, len(flat.inputs))
    _check_leaf_indices("results", sip.results, len(flat.results))
    inputs = _root_children(sip.inputs)
    if isinstance(sip.inputs, Dict):
        # Named arguments may also be given positionally, in the function's argument
        # order (as in V1, where that is the record order): the order of each argument's
        # first raw index; an empty structure (no leaves) after the others, by key.
        inputs.sort(key=lambda item: _first_leaf_index(item[1], len(flat.inputs)))
        labels = tuple(key for key, _ in inputs)
        by_name = {str(key): i for i, key in enumerate(labels)}
    else:
        labels = tuple(key for key, _ in inputs)
        by_name = {}

    def expected(slot: int) -> str:
        return _describe_legacy(inputs[slot][1], flat.inputs)

    slots = _Slots(labels, len(labels), by_name, expected)
    scatters = [_scatter(child, flat.inputs, False) for _, child in inputs]
    converting = [_scatter(child, flat.inputs, True) for _, child in inputs]
    results = _root_children(sip.results)
    if isinstance(sip.results, Dict):
        gathers = [_gather(sip.results, flat.results)]
        result_labels: tuple[IndexPathComponent, ...] = ()
    else:
        gathers = [_gather(child, flat.results) for _, child in results]
        result_labels = tuple(key for key, _ in results)
    return _LegacyPlan(
        slots,
        scatters,
        converting,
        len(flat.inputs),
        result_labels,
        gathers,
        len(flat.results),
        isinstance(sip.results, Sequence),
    )


def pack_legacy(
    f: str | bytes | FlatSignature,
    sip: str | bytes | SipSignature,
    /,
    *args: Any,
    convert: bool = False,
    **kwargs: Any,
) -> list[Any]:
    """Bind ``args``/``kwargs`` to the SIP input root (a sequence root binds positional
    values; a dict root's named arguments are given by keyword or positionally, in
    argument order) and return the flat leaf list, each leaf at its raw index and
    checked against its raw type. ``convert`` as for `pack`."""
    plan = _legacy_plan_for(f, sip)
    values = plan.slots.bind(args, kwargs)
    flat: list[Any] = [None] * plan.input_count
    scatters = plan.converting_scatters if convert else plan.scatters
    for label, scatter, value in zip(plan.slots.labels, scatters, values, strict=True):
        try:
            scatter(value, flat)
        except Mismatch as mismatch:
            raise mismatch.error("argument", label) from None
    return flat


def unpack_legacy(
    f: str | bytes | FlatSignature, sip: str | bytes | SipSignature, results: SequenceABC[Any]
) -> Any:
    """Rebuild the SIP result structure from the flat result list: a sequence root gives
    a tuple (several results), a dict root a dict, a leaf root the value, an empty root
    None."""
    plan = _legacy_plan_for(f, sip)
    flat = _results_list(results, plan.result_count)
    if not plan.result_labels:  # empty, or a dict root
        try:
            return plan.gathers[0](flat) if plan.gathers else None
        except Mismatch as mismatch:
            key = mismatch.reversed_path.pop()
            raise mismatch.error("result", key) from None
    values = []
    for label, gather in zip(plan.result_labels, plan.gathers, strict=True):
        try:
            values.append(gather(flat))
        except Mismatch as mismatch:
            raise mismatch.error("result", label) from None
    return tuple(values) if plan.collect else values[0]


# --------------------------------------------------------------------------------------
# Decoding and plan caches. Texts are decoded once (LRU by text); plans are cached by the
# model objects they are built from: by identity first (a runtime passes the same decoded
# signature on every call, and hashing a large frozen model costs as much as planning),
# then by value (frozen, hashable dataclasses: an equal signature decoded again finds the
# plan too).
# --------------------------------------------------------------------------------------


class _PlanCache:
    """Plans keyed by the model objects they are built from. Bounded: emptied when full,
    as the text caches below. The identity table holds its objects, so an id is never
    reused while it is cached."""

    def __init__(self, limit: int = 256) -> None:
        self._by_identity: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
        self._by_value: dict[tuple[Any, ...], Any] = {}
        self._limit = limit

    def get(self, objects: tuple[Any, ...], build: Callable[..., Any]) -> Any:
        ids = tuple(map(id, objects))
        entry = self._by_identity.get(ids)
        if entry is not None and all(map(operator.is_, entry[0], objects)):
            return entry[1]
        try:
            plan = self._by_value.get(objects)
        except TypeError:  # a hand-built model holding lists is not hashable: no caching
            return build(*objects)
        if plan is None:
            plan = build(*objects)
            if len(self._by_value) >= self._limit:
                self._by_value.clear()
            self._by_value[objects] = plan
        if len(self._by_identity) >= self._limit:
            self._by_identity.clear()
        self._by_identity[ids] = (objects, plan)
        return plan


_v1_plans = _PlanCache()
_legacy_plans = _PlanCache()


@functools.lru_cache(maxsize=256)
def _decode_json_text(text: str) -> Signature:
    from abi_compiler.codecs.json_abi import decode_json

    return decode_json(text)


@functools.lru_cache(maxsize=256)
def _decode_raw_text(text: str | bytes) -> FlatSignature:
    from abi_compiler.codecs.raw import decode_raw

    return decode_raw(text)


@functools.lru_cache(maxsize=256)
def _decode_sip_text(text: str | bytes) -> SipSignature:
    from abi_compiler.codecs.sip import decode_sip

    return decode_sip(text)


def _signature(abi: AbiSource) -> Signature:
    if isinstance(abi, Signature):
        return abi
    if isinstance(abi, bytes):
        try:
            abi = abi.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AbiError("invalid UTF-8", offset=error.start) from None
    if isinstance(abi, str):
        return _decode_json_text(abi)
    if isinstance(abi, Mapping):
        try:
            text = json.dumps(abi, separators=(",", ":"), sort_keys=True)
        except (TypeError, ValueError, RecursionError) as error:
            # Not JSON data: another type, a circular reference, nesting too deep.
            raise AbiError(f"the iree.abi mapping is not JSON data: {error}") from None
        return _decode_json_text(text)
    raise AbiError(f"expected an iree.abi JSON text, dict or Signature, got {type_name(abi)}")


_text_plans: dict[str, _CallPlan] = {}  # the common case: the same text on every call
_MAX_TEXT_PLANS = 256


def _v1_plan(abi: AbiSource) -> _CallPlan:
    if type(abi) is str:
        plan = _text_plans.get(abi)
        if plan is not None:
            return plan
    plan = cast(_CallPlan, _v1_plans.get((_signature(abi),), _call_plan))
    if type(abi) is str:
        if len(_text_plans) >= _MAX_TEXT_PLANS:
            _text_plans.clear()
        _text_plans[abi] = plan
    return plan


_text_legacy_plans: dict[tuple[str | bytes, str | bytes], _LegacyPlan] = {}


def _legacy_plan_for(
    f: str | bytes | FlatSignature, sip: str | bytes | SipSignature
) -> _LegacyPlan:
    if not isinstance(f, (str, bytes, FlatSignature)):
        raise AbiError(
            f"expected a raw signature f (str, bytes or FlatSignature), got {type_name(f)}"
        )
    if not isinstance(sip, (str, bytes, SipSignature)):
        raise AbiError(
            f"expected a sip signature (str, bytes or SipSignature), got {type_name(sip)}"
        )
    if isinstance(f, (str, bytes)) and isinstance(sip, (str, bytes)):
        plan = _text_legacy_plans.get((f, sip))
        if plan is None:
            plan = _cached_legacy_plan(_decode_raw_text(f), _decode_sip_text(sip))
            if len(_text_legacy_plans) >= _MAX_TEXT_PLANS:
                _text_legacy_plans.clear()
            _text_legacy_plans[(f, sip)] = plan
        return plan
    flat = f if isinstance(f, FlatSignature) else _decode_raw_text(f)
    structure = sip if isinstance(sip, SipSignature) else _decode_sip_text(sip)
    return _cached_legacy_plan(flat, structure)


def _cached_legacy_plan(flat: FlatSignature, structure: SipSignature) -> _LegacyPlan:
    return cast(_LegacyPlan, _legacy_plans.get((flat, structure), _legacy_plan))
