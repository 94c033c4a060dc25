"""Can a new version of a module replace the old one without breaking its callers? (docs/spec.md
§9.1, `abi-sig diff`; docs/formats.md, "Comparing two versions")

`diff_modules` compares two modules' functions by name, each a `Signature` (the one
model, whatever reflection it was read from), and returns one `Finding` per difference.
A difference is *breaking* when some call the old function accepted is refused by the
new one, or gets results of another structure:

* a function removed;
* a root argument added, removed or moved (a named argument found at another
  position), a named argument renamed, a positional argument made named or a named one
  positional;
* a structure's kind (list, tuple, dict, or a leaf), arity or dict keys changed;
* a leaf's element type, rank or kind of value changed; a static dimension changed, or a
  dynamic one made static;
* any of that in the results, where a static dimension made dynamic breaks too (callers
  read results by their structure).
* in the original calls (`abi.call`), what the records cannot say (`diff_calls`), a
  dataclass's static fields among it;
* the module state the function uses (`diff_state`): a global added or removed, of
  another shape, dtype or type, read or written otherwise.

It is *compatible* when every old call still works: a function added, an argument's
static dimension made dynamic, a key added to a result dict (a caller reads a dict's
results by key; ``strict=True`` counts it breaking).

Leaves compare by their V1 record (docs/spec.md §4.1: an integer's signedness is not part of it),
never by their flat index; where the record cannot tell two element types apart (``f8``,
``"unknown"``), by the module's spelling of them (`Leaf.element`). Results compare as the caller receives them: no record is no
result, one record that value, several records one tuple of them (the same as a single
inlined tuple).

Pure Python, no xDSL: the model in, findings out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, Literal

from abi_compiler.call_model import (
    Array,
    CallNode,
    Constant,
    Container,
    Dim,
    NoneLeaf,
    OriginalCall,
    StateGlobal,
    Terms,
    Unused,
    ValueRange,
)
from abi_compiler.codecs.call_json import (
    format_bounds,
    format_call,
    format_node,
    format_ranges,
    format_terms,
    format_updates,
)
from abi_compiler.codecs.json_abi import (
    format_leaf_type,
    format_value,
    format_value_type,
    record_for_type,
)
from abi_compiler.codecs.state_json import format_access, format_global
from abi_compiler.model import (
    Argument,
    Dict,
    IndexPathComponent,
    Leaf,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    Unknown,
    ValueType,
)

#: What a finding's path is in: an argument, the result, the module state the function
#: uses (the path is then the global's name), or the module's generation job (the
#: member's name; `abi_compiler.signatures.generation_diff`).
Side = Literal["argument", "result", "state", "generation"]

#: What a finding is about; ``added``/``removed`` carry one value, the others two.
What = Literal[
    "added",
    "removed",
    "name",
    "position",
    "kind",
    "arity",
    "keys",
    "type",
    "dtype",
    "rank",
    "shape",
    "value",
    "relation",
    "bounds",
    "constraint",
    "static",
    "access",
    "values",
    "updates",
    "call",
    "job",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One difference between an old and a new function.

    ``side`` is None for the function itself (``what`` ``"added"`` or ``"removed"``).
    ``path`` locates the value: for an argument its root label (the name of a named
    argument, else its position) then the keys below it; for a result the keys below
    the result root; for the state (``side`` ``"state"``) the global's name. ``old``/``new``
    are readable values (None on the side that has none)."""

    function: str
    breaking: bool
    side: Side | None
    path: tuple[IndexPathComponent, ...]
    what: What
    old: str | None
    new: str | None

    @property
    def location(self) -> str:
        """``argument params['dense']['kernel']``, ``argument 0``, ``result[1]``,
        ``state @cache``, ``generation cache``."""
        if self.side is None:
            return "function"
        if self.side == "state":
            return f"state @{self.path[0]}"
        if self.side == "generation":
            return " ".join(["generation", *map(str, self.path)])
        if self.side == "result":
            return "result" + format_keys(self.path)
        root, keys = self.path[0], self.path[1:]
        label = root if isinstance(root, int) or root.isidentifier() else repr(root)
        return f"argument {label}{format_keys(keys)}"

    def line(self) -> str:
        """The finding as `abi-sig diff` prints it:
        ``breaking: main: argument params['dense']['kernel']: shape 4x3 -> 4x5``."""
        severity = "breaking" if self.breaking else "compatible"
        if self.what == "call":
            return f"{severity}: {self.function}: original call removed {self.old}"
        if self.what == "constraint":
            change = f"added {self.new}" if self.old is None else f"removed {self.old}"
            return f"{severity}: {self.function}: constraint {change}"
        if self.side is None:
            return f"{severity}: {self.function}: function {self.what}"
        if self.what in ("added", "removed"):
            value = self.new if self.what == "added" else self.old
            return f"{severity}: {self.function}: {self.location}: {self.what} {value}"
        if self.what == "job":
            return f"{severity}: {self.function}: {self.location}: {self.old} -> {self.new}"
        return f"{severity}: {self.function}: {self.location}: {self.what} {self.old} -> {self.new}"


