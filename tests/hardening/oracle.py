"""Proof by difference (docs/testing.md): generated MLIR modules through `abi-opt`, with
IREE's `iree-opt` as the oracle.

`ModuleGenerator` writes seeded, deterministic modules in the lexical and structural forms
MLIR accepts and hand-made scanners get wrong: strings with every escape, comments where
MLIR has them and `//` inside dialect `<…>` bodies where it has none, balanced brackets
with strings inside, `{-# … #-}` resource sections whose strings hold `#-}`, whitespace
wherever MLIR allows it (`loc (#x)`), `\\n`, `\\r\\n` and `\\r` line ends, several ops on
one line, quoted symbol names with escapes, nested `module @x {}` holding symbols of the
same names, location aliases defined before, after and between their uses, locations
inside attribute and type values, typed attribute aliases, `affine_set`, `sparse`,
`distinct`, opaque dialect values, result types named `!foo.attributes`, symbols named
like the implementations a pipeline creates, calls through symbol aliases, and
JAX/StableHLO-shaped, index-path and typed structured signatures so that the pipelines
have work.

For each module (`check_modules`):

* `iree-opt --allow-unregistered-dialect --mlir-print-op-generic` of the input; an input
  it rejects is *skipped* (a generator defect, counted);
* `abi-opt --allow-unregistered-dialect` with no pass, `-p iree-abi-v1` and
  `-p iree-abi-legacy`; any exit status but 0 is *refused*, an `internal error` (or an
  exception escaping the driver, or a run longer than the timeout) is *internal*;
* the generic form of the no-pass output must be identical to the input's (*differing*
  otherwise), and `iree-opt` must accept each pipeline's output (*invalid output*).

`iree-opt` runs once per batch of modules (`--split-input-file`), `abi-opt` in-process.

Which forms the generator writes is a `Features` value. `RESTRICTED` lists the forms
`abi-opt` still gets wrong on this branch (each with the defect it shows); the test
(`tests/hardening/test_oracle.py`) generates `Features.passing()`, everything else. Turn a
form on by removing it from `RESTRICTED` once the scanner handles it.

The long mode is this module as a script; it prints the counts and writes each failing
case (input, outputs, diagnostics, generic forms and their diff) to a directory:

    python -m tests.hardening.oracle --count 5000 --seed 1 --out /tmp/oracle-failures
    python -m tests.hardening.oracle --count 5000 --features passing

Tools: IREE's `iree-opt` from `iree-base-compiler` 3.13 (`iree.compiler.tools.binaries`).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import difflib
import io
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TypeVar

T = TypeVar("T")

# --------------------------------------------------------------------------------------
# What the generator writes
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Features:
    """The families of forms the generator writes (all on by default)."""

    #: `//` inside a dialect attribute's or type's `<…>` body (text there, not a comment).
    dialect_body_comments: bool = True
    #: `[loc("m.py":10:4)]` in attribute values and `!foo.t<loc(1)>` in types.
    locations_in_values: bool = True
    #: `module @inner { … }` inside the module, defining symbols named like top-level ones.
    nested_modules: bool = True
    #: Several ops on one line: `} func.func @b …` at top level and in bodies.
    ops_on_one_line: bool = True
    #: Files whose line ends are `\r` only.
    cr_line_ends: bool = True
    #: Files whose line ends are `\r\n`.
    crlf_line_ends: bool = True
    #: Symbol names that need quotes, with escapes (`@"a\22b"`, `@"a\\b"`), and references
    #: spelled with escapes where none is needed (`@"\6Dain"` for `@main`).
    escaped_symbol_names: bool = True
    #: Top-level alias definitions between two functions (implicit module).
    aliases_between_ops: bool = True
    #: A symbol named like the implementation a pipeline creates (`@_f` for `@f`), defined
    #: by `memref.global`, `util.global` or a generic-form op.
    symbol_collisions: bool = True
    #: `#callee = @f` used by a generic-form `func.call`.
    symbol_aliases: bool = True
    #: Structured signature types spelled through type aliases (`!pair = tuple<…>`).
    structured_type_aliases: bool = True
    #: `loc (#x)`, `loc( "a" )`: whitespace inside and before a location.
    loc_whitespace: bool = True
    #: `#a = #foo.attr<…> : !foo.type` at top level.
    typed_attribute_aliases: bool = True
    #: `affine_set<(d0) : (d0 >= 0)>` values.
    affine_sets: bool = True
    #: A type named `!foo.attributes` (a result type that reads like the keyword).
    attributes_type_name: bool = True
    #: Strings holding `<` or `>` inside dialect bodies: `!foo.t<"a>b">`.
    angle_in_dialect_strings: bool = True
    #: Opaque dialect values: `#foo<"x">`, `!foo<"x">`.
    opaque_dialect_values: bool = True
    #: `sparse<…>` elements attributes.
    sparse_elements: bool = True
    #: `distinct[0]<…>` attributes.
    distinct_attributes: bool = True
    #: f80 and f128 types and float attributes.
    extended_floats: bool = True
    #: A `{-# external_resources … #-}` section whose strings hold `#-}`.
    resource_strings: bool = True
    #: String literals holding bytes that are not UTF-8 (`"\\FF"`).
    non_utf8_strings: bool = True
    #: The forms above also inside the bodies a pipeline must parse (structured functions
    #: and their callers); off, those bodies hold plain values only.
    exotic_values_in_parsed_bodies: bool = True
    #: `loc(…)` on declarations, block arguments and module headers.
    more_locations: bool = True
    #: Declarations (`func.func private @ext(…)`).
    declarations: bool = True
    #: `!abi.dict` keys holding a quote spelled `\"` (MLIR prints `\22`).
    dict_key_spellings: bool = True
    #: Typed string attributes (`"x" : i32`).
    typed_strings: bool = True
    #: Attributes naming functions of the module (`{foo.r = @f}`), not only other symbols.
    references_to_functions: bool = True
    #: JAX/StableHLO exports: names in locations (in place, through aliases defined before
    #: or after), `jax.result_info`, `@_wrapped_jax_export_main`, stablehlo bodies.
    jax_functions: bool = True

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    def without(self, names: Sequence[str] | frozenset[str]) -> Features:
        unknown = set(names) - set(self.names())
        if unknown:
            raise ValueError(f"unknown features: {sorted(unknown)}")
        return dataclasses.replace(self, **dict.fromkeys(names, False))

    @classmethod
    def passing(cls) -> Features:
        """Everything but the forms `abi-opt` still gets wrong (`RESTRICTED`)."""
        return cls().without(RESTRICTED)


#: The forms turned off in the test: each still makes `abi-opt` refuse, change a value or
#: fail on this branch (the defect, with a minimal input, in the notes named after it).
RESTRICTED: frozenset[str] = frozenset(
    {
        # O9: a symbol named like the implementation V1 creates (`@_f` for `@f`, by
        # `func.func`, `util.global`, `memref.global "private"` or a generic op) is now
        # always noticed, and refused: `symbol @_f already exists` (docs/spec.md §8.2's error;
        # docs/decisions.md says why no other name is picked).
        "symbol_collisions",
        # O7 (what is left): a generic op after a declaration on its line
        # (`func.func private @e() -> i32 "foo.top"() : () -> ()`) is not an item of its
        # own; the declaration's header does not read, and the fall-back full parse
        # refuses what only carrying tolerates (`#a = #foo.attr<x> : !foo.type` before
        # it: "Could not parse entire input … found ':'").
        "ops_on_one_line",
    }
)


# --------------------------------------------------------------------------------------
# Lexical pieces
# --------------------------------------------------------------------------------------

_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def string_literal(text: str | bytes) -> str:
    """A string literal of ``text`` (bytes kept as they are), in one of MLIR's spellings:
    printable ASCII as is, a quote and a backslash escaped, the rest as `\\XX`."""
    data = text.encode() if isinstance(text, str) else text
    out = []
    for byte in data:
        if byte == 0x22:
            out.append('\\"')
        elif byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


# Pieces of string contents, as source text (escapes included).
_STRING_PIECES = [
    "a",
    "x y",
    "0",
    '\\"',
    "\\\\",
    "\\n",
    "\\t",
    "\\0A",
    "\\22",
    "\\5C",
    "\\09",
    "//",
    "// not a comment",
    "#-}",
    "{-#",
    "loc(",
    'loc(\\"q\\")',
    "@f",
    "@main",
    "}",
    "{",
    ">",
    "<",
    ")",
    "(",
    "]",
    "é",
    "日本",
    "'",
    "=",
    ",",
    "\\C3\\A9",
    "attributes",
    "func.func @g",
    "\\0D",
]
_NON_UTF8_PIECES = ["\\FF", "\\80", "\\C3", "\\00"]

_SCALARS = ["i1", "i8", "i16", "i32", "i64", "si32", "ui8", "f16", "bf16", "f32", "f64", "index"]
_FLOATS = ["f16", "bf16", "f32", "f64"]
_LEAF_ELEMENTS = ["f32", "i32", "f16", "i64", "i8", "f64", "i1"]


class ModuleGenerator:
    """Writes one module from a seeded `random.Random`; `module()` returns its text."""

    def __init__(self, rng: random.Random, features: Features) -> None:
        self.rng = rng
        self.f = features
        self.type_aliases: list[str] = []  # defined names (`!t0`), usable as types
        self.structured_aliases: dict[str, str] = {}  # `!pair0` -> `tuple<…>`
        self.attr_aliases: list[str] = []
        self.loc_aliases: list[str] = []
        self.prologue: list[str] = []  # definitions printed before the first op
        self.between: list[str] = []  # definitions printed between ops (implicit module)
        self.epilogue: list[str] = []  # definitions printed after the module
        self.blobs: list[str] = []
        self.symbols: set[str] = set()  # top-level symbol names
        self.counter = 0
        self.in_parsed_body = False
        self.jax_export: tuple[str, list[str], list[str]] | None = None
        #: Exports V1 wraps though their signature is flat (paths): name, ins, outs.
        self.wrapped_exports: list[tuple[str, list[str], list[str]]] = []

    # -- small helpers -----------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: Sequence[T]) -> T:
        return self.rng.choice(list(items))

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def exotic(self) -> bool:
        """Whether the exotic forms may be written here."""
        return not self.in_parsed_body or self.f.exotic_values_in_parsed_bodies

    def sp(self, indent: str = "    ") -> str:
        """Whitespace between two tokens: a space mostly, sometimes more, a line break or a
        comment."""
        roll = self.rng.random()
        if roll < 0.8:
            return " "
        if roll < 0.87:
            return self.pick(["  ", "\t", " \t "])
        if roll < 0.94:
            return "\n" + indent
        return f" // {self.comment_text()}\n{indent}"

    def comment_text(self) -> str:
        return self.pick(
            [
                "note",
                'a "quote',
                "brace { not closed",
                "} func.func @x() {",
                "loc(#nowhere)",
                "#-} {-#",
                "@main = 1",
                "// nested",
                "é and \\",
            ]
        )

    def string(self, pieces: int = 3) -> str:
        parts = [self.pick(_STRING_PIECES) for _ in range(self.rng.randint(0, pieces))]
        if self.f.non_utf8_strings and self.exotic() and self.chance(0.1):
            parts.append(self.pick(_NON_UTF8_PIECES))
        return '"' + "".join(parts) + '"'

    def symbol_ref(self, name: str) -> str:
        """A reference to ``name``: bare when MLIR allows it, quoted otherwise; with
        escaped names on, sometimes quoted with escapes although it need not be."""
        if _BARE_SYMBOL.fullmatch(name) and not (self.f.escaped_symbol_names and self.chance(0.15)):
            return "@" + name
        if self.f.escaped_symbol_names and self.chance(0.5):
            data = name.encode()
            return (
                "@"
                + '"'
                + "".join(f"\\{b:02X}" if self.chance(0.4) else _escape_byte(b) for b in data)
                + '"'
            )
        return "@" + string_literal(name)

    # -- locations ---------------------------------------------------------------------

    def loc_body(self, depth: int = 0, aliases: bool = True) -> str:
        kinds = ["file", "file", "name", "unknown", "range"]
        if depth < 2:
            kinds += ["named_child", "callsite", "fused"]
        if self.loc_aliases and aliases:
            kinds += ["alias", "alias"]
        kind = self.pick(kinds)
        if kind == "file":
            return f"{self.filename()}:{self.rng.randint(1, 400)}:{self.rng.randint(1, 80)}"
        if kind == "range":
            return f"{self.filename()}:{self.rng.randint(1, 40)}:{self.rng.randint(1, 9)} to :{self.rng.randint(10, 60)}"
        if kind == "name":
            return self.string(2)
        if kind == "unknown":
            return "unknown"
        if kind == "named_child":
            return f"{self.string(2)}({self.loc_body(depth + 1, False)})"
        # Only a whole location may name an alias defined further down: nested ones must
        # be defined before (`undefined symbol alias id` otherwise), so none here.
        if kind == "callsite":
            return (
                f"callsite({self.loc_body(depth + 1, False)} at {self.loc_body(depth + 1, False)})"
            )
        if kind == "fused":
            inner = ", ".join(
                self.loc_body(depth + 1, False) for _ in range(self.rng.randint(1, 3))
            )
            return f"fused[{inner}]"
        return self.pick(self.loc_aliases)

    def filename(self) -> str:
        return self.pick(['"m.py"', '"/work/model.py"', '"a b.py"', '"q\\22.py"', '"é.py"'])

    def location(self) -> str:
        """A `loc(…)`, with whitespace where MLIR allows it when that is on."""
        body = self.loc_body()
        if self.f.loc_whitespace and self.chance(0.25):
            return f"loc{self.pick([' ', '  ', chr(9)])}({self.pick(['', ' '])}{body}{self.pick(['', ' '])})"
        return f"loc({body})"

    def trailing_loc(self, p: float = 0.3) -> str:
        return " " + self.location() if self.chance(p) else ""

    def define_loc_alias(self, where: str | None = None) -> str:
        name = self.fresh("#loc")
        where = where or self.pick(["prologue", "epilogue", "between"])
        # An alias definition may not refer to an alias defined after it.
        text = f"{name} = loc({self.loc_body(1, aliases=False)})"
        self.place(text, where)
        self.loc_aliases.append(name)
        return name

    def place(self, text: str, where: str) -> None:
        if where == "between" and not self.f.aliases_between_ops:
            where = "prologue"
        {"prologue": self.prologue, "epilogue": self.epilogue, "between": self.between}[
            where
        ].append(text)

    # -- dialect bodies ----------------------------------------------------------------

    def dialect_body(self, depth: int = 0) -> str:
        """The text inside a pretty dialect value's `<…>`: balanced brackets, strings,
        arrows; `//` runs of text and `loc(…)` when those are on."""
        parts: list[str] = []
        for _ in range(self.rng.randint(1, 4)):
            kinds = ["word", "word", "number", "string", "arrow", "comma"]
            if depth < 2:
                kinds += ["angle", "square", "paren", "brace"]
            if self.f.dialect_body_comments and self.exotic():
                kinds.append("slashes")
            if self.f.locations_in_values and self.exotic():
                kinds.append("loc")
            kind = self.pick(kinds)
            if kind == "word":
                parts.append(
                    self.pick(
                        ["a", "x", "layout", "f32", "attributes", "loc", "module", "func.func"]
                    )
                )
            elif kind == "number":
                parts.append(self.pick(["0", "1", "-3", "2.5", "0x1F"]))
            elif kind == "string":
                text = self.string(2)
                if self.f.angle_in_dialect_strings and self.exotic() and self.chance(0.5):
                    text = '"' + self.pick(["a>b", "<", ">", "<<", "x->y", "a>=0"]) + '"'
                elif not (self.f.angle_in_dialect_strings and self.exotic()):
                    text = text.replace("<", "").replace(">", "")
                parts.append(text)
            elif kind == "arrow":
                parts.append("->")
            elif kind == "comma":
                parts.append(",")
            elif kind == "angle":
                parts.append(f"<{self.dialect_body(depth + 1)}>")
            elif kind == "square":
                parts.append(f"[{self.dialect_body(depth + 1)}]")
            elif kind == "paren":
                parts.append(f"({self.dialect_body(depth + 1)})")
            elif kind == "brace":
                parts.append(f"{{{self.dialect_body(depth + 1)}}}")
            elif kind == "slashes":
                # Text up to the line end, brackets and quotes excepted (they still count).
                parts.append(f"// {self.pick(['x', 'a, b', '-> c', 'loc', '#-'])}\n")
            else:
                parts.append(self.pick(["loc(1)", 'loc("m.py":10:4)', "loc(unknown)"]))
        return " ".join(parts)

    # -- types -------------------------------------------------------------------------

    def scalar(self) -> str:
        pool = list(_SCALARS)
        if self.f.extended_floats and self.exotic():
            pool += ["f80", "f128"]
        return self.pick(pool)

    def tensor(self, element: str | None = None) -> str:
        element = element or self.pick(_LEAF_ELEMENTS)
        if self.chance(0.1):
            return f"tensor<*x{element}>"
        shape = [self.pick(["1", "2", "3", "4", "?", "16"]) for _ in range(self.rng.randint(0, 3))]
        return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"

    def leaf_type(self) -> str:
        """A type the pipelines lower into wrappers IREE accepts (docs/spec.md §8.2's promise:
        ranked tensors, signless scalars; `iree-opt` crashes verifying a
        `hal.tensor.import` of an unranked tensor)."""
        if self.chance(0.75):
            return self.tensor().replace("*x", "")
        return self.pick(["i32", "f32", "i64", "f64"])

    def any_type(self) -> str:
        kinds = ["scalar", "tensor", "tensor", "vector", "memref", "complex", "dialect", "dialect"]
        if self.type_aliases:
            kinds.append("alias")
        kind = self.pick(kinds)
        if kind == "scalar":
            return self.scalar()
        if kind == "tensor":
            return self.tensor(self.pick([*_LEAF_ELEMENTS, "index", "complex<f32>"]))
        if kind == "vector":
            return f"vector<{self.pick(['4', '2x3', '[4]'])}x{self.pick(_FLOATS)}>"
        if kind == "memref":
            return self.pick(["memref<2x?xf32>", "memref<4xi32, strided<[1]>>", "memref<f64>"])
        if kind == "complex":
            return "complex<f32>"
        if kind == "alias":
            return self.pick(self.type_aliases)
        return self.dialect_type()

    def dialect_type(self) -> str:
        kinds = ["plain", "body", "body"]
        if self.f.opaque_dialect_values and self.exotic():
            kinds.append("opaque")
        if self.f.attributes_type_name and self.exotic():
            kinds.append("attributes")
        if self.f.locations_in_values and self.exotic():
            kinds.append("loc")
        kind = self.pick(kinds)
        if kind == "plain":
            return self.pick(["!foo.t", "!foo.buffer", "!quux.v"])
        if kind == "body":
            return f"!foo.t<{self.dialect_body()}>"
        if kind == "opaque":
            return (
                "!foo<"
                + self.pick(['"x"', '"a>b"' if self.f.angle_in_dialect_strings else '"ab"', "x"])
                + ">"
            )
        if kind == "attributes":
            return self.pick(["!foo.attributes", "!foo.attributes<1>"])
        return self.pick(["!foo.t<loc(1)>", '!foo.t<loc("m.py":1:2), x>'])

    # -- attributes --------------------------------------------------------------------

    def attr(self, depth: int = 0) -> str:
        kinds = ["int", "int", "float", "bool", "string", "string", "type", "symbol", "dialect"]
        kinds += ["dense", "array", "affine_map", "resource" if self.blobs else "int"]
        if depth < 2:
            kinds += ["list", "dict"]
        exotic = self.exotic()
        if self.f.affine_sets and exotic:
            kinds.append("affine_set")
        if self.f.opaque_dialect_values and exotic:
            kinds.append("opaque")
        if self.f.sparse_elements and exotic:
            kinds.append("sparse")
        if self.f.distinct_attributes and exotic:
            kinds.append("distinct")
        if self.f.locations_in_values and exotic:
            kinds.append("loc")
        if self.f.extended_floats and exotic:
            kinds.append("extended_float")
        if self.attr_aliases:
            kinds.append("alias")
        kind = self.pick(kinds)
        if kind == "int":
            return self.pick(
                [
                    "42 : i32",
                    "-7 : i64",
                    "255 : ui8",
                    "-128 : si8",
                    "0x1F : i64",
                    "7 : index",
                    "5",
                    "123456789012345678901234567890 : i128",
                    "-1 : i1",
                ]
            )
        if kind == "float":
            return self.pick(
                [
                    "1.5 : f32",
                    "-0.0 : f64",
                    "1.0e-10 : f64",
                    "0x7FC00000 : f32",
                    "1.0e300 : f64",
                    "0x7C00 : f16",
                    "2.5 : bf16",
                    "3.0",
                    "0xFFF0000000000000 : f64",
                ]
            )
        if kind == "extended_float":
            return self.pick(
                [
                    "1.5 : f80",
                    "0x7FFF8000000000000000 : f80",
                    "2.0 : f128",
                    "1.0e4000 : f80",
                    "0x3FFF0000000000000000000000000000 : f128",
                ]
            )
        if kind == "bool":
            return self.pick(["true", "false"])
        if kind == "string":
            typed = self.f.typed_strings and self.exotic() and self.chance(0.1)
            return self.string() + (" : i32" if typed else "")
        if kind == "type":
            return self.any_type()
        if kind == "symbol":
            if self.f.references_to_functions and self.chance(0.5):
                return self.pick(["@f", "@main", "@predict", '@"with space"', "@inner::@f"])
            return self.pick(["@nowhere", '@"a b"', "@x::@y::@z"])
        if kind == "dialect":
            return f"#foo.{self.pick(['a', 'layout', 'attr'])}<{self.dialect_body()}>"
        if kind == "opaque":
            return (
                "#foo<"
                + self.pick(['"x"', "x", '"a>b"' if self.f.angle_in_dialect_strings else '"b"'])
                + ">"
            )
        if kind == "dense":
            return self.pick(
                [
                    "dense<[1.0, 2.0]> : tensor<2xf32>",
                    "dense<1> : tensor<3xi32>",
                    'dense<"0x0000803F0000803F"> : tensor<2xf32>',
                    "dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>",
                    "dense<> : tensor<0xi32>",
                    "dense<0x7FC00000> : tensor<4xf32>",
                    "dense<true> : tensor<2xi1>",
                    "dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>",
                ]
            )
        if kind == "resource":
            return f"dense_resource<{self.pick(self.blobs)}> : tensor<2xf32>"
        if kind == "array":
            return self.pick(
                ["array<i32: 1, 2, 3>", "array<f32>", "array<i64: -1>", "array<i1: true>"]
            )
        if kind == "affine_map":
            return self.pick(
                [
                    "affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2)>",
                    "affine_map<(d0) -> (d0 floordiv 4)>",
                    "affine_map<() -> ()>",
                ]
            )
        if kind == "affine_set":
            return self.pick(
                [
                    "affine_set<(d0) : (d0 >= 0)>",
                    "affine_set<(d0, d1)[s0] : (d0 - s0 >= 0, d1 == 0)>",
                    "affine_set<(d0) : (d0 - 1 >= 0, -d0 + 10 >= 0)>",
                ]
            )
        if kind == "sparse":
            return self.pick(
                [
                    "sparse<[[0, 0]], [1.0]> : tensor<2x2xf32>",
                    "sparse<[[0, 1], [1, 0]], [5, 6]> : tensor<2x2xi32>",
                    "sparse<> : tensor<3xf32>",
                ]
            )
        if kind == "distinct":
            self.counter += 1
            referenced = self.pick(["", "42 : i32", self.string(1)])
            return f"distinct[{self.counter}]<{referenced}>"
        if kind == "loc":
            # Inside a value a location may not name an alias defined further down.
            inner = f"loc({self.loc_body(1, aliases=False)})"
            return self.pick(['[loc("m.py":10:4)]', "loc(unknown)", f"[{inner}, 1]"])
        if kind == "alias":
            return self.pick(self.attr_aliases)
        if kind == "list":
            items = [self.attr(depth + 1) for _ in range(self.rng.randint(0, 3))]
            return "[" + ("," + self.sp()).join(items) + "]"
        return self.dict_attr(depth + 1)

    def attr_key(self, dialect: bool) -> str:
        """A key of an attribute dictionary; ``dialect``: one with a dialect prefix (what
        argument, result and module attributes must have)."""
        keys = [
            "foo.a",
            "foo.b",
            "foo.c_d",
            '"foo.quoted key"',
            '"foo.a\\22b"',
            "foo.loc",
            "foo.attributes",
        ]
        if not dialect:
            keys += ["x", "value", '"quoted key"', '"a\\22b"', "attributes", "loc"]
        return self.pick(keys)

    def dict_attr(self, depth: int = 0, size: int | None = None, *, dialect: bool = False) -> str:
        count = self.rng.randint(0, 3) if size is None else size
        keys: list[str] = []
        for _ in range(count):
            key = self.attr_key(dialect)
            if key not in keys:
                keys.append(key)
        entries = []
        for key in keys:
            if self.chance(0.15):
                entries.append(key)  # a unit attribute
            else:
                eq = self.pick([" = ", "=", " =" + self.sp()])
                entries.append(f"{key}{eq}{self.attr(depth)}")
        return "{" + ("," + self.sp()).join(entries) + "}"

    def define_aliases(self) -> None:
        """Type, attribute and location aliases (definitions precede uses, except for
        locations, which MLIR resolves at the end)."""
        for _ in range(self.rng.randint(0, 2)):
            name = self.fresh("!t")
            self.prologue.append(f"{name} = {self.any_type()}")
            self.type_aliases.append(name)
        for _ in range(self.rng.randint(0, 2)):
            name = self.fresh("#a")
            if self.f.typed_attribute_aliases and self.chance(0.35):
                value = f"#foo.attr<{self.dialect_body()}> : !foo.type"
            else:
                value = self.attr(1)
            self.prologue.append(f"{name} = {value}")
            self.attr_aliases.append(name)
        for _ in range(self.rng.randint(0, 2)):
            self.define_loc_alias()

    # -- values in a body --------------------------------------------------------------

    def value_of(self, scope: list[tuple[str, str]], type_: str) -> str | None:
        matching = [name for name, t in scope if t == type_]
        return self.pick(matching) if matching else None

    def generic_op(self, scope: list[tuple[str, str]], results: list[str], indent: str) -> str:
        """`%v = "foo.op"(operands) <{props}> ({region}) {attrs} : (types) -> (types) loc`."""
        # A structured value may only flow into calls, returns and `abi` ops (the pipelines
        # refuse any other use, docs/spec.md §8).
        plain = [(n, t) for n, t in scope if not self.is_structured(t)]
        operands = self.rng.sample(plain, min(len(plain), self.rng.randint(0, 2)))
        name = self.pick(['"foo.op"', '"foo.compute"', '"quux.x"', '"foo.op_with.dots"'])
        text = name + "(" + ", ".join(o for o, _ in operands) + ")"
        if self.chance(0.2):
            text += " <{" + f"p = {self.attr(1)}" + "}>"
        if self.chance(0.15):
            block_type = self.pick(["i32", "f32", "tensor<2xf32>"])
            arg_loc = self.trailing_loc(0.5) if self.f.more_locations else ""
            text += (
                f" ({{\n{indent}^bb0(%b0: {block_type}{arg_loc}):\n"
                f'{indent}  "foo.yield"(%b0) : ({block_type}) -> (){self.trailing_loc()}\n'
                f"{indent}}})"
            )
        if self.chance(0.6):
            text += " " + self.dict_attr(1, size=self.rng.randint(1, 3))
        types = ", ".join(t for _, t in operands)
        shown = results[0] if len(results) == 1 and self.chance(0.5) else f"({', '.join(results)})"
        text += f" : ({types}) -> {shown}"
        return text + self.trailing_loc()

    def body(
        self,
        args: list[tuple[str, str]],
        results: list[str],
        indent: str,
        *,
        calls: Sequence[tuple[str, list[str], list[str]]] = (),
        stablehlo: bool = False,
    ) -> list[str]:
        """The ops of a body ending in `return` of ``results``, as lines."""
        scope = list(args)
        lines: list[str] = []
        for _ in range(self.rng.randint(0, 4)):
            roll = self.rng.random()
            value = self.fresh("%v")
            if roll < 0.3:
                result_types = [self.any_type() if not self.in_parsed_body else self.leaf_type()]
                if self.chance(0.2):
                    result_types.append(self.leaf_type())
                    text = f"{value}:2 = " + self.generic_op(scope, result_types, indent)
                    scope += [(f"{value}#0", result_types[0]), (f"{value}#1", result_types[1])]
                else:
                    text = f"{value} = " + self.generic_op(scope, result_types, indent)
                    scope.append((value, result_types[0]))
                lines.append(text)
            elif roll < 0.5:
                kind = self.rng.randint(0, 3)
                if kind == 0:
                    lines.append(f"{value} = arith.constant 3 : i32{self.trailing_loc()}")
                    scope.append((value, "i32"))
                elif kind == 1:
                    lines.append(
                        f"{value} = arith.constant 2.500000e+00 : f32{self.trailing_loc()}"
                    )
                    scope.append((value, "f32"))
                elif kind == 2:
                    lines.append(f"{value} = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>")
                    scope.append((value, "tensor<2xf32>"))
                else:
                    lines.append(f"{value} = arith.constant -1 : index")
                    scope.append((value, "index"))
            elif roll < 0.62:
                # An op over two values of the same scalar type.
                for type_, op in (
                    ("i32", "arith.addi"),
                    ("f32", "arith.mulf"),
                    ("i64", "arith.subi"),
                ):
                    same = [n for n, t in scope if t == type_]
                    if same:
                        lines.append(
                            f"{value} = {op} {self.pick(same)}, {self.pick(same)} : {type_}"
                        )
                        scope.append((value, type_))
                        break
            elif roll < 0.75 and stablehlo:
                tensors = [
                    (n, t)
                    for n, t in scope
                    if re.fullmatch(r"tensor<(?:\d+x)*(?:f32|i32|f16|i64|i8|f64|i1)>", t)
                ]
                if tensors:
                    name, type_ = self.pick(tensors)
                    op = self.pick(["stablehlo.add", "stablehlo.multiply", "stablehlo.maximum"])
                    lines.append(f"{value} = {op} {name}, {name} : {type_}{self.trailing_loc(0.6)}")
                    scope.append((value, type_))
            elif roll < 0.85 and calls:
                callee, in_types, out_types = self.pick(calls)
                candidates = [self.value_of(scope, t) for t in in_types]
                operands = [o for o in candidates if o is not None]
                if len(operands) == len(candidates):
                    lines.append(self.call(value, callee, operands, in_types, out_types))
                    if len(out_types) == 1:
                        scope.append((value, out_types[0]))
                    else:
                        scope += [(f"{value}#{i}", t) for i, t in enumerate(out_types)]
            elif roll < 0.92:
                lines.append(f"// {self.comment_text()}")
        returned = []
        for type_ in results:
            found = self.value_of(scope, type_)
            if found is None:
                found = self.fresh("%r")
                lines.append(f'{found} = "foo.make"() : () -> {type_}')
                scope.append((found, type_))
            returned.append(found)
        if returned:
            lines.append(
                f"return {', '.join(returned)} : {', '.join(results)}{self.trailing_loc(0.2)}"
            )
        else:
            lines.append(f"return{self.trailing_loc(0.2)}")
        return lines

    def call(
        self, value: str, callee: str, operands: list[str], ins: list[str], outs: list[str]
    ) -> str:
        """A call of ``callee`` (`func.call`, `call`, generic, or through a symbol alias)."""
        lhs = "" if not outs else (f"{value} = " if len(outs) == 1 else f"{value}:{len(outs)} = ")
        out_text = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
        signature = f"({', '.join(ins)}) -> {out_text}"
        roll = self.rng.random()
        if self.f.symbol_aliases and roll < 0.25:
            alias = self.fresh("#callee")
            self.prologue.append(f"{alias} = {self.symbol_ref(callee)}")
            return f'{lhs}"func.call"({", ".join(operands)}) <{{callee = {alias}}}> : {signature}'
        if roll < 0.45:
            return f'{lhs}"func.call"({", ".join(operands)}) <{{callee = {self.symbol_ref(callee)}}}> : {signature}'
        keyword = self.pick(["func.call", "call"])
        return f"{lhs}{keyword} {self.symbol_ref(callee)}({', '.join(operands)}) : {signature}{self.trailing_loc()}"

    # -- functions ---------------------------------------------------------------------

    def symbol_name(self, preferred: Sequence[str] = ()) -> str:
        pool = list(preferred) or [
            "predict",
            "forward",
            "f",
            "g0",
            "step",
            "serve",
            "x.y",
            "f-x",
            "with space",
            "é",
        ]
        if self.f.escaped_symbol_names:
            pool += ['a"b', "a\\b", "tab\there"]
        for _ in range(20):
            name = self.pick(pool)
            if name not in self.symbols:
                self.symbols.add(name)
                return name
        name = self.fresh("fn")
        self.symbols.add(name)
        return name

    def header(
        self,
        name: str,
        args: list[tuple[str, str, str, str]],
        results: list[tuple[str, str]],
        *,
        visibility: str = "",
        attributes: str = "",
        declaration: bool = False,
    ) -> str:
        """`func.func [vis] @name(%a: T {attrs} loc, …) -> (T {attrs}, …) attributes {…}`."""
        pieces = []
        for ssa, type_, attrs, loc in args:
            piece = f"{ssa}: {type_}"
            if attrs:
                piece += " " + attrs
            if loc:
                piece += " " + loc
            pieces.append(piece)
        text = f"func.func {visibility + ' ' if visibility else ''}{self.symbol_ref(name)}("
        text += ("," + self.sp("      ")).join(pieces) + ")"
        if results:
            rendered = [t + (" " + a if a else "") for t, a in results]
            if len(results) == 1 and not results[0][1] and not results[0][0].startswith("("):
                text += f"{self.sp('      ')}->{self.sp('      ')}{rendered[0]}"
            else:
                text += f"{self.sp('      ')}->{self.sp('      ')}({', '.join(rendered)})"
        if attributes:
            text += f"{self.sp('      ')}attributes{self.sp('      ')}{attributes}"
        return text

    def function(
        self,
        name: str,
        args: list[tuple[str, str, str, str]],
        results: list[tuple[str, str]],
        body: list[str] | None,
        *,
        visibility: str = "",
        attributes: str = "",
        indent: str = "  ",
    ) -> str:
        text = self.header(name, args, results, visibility=visibility, attributes=attributes)
        if body is None:
            if self.f.more_locations:
                text += self.trailing_loc(0.5)
            return text
        inner = indent + "  "
        if self.f.ops_on_one_line and self.chance(0.15):
            joined = " ".join(body)
            if "//" not in joined:
                return text + " { " + joined + " }" + self.trailing_loc(0.3)
        lines = [inner + line for line in body]
        return text + " {\n" + "\n".join(lines) + f"\n{indent}}}" + self.trailing_loc(0.3)

    def arg_list(self, types: list[str], *, parsed: bool) -> list[tuple[str, str, str, str]]:
        args = []
        for i, type_ in enumerate(types):
            ssa = self.pick([f"%arg{i}", f"%{self.pick(['x', 'in', 'a_b', 'p'])}{i}", f"%{i}"])
            attrs = ""
            if self.chance(0.25):
                self.in_parsed_body, saved = parsed, self.in_parsed_body
                attrs = self.dict_attr(1, size=self.rng.randint(1, 2), dialect=True)
                self.in_parsed_body = saved
            loc = self.location() if self.chance(0.25) else ""
            args.append((ssa, type_, attrs, loc))
        # `%0` and `%arg0` must not repeat: numbering is by position, names are distinct.
        return args

    def flat_function(
        self, name: str, calls: list[tuple[str, list[str], list[str]]], *, public: bool
    ) -> tuple[str, list[str], list[str]]:
        in_types = [self.any_type() for _ in range(self.rng.randint(0, 3))]
        out_types = [self.any_type() for _ in range(self.rng.randint(0, 2))]
        args = self.arg_list(in_types, parsed=False)
        results = [
            (t, self.dict_attr(1, size=1, dialect=True) if self.chance(0.2) else "")
            for t in out_types
        ]
        attributes = self.dict_attr(1, size=self.rng.randint(1, 3)) if self.chance(0.4) else ""
        body = self.body(
            [(a[0], a[1]) for a in args], out_types, "    ", calls=calls, stablehlo=True
        )
        visibility = "" if public else "private"
        text = self.function(
            name, args, results, body, visibility=visibility, attributes=attributes
        )
        return text, in_types, out_types

    def structured_type(self, depth: int = 0) -> str:
        if depth >= 2 or self.chance(0.3):
            return self.leaf_type()
        if self.chance(0.55):
            items = [self.structured_type(depth + 1) for _ in range(self.rng.randint(0, 3))]
            return f"tuple<{', '.join(items)}>"
        keys: list[str] = []
        for _ in range(self.rng.randint(1, 3)):
            key = self.pick(["bias", "kernel", "w", "a b", "é", 'q"t', "z", "a\\b"])
            if key not in keys:
                keys.append(key)
        entries = []
        for key in keys:
            literal = string_literal(key)
            if not self.f.dict_key_spellings:
                literal = literal.replace('\\"', "\\22")  # MLIR's own spelling of a quote
            entries.append(f"{literal}: {self.structured_type(depth + 1)}")
        return "!abi.dict<" + ", ".join(entries) + ">"

    def is_structured(self, type_: str) -> bool:
        return type_.startswith(("tuple<", "!abi.dict<")) or type_ in self.structured_aliases

    def spelled(self, type_: str) -> str:
        """A structured type, sometimes through a type alias."""
        if not self.f.structured_type_aliases or not self.chance(0.3):
            return type_
        for alias, value in self.structured_aliases.items():
            if value == type_:
                return alias
        alias = self.fresh("!pair")
        self.prologue.append(f"{alias} = {type_}")
        self.structured_aliases[alias] = type_
        return alias

    def structured_functions(self) -> list[str]:
        """An exported function with tuple/dict values and a private helper it calls (both
        flattened by the pipelines, so both bodies are parsed), or one that returns its
        arguments, or one that takes a tuple apart with generic-form `abi` ops."""
        self.in_parsed_body = True
        try:
            types = [self.structured_type() for _ in range(self.rng.randint(1, 3))]
            if not any(t.startswith(("tuple", "!abi")) for t in types):
                types[0] = f"tuple<{self.leaf_type()}, {self.leaf_type()}>"
            spelled = [self.spelled(t) for t in types]
            out = self.rng.sample(spelled, self.rng.randint(0, len(spelled)))
            name = self.symbol_name()
            texts = []
            args = self.arg_list(spelled, parsed=True)
            scope = [(a[0], a[1]) for a in args]
            style = self.rng.randint(0, 2)
            if style == 0:
                helper = self.symbol_name()
                body = [self.call("%out", helper, [a[0] for a in args], spelled, out)]
                if len(out) == 1:
                    body.append(f"return %out : {out[0]}")
                elif out:
                    body.append(
                        f"return {', '.join(f'%out#{i}' for i in range(len(out)))} : {', '.join(out)}"
                    )
                else:
                    body.append("return")
                helper_args = self.arg_list(spelled, parsed=True)
                helper_body = self.body([(a[0], a[1]) for a in helper_args], out, "    ")
                texts.append(
                    self.function(
                        helper,
                        helper_args,
                        [(t, "") for t in out],
                        helper_body,
                        visibility="private",
                    )
                )
            elif style == 1:
                tuples = [
                    (n, t)
                    for n, t in zip([a[0] for a in args], types, strict=True)
                    if t.startswith("tuple<") and t != "tuple<>"
                ]
                body = []
                if tuples:
                    value, type_ = tuples[0]
                    items = _tuple_items(type_)
                    shown = next(s for s, t in zip(spelled, types, strict=True) if t == type_)
                    body.append(
                        f'%item = "abi.tuple.get"({value}) <{{index = 0 : index}}> : ({shown}) -> {items[0]}'
                    )
                    scope.append(("%item", items[0]))
                body += self.body(scope, out, "    ")
            else:
                body = self.body(scope, out, "    ")
            attributes = self.dict_attr(1, size=1) if self.chance(0.3) else ""
            visibility = self.pick(["", "", "public"])
            texts.insert(
                0,
                self.function(
                    name,
                    args,
                    [(t, "") for t in out],
                    body,
                    visibility=visibility,
                    attributes=attributes,
                ),
            )
            if self.f.symbol_collisions and self.chance(0.3):
                texts.append(self.collision("_" + name))
            return texts
        finally:
            self.in_parsed_body = False

    def collision(self, name: str) -> str:
        """An op defining the symbol ``name`` (what a pipeline would call an implementation)."""
        if name in self.symbols:
            return "// (collision skipped)"
        self.symbols.add(name)
        ref = self.symbol_ref(name)
        kind = self.rng.randint(0, 3)
        if kind == 0:
            return f'memref.global "private" {ref} : memref<2xf32> = dense<[1.0, 2.0]>'
        if kind == 1:
            return f"util.global private {ref} : i32"
        if kind == 2:
            quoted = string_literal(name)
            return (
                f'"memref.global"() <{{sym_name = {quoted}, sym_visibility = "private", '
                f"type = memref<2xf32>, initial_value = dense<0.0> : tensor<2xf32>}}> : () -> ()"
            )
        return f'"func.func"() <{{function_type = () -> (), sym_name = {string_literal(name)}, sym_visibility = "private"}}> ({{\n    "func.return"() : () -> ()\n  }}) : () -> ()'

    # -- JAX/StableHLO and index-path exports ------------------------------------------

    def pytree_paths(self) -> list[str]:
        """Key strings of a random pytree's leaves, in JAX's key-string form."""

        def grow(prefix: str, depth: int) -> list[str]:
            if depth >= 2 or self.chance(0.4):
                return [prefix]
            if self.chance(0.5):
                keys = sorted(
                    {
                        self.pick(["bias", "kernel", "dense", "w", "it's", 'q"k', "é"])
                        for _ in range(self.rng.randint(1, 3))
                    }
                )
                out = []
                for key in keys:
                    out += grow(f"{prefix}[{key!r}]", depth + 1)
                return out
            if self.chance(0.3):
                return [
                    leaf
                    for field_ in ["x", "y"][: self.rng.randint(1, 2)]
                    for leaf in grow(f"{prefix}.{field_}", depth + 1)
                ]
            out = []
            for i in range(self.rng.randint(1, 3)):
                out += grow(f"{prefix}[{i}]", depth + 1)
            return out

        paths: list[str] = []
        for parameter in self.rng.sample(
            ["params", "x", "batch", "state", "kwargs"], self.rng.randint(1, 3)
        ):
            paths += grow(parameter, 0)
        return paths

    def jax_functions(self) -> list[str]:
        """A public `@main` named by locations (or `jax.arg_info`), with `jax.result_info`,
        a stablehlo body; sometimes as JAX writes it under shape polymorphism: a private
        `@_wrapped_jax_export_main` holding the names and a public `@main` calling it."""
        paths = self.pytree_paths()
        types = [
            self.tensor(self.pick(["f32", "i32"])).replace("*x", "2x").replace("?", "3")
            for _ in paths
        ]
        args = []
        for i, (path, type_) in enumerate(zip(paths, types, strict=True)):
            attrs = []
            roll = self.rng.random()
            if self.chance(0.3):
                attrs.append('mhlo.sharding = "{replicated}"')
            if self.chance(0.2):
                attrs.append('mhlo.layout_mode = "default"')
            if roll < 0.15:
                attrs.append(f"jax.arg_info = {string_literal(path)}")
                loc = ""
            elif roll < 0.5:
                loc = f"loc({string_literal(path)})"
            elif roll < 0.65:
                loc = f"loc({string_literal(path)}({self.filename()}:1:{i + 1}))"
            else:
                alias = self.fresh("#loc")
                definition = f"{alias} = loc({string_literal(path)})"
                self.place(definition, self.pick(["prologue", "epilogue", "epilogue"]))
                self.loc_aliases.append(alias)
                loc = f"loc({alias})"
            args.append((f"%arg{i}", type_, "{" + ", ".join(attrs) + "}" if attrs else "", loc))
        result_types = self.rng.sample(types, self.rng.randint(1, min(3, len(types))))
        prefix = self.pick(["result", ""])
        if len(result_types) == 1 and self.chance(0.5):
            infos = [prefix]
        else:
            infos = [f"{prefix}[{i}]" for i in range(len(result_types))]
        results = [
            (t, f"{{jax.result_info = {string_literal(info)}}}")
            for t, info in zip(result_types, infos, strict=True)
        ]
        attributes = ""
        body = self.body([(a[0], a[1]) for a in args], result_types, "    ", stablehlo=True)
        wrapped = "main" not in self.symbols and self.chance(0.3)
        if "main" in self.symbols:
            name = self.symbol_name(["predict_jax", "serve_jax", "step_jax"])
        else:
            name = "main"
            self.symbols.add(name)
        texts = []
        if wrapped and "_wrapped_jax_export_main" not in self.symbols:
            self.symbols.add("_wrapped_jax_export_main")
            inner = self.function(
                "_wrapped_jax_export_main", args, results, body, visibility="private"
            )
            outer_args = [(f"%arg{i}", t, "", "") for i, t in enumerate(types)]
            call = self.call(
                "%0", "_wrapped_jax_export_main", [a[0] for a in outer_args], types, result_types
            )
            if len(result_types) == 1:
                returned = "%0"
            else:
                returned = ", ".join(f"%0#{i}" for i in range(len(result_types)))
            outer_body = [call, f"return {returned} : {', '.join(result_types)}"]
            texts.append(self.function(name, outer_args, results, outer_body, visibility="public"))
            texts.append(inner)
        else:
            texts.append(
                self.function(
                    name,
                    args,
                    results,
                    body,
                    visibility=self.pick(["public", ""]),
                    attributes=attributes,
                )
            )
        self.jax_export = (name, types, result_types)
        self.wrapped_exports.append(self.jax_export)
        if self.f.symbol_collisions and self.chance(0.2):
            texts.append(self.collision("_" + name))
        return texts

    def index_path_function(self) -> str:
        paths = self.pytree_paths()
        roots: dict[str, int] = {}
        args = []
        for i, path in enumerate(paths):
            root = path[: len(path) - len(path.lstrip("abcdefghijklmnopqrstuvwxyz_"))]
            position = roots.setdefault(root, len(roots))
            components = [str(position)]
            for key in re.findall(r"\[(\d+|'[^']*'|\"[^\"]*\")\]|\.(\w+)", path[len(root) :]):
                if key[1]:
                    components.append(string_literal(key[1]))
                elif key[0][0] in "'\"":
                    components.append(string_literal(ast.literal_eval(key[0])))
                else:
                    components.append(key[0])
            type_ = self.leaf_type()
            args.append((f"%arg{i}", type_, f"{{abi.index_path = [{', '.join(components)}]}}", ""))
        result = [(args[0][1], "{abi.index_path = [0]}")]
        body = self.body([(a[0], a[1]) for a in args], [args[0][1]], "    ", stablehlo=True)
        name = self.symbol_name()
        self.wrapped_exports.append((name, [a[1] for a in args], [args[0][1]]))
        return self.function(name, args, result, body)

    def caller(self, callee: str, ins: list[str], outs: list[str]) -> str:
        """A function calling an export V1 wraps (its implementation becomes `@_<name>`):
        the call, direct, generic or through a symbol alias, must follow."""
        name = self.symbol_name(["use_export", "caller", "driver"])
        args = [(f"%arg{i}", type_, "", "") for i, type_ in enumerate(ins)]
        body = [self.call("%r", callee, [a[0] for a in args], ins, outs)]
        returned = "%r" if len(outs) == 1 else ", ".join(f"%r#{i}" for i in range(len(outs)))
        body.append(f"return {returned} : {', '.join(outs)}" if outs else "return")
        results = [(type_, "") for type_ in outs]
        return self.function(name, args, results, body, visibility=self.pick(["private", ""]))

    def nested_module(self) -> str:
        """`module @inner { … }` defining functions named like top-level symbols."""
        name = self.symbol_name(["inner", "sub", "nested"])
        shadowed = list(self.symbols - {name})
        funcs = []
        for symbol in self.rng.sample(shadowed, min(len(shadowed), self.rng.randint(1, 2))):
            types = [self.leaf_type() for _ in range(self.rng.randint(0, 2))]
            args = [(f"%arg{i}", t, "", "") for i, t in enumerate(types)]
            body = self.body([(a[0], a[1]) for a in args], types[:1], "      ")
            funcs.append(
                "  "
                + self.function(symbol, args, [(t, "") for t in types[:1]], body, indent="    ")
            )
        ref = self.symbol_ref(name)
        header = self.pick(
            [
                f"module {ref}",
                f"builtin.module {ref}",
                f"module {ref} attributes {self.dict_attr(1, size=1, dialect=True)}",
            ]
        )
        return header + " {\n" + "\n".join(funcs) + "\n  }"

    # -- the module --------------------------------------------------------------------

    def resources(self) -> str:
        sections = []
        if self.blobs:
            blobs = ",\n".join(f'      {b}: "0x040000000000803F00000040"' for b in self.blobs)
            sections.append(f"  dialect_resources: {{\n    builtin: {{\n{blobs}\n    }}\n  }}")
        if self.f.resource_strings and self.chance(0.6):
            value = self.pick(['"a #-} b"', '"#-}"', '"{-# x #-}"', '"q\\"#-}"', '"// #-}"'])
            sections.append(
                f"  external_resources: {{\n    foo_config: {{\n      key: {value},\n      flag: true\n    }}\n  }}"
            )
        if not sections:
            return ""
        return "{-#\n" + ",\n".join(sections) + "\n#-}"

    def module(self) -> str:
        if self.chance(0.3):
            self.blobs = [self.fresh("blob") for _ in range(self.rng.randint(1, 2))]
        self.define_aliases()
        items: list[str] = []
        calls: list[tuple[str, list[str], list[str]]] = []
        if self.f.jax_functions and self.chance(0.45):
            items += self.jax_functions()
            if self.jax_export is not None:
                name, ins, outs = self.jax_export
                calls.append((name, ins, outs))
        for _ in range(self.rng.randint(1, 4)):
            roll = self.rng.random()
            if roll < 0.35:
                items += self.structured_functions()
            elif roll < 0.5:
                items.append(self.index_path_function())
            else:
                name = self.symbol_name()
                text, ins, outs = self.flat_function(name, calls, public=self.chance(0.6))
                items.append(text)
                calls.append((name, ins, outs))
        for callee, ins, outs in self.wrapped_exports:
            if self.chance(0.5):
                items.append(self.caller(callee, ins, outs))
        if self.f.declarations and self.chance(0.4):
            name = self.symbol_name(["ext", "extern_fn", "ext2"])
            types = [self.any_type() for _ in range(self.rng.randint(0, 2))]
            args = self.arg_list(types, parsed=False)
            results = [(self.any_type(), "")] if self.chance(0.7) else []
            items.insert(
                self.rng.randint(0, len(items)),
                self.function(name, args, results, None, visibility="private"),
            )
        if self.f.nested_modules and self.chance(0.3):
            items.insert(self.rng.randint(0, len(items)), self.nested_module())
        if self.chance(0.2):
            self.in_parsed_body = False
            items.insert(
                self.rng.randint(0, len(items)),
                f'"foo.top"() {self.dict_attr(1, size=2)} : () -> (){self.trailing_loc()}',
            )
        if self.chance(0.3):
            # MLIR resolves symbols in any order: calls stay valid.
            self.rng.shuffle(items)
        implicit = self.chance(0.35)
        text = self.layout(items, implicit)
        return self.line_ends(text)

    def layout(self, items: list[str], implicit: bool) -> str:
        parts: list[str] = []
        if self.prologue:
            parts.append("\n".join(self.prologue))
        resources = self.resources()
        resources_first = bool(resources) and self.chance(0.3)
        if resources_first:
            parts.append(resources)
        separators = []
        for _ in items:
            if self.f.ops_on_one_line and self.chance(0.12):
                separators.append(" ")
            elif self.chance(0.15):
                separators.append(f"\n\n// {self.comment_text()}\n")
            else:
                separators.append("\n")
        if implicit:
            body_parts: list[str] = []
            between = list(self.between)
            for i, item in enumerate(items):
                body_parts.append(item)
                if i + 1 < len(items):
                    if between and self.chance(0.5):
                        body_parts.append("\n" + between.pop() + "\n")
                    else:
                        body_parts.append(separators[i])
            parts.append("".join(body_parts))
            self.epilogue += between
        else:
            self.epilogue += self.between
            header = self.pick(["module", "builtin.module", "module @jit_model", "module @m"])
            if self.chance(0.4):
                module_attributes = self.dict_attr(1, size=self.rng.randint(1, 3), dialect=True)
                if self.chance(0.3):
                    module_attributes = "{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, jax.uses_shape_polymorphism = false}"
                header += f" attributes {module_attributes}"
            body = "".join(
                "  " + item + (separators[i] if i + 1 < len(items) else "")
                for i, item in enumerate(items)
            )
            trailing = self.trailing_loc(0.3) if self.f.more_locations else ""
            parts.append(f"{header} {{\n{body}\n}}{trailing}")
        if self.epilogue:
            parts.append("\n".join(self.epilogue))
        if resources and not resources_first:
            parts.append(resources)
        return "\n".join(parts) + "\n"

    def line_ends(self, text: str) -> str:
        roll = self.rng.random()
        if self.f.cr_line_ends and roll < 0.1:
            return text.replace("\n", "\r")
        if self.f.crlf_line_ends and roll < 0.25:
            return text.replace("\n", "\r\n")
        return text


def _escape_byte(byte: int) -> str:
    if byte == 0x22:
        return '\\"'
    if byte == 0x5C:
        return "\\\\"
    if 0x20 <= byte < 0x7F:
        return chr(byte)
    return f"\\{byte:02X}"


def _tuple_items(type_: str) -> list[str]:
    """The item types of a `tuple<…>` text (top-level commas)."""
    inner = type_[len("tuple<") : -1]
    items, depth, start = [], 0, 0
    for i, char in enumerate(inner):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(inner[start:i].strip())
            start = i + 1
    if inner.strip():
        items.append(inner[start:].strip())
    return items


def generate(seed: int, index: int, features: Features) -> str:
    """Module ``index`` of the run with ``seed`` (each module reproducible on its own)."""
    rng = random.Random(f"{seed}:{index}")
    return ModuleGenerator(rng, features).module()


# --------------------------------------------------------------------------------------
# The tools
# --------------------------------------------------------------------------------------

_INPUT_SPLIT = "// ===== oracle chunk ====="
_OUTPUT_SPLIT = "// ===== oracle output ====="


def find_iree_opt() -> str | None:
    """IREE's `iree-opt` from the installed `iree-base-compiler`, or on PATH."""
    try:
        from iree.compiler.tools.binaries import find_tool

        return str(find_tool("iree-opt"))
    except Exception:
        return shutil.which("iree-opt")


