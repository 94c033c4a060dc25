"""The `abi.call` JSON: an `OriginalCall` as a reflection entry (docs/formats.md, "The
original call: `abi.call`").

``{"args":[<node>…],"kwargs":[["<name>",<node>]…],"result":<node>,"v":1}`` plus, when
they say something, ``"tensor"``, ``"labels"``, ``"symbols"``, ``"fixed"``,
``"constraints"``, ``"state"`` (the module's mutable globals the function reads or
writes, each as an `abi.state` global: `abi_compiler.codecs.state_json`) and
``"updates"`` (``[argument leaf, result leaf]`` per argument the call updates in place,
a torch program's mutated input: the result leaf holds its new value). A node is
an object with a ``"t"`` member:

* ``{"t":"array","i":<leaf index>,"dtype":"float32","dims":[2,"b",null]}`` (a dim may
  also be a polynomial of symbols, ``[[2,["b"]],[1,[]]]`` for ``2*b + 1``); an integer
  argument whose values are bounded has ``"ranges":[[low,high,elements]…]`` (a bound or
  ``elements`` null: unbounded, every element);
* ``{"t":"unused"}`` (with ``dtype``/``dims`` when known); ``{"t":"none"}``;
* ``{"t":"const","type":"int","value":3}`` (``"repr"`` instead of ``"value"`` when JSON
  cannot hold it);
* ``{"t":"tuple"|"list","c":[…]}``; ``{"t":"dict","k":[keys in order],"c":[…]}``;
  ``{"t":"namedtuple"|"dataclass"|"model_output"|"node","name":"TrainState","k":[fields],
  "c":[…]}``; a dataclass's static fields the export recorded, ``"s":[[name,<const>]…]``.

Encoding is byte-deterministic, like `iree.abi`: compact, keys sorted, ASCII. Decoding
checks every member and raises `AbiError` (``abi.call: …``) for anything else; it never
imports anything a file names.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn

from abi_compiler.call_model import (
    Array,
    CallNode,
    Constant,
    Container,
    Dim,
    DimConstraint,
    NoneLeaf,
    OriginalCall,
    Symbol,
    Terms,
    Unused,
    ValueRange,
)
from abi_compiler.codecs.state_json import decode_globals, encode_global
from abi_compiler.errors import AbiError

__all__ = [
    "VERSION",
    "constant",
    "constant_value",
    "decode_call",
    "encode_call",
    "format_bounds",
    "format_call",
    "format_node",
    "format_ranges",
    "format_relations",
    "format_terms",
    "format_updates",
]

VERSION = 1
_TENSORS = ("numpy", "torch", "jax", "tf")
_CONTAINERS = ("tuple", "list", "dict", "namedtuple", "dataclass", "model_output", "node")
_TYPED = ("namedtuple", "dataclass", "model_output")
# Bound on nesting, as for `iree.abi` (keeps decoding away from the recursion limit).
_MAX_DEPTH = 256
# Bounds on the numbers of dims and symbols: every recorded int (a size, a coefficient, a
# bound, a leaf index, a fixed value) is below 2**63 in magnitude, and a term of a
# polynomial dim has at most `_MAX_DEGREE` symbols, so that no size a call computes from
# them is beyond what Python prints (its int-to-string limit) or slow to compute.
_MAX_INT = 2**63
_MAX_DEGREE = 8
# A dtype is a numpy name (``float32``, ``bfloat16``, ``float8_e4m3fn``), or a JAX typed
# PRNG key's (``key<fry>``), whose array is its key data.
_DTYPE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}|key<[a-z][a-z0-9_]{0,31}>")
# Field names Python keeps for itself: a rebuilt namedtuple or dataclass cannot have them.
_SPECIAL = re.compile(r"__\w*__")

# ------------------------------------------------------------------------------------
# Encoding.
# ------------------------------------------------------------------------------------


def encode_call(call: OriginalCall) -> str:
    """The `abi.call` JSON text of ``call``."""
    obj: dict[str, Any] = {
        "v": VERSION,
        "args": [_encode_node(node) for node in call.positional],
        "kwargs": [[name, _encode_node(node)] for name, node in call.keywords],
        "result": _encode_node(call.result),
    }
    if call.tensor != "numpy":
        obj["tensor"] = call.tensor
    if any(label is not None for label in call.labels):
        obj["labels"] = list(call.labels)
    if call.symbols:
        obj["symbols"] = [[s.name, s.low, s.high] for s in call.symbols]
    if call.fixed:
        obj["fixed"] = [list(item) for item in call.fixed]
    if call.constraints:
        obj["constraints"] = [
            [_encode_terms(c.terms), c.relation, c.text] for c in call.constraints
        ]
    if call.state:
        obj["state"] = [encode_global(g) for g in call.state]
    if call.updates:
        obj["updates"] = [list(item) for item in call.updates]
    if call.by_name:
        obj["by_name"] = True
    if call.keyword_only:
        obj["kwonly"] = True
    return json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


def _encode_terms(terms: Terms) -> list[Any]:
    return [[coefficient, list(symbols)] for coefficient, symbols in terms]


def _encode_dims(dims: tuple[Dim, ...] | None) -> list[Any] | None:
    if dims is None:
        return None
    return [_encode_terms(dim) if isinstance(dim, tuple) else dim for dim in dims]


def _encode_node(node: CallNode) -> dict[str, Any]:
    if isinstance(node, Array):
        array = {
            "t": "array",
            "i": node.index,
            "dtype": node.dtype,
            "dims": _encode_dims(node.dims),
        }
        if node.ranges:
            array["ranges"] = [
                [r.low, r.high, None if r.elements is None else list(r.elements)]
                for r in node.ranges
            ]
        return array
    if isinstance(node, Unused):
        found: dict[str, Any] = {"t": "unused"}
        if node.dtype is not None:
            found["dtype"] = node.dtype
        if node.dims is not None:
            found["dims"] = _encode_dims(node.dims)
        return found
    if isinstance(node, NoneLeaf):
        return {"t": "none"}
    if isinstance(node, Constant):
        if node.text is not None:
            return {"t": "const", "type": node.type, "repr": node.text}
        return {"t": "const", "type": node.type, "value": node.value}
    found = {"t": node.kind, "c": [_encode_node(child) for child in node.children]}
    if node.keys or node.kind == "dict" or node.kind in _TYPED:
        found["k"] = list(node.keys)
    if node.name is not None:
        found["name"] = node.name
    if node.static:
        found["s"] = [[name, _encode_node(value)] for name, value in node.static]
    return found


def constant(value: Any) -> Constant:
    """The `Constant` of a specialized value."""
    type_name = type(value).__name__
    if value is None or isinstance(value, (bool, str)):
        return Constant(value, type_name)
    if type(value) is int:
        return Constant(value, type_name)
    if type(value) is float and math.isfinite(value):
        return Constant(value, type_name)
    return Constant(None, type_name, repr(value))


def constant_value(node: Constant) -> Any:
    """The value of a specialized constant as the framework gave it: its JSON ``value``,
    or for a float JSON cannot hold (``nan``, ``inf``, ``-inf``), that float; None for
    another value kept only by its ``repr``."""
    if node.text is None:
        return node.value
    if node.type == "float" and node.text in ("nan", "inf", "-inf"):
        return float(node.text)
    return None


# ------------------------------------------------------------------------------------
# Decoding.
# ------------------------------------------------------------------------------------


def _fail(message: str) -> NoReturn:
    raise AbiError(f"abi.call: {message}")


def decode_call(text: str | bytes) -> OriginalCall:
    """The `OriginalCall` of an `abi.call` JSON text; `AbiError` when it is not one."""
    try:
        obj = json.loads(text, object_pairs_hook=_object)
    except (ValueError, RecursionError) as error:
        _fail(f"not JSON: {error}")
    if not isinstance(obj, dict):
        _fail(f"expected a JSON object, got {type(obj).__name__}")
    version = obj.get("v")
    if not (_is_int(version) and version == VERSION):
        _fail(f"unsupported version {version!r} (this reader knows {VERSION})")
    allowed = {
        "v",
        "args",
        "kwargs",
        "result",
        "tensor",
        "labels",
        "symbols",
        "fixed",
        "constraints",
        "state",
        "updates",
        "by_name",
        "kwonly",
    }
    extra = sorted(set(obj) - allowed)
    if extra:
        _fail(f"unknown member {extra[0]!r}")
    for required in ("args", "kwargs", "result"):
        if required not in obj:
            _fail(f"missing member {required!r}")
    positional = tuple(_node(item, 0) for item in _list(obj["args"], "args"))
    keywords = []
    for item in _list(obj["kwargs"], "kwargs"):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            _fail("kwargs: expected [name, node] pairs")
        keywords.append((item[0], _node(item[1], 0)))
    if len({name for name, _ in keywords}) != len(keywords):
        _fail("kwargs: a name is repeated")
    tensor = obj.get("tensor", "numpy")
    if tensor not in _TENSORS:
        _fail(f"unknown tensor type {tensor!r}")
    labels = tuple(_list(obj.get("labels", []), "labels"))
    if labels and (
        len(labels) != len(positional) or not all(x is None or isinstance(x, str) for x in labels)
    ):
        _fail("labels: expected a name or null per positional argument")
    by_name, keyword_only = obj.get("by_name", False), obj.get("kwonly", False)
    for member, flag in (("by_name", by_name), ("kwonly", keyword_only)):
        if not isinstance(flag, bool):
            _fail(f"{member}: expected true or false")
    if by_name and (
        len(labels) != len(positional)
        or not all(isinstance(x, str) for x in labels)
        or len(set(labels)) != len(labels)
        or set(labels) & {name for name, _ in keywords}
    ):
        _fail("by_name: the positional parameters need distinct names of their own (labels)")
    symbols = []
    for item in _list(obj.get("symbols", []), "symbols"):
        if not (
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], str)
            and all(_is_int_or_none(x) for x in item[1:])
        ):
            _fail("symbols: expected [name, low, high] triples")
        for bound in item[1:]:
            _bounded(bound, "symbols")
        symbols.append(Symbol(item[0], item[1], item[2]))
    fixed = []
    for item in _list(obj.get("fixed", []), "fixed"):
        if not (isinstance(item, list) and len(item) == 2 and all(_is_int(x) for x in item)):
            _fail("fixed: expected [leaf index, value] pairs")
        _bounded(item[0], "fixed")
        _bounded(item[1], "fixed")
        fixed.append((item[0], item[1]))
    constraints = []
    for item in _list(obj.get("constraints", []), "constraints"):
        if not (
            isinstance(item, list)
            and len(item) == 3
            and item[1] in (">=", "==")
            and isinstance(item[2], str)
        ):
            _fail("constraints: expected [terms, '>=' or '==', text] triples")
        constraints.append(DimConstraint(_terms(item[0]), item[1], item[2]))
    try:
        state = decode_globals(obj.get("state", []), "state")
    except AbiError as error:
        _fail(str(error))
    result = _node(obj["result"], 0)
    updates = _updates(obj.get("updates", []), positional, keywords, result)
    return OriginalCall(
        positional,
        tuple(keywords),
        result,
        tensor,
        labels,
        tuple(symbols),
        tuple(fixed),
        tuple(constraints),
        tuple(state),
        updates,
        by_name,
        keyword_only,
    )


def _updates(
    value: Any,
    positional: tuple[CallNode, ...],
    keywords: list[tuple[str, CallNode]],
    result: CallNode,
) -> tuple[tuple[int, int], ...]:
    """The ``updates`` member: ``[argument leaf, result leaf]`` pairs, each argument leaf
    an array of the call's arguments and each result leaf one its ``result`` does not
    give, neither named twice."""
    arguments = {
        array.index
        for node in (*positional, *(node for _, node in keywords))
        for array in _arrays(node)
    }
    shown = {array.index for array in _arrays(result)}
    found: list[tuple[int, int]] = []
    for position, item in enumerate(_list(value, "updates")):
        where = f"updates[{position}]"
        if not (isinstance(item, list) and len(item) == 2 and all(_is_int(x) for x in item)):
            _fail(f"{where}: expected [argument leaf, result leaf]")
        argument, written = item
        _bounded(argument, where)
        _bounded(written, where)
        if argument not in arguments:
            _fail(f"{where}: argument leaf {argument} is not an array of the call's arguments")
        if written < 0 or written in shown:
            _fail(f"{where}: result leaf {written} is not one the call's result leaves out")
        if any(argument == a for a, _ in found):
            _fail(f"{where}: argument leaf {argument} is updated twice")
        if any(written == w for _, w in found):
            _fail(f"{where}: result leaf {written} updates two arguments")
        found.append((argument, written))
    return tuple(found)


def _arrays(node: CallNode) -> list[Array]:
    """The arrays below ``node``, depth first."""
    if isinstance(node, Array):
        return [node]
    if isinstance(node, Container):
        return [array for child in node.children for array in _arrays(child)]
    return []


def _terms(value: Any) -> Terms:
    """``[[coefficient, [symbol, …]], …]``: a polynomial of symbols."""
    terms = []
    for term in _list(value, "terms"):
        if not (
            isinstance(term, list)
            and len(term) == 2
            and _is_int(term[0])
            and isinstance(term[1], list)
            and all(isinstance(symbol, str) for symbol in term[1])
        ):
            _fail("terms: expected [coefficient, [symbol, ...]] pairs")
        _bounded(term[0], "terms")
        if len(term[1]) > _MAX_DEGREE:
            _fail(f"terms: a term has more than {_MAX_DEGREE} symbols")
        terms.append((term[0], tuple(term[1])))
    return tuple(terms)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose members are distinct (`json` keeps the last of a repeated one)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        names = [name for name, _ in pairs]
        repeated = next(name for name in names if names.count(name) > 1)
        _fail(f"member {repeated!r} is repeated")
    return found


def _bounded(value: int | None, where: str) -> None:
    """`AbiError` for an int beyond the bounds of a recorded one (see `_MAX_INT`)."""
    if value is not None and not -_MAX_INT < value < _MAX_INT:
        _fail(f"{where}: an int of {len(str(abs(value)))} digits (at most 2**63 - 1)")


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_int_or_none(value: Any) -> bool:
    return value is None or type(value) is int


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        _fail(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _dims(value: Any, where: str) -> tuple[Dim, ...] | None:
    if value is None:
        return None
    found: list[Dim] = []
    for item in _list(value, where):
        if isinstance(item, list):
            found.append(_terms(item))
        elif item is None or isinstance(item, str):
            found.append(item)
        elif _is_int(item):
            _bounded(item, where)
            found.append(item)
        else:
            _fail(f"{where}: a dim is an int, a symbol, terms or null")
    return tuple(found)


def _ranges(value: Any) -> tuple[ValueRange, ...]:
    """``[[low, high, elements]…]``: a non-empty list of `ValueRange`s."""
    found = []
    for item in _list(value, "ranges"):
        if not (
            isinstance(item, list)
            and len(item) == 3
            and all(_is_int_or_none(x) for x in item[:2])
            and (item[2] is None or isinstance(item[2], list))
        ):
            _fail("ranges: expected [low, high, elements or null] triples")
        low, high, elements = item
        _bounded(low, "ranges")
        _bounded(high, "ranges")
        if elements is not None:
            if not all(_is_int(x) and 0 <= x < _MAX_INT for x in elements):
                _fail("ranges: elements are flat indices")
            if not elements or len(set(elements)) != len(elements):
                _fail("ranges: elements are distinct, and at least one")
        found.append(ValueRange(low, high, None if elements is None else tuple(elements)))
    if not found:
        _fail("ranges: expected at least one range")
    return tuple(found)


def _dtype(value: Any) -> str | None:
    if value is not None and not (isinstance(value, str) and _DTYPE_NAME.fullmatch(value)):
        _fail(f"dtype: expected a numpy dtype name or null, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    """A recorded value in a message: ASCII, at most 60 characters."""
    text = ascii(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _node(obj: Any, depth: int) -> CallNode:
    if depth > _MAX_DEPTH:
        _fail(f"nested deeper than {_MAX_DEPTH} levels")
    if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
        _fail("expected a node (an object with a string member 't')")
    kind = obj["t"]
    if kind == "array":
        _members(obj, {"t", "i", "dtype", "dims", "ranges"}, {"t", "i"})
        index = obj["i"]
        if not _is_int(index) or not 0 <= index < _MAX_INT:
            _fail("array: 'i' is a leaf index")
        dims = _dims(obj.get("dims"), "dims")
        ranges = _ranges(obj["ranges"]) if "ranges" in obj else ()
        return Array(index, _dtype(obj.get("dtype")), dims, ranges)
    if kind == "unused":
        _members(obj, {"t", "dtype", "dims"}, {"t"})
        return Unused(_dtype(obj.get("dtype")), _dims(obj.get("dims"), "dims"))
    if kind == "none":
        _members(obj, {"t"}, {"t"})
        return NoneLeaf()
    if kind == "const":
        _members(obj, {"t", "type", "value", "repr"}, {"t", "type"})
        if ("value" in obj) == ("repr" in obj) or not isinstance(obj["type"], str):
            _fail("const: a 'type' and either 'value' or 'repr'")
        if "repr" in obj:
            if not isinstance(obj["repr"], str):
                _fail("const: 'repr' is a string")
            return Constant(None, obj["type"], obj["repr"])
        value = obj["value"]
        if not (value is None or isinstance(value, (bool, int, float, str))):
            _fail("const: 'value' is a JSON scalar")
        if type(value) is int:
            _bounded(value, "const")
        return Constant(value, obj["type"])
    if kind not in _CONTAINERS:
        _fail(f"unknown node kind {kind!r}")
    _members(obj, {"t", "c", "k", "name", "s"}, {"t", "c"})
    children = tuple(_node(child, depth + 1) for child in _list(obj["c"], "c"))
    keys = tuple(_list(obj.get("k", []), "k"))
    if not all(isinstance(key, str) or _is_int(key) for key in keys):
        _fail("k: keys are strings or ints")
    keyed = kind == "dict" or kind in _TYPED or keys
    if keyed and (len(keys) != len(children) or len(set(keys)) != len(keys)):
        _fail(f"{kind}: one distinct key per child")
    if kind in _TYPED and not all(isinstance(key, str) for key in keys):
        _fail(f"{kind}: fields are strings")
    if kind in ("namedtuple", "dataclass", "node"):
        for key in keys:
            if isinstance(key, str) and _SPECIAL.fullmatch(key):
                _fail(
                    f"{kind} {_shown(obj.get('name'))}: field {_shown(key)} is a name Python "
                    "reserves"
                )
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        _fail("name: expected a string")
    if kind in (*_TYPED, "node") and name is None:
        _fail(f"{kind}: a type name is required")
    static: list[tuple[str, Constant]] = []
    if "s" in obj:
        if kind not in ("dataclass", "node"):
            _fail(f"{kind}: static fields are a dataclass's")
        for item in _list(obj["s"], "s"):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                _fail("s: expected [field, constant] pairs")
            value = _node(item[1], depth + 1)
            if not isinstance(value, Constant):
                _fail("s: a static field's value is a 'const' node")
            static.append((item[0], value))
        names = [name for name, _ in static]
        if len(set(names)) != len(names) or set(names) & set(map(str, keys)):
            _fail("s: static fields are distinct, and not among the fields")
    return Container(kind, children, keys, name, tuple(static))


def _members(obj: dict[str, Any], allowed: set[str], required: set[str]) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        _fail(f"{obj['t']}: unknown member {extra[0]!r}")
    missing = sorted(required - set(obj))
    if missing:
        _fail(f"{obj['t']}: missing member {missing[0]!r}")


# ------------------------------------------------------------------------------------
# The readable form (`abi-sig show`).
# ------------------------------------------------------------------------------------


def format_call(call: OriginalCall) -> str:
    """``(state: TrainState(step=int32[], …), batch: {'x': float32[b,3]}, *, lr: float32[])
    -> (…)``: the original call as `abi-sig show` prints it — type names and fields,
    `None`, unused and specialized values, keywords, dims as their symbols."""
    labels = call.labels or (None,) * len(call.positional)
    parts = [
        f"{label}: {_format_node(node)}" if label is not None else _format_node(node)
        for label, node in zip(labels, call.positional, strict=True)
    ]
    if call.keywords:
        parts.append("*")
        parts += [f"{name}: {_format_node(node)}" for name, node in call.keywords]
    return f"({', '.join(parts)}) -> {_format_node(call.result)}"


def format_updates(call: OriginalCall) -> str:
    """The arguments the call updates in place, as `abi-sig show` prints them after the
    call: ``cache, state['k']`` (an argument without a name is ``args[0]``); empty:
    none."""
    if not call.updates:
        return ""
    labels = call.labels or (None,) * len(call.positional)
    paths: dict[int, str] = {}
    for position, (label, node) in enumerate(zip(labels, call.positional, strict=True)):
        _leaf_paths(node, label if label is not None else f"args[{position}]", paths)
    for name, node in call.keywords:
        _leaf_paths(node, name, paths)
    return ", ".join(paths.get(argument, f"leaf {argument}") for argument, _ in call.updates)


def _leaf_paths(node: CallNode, path: str, out: dict[int, str]) -> None:
    if isinstance(node, Array):
        out[node.index] = path
    elif isinstance(node, Container):
        for position, child in enumerate(node.children):
            keyed = node.kind not in ("tuple", "list") and position < len(node.keys)
            key = node.keys[position] if keyed else None
            if node.kind in ("dict", "model_output") and key is not None:
                _leaf_paths(child, f"{path}[{key!r}]", out)
            elif key is not None:
                _leaf_paths(child, f"{path}.{key}", out)
            else:
                _leaf_paths(child, f"{path}[{position}]", out)


def format_node(node: CallNode) -> str:
    """One node of the call as `format_call` writes it (``float32[b,3]``, ``None``)."""
    return _format_node(node)


def format_bounds(low: int | None, high: int | None) -> str:
    """A symbol's bounds as `format_relations` writes them: ``[1, 8]``, ``[0, inf)``."""
    return f"[{low or 0}, {'inf)' if high is None else f'{high}]'}"