def format_keys(keys: tuple[IndexPathComponent, ...]) -> str:
    """``[0]['k']``: keys below a root, as Python indexes the value."""
    return "".join(f"[{key!r}]" if isinstance(key, str) else f"[{key}]" for key in keys)


def diff_modules(
    old: Mapping[str, Signature], new: Mapping[str, Signature], *, strict: bool = False
) -> list[Finding]:
    """Every difference between two modules' functions (by name, in ``old``'s order, then
    the functions only ``new`` has), breaking ones first. ``strict``: a key added to a
    result dict breaks too."""
    findings: list[Finding] = []
    for name, signature in old.items():
        if name not in new:
            findings.append(Finding(name, True, None, (), "removed", None, None))
        else:
            findings += diff_signatures(name, signature, new[name])
    if strict:
        findings = [
            dataclasses.replace(f, breaking=True) if f.what == "keys" else f for f in findings
        ]
    findings += [
        Finding(name, False, None, (), "added", None, None) for name in new if name not in old
    ]
    return sorted(findings, key=lambda finding: not finding.breaking)  # stable


def diff_signatures(function: str, old: Signature, new: Signature) -> list[Finding]:
    """The differences between two signatures of ``function``, in the order found."""
    found = list(_diff_arguments(function, old.arguments, new.arguments))
    found += _diff_nodes(function, "result", (), _result_root(old), _result_root(new))
    return found


def _result_root(signature: Signature) -> Node | None:
    """The results as the caller receives them (None: no result)."""
    if not signature.results:
        return None
    if len(signature.results) == 1:
        return signature.results[0]
    return Sequence("tuple", signature.results)


def _label(argument: Argument, position: int) -> IndexPathComponent:
    return position if argument.name is None else argument.name


def _diff_arguments(
    function: str, old: tuple[Argument, ...], new: tuple[Argument, ...]
) -> Iterator[Finding]:
    """Old root arguments are matched to new ones by name when named, by position when
    positional (or when a named one was renamed or made positional in place)."""
    new_names = {argument.name: j for j, argument in enumerate(new) if argument.name is not None}
    old_names = {argument.name for argument in old if argument.name is not None}
    matched: set[int] = set()

    def finding(
        label: IndexPathComponent, what: What, before: str | None, after: str | None
    ) -> Finding:
        return Finding(function, True, "argument", (label,), what, before, after)

    for i, argument in enumerate(old):
        label = _label(argument, i)
        counterpart = new[i] if i < len(new) else None
        # The new argument in this position, unless it is an old named one (matched by
        # its name).
        in_place = (
            counterpart
            if counterpart is not None
            and (counterpart.name is None or counterpart.name not in old_names)
            else None
        )
        j = i
        if argument.name is not None and argument.name in new_names:
            j = new_names[argument.name]
            if j != i:
                yield finding(label, "position", str(i), str(j))
        elif in_place is None:
            yield finding(label, "removed", format_value(argument.node), None)
            continue
        elif argument.name != in_place.name:
            yield finding(
                label, "name", argument.name or "(positional)", in_place.name or "(positional)"
            )
        matched.add(j)
        yield from _diff_nodes(function, "argument", (label,), argument.node, new[j].node)
    for j, argument in enumerate(new):
        if j not in matched:
            yield finding(_label(argument, j), "added", None, format_value(argument.node))


