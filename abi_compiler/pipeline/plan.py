"""What a run parses of a chunk (docs/spec.md §8.6): headers always, bodies only where the
pipeline's passes must rewrite them (`BodyAccess`), and the masked text xDSL is given —
every carried range replaced by spaces, so offsets stay those of the input. The text is
masked once, after the headers are built (`masked_ranges`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from abi_compiler.passes.contract import BodyAccess
from abi_compiler.text import carry, symbols
from abi_compiler.text.carry import FuncText, Layout, OpText


@dataclass
class Plan:
    """What is parsed of one chunk."""

    layout: Layout
    #: Index into `layout.ops` -> why its body is parsed (for diagnostics).
    parsed: dict[int, str]
    #: The chunk's text with every carried range masked (`masked_ranges`), once the
    #: headers are built.
    masked: str = ""


def make_plan(layout: Layout, access: BodyAccess) -> Plan:
    """The plan of a scanned chunk for passes that need ``access`` of bodies."""
    return Plan(layout, parsed_items(layout, access))


def parsed_items(layout: Layout, access: BodyAccess) -> dict[int, str]:
    """Which items xDSL parses whole (index into ``layout.ops``), with the reason."""
    text = layout.text
    if access is BodyAccess.ALL:
        return {i: "every body is parsed" for i in range(len(layout.ops))}
    # A function in generic form is a function: parsed whole (it has no header apart).
    parsed: dict[int, str] = {
        i: "a function in generic form is parsed whole"
        for i, item in enumerate(layout.ops)
        if isinstance(item, OpText) and text.startswith('"func.func"', item.start)
    }
    if access is BodyAccess.SIGNATURES:
        return parsed
    structured: set[str] = set()
    for index, item in enumerate(layout.ops):
        if not isinstance(item, FuncText):
            continue
        name = item.name
        if carry.has_structured_signature(layout, item):
            parsed[index] = f"the signature of @{name} holds structured values"
            if name is not None:
                structured.add(name)
        elif carry.has_structured_body(text, item):
            parsed[index] = f"the body of @{name} works with structured values"
    if structured:
        # An op must be rewritten when it calls one of them, directly or through an
        # attribute alias; any other reference is redirected in the text.
        through: dict[str, set[str]] = {}
        for alias in layout.aliases:
            if not alias.location and alias.name[0] == "#":
                names = symbols.symbol_references(text, alias.value_start, alias.end)
                if names & structured:
                    through[alias.name] = names & structured
        for index, item in enumerate(layout.ops):
            if index in parsed:
                continue
            used: set[str] = set()
            if through or symbols.symbol_references(text, item.start, item.end) & structured:
                for name in symbols.called_symbols(text, item.start, item.end):
                    used |= through.get(name, set()) if name[0] == "#" else {name} & structured
            if used:
                callee = sorted(used)[0]
                who = f"@{item.name}" if isinstance(item, FuncText) else "this operation"
                parsed[index] = f"{who} calls @{callee}, whose signature is flattened"
    return parsed


def masked_ranges(
    layout: Layout, parsed: Collection[int], built: Collection[int]
) -> list[tuple[int, int]]:
    """What xDSL does not see of the chunk: alias definitions (defined beforehand) and
    resource sections, the text between items, carried ops and bodies, the headers
    already built (``built``: indices into ``layout.ops``), and every location and
    comment of what it parses (the items ``parsed`` whole)."""
    text = layout.text
    ranges = [*layout.prologue, *layout.epilogue]
    # What lies between items is blanks and comments: masked whole (xDSL's lexer ends a
    # comment at `\n` only).
    items = [*layout.prologue, *layout.epilogue]
    if layout.module is not None:
        module = layout.module
        ranges.append((module.body_end, module.end))
        ranges += carry.comments(text, module.start, module.body_start)
        items.append((module.start, module.end))
        ops = [(op.start, op.end) for op in layout.ops]
        ranges += _gaps(module.body_start + 1, ops, module.body_end - 1)
    else:
        items += [(op.start, op.end) for op in layout.ops]
    ranges += _gaps(0, sorted(items), len(text))
    for index, item in enumerate(layout.ops):
        if index in parsed:
            ranges += carry.locations(text, item.start, item.end)
            ranges += carry.comments(text, item.start, item.end)
        elif isinstance(item, OpText) or index in built:
            ranges.append((item.start, item.end))
        else:
            ranges += item.header_locs
            if item.body_start is None or item.body_end is None:
                ranges += carry.comments(text, item.start, item.end)
            else:
                ranges += carry.comments(text, item.start, item.body_start)
                ranges.append((item.body_start + 1, item.body_end - 1))
                ranges += carry.comments(text, item.body_end, item.end)
    return ranges


def _gaps(start: int, items: list[tuple[int, int]], end: int) -> list[tuple[int, int]]:
    """The ranges between ``start``, the (sorted) ``items`` and ``end``."""
    bounds = [start, *(bound for item in items for bound in item), end]
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