def format_relations(call: OriginalCall) -> str:
    """The bounds of the call's symbols and its constraints, as `abi-sig show` prints
    them after the call: ``b in [1, 8], c in [0, 64], a >= b`` (empty: none)."""
    parts = [
        f"{symbol.name} in {format_bounds(symbol.low, symbol.high)}"
        for symbol in call.symbols
        if symbol.low or symbol.high is not None
    ]
    parts += [constraint.text for constraint in call.constraints]
    return ", ".join(parts)


def format_terms(terms: Terms) -> str:
    """A polynomial dim as the call's readable form writes it: `2*b + 1`, `b - c`."""
    text = ""
    for coefficient, symbols in terms:
        magnitude = abs(coefficient)
        factors = ([] if magnitude == 1 and symbols else [str(magnitude)]) + list(symbols)
        term = "*".join(factors)
        if not text:
            text = f"-{term}" if coefficient < 0 else term
        else:
            text += f" - {term}" if coefficient < 0 else f" + {term}"
    return text or "0"


def _format_array(dtype: str | None, dims: tuple[Dim, ...] | None) -> str:
    if dims is None:
        shape = "[*]"
    else:
        shape = (
            "["
            + ",".join(
                "?" if dim is None else format_terms(dim) if isinstance(dim, tuple) else str(dim)
                for dim in dims
            )
            + "]"
        )
    return f"{dtype or 'array'}{shape}"


