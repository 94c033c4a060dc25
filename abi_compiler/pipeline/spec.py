"""A pass pipeline written as text (`-p 'a,b{opt=1 other="x y"}'`) → pass objects.

The passes and named pipelines come from a registry (`registry()`: the project's, from
`abi_compiler.passes.registry`; a caller may add its own). A named pipeline runs as its
member passes, so that the module is verified between them. Every problem is a
`SpecError` whose message says what is wrong, without a position.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from abi_compiler.errors import AbiError
from abi_compiler.xdsl_boundary import xdsl_compat


class SpecError(Exception):
    """A pipeline text that cannot be run: an unknown pass, a bad option, bad syntax."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class PassInfo:
    """A pass or a named pipeline a pipeline text may name."""

    #: The pass class (imported when called).
    load: Callable[[], type[ModulePass]]
    #: One line for `--help`.
    summary: str = ""
    #: A named pipeline: its member passes as pipeline text.
    members: str | None = None


def registry() -> dict[str, PassInfo]:
    """The project's passes and named pipelines (docs/spec.md §8.5)."""
    from abi_compiler.passes import registry as passes

    found = {name: PassInfo(entry.load, entry.summary) for name, entry in passes.PASSES.items()}
    for name, pipeline in passes.PIPELINES.items():

        def load(name: str = name) -> type[ModulePass]:
            return passes.pipeline_pass(name)

        found[name] = PassInfo(load, pipeline.summary, pipeline.spec)
    return found


def parse_spec(text: str, known: Mapping[str, PassInfo]) -> tuple[ModulePass, ...]:
    """The passes ``text`` names, in order, named pipelines expanded into their members."""
    specs: list[ArgSpec] = []
    for spec in _arg_specs(text):
        info = known.get(spec.name)
        if info is not None and info.members is not None and not spec.parameters:
            specs += _arg_specs(info.members)
        else:
            # (A named pipeline with options: its pass class says it takes none.)
            specs.append(spec)
    for spec in specs:
        if spec.name not in known:
            raise SpecError(f"unknown pass or pipeline '{spec.name}' (see 'abi-opt --help')")
    return tuple(_build_pass(known[s.name].load(), s) for s in specs)


def _arg_specs(text: str) -> list[ArgSpec]:
    try:
        return list(parse_pipeline(text))
    except ArgSpecParseError as error:
        # xDSL's message is "<header>\npass-pipeline:1:<col>\n<text>\n<caret>\n<message>".
        lines = [line for line in str(error).splitlines() if line.strip()]
        position = re.search(r":(\d+):(\d+)$", lines[1]) if len(lines) > 1 else None
        column = f" at column {position.group(2)}" if position else ""
        raise SpecError(f"malformed pass pipeline '{text}'{column}: {lines[-1].strip()}") from None


def _build_pass(cls: type[ModulePass], spec: ArgSpec) -> ModulePass:
    """Instantiate a pass from its spec, with a message for each bad option."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "name"}
    given = spec.normalize_parameter_names().parameters
    for original, key in zip(spec.parameters, given, strict=True):
        if key not in fields:
            known = ", ".join(n.replace("_", "-") for n in fields)
            raise SpecError(
                f"pass '{spec.name}' has no option '{original}'"
                + (f" (options: {known})" if known else " (it takes no options)")
            )
    hints = get_type_hints(cls)
    for original, (key, value) in zip(spec.parameters, given.items(), strict=True):
        try:
            xdsl_compat.check_pass_option(value, hints[key])
        except ValueError:
            shown = xdsl_compat.pass_option_text(value)
            raise SpecError(
                f"invalid value '{shown}' for option '{original}' of pass '{spec.name}': "
                f"expected {_describe_type(hints[key])}"
            ) from None
    try:
        built: ModulePass = cls.from_pass_spec(spec)
        return built
    except (ValueError, TypeError, AbiError) as error:
        raise SpecError(f"invalid options for pass '{spec.name}': {error}") from None


def _describe_type(hint: Any) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    if hint in names:
        return names[hint]
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " or ".join(_describe_type(a) for a in rest)
    if origin is tuple and args:
        return f"a comma-separated list of {_describe_type(args[0])} values"
    return str(hint)
