"""What a run parses of a chunk (SPEC §8.6): headers always, bodies only where the
pipeline's passes must rewrite them (`BodyAccess`), and the masked text xDSL is given —
every carried range replaced by spaces, so offsets stay those of the input."""

from __future__ import annotations

import re
from dataclasses import dataclass

from abi_compiler.passes.contract import BodyAccess
from abi_compiler.text import carry
from abi_compiler.text.carry import FuncText, Layout, OpText


@dataclass
class Plan:
    """What is parsed of one chunk."""

    layout: Layout
    #: The chunk's text with every carried range masked.
    masked: str
    #: Index into `layout.ops` -> why its body is parsed (for diagnostics).
    parsed: dict[int, str]


def make_plan(layout: Layout, access: BodyAccess) -> Plan:
    """The plan of a scanned chunk for passes that need ``access`` of bodies."""
    masked, parsed = plan(layout, access)
    return Plan(layout, masked, parsed)


def plan(layout: Layout, access: BodyAccess) -> tuple[str, dict[int, str]]:
    """The masked text xDSL parses, and which items are parsed whole (with the reason)."""
    text = layout.text
    parsed = _parsed_items(layout, access)
    ranges: list[tuple[int, int]] = []
    for start, end in layout.prologue:
        if text.startswith("{-#", start) or _is_location_alias(text, start):
            ranges.append((start, end))
    ranges += layout.epilogue
    if layout.module is not None:
        module = layout.module
        ranges += module.header_locs
        ranges.append((module.body_end, module.end))
    for index, item in enumerate(layout.ops):
        if index in parsed:
            ranges += carry.locations(text, item.start, item.end)
        elif isinstance(item, OpText):
            ranges.append((item.start, item.end))
        else:
            ranges += item.header_locs
            if item.body_start is not None and item.body_end is not None:
                ranges.append((item.body_start + 1, item.body_end - 1))
                ranges.append((item.body_end, item.end))
    return carry.mask(text, ranges), parsed


def alias_names(layout: Layout) -> set[str]:
    """The names (with `#`/`!`) of the aliases a chunk defines."""
    text = layout.text
    return {
        text[start : text.index("=", start)].strip()
        for start, _ in layout.prologue + layout.epilogue
        if not text.startswith("{-#", start)
    }


_LOCATION_ALIAS = re.compile(r"#[A-Za-z0-9_$.\-]+[ \t]*=[ \t]*loc\(")


def _is_location_alias(text: str, start: int) -> bool:
    return _LOCATION_ALIAS.match(text, start) is not None


def _parsed_items(layout: Layout, access: BodyAccess) -> dict[int, str]:
    text = layout.text
    if access is BodyAccess.SIGNATURES:
        return {}
    if access is BodyAccess.ALL:
        return {i: "every body is parsed" for i in range(len(layout.ops))}
    parsed: dict[int, str] = {}
    structured: set[str] = set()
    for index, item in enumerate(layout.ops):
        if not isinstance(item, FuncText):
            continue
        name = carry.function_name(text, item)
        if carry.has_structured_signature(text, item, layout.type_aliases):
            parsed[index] = f"the signature of @{name} holds structured values"
            if name is not None:
                structured.add(name)
        elif carry.has_structured_body(text, item):
            parsed[index] = f"the body of @{name} works with structured values"
    if structured:
        for index, item in enumerate(layout.ops):
            if index in parsed:
                continue
            used = carry.symbol_references(text, item.start, item.end) & structured
            if used:
                callee = sorted(used)[0]
                who = (
                    f"@{carry.function_name(text, item)}"
                    if isinstance(item, FuncText)
                    else "this operation"
                )
                parsed[index] = f"{who} uses @{callee}, whose signature is flattened"
    return parsed