class IreeOpt:
    """`iree-opt --allow-unregistered-dialect --mlir-print-op-generic` over many modules in
    one process (`--split-input-file`): the generic form of each, or None when rejected."""

    def __init__(self, path: str, workdir: Path) -> None:
        self.path = path
        self.workdir = workdir

    def generic(self, texts: Sequence[str]) -> list[str | None]:
        if not texts:
            return []
        batch = self.workdir / "batch.mlir"
        batch.write_bytes(
            ("\n" + _INPUT_SPLIT + "\n").join(texts).encode("utf-8", "surrogateescape")
        )
        result = subprocess.run(
            [
                self.path,
                "--allow-unregistered-dialect",
                "--mlir-print-op-generic",
                "--mlir-print-local-scope",
                f"--split-input-file={_INPUT_SPLIT}",
                f"--output-split-marker={_OUTPUT_SPLIT}",
                str(batch),
            ],
            capture_output=True,
            check=False,
        )
        outputs = re.split(
            rf"^{re.escape(_OUTPUT_SPLIT)}\n",
            result.stdout.decode("utf-8", "surrogateescape"),
            flags=re.MULTILINE,
        )
        if result.returncode < 0 or len(outputs) != len(texts):
            # A crash, or output we cannot split: one process per module.
            if len(texts) == 1:
                return [None]
            return [out for text in texts for out in self.generic([text])]
        return [out.strip() or None for out in outputs]

    def diagnostics(self, text: str) -> str:
        """What `iree-opt` says about one module (its stderr)."""
        single = self.workdir / "single.mlir"
        single.write_bytes(text.encode("utf-8", "surrogateescape"))
        result = subprocess.run(
            [
                self.path,
                "--allow-unregistered-dialect",
                "--mlir-print-op-generic",
                "--mlir-print-local-scope",
                str(single),
            ],
            capture_output=True,
            check=False,
        )
        return result.stderr.decode("utf-8", "replace")