def _kind(node: Node | None) -> str:
    if isinstance(node, Sequence):
        return node.kind
    if isinstance(node, Dict):
        return "dict"
    return format_value(node)


def _diff_nodes(
    function: str,
    side: Side,
    path: tuple[IndexPathComponent, ...],
    old: Node | None,
    new: Node | None,
) -> Iterator[Finding]:
    """The differences between two values at ``path`` (None: a gap, or no result)."""

    def finding(what: What, before: str | None, after: str | None) -> Finding:
        return Finding(function, True, side, path, what, before, after)

    if old is None and new is None:
        return
    if side == "result" and not path and (old is None or new is None):
        # No result at all on one side.
        if old is None:
            yield finding("added", None, format_value(new))
        else:
            yield finding("removed", format_value(old), None)
        return
    if isinstance(old, Leaf) and isinstance(new, Leaf):
        yield from _diff_leaves(function, side, path, old, new)
        return
    if _kind(old) != _kind(new):
        yield finding("kind", _kind(old), _kind(new))
        return
    if isinstance(old, Sequence) and isinstance(new, Sequence):
        if len(old.items) != len(new.items):
            yield finding("arity", str(len(old.items)), str(len(new.items)))
        for position, (before, after) in enumerate(zip(old.items, new.items, strict=False)):
            yield from _diff_nodes(function, side, (*path, position), before, after)
    elif isinstance(old, Dict) and isinstance(new, Dict):
        new_items = dict(new.items)
        if [key for key, _ in old.items] != list(new_items):
            keys = finding("keys", _keys(old), _keys(new))
            if _keys_added(side, old, new):
                keys = dataclasses.replace(keys, breaking=False)
            yield keys
        for name, before in old.items:
            if name in new_items:
                yield from _diff_nodes(function, side, (*path, name), before, new_items[name])


def _keys_added(side: Side, old: Dict, new: Dict) -> bool:
    """Whether a result dict only gained keys: a caller reads a dict's results by key, so
    every old read still works (compatible, unless `diff_modules`' ``strict``)."""
    new_keys = [key for key, _ in new.items]
    return side == "result" and [key for key in new_keys if key in dict(old.items)] == [
        key for key, _ in old.items
    ]


def _keys(node: Dict) -> str:
    return "[" + ", ".join(repr(key) for key, _ in node.items) + "]"


def _diff_leaves(
    function: str, side: Side, path: tuple[IndexPathComponent, ...], old: Leaf, new: Leaf
) -> Iterator[Finding]:
    def finding(what: What, before: str, after: str, breaking: bool = True) -> Finding:
        return Finding(function, breaking, side, path, what, before, after)

    before, after = old.type, new.type
    # The records cannot tell every element type apart (``f8`` for each 8-bit float,
    # "unknown" for complex, vector, memref): the function types can, where both are known.
    spelled_apart = (
        old.element is not None
        and new.element is not None
        and old.element != new.element
        and not _is_integer(before)  # an integer's signedness is not a change
    )
    if isinstance(before, Unknown) != isinstance(after, Unknown) and _value(old) == _value(new):
        return  # one record has no name for the type both functions spell alike
    if record_for_type(before) == record_for_type(after):
        if spelled_apart:
            what: What = "type" if isinstance(before, Unknown) else "dtype"
            yield finding(what, str(old.element), str(new.element))
        return
    if isinstance(before, NDArray) and isinstance(after, NDArray):
        if spelled_apart or record_for_type(before.element) != record_for_type(after.element):
            yield finding("dtype", _element(old, before.element), _element(new, after.element))
        if before.dims is None or after.dims is None or len(before.dims) != len(after.dims):
            yield finding("rank", _rank(before.dims), _rank(after.dims))
        elif before.dims != after.dims:
            breaking = _dims_break(side, before.dims, after.dims)
            yield finding("shape", _shape(before.dims), _shape(after.dims), breaking)
    elif isinstance(before, Scalar) and isinstance(after, Scalar):
        yield finding("dtype", _element(old, before), _element(new, after))
    else:
        yield finding("type", _value(old), _value(new))


