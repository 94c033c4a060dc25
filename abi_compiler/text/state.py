"""The module state a function of MLIR text uses (`abi.state`, docs/formats.md): the
mutable globals (`util.global … mutable @name … : type`, `ml_program.global … mutable`)
and, for each exported function (`func.func`, or IREE's `util.func`), those its body — or
the body of a function it calls, transitively — loads or stores. Read from the text (`carry.scan` for the top-level items,
the op names and symbol tokens of each body), without parsing bodies. `with_state` writes
it into the text: `abi.state`, and the ``state`` of the function's `abi.call`;
`with_state_accessors` adds the functions through which a session's state moves."""

from __future__ import annotations

import dataclasses
import re

from abi_compiler.attribute_names import ABI_CALL, ABI_STATE
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.codecs.state_json import StateGlobal, encode_state
from abi_compiler.dtypes import ELEMENT_TYPES, numpy_dtype_name
from abi_compiler.errors import AbiError
from abi_compiler.text import carry, lexer
from abi_compiler.text.reflection_entry import add_reflection_entries, update_reflection_entries

__all__ = ["accessor_name", "function_state", "with_state", "with_state_accessors"]

_SYMBOL = r"@(?:[A-Za-z_$.\-0-9]+|\"(?:[^\"\\]|\\.)*\")"
_GLOBAL = re.compile(
    rf"(?:util\.global|ml_program\.global)\s+(?:(?:private|public|nested)\s+)?"
    rf"(mutable\s+)?({_SYMBOL})"
)
_READS = r"util\.global\.load(?:\.indirect)?|ml_program\.global_load(?:_const)?"
_WRITES = r"util\.global\.store(?:\.indirect)?|ml_program\.global_store"
# (each also matches what opens a string or a dialect body, which `outside_values` skips)
_SKIPPED = rf"{lexer.SHORT_STRING}|\"|{lexer.DIALECT_BODY_START}"
_USE = re.compile(
    rf"{_SKIPPED}|\b(?P<op>{_READS}|{_WRITES}|util\.global\.address)\b[^@\n]*(?P<symbol>{_SYMBOL})"
)
_CALL = re.compile(rf"{_SKIPPED}|\b(?:func\.call|util\.call|call)\s+(?P<symbol>{_SYMBOL})")
_TENSOR = re.compile(r"tensor<((?:(?:\?|\d+)x)*)([a-z]+\d+)>")
_LOC = re.compile(r"\s*loc\(.*\)\s*$", re.S)


def _name(token: str) -> str | None:
    return lexer.symbol_name(token)


def _global_type(text: str) -> str:
    """The type of a global op's text: after its last top-level ` : `."""
    text = _LOC.sub("", text.strip())
    _, _, written = text.rpartition(":")
    return " ".join(written.split())


def _scalars() -> dict[str, str]:
    return {f"{s.kind}{s.width}": numpy_dtype_name(s) for s in ELEMENT_TYPES}


def _described(name: str, written: str, reads: bool, writes: bool) -> StateGlobal:
    dtypes = _scalars()
    match = _TENSOR.fullmatch(written)
    if match is not None:
        dims = tuple(None if d == "?" else int(d) for d in match.group(1).split("x")[:-1])
        dtype = dtypes.get(match.group(2))
        return StateGlobal(name, written, dtype, dims if dtype else None, reads, writes)
    dtype = dtypes.get(written)
    return StateGlobal(name, written, dtype, () if dtype else None, reads, writes)