def format_ranges(ranges: tuple[ValueRange, ...]) -> str:
    """An argument's value ranges as `format_call` writes them after its type:
    `` in [0, 31]``, `` in [0, 29] at 0``, `` in [0, 96], [0, 31] at 0`` (empty: none)."""
    parts = []
    for r in ranges:
        low = "-inf" if r.low is None else str(r.low)
        high = "inf" if r.high is None else str(r.high)
        shown = f"{'(' if r.low is None else '['}{low}, {high}{')' if r.high is None else ']'}"
        if r.elements is not None:
            shown += " at " + ",".join(map(str, r.elements))
        parts.append(shown)
    return " in " + ", ".join(parts) if parts else ""


def _format_node(node: CallNode) -> str:
    if isinstance(node, Array):
        return _format_array(node.dtype, node.dims) + format_ranges(node.ranges)
    if isinstance(node, Unused):
        return f"unused {_format_array(node.dtype, node.dims)}"
    if isinstance(node, NoneLeaf):
        return "None"
    if isinstance(node, Constant):
        return f"={node.text if node.text is not None else repr(node.value)}"
    children = [_format_node(child) for child in node.children]
    if node.kind == "list":
        return "[" + ", ".join(children) + "]"
    if node.kind == "tuple":
        return "(" + ", ".join(children) + ("," if len(children) == 1 else "") + ")"
    if node.kind == "dict":
        items = ", ".join(
            f"{key!r}: {child}" for key, child in zip(node.keys, children, strict=True)
        )
        return f"{node.name or ''}{{{items}}}"
    if node.keys:
        fields = ", ".join(f"{key}={child}" for key, child in zip(node.keys, children, strict=True))
        return f"{node.name}({fields})"
    return f"{node.name}({', '.join(children)})"