@dataclass
class AbiOptRun:
    status: int
    output: str
    stderr: str

    @property
    def internal(self) -> bool:
        return "internal error" in self.stderr or self.status == -1


class _Timeout(BaseException):
    pass


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Timeout


def run_abi_opt(path: Path, args: Sequence[str], timeout: float | None = None) -> AbiOptRun:
    """`abi-opt` in this process on ``path``: exit status, output, diagnostics. An
    exception escaping the driver or a run longer than ``timeout`` is status -1."""
    from abi_compiler.commands.opt_main import AbiOptMain

    out, err = io.StringIO(), io.StringIO()
    alarm = timeout if hasattr(signal, "SIGALRM") else None
    if alarm is not None:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, alarm)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = AbiOptMain.main(["--allow-unregistered-dialect", str(path), *args])
    except _Timeout:
        return AbiOptRun(-1, out.getvalue(), err.getvalue() + f"\n(timeout after {timeout} s)")
    except BaseException as error:  # anything escaping the driver is a defect
        return AbiOptRun(
            -1, out.getvalue(), err.getvalue() + f"\n(escaped: {type(error).__name__}: {error})"
        )
    finally:
        if alarm is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return AbiOptRun(status, out.getvalue(), err.getvalue())


PIPELINES = ("iree-abi-v1", "iree-abi-legacy")
#: The `abi-opt` runs per module: no pass (the identity), the reflection pass alone (every
#: exported header re-printed, nothing lowered), and both pipelines.
RUNS: dict[str, list[str]] = {
    "no pass": [],
    "reflection": ["-p", "materialize-iree-abi"],
    **{p: ["-p", p] for p in PIPELINES},
}
CATEGORIES = ("identical", "skipped", "differing", "refused", "internal", "invalid output")