def _is_integer(t: ValueType | None) -> bool:
    """An integer scalar, or a tensor of them."""
    element = t.element if isinstance(t, NDArray) else t
    return isinstance(element, Scalar) and element.kind in ("i", "si", "ui")


def _element(leaf: Leaf, element: ValueType) -> str:
    """An element type as the module spells it where it is known (``f8E4M3FN``), else as
    its record (integers always by their record: their signedness is not compared)."""
    if leaf.element is None or _is_integer(element):
        return format_value_type(element)
    return leaf.element


def _value(leaf: Leaf) -> str:
    """A leaf's type in the declaration form, its element as the module spells it."""
    if _is_integer(leaf.type):
        return format_value_type(leaf.type)
    return format_leaf_type(leaf)


def _rank(dims: tuple[int | None, ...] | None) -> str:
    return "*" if dims is None else str(len(dims))


def _shape(dims: tuple[int | None, ...]) -> str:
    return "x".join("?" if dim is None else str(dim) for dim in dims) if dims else "[]"


def _dims_break(side: Side, old: tuple[int | None, ...], new: tuple[int | None, ...]) -> bool:
    """Whether a change of dims (same rank) breaks: a static dim changed or made static
    does; a static dim made dynamic breaks a result only."""
    for before, after in zip(old, new, strict=True):
        if before == after:
            continue
        if after is not None or side == "result":
            return True
    return False


# --------------------------------------------------------------------------------------
# Original calls (`abi.call`): what the records cannot say.
# --------------------------------------------------------------------------------------


def diff_functions(
    old: Mapping[str, Signature],
    new: Mapping[str, Signature],
    old_calls: Mapping[str, OriginalCall],
    new_calls: Mapping[str, OriginalCall],
    *,
    strict: bool = False,
    old_state: Mapping[str, SequenceABC[StateGlobal]] | None = None,
    new_state: Mapping[str, SequenceABC[StateGlobal]] | None = None,
) -> list[Finding]:
    """`abi-sig diff`: the records' findings (`diff_modules`) and, where both versions
    of a function have an original call, the calls' (`diff_calls`), each change once: a
    call's finding at the place and of the kind of a records' one is the same change
    (the records' words are kept); then, for a function both modules have, the changes
    of the state it uses (`diff_state`; a function missing from a state mapping uses
    none). Results compare as the caller receives them: a function with an original call
    returns the new values of the arguments it updates in place to the call, not to its
    caller (`callers_signature`). A function whose new version lost its original call
    breaks (`Finding.what` ``"call"``): the framework's call (its result structure, the
    updates in place, the value checks) is gone. Breaking ones first; ``strict``: a key
    added to a result dict breaks too."""
    findings = diff_modules(
        _callers_signatures(old, old_calls), _callers_signatures(new, new_calls), strict=strict
    )
    seen = {(f.function, f.side, f.path, f.what) for f in findings}
    for name, call in old_calls.items():
        if name not in new:
            continue
        if name not in new_calls:
            findings.append(Finding(name, True, None, (), "call", _call_text(call), None))
            continue
        for finding in diff_calls(name, call, new_calls[name]):
            if (finding.function, finding.side, finding.path, finding.what) in seen:
                continue
            if strict and finding.what == "keys":
                finding = dataclasses.replace(finding, breaking=True)
            findings.append(finding)
    before, after = old_state or {}, new_state or {}
    for name in old:
        if name in new:
            findings += diff_state(name, before.get(name, ()), after.get(name, ()))
    return sorted(findings, key=lambda finding: not finding.breaking)  # stable