def function_state(text: str) -> dict[str, list[StateGlobal]]:
    """For each public top-level function with a body (`func.func` or `util.func`) that
    uses the state, the mutable globals it (or what it calls) reads or writes, in the
    order they are defined."""
    layout = carry.scan(text)
    mutable: dict[str, str] = {}
    for op in layout.ops:
        if isinstance(op, carry.OpText):
            head = text[op.start : op.end]
            found = _GLOBAL.match(head)
            if found is not None and found.group(1) and (name := _name(found.group(2))):
                mutable[name] = _global_type(head)
    if not mutable:
        return {}
    bodies: dict[str, tuple[int, int]] = {}
    exported: list[str] = []
    for func in carry.functions(layout):
        if func.name is None or func.body_start is None or func.body_end is None:
            continue
        bodies[func.name] = (func.body_start, func.body_end)
        if func.visibility in (None, "public") and func.plain:
            exported.append(func.name)
    direct: dict[str, dict[str, set[str]]] = {}
    calls: dict[str, set[str]] = {}
    for name, (start, end) in bodies.items():
        body = text[start:end]
        uses: dict[str, set[str]] = {}
        for match in lexer.outside_values(_USE, body):
            target = _name(match.group("symbol"))
            if target in mutable:
                kind = match.group("op")
                if kind == "util.global.address":
                    kinds = {"r", "w"}  # (loaded and stored through the address)
                else:
                    kinds = {"r"} if re.fullmatch(_READS, kind) else {"w"}
                uses.setdefault(target, set()).update(kinds)
        direct[name] = uses
        calls[name] = {
            callee
            for m in lexer.outside_values(_CALL, body)
            if (callee := _name(m.group("symbol"))) in bodies
        }
    found_by_function: dict[str, list[StateGlobal]] = {}
    for name in exported:
        seen, pending, total = {name}, [name], dict[str, set[str]]()
        while pending:
            current = pending.pop()
            for target, kinds in direct[current].items():
                total.setdefault(target, set()).update(kinds)
            for callee in sorted(calls[current]):
                if callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
        if total:
            found_by_function[name] = [
                _described(g, mutable[g], "r" in total[g], "w" in total[g])
                for g in mutable
                if g in total
            ]
    return found_by_function


def with_state(text: str) -> str:
    """``text`` with the state each exported function uses (`function_state`) recorded in
    its reflection (docs/formats.md, "The state a function uses"): as `abi.state` (a
    function that has one keeps it), and as the ``state`` of its original call
    (`abi.call`) when it has one that records none (one that does not decode is left as
    it is: the reader of the module says what is wrong with it). A function that uses no
    state gets neither: its `abi.call` stays byte for byte as it was."""
    used = function_state(text)
    if not used:
        return text
    values = {name: encode_state(found) for name, found in used.items()}
    text = add_reflection_entries(text, ABI_STATE, values.get)

    def with_call_state(name: str, value: str) -> str | None:
        if name not in used:
            return None
        try:
            call = decode_call(value)
        except AbiError:
            return None
        if call.state:
            return None
        return encode_call(dataclasses.replace(call, state=tuple(used[name])))

    return update_reflection_entries(text, ABI_CALL, with_call_state)


def accessor_name(name: str, kind: str) -> str:
    """The exported function that reads (``kind`` ``"get"``) or writes (``"set"``) the
    mutable global ``name``: the name IREE gives a public global's accessors, which
    callers do not see (`caller_visible`)."""
    return f"global${name}${kind}"


def with_state_accessors(text: str) -> str:
    """``text`` with two exported functions per mutable `util.global` (the module's
    state): ``global$<name>$get`` returns its value, ``global$<name>$set`` stores one,
    so that a session's state can be read out and restored (`Session.state`,
    ``module.session(state=…)``; docs/calling.md, "Moving a session"). A global that
    already has one of those functions (IREE makes them for a public `ml_program`
    global) gets none; a text without mutable `util.global`s is returned as it is."""
    layout = carry.scan(text)
    taken = {func.name for func in carry.functions(layout) if func.name is not None}
    added = []
    for op in layout.ops:
        if not isinstance(op, carry.OpText):
            continue
        head = text[op.start : op.end]
        found = _GLOBAL.match(head)
        if found is None or not found.group(1) or not head.startswith("util.global"):
            continue
        name = _name(found.group(2))
        if name is None or {accessor_name(name, k) for k in ("get", "set")} & taken:
            continue
        written, symbol = _global_type(head), lexer.symbol_text(name)
        getter, setter = (lexer.quote(accessor_name(name, k)) for k in ("get", "set"))
        added.append(
            f"func.func @{getter}() -> {written} {{\n"
            f"  %value = util.global.load {symbol} : {written}\n"
            f"  return %value : {written}\n}}\n"
            f"func.func @{setter}(%value: {written}) {{\n"
            f"  util.global.store %value, {symbol} : {written}\n"
            f"  return\n}}\n"
        )
    if not added:
        return text
    # (before the explicit module's closing brace, which its body's end includes)
    at = len(text) if layout.module is None else text.rindex("}", 0, layout.module.body_end)
    return text[:at] + "\n" + "".join(added) + text[at:]