_REFLECTION = re.compile(r'iree\.reflection = \{iree\.abi = "(?:[^"\\]|\\.)*"\}')
_OP_LINE = re.compile(r'^(?:%[^=]*= )?"([A-Za-z_][\w$]*)\.[^"]*"')
_SSA = re.compile(r"%[\w$.\-]+(?:#\d+)?|\^bb\d+")
#: Dialects whose ops the pipelines create, remove or rewrite (calls, returns, functions,
#: wrapper ops, folded `abi` ops); the ops of every other dialect pass through unchanged.
_REWRITTEN_DIALECTS = frozenset({"builtin", "func", "abi", "util", "hal"})


def without_reflection(generic: str) -> str:
    """A generic form without `iree.reflection = {iree.abi = …}` entries (what
    `materialize-iree-abi` adds)."""
    generic = re.sub(r" \{" + _REFLECTION.pattern + r"\}", "", generic)
    generic = re.sub(r", " + _REFLECTION.pattern, "", generic)
    return re.sub(_REFLECTION.pattern + r", ", "", generic)


_DISTINCT_ID = re.compile(r"\bdistinct\[\d+\]")


def carried_ops(generic: str) -> Counter[str]:
    """The ops a pipeline must leave alone (every dialect but `_REWRITTEN_DIALECTS`, and no
    `arith.constant … : index`, which wrappers add), as a multiset of their generic text
    with value names dropped, `@_name` read as `@name` (a renamed export's references
    follow it) and `distinct[N]` as `distinct[]` (`iree-opt` numbers distinct attributes
    in the order it prints them: a dropped argument attribute renumbers the others). A
    region op counts its first and last line."""
    found: Counter[str] = Counter()
    open_ops: list[str | None] = []
    for raw in generic.splitlines():
        line = raw.strip()
        name: str | None = None
        match = _OP_LINE.match(line)
        if line.startswith("})") or line.startswith("}, {"):
            name = (
                open_ops.pop()
                if line.startswith("})") and open_ops
                else (open_ops[-1] if open_ops else None)
            )
        elif match is not None:
            name = match.group(1)
        if line.endswith("({") and match is not None:
            open_ops.append(name)
        if name is None or name in _REWRITTEN_DIALECTS:
            continue
        if line.endswith("-> index") and ('"arith.constant"' in line or '"tensor.dim"' in line):
            continue  # a wrapper's list index or dynamic dimension
        text = _DISTINCT_ID.sub("distinct[]", _SSA.sub("%", line))
        found[re.sub(r'@(")?_+', r"@\1", text)] += 1
    return found