def _callers_signatures(
    signatures: Mapping[str, Signature], calls: Mapping[str, OriginalCall]
) -> dict[str, Signature]:
    return {
        name: callers_signature(signature, calls[name]) if name in calls else signature
        for name, signature in signatures.items()
    }


def callers_signature(signature: Signature, call: OriginalCall) -> Signature:
    """``signature`` with the results its caller receives through the original call
    ``call``: without the result roots that hold the new value of an argument the call
    updates in place (the call writes them into the caller's array)."""
    written = {leaf for _, leaf in call.updates}
    if not written:
        return signature
    items: tuple[Node | None, ...] = signature.results
    if len(items) == 1 and isinstance(items[0], Sequence) and items[0].kind == "tuple":
        items = items[0].items  # (one inlined tuple: its items are the results)
    kept = tuple(
        node
        for node in items
        if node is not None and not (isinstance(node, Leaf) and node.index in written)
    )
    return dataclasses.replace(signature, results=kept)


def _call_text(call: OriginalCall) -> str:
    """An original call as `abi-sig show` prints it, with what it updates in place."""
    updates = format_updates(call)
    return format_call(call) + (f", updating {updates} in place" if updates else "")


# --------------------------------------------------------------------------------------
# The state a function uses (`abi.state`).
# --------------------------------------------------------------------------------------


def _global_text(g: StateGlobal) -> str:
    """``float32[4,8] (reads, writes)``: a global as `abi-sig show`'s state line says it."""
    return f"{format_global(g)} ({format_access(g)})"


def diff_state(
    function: str, old: SequenceABC[StateGlobal], new: SequenceABC[StateGlobal]
) -> list[Finding]:
    """The changes of the module state ``function`` reads or writes (docs/formats.md,
    "Comparing two versions"): a global it uses added or removed, a global's dtype and
    shape (its MLIR type where they are not known) or whether the function reads or
    writes it. Each breaks: the function's calls now change, or see, what other calls
    do differently (a cache of another size, a function that now writes)."""
    found: list[Finding] = []

    def finding(g: StateGlobal, what: What, a: str | None, b: str | None) -> None:
        found.append(Finding(function, True, "state", (g.name,), what, a, b))

    after = {g.name: g for g in new}
    before = {g.name for g in old}
    for g in old:
        h = after.get(g.name)
        if h is None:
            finding(g, "removed", _global_text(g), None)
            continue
        if g.dtype is None or g.shape is None or h.dtype is None or h.shape is None:
            if g.type != h.type:
                finding(g, "type", g.type, h.type)
        else:
            if g.dtype != h.dtype:
                finding(g, "dtype", g.dtype, h.dtype)
            if g.shape != h.shape:
                finding(g, "shape", _shape(g.shape), _shape(h.shape))
        if (g.reads, g.writes) != (h.reads, h.writes):
            finding(g, "access", format_access(g), format_access(h))
    for h in new:
        if h.name not in before:
            finding(h, "added", None, _global_text(h))
    return found


def diff_calls(function: str, old: OriginalCall, new: OriginalCall) -> list[Finding]:
    """The differences between two original calls of ``function`` that a caller of the
    framework's call sees beyond the records: a namedtuple's or dataclass's type name or
    fields, `None` and specialized values, keyword parameters, an integer leaf's
    signedness, the relations between the arguments' dims (`_diff_relations`). Each
    breaks that call (a renamed field is no longer found on the caller's object, a
    rebuilt result has other fields), but a key added to a result dict and a relation
    loosened."""
    found: list[Finding] = []
    for position, (a, b) in enumerate(zip(old.positional, new.positional, strict=False)):
        found += _diff_call_nodes(function, "argument", (position,), a, b)
    for position in range(len(new.positional), len(old.positional)):
        removed = format_node(old.positional[position])
        found.append(Finding(function, True, "argument", (position,), "removed", removed, None))
    for position in range(len(old.positional), len(new.positional)):
        added = format_node(new.positional[position])
        found.append(Finding(function, True, "argument", (position,), "added", None, added))
    old_keywords, new_keywords = dict(old.keywords), dict(new.keywords)
    for name, node in old.keywords:
        if name in new_keywords:
            found += _diff_call_nodes(function, "argument", (name,), node, new_keywords[name])
        else:
            found.append(Finding(function, True, "argument", (name,), "removed", "keyword", None))
    for name in new_keywords:
        if name not in old_keywords:
            found.append(Finding(function, True, "argument", (name,), "added", None, "keyword"))
    found += _diff_call_nodes(function, "result", (), old.result, new.result)
    found += _diff_relations(function, old, new)
    found += _diff_updates(function, old, new)
    return found


def _diff_updates(function: str, old: OriginalCall, new: OriginalCall) -> list[Finding]:
    """An argument the call now updates in place, or no longer does: breaking either way
    (the caller's array is changed by a call that did not change it, a read-only one is
    refused; or the new value a caller read back is gone)."""
    before, after = _updated_paths(old), _updated_paths(new)
    found = []
    for path in before:
        if path not in after:
            found.append(Finding(function, True, "argument", path, "updates", "yes", "no"))
    for path in after:
        if path not in before:
            found.append(Finding(function, True, "argument", path, "updates", "no", "yes"))
    return found


def _updated_paths(call: OriginalCall) -> list[tuple[IndexPathComponent, ...]]:
    """The paths of the arguments the call updates in place, in call order."""
    updated = {argument for argument, _ in call.updates}
    found: list[tuple[IndexPathComponent, ...]] = []

    def walk(node: CallNode, path: tuple[IndexPathComponent, ...]) -> None:
        if isinstance(node, Array):
            if node.index in updated:
                found.append(path)
        elif isinstance(node, Container):
            for position, child in enumerate(node.children):
                walk(child, (*path, node.keys[position] if node.keys else position))

    if updated:
        for position, node in enumerate(call.positional):
            walk(node, (position,))
        for name, node in call.keywords:
            walk(node, (name,))
    return found


def _call_kind(node: CallNode) -> str:
    if isinstance(node, Container):
        return node.kind
    return {Array: "array", Unused: "unused", Constant: "constant", NoneLeaf: "None"}[type(node)]


def _diff_call_nodes(
    function: str, side: Side, path: tuple[IndexPathComponent, ...], old: CallNode, new: CallNode
) -> list[Finding]:
    def finding(what: What, a: str, b: str) -> Finding:
        return Finding(function, True, side, path, what, a, b)

    if _call_kind(old) != _call_kind(new):
        return [finding("kind", _call_kind(old), _call_kind(new))]
    if isinstance(old, Array) and isinstance(new, Array):
        if old.dtype != new.dtype:  # int8 and uint8 have one record
            return [finding("dtype", str(old.dtype), str(new.dtype))]
        if side == "argument" and old.ranges != new.ranges:
            # An argument's values narrowed break (a call the old took is refused).
            was, now = _ranges_text(old.ranges), _ranges_text(new.ranges)
            return [
                dataclasses.replace(
                    finding("values", was, now), breaking=not _within(old.ranges, new.ranges)
                )
            ]
        return []
    if isinstance(old, Constant) and isinstance(new, Constant):
        a, b = _constant_text(old), _constant_text(new)
        return [] if (old.type, a) == (new.type, b) else [finding("value", a, b)]
    if not (isinstance(old, Container) and isinstance(new, Container)):
        return []
    if old.name != new.name:
        return [finding("type", str(old.name), str(new.name))]
    if old.keys != new.keys and (old.kind != "dict" or set(old.keys) != set(new.keys)):
        keys = finding("keys", repr(list(old.keys)), repr(list(new.keys)))
        if side == "result" and old.kind == "dict" and set(old.keys) <= set(new.keys):
            # a caller reads a dict's results by key: every old read still works
            keys = dataclasses.replace(keys, breaking=False)
            by_key = dict(zip(new.keys, new.children, strict=True))
            return [keys] + [
                found
                for key, child in zip(old.keys, old.children, strict=True)
                for found in _diff_call_nodes(function, side, (*path, key), child, by_key[key])
            ]
        return [keys]
    if len(old.children) != len(new.children):
        return [finding("arity", str(len(old.children)), str(len(new.children)))]
    found = _diff_static(function, side, path, old, new)
    by_key = dict(zip(new.keys, new.children, strict=False)) if old.kind == "dict" else {}
    for position, child in enumerate(old.children):
        key: IndexPathComponent = old.keys[position] if old.keys else position
        other = by_key[key] if old.kind == "dict" else new.children[position]
        found += _diff_call_nodes(function, side, (*path, key), child, other)
    return found