@dataclass
class Outcome:
    """What happened to one module: its category and what a failure report needs."""

    index: int
    text: str
    category: str
    runs: dict[str, AbiOptRun] = field(default_factory=dict)
    #: Generic forms: "input", and each run's output that iree-opt read.
    generic: dict[str, str] = field(default_factory=dict)
    #: Run -> what differs from the input (value changes).
    differences: dict[str, str] = field(default_factory=dict)
    #: Pipeline -> what `iree-opt` says about its output (it rejects it).
    rejected: dict[str, str] = field(default_factory=dict)
    #: What `iree-opt` says about a skipped input.
    skipped_because: str = ""

    def report(self, seed: int) -> str:
        lines = [f"module {self.index} of seed {seed}: {self.category}"]
        for name, args in RUNS.items():
            run = self.runs.get(name)
            if run is None:
                continue
            command = " ".join(["abi-opt --allow-unregistered-dialect input.mlir", *args])
            lines.append(f"$ {command}  -> exit {run.status}")
            lines += [f"  {line}" for line in run.stderr.strip().splitlines()[:20]]
        if self.skipped_because:
            lines.append("iree-opt rejects the input:")
            lines += [f"  {line}" for line in self.skipped_because.strip().splitlines()[:10]]
        for pipeline, diagnostics in self.rejected.items():
            lines.append(f"iree-opt rejects the output of -p {pipeline}:")
            lines += [f"  {line}" for line in diagnostics.strip().splitlines()[:10]]
        for name, difference in self.differences.items():
            lines.append(f"values changed by {name!r} (iree-opt generic forms):")
            lines.append(difference)
        return "\n".join(lines) + "\n"