def _ranges_text(ranges: tuple[ValueRange, ...]) -> str:
    """An argument's value ranges as `abi-sig show` writes them, ``any`` for none."""
    return format_ranges(ranges).removeprefix(" in ") or "any"


def _within(old: tuple[ValueRange, ...], new: tuple[ValueRange, ...]) -> bool:
    """Whether every value ``old`` takes, ``new`` takes: each new range holds on its
    elements wherever the old ones hold (an element no old range names has only the
    ranges of every element)."""

    def bound(element: int | None) -> tuple[int | None, int | None]:
        low: int | None = None
        high: int | None = None
        for found in old:
            if found.elements is None or (element is not None and element in found.elements):
                if found.low is not None:
                    low = found.low if low is None else max(low, found.low)
                if found.high is not None:
                    high = found.high if high is None else min(high, found.high)
        return low, high

    for found in new:
        for element in (None,) if found.elements is None else found.elements:
            low, high = bound(element)
            if found.low is not None and (low is None or low < found.low):
                return False
            if found.high is not None and (high is None or high > found.high):
                return False
    return True


def _constant_text(node: Constant) -> str:
    return node.text if node.text is not None else repr(node.value)


def _diff_static(
    function: str, side: Side, path: tuple[IndexPathComponent, ...], old: Container, new: Container
) -> list[Finding]:
    """A dataclass's static (meta) fields (`Container.static`) added, removed or of
    another value: each breaks (the export was traced with the value, a rebuilt result
    has it). Located at the field, as a value field is."""
    found: list[Finding] = []
    before, after = dict(old.static), dict(new.static)
    for name, value in old.static:
        where = (*path, name)
        if name not in after:
            text = f"static {_constant_text(value)}"
            found.append(Finding(function, True, side, where, "removed", text, None))
        elif (value.type, _constant_text(value)) != (
            after[name].type,
            _constant_text(after[name]),
        ):
            a, b = _constant_text(value), _constant_text(after[name])
            found.append(Finding(function, True, side, where, "static", a, b))
    for name, value in new.static:
        if name not in before:
            text = f"static {_constant_text(value)}"
            found.append(Finding(function, True, side, (*path, name), "added", None, text))
    return found


# A dim of an argument: the path of its array (as findings locate values) and its axis.
_Place = tuple[tuple[IndexPathComponent, ...], int]


def _argument_dims(call: OriginalCall) -> dict[_Place, Dim]:
    """Every dim of the call's argument arrays (and of those the export dropped, which
    the framework checks too) that is not a static size, by place, in call order."""
    found: dict[_Place, Dim] = {}

    def walk(node: CallNode, path: tuple[IndexPathComponent, ...]) -> None:
        if isinstance(node, (Array, Unused)):
            for axis, dim in enumerate(node.dims or ()):
                if not isinstance(dim, int):
                    found[(path, axis)] = dim
        elif isinstance(node, Container):
            for position, child in enumerate(node.children):
                walk(child, (*path, node.keys[position] if node.keys else position))

    for position, node in enumerate(call.positional):
        walk(node, (position,))
    for name, node in call.keywords:
        walk(node, (name,))
    return found


def _place_text(place: _Place) -> str:
    path, axis = place
    return f"{Finding('', True, 'argument', path, 'relation', None, None).location} dim {axis}"