def _diff(before: str, after: str, before_name: str, after_name: str) -> str:
    return "\n".join(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), before_name, after_name, lineterm="", n=1
        )
    )


def _counter_diff(before: Counter[str], after: Counter[str]) -> str:
    lost = before - after
    gained = after - before
    return "\n".join(
        [
            *(f"- {line}" for line in sorted(lost.elements())),
            *(f"+ {line}" for line in sorted(gained.elements())),
        ]
    )


def check_modules(
    texts: Sequence[str],
    iree_opt: IreeOpt,
    workdir: Path,
    timeout: float | None = None,
    *,
    explain_skipped: bool = False,
) -> list[Outcome]:
    """Run every module through `abi-opt` and judge it by `iree-opt`:

    * the generic form of the no-pass output is the input's;
    * the reflection pass's is the input's but for the `iree.reflection` it adds;
    * each pipeline's output is accepted, and keeps every op of the dialects it does not
      rewrite exactly as the input has it (`carried_ops`)."""
    outcomes = [Outcome(i, t, "") for i, t in enumerate(texts)]
    for outcome, generic in zip(outcomes, iree_opt.generic(texts), strict=True):
        if generic is None:
            outcome.category = "skipped"
            if explain_skipped:
                outcome.skipped_because = iree_opt.diagnostics(outcome.text)
        else:
            outcome.generic["input"] = generic
    live = [o for o in outcomes if o.category == ""]
    source = workdir / "input.mlir"
    for outcome in live:
        source.write_bytes(outcome.text.encode("utf-8", "surrogateescape"))
        for name, args in RUNS.items():
            outcome.runs[name] = run_abi_opt(source, args, timeout)
    produced = [(o, name) for o in live for name in RUNS if o.runs[name].status == 0]
    read = iree_opt.generic([o.runs[name].output for o, name in produced])
    for (outcome, name), generic in zip(produced, read, strict=True):
        if generic is None:
            outcome.rejected[name] = iree_opt.diagnostics(outcome.runs[name].output)
        else:
            outcome.generic[name] = generic
    for outcome in live:
        expected = outcome.generic["input"]
        if "no pass" in outcome.generic and outcome.generic["no pass"] != expected:
            outcome.differences["no pass"] = _diff(
                expected, outcome.generic["no pass"], "input", "no pass"
            )
        if "reflection" in outcome.generic:
            reflected = without_reflection(outcome.generic["reflection"])
            if reflected != expected:
                outcome.differences["reflection"] = _diff(
                    expected, reflected, "input", "reflection"
                )
        carried = carried_ops(expected)
        for pipeline in PIPELINES:
            if pipeline in outcome.generic:
                kept = carried_ops(outcome.generic[pipeline])
                if kept != carried:
                    outcome.differences[pipeline] = _counter_diff(carried, kept)
        runs = outcome.runs.values()
        if any(run.internal for run in runs):
            outcome.category = "internal"
        elif any(run.status != 0 for run in runs):
            outcome.category = "refused"
        elif outcome.differences:
            outcome.category = "differing"
        elif outcome.rejected:
            outcome.category = "invalid output"
        else:
            outcome.category = "identical"
    return outcomes


def run_campaign(
    seed: int,
    count: int,
    features: Features,
    *,
    batch: int = 200,
    timeout: float | None = None,
    progress: Callable[[Counter[str]], None] | None = None,
    explain_skipped: bool = False,
) -> Iterator[Outcome]:
    """Generate ``count`` modules and check them in batches; yields every outcome."""
    path = find_iree_opt()
    if path is None:
        raise RuntimeError("iree-opt not found: pip install iree-base-compiler")
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
        workdir = Path(tmp)
        iree_opt = IreeOpt(path, workdir)
        for start in range(0, count, batch):
            indices = range(start, min(count, start + batch))
            texts = [generate(seed, i, features) for i in indices]
            outcomes = check_modules(
                texts, iree_opt, workdir, timeout, explain_skipped=explain_skipped
            )
            for index, outcome in zip(indices, outcomes, strict=True):
                outcome.index = index
                counts[outcome.category] += 1
                yield outcome
            if progress is not None:
                progress(counts)


def write_case(directory: Path, outcome: Outcome, seed: int) -> Path:
    case = directory / f"{outcome.category.replace(' ', '-')}-{seed}-{outcome.index}"
    case.mkdir(parents=True, exist_ok=True)
    (case / "input.mlir").write_bytes(outcome.text.encode("utf-8", "surrogateescape"))
    (case / "report.txt").write_text(outcome.report(seed), encoding="utf-8")
    for name, run in outcome.runs.items():
        stem = name.replace(" ", "-")
        (case / f"{stem}.out.mlir").write_text(
            run.output, encoding="utf-8", errors="surrogateescape"
        )
        (case / f"{stem}.stderr").write_text(run.stderr, encoding="utf-8")
    for name, generic in outcome.generic.items():
        stem = name.replace(" ", "-")
        (case / f"{stem}.generic.mlir").write_text(
            generic, encoding="utf-8", errors="surrogateescape"
        )
    return case


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.hardening.oracle", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--count", type=int, default=1000, help="modules to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="directory for failing cases")
    parser.add_argument(
        "--features",
        default="all",
        help="'all', 'passing' (without RESTRICTED), 'all-<f1>,<f2>' (all but those), "
        "'none', 'none+<f1>,<f2>' (only those)",
    )
    parser.add_argument(
        "--only", help="comma-separated categories to write (default: all failures)"
    )
    parser.add_argument("--batch", type=int, default=200, help="modules per iree-opt process")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per abi-opt run")
    parser.add_argument("--print", type=int, metavar="INDEX", help="print module INDEX and exit")
    args = parser.parse_args(argv)
    if args.features == "all":
        features = Features()
    elif args.features == "passing":
        features = Features.passing()
    elif args.features.startswith("all-"):
        features = Features().without(args.features[4:].split(","))
    elif args.features == "none" or args.features.startswith("none+"):
        on = set(args.features[5:].split(",")) if args.features != "none" else set()
        features = Features().without([n for n in Features.names() if n not in on])
    else:
        parser.error(f"--features: unknown value {args.features!r}")
    if args.print is not None:
        sys.stdout.write(generate(args.seed, args.print, features))
        return 0
    wanted = set(args.only.split(",")) if args.only else set(CATEGORIES) - {"identical"}
    started = time.perf_counter()
    counts: Counter[str] = Counter()

    def progress(current: Counter[str]) -> None:
        done = sum(current.values())
        print(
            f"  {done}/{args.count} in {time.perf_counter() - started:.0f} s: {dict(current)}",
            file=sys.stderr,
        )

    for outcome in run_campaign(
        args.seed,
        args.count,
        features,
        batch=args.batch,
        timeout=args.timeout,
        progress=progress,
        explain_skipped=args.out is not None,
    ):
        counts[outcome.category] += 1
        if args.out is not None and outcome.category in wanted:
            write_case(args.out, outcome, args.seed)
    tried = sum(counts.values())
    print(
        f"seed {args.seed}, features {args.features}: {tried} modules in {time.perf_counter() - started:.0f} s"
    )
    print(f"  tried                 {tried}")
    print(f"  skipped by iree-opt   {counts['skipped']}")
    print(f"  identical             {counts['identical']}")
    print(f"  differing             {counts['differing']}")
    print(f"  refused               {counts['refused']}")
    print(f"  internal errors       {counts['internal']}")
    print(f"  invalid output        {counts['invalid output']}")
    if args.out is not None:
        print(f"failing cases in {args.out}")
    return 0 if counts["identical"] + counts["skipped"] == tried else 1


if __name__ == "__main__":
    sys.exit(main())