class _Relations:
    """One version's relations between the argument dims: each symbol named by the place
    it first appears at (so that renaming a symbol is no change)."""

    def __init__(self, call: OriginalCall) -> None:
        self.dims = _argument_dims(call)
        self.anchors: dict[str, _Place] = {}
        for place, dim in self.dims.items():
            for symbol in _symbols(dim):
                self.anchors.setdefault(symbol, place)
        bounds = {symbol.name: (symbol.low or 0, symbol.high) for symbol in call.symbols}
        self.bounds = {symbol: bounds.get(symbol, (0, None)) for symbol in self.anchors}
        self.constraints = {
            (self._terms(c.terms), c.relation): c.text
            for c in call.constraints
            if all(symbol in self.anchors for _, symbols in c.terms for symbol in symbols)
        }

    def _terms(self, terms: Terms) -> tuple[tuple[int, tuple[_Place, ...]], ...]:
        return tuple(
            sorted((c, tuple(sorted(self.anchors[s] for s in symbols))) for c, symbols in terms)
        )

    def form(self, place: _Place) -> tuple[Any, ...] | None:
        """What relates the dim at ``place`` to others: None when nothing does."""
        dim = self.dims[place]
        if dim is None or (isinstance(dim, str) and self.anchors[dim] == place):
            return None
        if isinstance(dim, str):
            return ("shared", self.anchors[dim])
        assert isinstance(dim, tuple)
        return ("terms", self._terms(dim))

    def bounds_at(self, place: _Place) -> tuple[int, int | None] | None:
        """The bounds of the dim at ``place`` when nothing else gives them: its symbol's
        where the symbol first appears, unbounded for a dim related to nothing; None
        otherwise (a dim shared with another, an expression)."""
        dim = self.dims[place]
        if dim is None:
            return (0, None)
        if isinstance(dim, str) and self.anchors[dim] == place:
            return self.bounds[dim]
        return None

    def text(self, place: _Place) -> str:
        dim = self.dims[place]
        axis = place[1]
        if self.form(place) is None:
            return f"dim {axis} free"
        if isinstance(dim, str):
            return f"dim {axis} = {_place_text(self.anchors[dim])}"
        assert isinstance(dim, tuple)
        return f"dim {axis} = {format_terms(dim)}"


def _symbols(dim: Dim) -> list[str]:
    if isinstance(dim, str):
        return [dim]
    if isinstance(dim, tuple):
        return [symbol for _, symbols in dim for symbol in symbols]
    return []


def _diff_relations(function: str, old: OriginalCall, new: OriginalCall) -> list[Finding]:
    """The changes of the relations between the arguments' dynamic dims (docs/formats.md,
    "Comparing two versions"): a dim newly tied to another (a symbol shared, an
    expression), bounds tightened, a constraint added break — the new function refuses
    calls the old one took; loosened ones are compatible."""
    before, after = _Relations(old), _Relations(new)
    found: list[Finding] = []
    places = [place for place in before.dims if place in after.dims]
    for place in places:
        was, now = before.form(place), after.form(place)
        if was != now:
            found.append(
                Finding(
                    function,
                    now is not None,
                    "argument",
                    place[0],
                    "relation",
                    before.text(place),
                    after.text(place),
                )
            )
    # Bounds, once per symbol: where it first appears (or a free dim there).
    for place in places:
        was_bounds, now_bounds = before.bounds_at(place), after.bounds_at(place)
        if was_bounds is None or now_bounds is None or was_bounds == now_bounds:
            continue
        (low, high), (new_low, new_high) = was_bounds, now_bounds
        tightened = new_low > low or (new_high is not None and (high is None or new_high < high))
        axis = place[1]
        found.append(
            Finding(
                function,
                tightened,
                "argument",
                place[0],
                "bounds",
                f"dim {axis} in {format_bounds(low, high)}",
                f"dim {axis} in {format_bounds(new_low, new_high)}",
            )
        )
    for key, text in after.constraints.items():
        if key not in before.constraints:
            found.append(Finding(function, True, None, (), "constraint", None, repr(text)))
    for key, text in before.constraints.items():
        if key not in after.constraints:
            found.append(Finding(function, False, None, (), "constraint", repr(text), None))
    return found
