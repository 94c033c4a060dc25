"""Pass-pipeline performance of `abi-opt` against its floor and against xDSL and IREE.

Generates modules of exported functions with a realistic, seeded mix of signatures
(tensors with dynamic dims, scalars, nested tuples and dicts, `!util.list` values, named
arguments; bodies that take structures apart with `abi.tuple.get` / `abi.dict.get`, build
results with `abi.tuple.pack` / `abi.dict.pack`, compute with `arith` and call private
helpers with `func.call`) and runs the tools on them as subprocesses. Every figure is a
ratio of two measurements taken in the same run (each command runs ``--repeat`` times,
interleaved with the command it is compared to; the median counts):

* pass overhead (docs/spec.md §12): `abi-opt -p iree-abi-v1` / `-p iree-abi-legacy` on the
  structured module vs `abi-opt` parsing and printing that pipeline's OUTPUT with no
  passes (the floor). Target: at most 1.20.
* the floor vs `xdsl-opt --disable-verify` on a builtin-only module with the same
  functions (structures replaced by their leaves, `!util.list` by `i64`, `abi` ops
  dropped). At the small size also, to separate the causes: `abi-opt` vs `xdsl-opt` on
  that same builtin-only file (driver cost alone), `abi-opt` on the structured input
  (custom types and ops), and `xdsl-opt` with its verifier (xDSL's `func.call` verifier
  scans the module for the callee: O(n²) in the number of calls, which is why the
  comparisons use xdsl-opt without it — `abi-opt` always verifies).
* scaling: time at 10 000 functions / time at 1 000. Target: at most 11.
* peak RSS at 10 000 (`iree-abi-v1` and `iree-abi-legacy`) vs `xdsl-opt` on the
  builtin-only module. Target: at most 1.3. Also, run once, like for like: `xdsl-opt
  --allow-unregistered-dialect` on v1's output IR (printed in generic form) vs `abi-opt`
  on the same file and vs the v1 pipeline that produced it.
* start-up on a tiny file: `abi-opt` vs `xdsl-opt`. Target: at most 1.2.
* when `iree-opt` is on PATH: IREE's `--iree-abi-wrap-entry-points` on the equivalent
  `util.func` module (the flat leaves of every function; `util.list` values as they are;
  IREE wraps every public function) vs our `iree-abi-v1`, at 1 000 (repeated), 2 000 and
  4 000 functions (once each: IREE's pass is quadratic).

Times are CPU seconds (user + system) of the child, from `os.wait4` (steadier than wall
time on a loaded machine); wall times are printed next to them. `iree-opt` runs with
`--mlir-disable-threading` so its CPU time is one thread's work, as ours is. Peak RSS is
the child's, from GNU time (`/usr/bin/time -f %M`; the largest sample).

Not part of the test suite; figures and analysis in bench/RESULTS.md. Usage:

    python bench/bench_pipelines.py            # full run (about 15 minutes on 2 cores)
    python bench/bench_pipelines.py --quick    # 500 / 2 000 functions, 1 repeat
    python bench/bench_pipelines.py --generate-only DIR --sizes 1000
        # write the modules (structured, builtin-only, util.func) into DIR

Options: ``--sizes SMALL LARGE``, ``--repeat N``, ``--seed S``, ``--iree-sizes A B C``,
``--keep DIR`` (keep the generated files), ``--json FILE`` (figures as JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------------------
# Types of the generated signatures.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """A leaf type: its text in the structured module and in the builtin-only one."""

    text: str
    builtin: str
    kind: str  # "tensor", "int", "float", "list"


@dataclass(frozen=True)
class Tup:
    items: tuple[Type, ...]


@dataclass(frozen=True)
class Dct:
    entries: tuple[tuple[str, Type], ...]  # as written; sorted for the leaf order


Type = Leaf | Tup | Dct

_ELEMENTS = ("f32", "f32", "f32", "i32", "f16", "i64")
_SCALARS = (("i32", "int"), ("i64", "int"), ("f32", "float"))
_KEYS = ("weights", "bias", "state", "mask", "scale", "ids", "step", "logits", "kv", "pos")


def type_text(t: Type) -> str:
    if isinstance(t, Leaf):
        return t.text
    if isinstance(t, Tup):
        return "tuple<" + ", ".join(type_text(i) for i in t.items) + ">"
    return "!abi.dict<" + ", ".join(f'"{k}": {type_text(v)}' for k, v in t.entries) + ">"


def leaves(t: Type) -> list[Leaf]:
    if isinstance(t, Leaf):
        return [t]
    if isinstance(t, Tup):
        return [leaf for item in t.items for leaf in leaves(item)]
    return [leaf for _, v in sorted(t.entries) for leaf in leaves(v)]


class Generator:
    """Seeded random signatures and bodies."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def tensor(self) -> Leaf:
        rng = self.rng
        rank = rng.choice((1, 2, 2, 3, 4))
        dims = [
            "?" if rng.random() < 0.3 else str(rng.choice((1, 3, 4, 8, 16, 64, 128, 224)))
            for _ in range(rank)
        ]
        text = "tensor<" + "x".join(dims) + "x" + rng.choice(_ELEMENTS) + ">"
        return Leaf(text, text, "tensor")

    def leaf(self) -> Leaf:
        roll = self.rng.random()
        if roll < 0.6:
            return self.tensor()
        if roll < 0.9:
            text, kind = self.rng.choice(_SCALARS)
            return Leaf(text, text, kind)
        text = self.rng.choice(("!util.list<?>", "!util.list<i32>", "!util.list<?>"))
        return Leaf(text, "i64", "list")

    def structure(self, depth: int) -> Type:
        rng = self.rng
        count = rng.randint(2, 3)
        items: list[Type] = [
            self.structure(depth - 1) if depth > 0 and rng.random() < 0.3 else self.leaf()
            for _ in range(count)
        ]
        if rng.random() < 0.6:
            return Tup(tuple(items))
        keys = rng.sample(_KEYS, count)
        return Dct(tuple(zip(keys, items, strict=True)))


# --------------------------------------------------------------------------------------
# One function, printed three ways.
# --------------------------------------------------------------------------------------


@dataclass
class Value:
    """An SSA value of the structured body, and its leaves' names in the flat bodies."""

    name: str
    type: Type
    leaf_names: list[str]


@dataclass
class Function:
    name: str
    args: list[tuple[Value, str | None]]  # (value, abi.name)
    structured: list[str] = field(default_factory=list)  # body lines
    flat: list[str] = field(default_factory=list)  # body lines, builtin-only, {call}/{ret}
    results: list[Value] = field(default_factory=list)
    helper: Leaf | None = None  # a private helper `@<name>_impl` taking and returning it


def _leaf_names(prefix: str, t: Type) -> list[str]:
    return [f"{prefix}_{i}" for i in range(len(leaves(t)))] if not isinstance(t, Leaf) else [prefix]


def make_function(gen: Generator, index: int) -> Function:
    rng = gen.rng
    name = f"fn{index}"
    structured = rng.random() < 0.6
    arg_count = rng.randint(1, 4)
    args: list[tuple[Value, str | None]] = []
    for i in range(arg_count):
        t: Type = gen.structure(1) if structured and rng.random() < 0.5 else gen.leaf()
        args.append((Value(f"%a{i}", t, _leaf_names(f"%a{i}", t)), None))
    if not structured and arg_count > 1 and rng.random() < 0.3:
        value, _ = args[-1]
        args[-1] = (value, f"opt{index % 7}")  # a named (keyword) trailing argument
    fn = Function(name, args)
    available: list[Value] = []
    counter = 0

    def fresh() -> str:
        nonlocal counter
        counter += 1
        return f"%v{counter}"

    def take_apart(value: Value) -> None:
        """abi.tuple.get / abi.dict.get every item; in the flat body the leaves exist."""
        t = value.type
        if isinstance(t, Leaf):
            available.append(value)
            return
        if isinstance(t, Tup):
            slots = [(str(i), item) for i, item in enumerate(t.items)]
        else:
            slots = [(f'"{k}"', item) for k, item in t.entries]
        offsets = _leaf_offsets(t)
        for (key, item), offset in zip(slots, offsets, strict=True):
            if rng.random() < 0.25:
                continue  # an unused item
            result = fresh()
            op = "abi.tuple.get" if isinstance(t, Tup) else "abi.dict.get"
            fn.structured.append(
                f"    {result} = {op} {value.name}[{key}] : {type_text(t)} -> {type_text(item)}"
            )
            count = len(leaves(item))
            take_apart(Value(result, item, value.leaf_names[offset : offset + count]))

    for value, _ in args:
        take_apart(value)
    # Arithmetic on a scalar, a call to a private helper on a tensor.
    for value in list(available):
        t = value.type
        assert isinstance(t, Leaf)
        if t.kind in ("int", "float") and rng.random() < 0.5:
            result = fresh()
            op = "arith.addi" if t.kind == "int" else "arith.mulf"
            line = f"    {result} = {op} {value.name}, {value.name} : {t.text}"
            flat = f"    {result} = {op} {value.leaf_names[0]}, {value.leaf_names[0]} : {t.text}"
            fn.structured.append(line)
            fn.flat.append(flat)
            available.append(Value(result, t, [result]))
        elif t.kind == "tensor" and fn.helper is None and rng.random() < 0.5:
            fn.helper = t
            result = fresh()
            fn.structured.append(
                f"    {result} = func.call @{name}_impl({value.name}) : ({t.text}) -> {t.text}"
            )
            fn.flat.append(
                f"    {result} = {{call}} @{name}_impl({value.leaf_names[0]}) : "
                f"({t.text}) -> {t.text}"
            )
            available.append(Value(result, t, [result]))
    # Results: leaves, or leaves packed into a tuple / dict.
    if not available:
        return fn
    picked = rng.sample(available, min(len(available), rng.randint(1, 3)))
    if structured and len(picked) >= 2 and rng.random() < 0.7:
        result = fresh()
        items = tuple(v.type for v in picked)
        if rng.random() < 0.6:
            t = Tup(items)
            fn.structured.append(
                f"    {result} = abi.tuple.pack {', '.join(v.name for v in picked)} : "
                f"({', '.join(type_text(i) for i in items)}) -> {type_text(t)}"
            )
            leaf_names = [n for v in picked for n in v.leaf_names]
        else:
            keys = rng.sample(_KEYS, len(picked))
            t = Dct(tuple(zip(keys, items, strict=True)))
            ordered = [v for _, v in sorted(zip(keys, picked, strict=True), key=lambda kv: kv[0])]
            fn.structured.append(
                f"    {result} = abi.dict.pack {', '.join(v.name for v in ordered)} : "
                f"({', '.join(type_text(v.type) for v in ordered)}) -> {type_text(t)}"
            )
            leaf_names = [n for v in ordered for n in v.leaf_names]
        fn.results = [Value(result, t, leaf_names)]
    else:
        fn.results = picked
    return fn


def _leaf_offsets(t: Tup | Dct) -> list[int]:
    """Offset of each slot's first leaf (slots as written) in the natural leaf order."""
    if isinstance(t, Tup):
        offsets, at = [], 0
        for item in t.items:
            offsets.append(at)
            at += len(leaves(item))
        return offsets
    starts: dict[str, int] = {}
    at = 0
    for key, item in sorted(t.entries):
        starts[key] = at
        at += len(leaves(item))
    return [starts[key] for key, _ in t.entries]


def _builtin_type(leaf: Leaf) -> str:
    return leaf.builtin


def print_structured(fn: Function) -> Iterator[str]:
    args = ", ".join(
        f"{v.name}: {type_text(v.type)}" + (f' {{abi.name = "{n}"}}' if n else "")
        for v, n in fn.args
    )
    results = ", ".join(type_text(v.type) for v in fn.results)
    if fn.helper is not None:
        t = fn.helper.text
        yield f"  func.func private @{fn.name}_impl(%x: {t}) -> {t} {{"
        yield f"    func.return %x : {t}"
        yield "  }"
    yield f"  func.func @{fn.name}({args}) -> ({results}) {{"
    yield from fn.structured
    if fn.results:
        yield f"    func.return {', '.join(v.name for v in fn.results)} : {results}"
    else:
        yield "    func.return"
    yield "  }"


def print_flat(fn: Function, dialect: str, keep_lists: bool) -> Iterator[str]:
    """The builtin-only module (``dialect="func"``) or IREE's `util.func` one."""

    def text(leaf: Leaf) -> str:
        return leaf.text if keep_lists else _builtin_type(leaf)

    def sub(line: str) -> str:
        return line.replace("{call}", f"{dialect}.call")

    arg_parts = []
    for value, name in fn.args:
        for leaf_name, leaf in zip(value.leaf_names, leaves(value.type), strict=True):
            attr = f' {{abi.name = "{name}"}}' if name and dialect == "func" else ""
            arg_parts.append(f"{leaf_name}: {text(leaf)}{attr}")
    result_leaves = [leaf for v in fn.results for leaf in leaves(v.type)]
    result_names = [n for v in fn.results for n in v.leaf_names]
    results = ", ".join(text(leaf) for leaf in result_leaves)
    if fn.helper is not None:
        t = fn.helper.text
        yield f"  {dialect}.func private @{fn.name}_impl(%x: {t}) -> {t} {{"
        yield f"    {dialect}.return %x : {t}"
        yield "  }"
    yield f"  {dialect}.func {'public ' if dialect == 'util' else ''}@{fn.name}" + (
        f"({', '.join(arg_parts)}) -> ({results}) {{"
    )
    yield from (sub(line) for line in fn.flat)
    if result_names:
        yield f"    {dialect}.return {', '.join(result_names)} : {results}"
    else:
        yield f"    {dialect}.return"
    yield "  }"


def generate(count: int, seed: int) -> tuple[str, str, str]:
    """(structured module, builtin-only module, IREE `util.func` module) of ``count``
    exported functions."""
    gen = Generator(seed)
    functions = [make_function(gen, i) for i in range(count)]
    structured = ["module {"]
    builtin = ["module {"]
    iree = ["module {"]
    for fn in functions:
        structured.extend(print_structured(fn))
        builtin.extend(print_flat(fn, "func", keep_lists=False))
        iree.extend(print_flat(fn, "util", keep_lists=True))
    for lines in (structured, builtin, iree):
        lines.append("}")
    return tuple("\n".join(lines) + "\n" for lines in (structured, builtin, iree))  # type: ignore[return-value]


TINY = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"

# --------------------------------------------------------------------------------------
# Measuring.
# --------------------------------------------------------------------------------------


@dataclass
class Sample:
    cpu: float
    wall: float
    rss_mb: float


@dataclass
class Measured:
    samples: list[Sample] = field(default_factory=list)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def rss_mb(self) -> float:
        return max(s.rss_mb for s in self.samples)


def tool(name: str) -> str:
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.exists(beside) else (shutil.which(name) or name)


_TIME = "/usr/bin/time"


def run_once(command: Sequence[str], output: str | None = None) -> Sample:
    """Run ``command`` (stdout to ``output`` or /dev/null); its CPU time, wall time and
    peak RSS. The RSS comes from GNU time when it is installed: Linux reports a forked
    child's `ru_maxrss` as at least the parent's RSS at the fork (the benchmark holds
    the generated modules), so `wait4`'s figure is only an upper bound."""
    timed = os.path.exists(_TIME)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        full = [_TIME, "-f", "%M", "-o", rss_file.name, *command] if timed else list(command)
        with open(output or os.devnull, "w") as stdout:
            start = time.perf_counter()
            process = subprocess.Popen(full, stdout=stdout, stderr=subprocess.PIPE)
            assert process.stderr is not None
            errors = process.stderr.read()
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{errors.decode()[-2000:]}")
        lines = rss_file.read().split()
        rss_kb = int(lines[-1]) if timed and lines else usage.ru_maxrss
    return Sample(usage.ru_utime + usage.ru_stime, wall, rss_kb / 1024)


def measure_together(commands: dict[str, list[str]], repeat: int) -> dict[str, Measured]:
    """Run the commands round-robin ``repeat`` times (so drifts in machine load hit every
    command alike)."""
    results = {key: Measured() for key in commands}
    for _ in range(repeat):
        for key, command in commands.items():
            results[key].samples.append(run_once(command))
    return results


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# The benchmark.
# --------------------------------------------------------------------------------------


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    verdicts: list[tuple[str, float, float, bool]] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.lines.append(text)
        log(text)

    def target(self, name: str, value: float, limit: float) -> None:
        self.verdicts.append((name, value, limit, value <= limit))


def _fmt(m: Measured) -> str:
    return f"{m.cpu:7.2f} s cpu {m.wall:7.2f} s wall {m.rss_mb:7.0f} MB"


def bench_size(
    count: int, seed: int, repeat: int, work: str, report: Report, *, large: bool
) -> dict[str, Measured]:
    """The figures at one size. ``large``: the memory comparison on the same IR runs once,
    and the diagnostic commands (abi-opt on its input alone, xdsl-opt with its quadratic
    verifier) are left out, to keep the run short."""
    abi_opt, xdsl_opt = tool("abi-opt"), tool("xdsl-opt")
    structured, builtin, _ = generate(count, seed)
    paths = {
        "input": os.path.join(work, f"structured-{count}.mlir"),
        "builtin": os.path.join(work, f"builtin-{count}.mlir"),
        "v1-out": os.path.join(work, f"v1-out-{count}.mlir"),
        "legacy-out": os.path.join(work, f"legacy-out-{count}.mlir"),
    }
    for key, text in (("input", structured), ("builtin", builtin)):
        with open(paths[key], "w") as stream:
            stream.write(text)
    # The pipelines' outputs (the floors' inputs); also a check that they run.
    run_once([abi_opt, paths["input"], "-p", "iree-abi-v1", "-o", paths["v1-out"]])
    run_once([abi_opt, paths["input"], "-p", "iree-abi-legacy", "-o", paths["legacy-out"]])
    sizes = {key: os.path.getsize(path) // 1024 for key, path in paths.items()}
    report.add(
        f"\n## {count} functions (files: "
        + ", ".join(f"{key} {kb} KB" for key, kb in sizes.items())
        + ")"
    )
    commands = {
        "v1": [abi_opt, paths["input"], "-p", "iree-abi-v1"],
        "v1-floor": [abi_opt, paths["v1-out"]],
        "legacy": [abi_opt, paths["input"], "-p", "iree-abi-legacy"],
        "legacy-floor": [abi_opt, paths["legacy-out"]],
        # xDSL's func.call verifier looks each callee up by a scan of the module (O(n²)
        # for n calls): the comparison uses xdsl-opt without its verifier, abi-opt with.
        "xdsl-opt builtin": [xdsl_opt, "--disable-verify", paths["builtin"]],
    }
    if not large:
        commands["abi-opt input"] = [abi_opt, paths["input"]]
        commands["abi-opt builtin"] = [abi_opt, paths["builtin"]]
        commands["xdsl-opt builtin+verify"] = [xdsl_opt, paths["builtin"]]
    measured = measure_together(commands, repeat)
    if large:
        # Memory on the same IR: v1's output in generic form, which xdsl-opt reads with
        # unregistered ops and types, once each.
        generic = os.path.join(work, f"v1-generic-{count}.mlir")
        run_once([abi_opt, paths["v1-out"], "--print-op-generic", "-o", generic])
        measured |= measure_together(
            {
                "abi-opt builtin": [abi_opt, paths["builtin"]],
                "abi-opt v1 generic": [abi_opt, generic],
                "xdsl-opt v1 generic": [
                    xdsl_opt,
                    "--allow-unregistered-dialect",
                    "--disable-verify",
                    generic,
                ],
            },
            1,
        )
    for key, m in measured.items():
        report.add(f"  {key:24} {_fmt(m)}")
    m = measured
    xdsl = m["xdsl-opt builtin"].cpu
    ratios = {
        "v1 / floor": m["v1"].cpu / m["v1-floor"].cpu,
        "legacy / floor": m["legacy"].cpu / m["legacy-floor"].cpu,
        "v1 floor / xdsl-opt builtin": m["v1-floor"].cpu / xdsl,
        "legacy floor / xdsl-opt builtin": m["legacy-floor"].cpu / xdsl,
    }
    if not large:
        ratios |= {
            "abi-opt input / xdsl-opt builtin": m["abi-opt input"].cpu / xdsl,
            "abi-opt builtin / xdsl-opt builtin": m["abi-opt builtin"].cpu / xdsl,
            "xdsl-opt builtin+verify / xdsl-opt builtin": m["xdsl-opt builtin+verify"].cpu / xdsl,
        }
    for key, value in ratios.items():
        report.add(f"  {key:42} {value:5.2f}")
    report.figures[str(count)] = {
        "files_kb": sizes,
        "measured": {
            k: {"cpu": v.cpu, "wall": v.wall, "rss_mb": v.rss_mb, "samples": len(v.samples)}
            for k, v in measured.items()
        },
        "ratios": ratios,
    }
    for key in ("v1 / floor", "legacy / floor"):
        report.target(f"{key} at {count}", ratios[key], 1.20)
    return measured


def bench_startup(repeat: int, work: str, report: Report) -> None:
    path = os.path.join(work, "tiny.mlir")
    with open(path, "w") as stream:
        stream.write(TINY)
    m = measure_together(
        {"abi-opt": [tool("abi-opt"), path], "xdsl-opt": [tool("xdsl-opt"), path]}, repeat
    )
    ratio = m["abi-opt"].cpu / m["xdsl-opt"].cpu
    report.add("\n## start-up (tiny file)")
    for key, value in m.items():
        report.add(f"  {key:18} {_fmt(value)}")
    report.add(
        f"  abi-opt / xdsl-opt {ratio:5.2f} (wall {m['abi-opt'].wall / m['xdsl-opt'].wall:.2f})"
    )
    report.figures["startup"] = {"abi-opt": m["abi-opt"].cpu, "xdsl-opt": m["xdsl-opt"].cpu}
    report.target("start-up abi-opt / xdsl-opt", ratio, 1.20)


def bench_iree(sizes: Sequence[int], seed: int, repeat: int, work: str, report: Report) -> None:
    iree_opt = shutil.which("iree-opt")
    report.add("\n## IREE's iree-opt --iree-abi-wrap-entry-points vs abi-opt -p iree-abi-v1")
    if iree_opt is None:
        report.add("  iree-opt not found: skipped")
        return
    rows = {}
    for count in sizes:
        structured, _, iree = generate(count, seed)
        ours = os.path.join(work, f"structured-{count}.mlir")
        theirs = os.path.join(work, f"iree-{count}.mlir")
        for path, text in ((ours, structured), (theirs, iree)):
            with open(path, "w") as stream:
                stream.write(text)
        commands = {
            "iree-opt": [
                iree_opt,
                "--mlir-disable-threading",
                "--pass-pipeline=builtin.module(iree-abi-wrap-entry-points)",
                theirs,
            ],
            "abi-opt": [tool("abi-opt"), ours, "-p", "iree-abi-v1"],
        }
        # IREE's pass grows quadratically: only the first size is repeated.
        m = measure_together(commands, repeat if count == sizes[0] else 1)
        ratio = m["iree-opt"].cpu / m["abi-opt"].cpu
        rows[count] = {"iree-opt": m["iree-opt"].cpu, "abi-opt": m["abi-opt"].cpu, "ratio": ratio}
        report.add(
            f"  {count:6} functions: iree-opt {m['iree-opt'].cpu:7.2f} s "
            f"(wall {m['iree-opt'].wall:6.2f}), abi-opt {m['abi-opt'].cpu:7.2f} s "
            f"(wall {m['abi-opt'].wall:6.2f}); iree-opt / abi-opt {ratio:5.2f}; "
            f"RSS iree-opt {m['iree-opt'].rss_mb:.0f} MB, abi-opt {m['abi-opt'].rss_mb:.0f} MB"
        )
    first = sizes[0]
    for count in sizes[1:]:
        factor = count / first
        report.add(
            f"  growth {first} -> {count} (x{factor:g}): iree-opt "
            f"x{rows[count]['iree-opt'] / rows[first]['iree-opt']:.2f}, abi-opt "
            f"x{rows[count]['abi-opt'] / rows[first]['abi-opt']:.2f}"
        )
    report.figures["iree"] = rows


def machine() -> str:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as stream:
            for line in stream:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import xdsl

    version = getattr(xdsl, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("xdsl")
    return f"nproc {os.cpu_count()}, {model}, Python {platform.python_version()}, xdsl {version}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="500 / 2 000 functions, 1 repeat")
    parser.add_argument("--sizes", type=int, nargs=2, metavar=("SMALL", "LARGE"))
    parser.add_argument("--iree-sizes", type=int, nargs="*")
    parser.add_argument("--repeat", type=int)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--keep", metavar="DIR", help="write the generated files here")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--generate-only", metavar="DIR", help="only write the modules of --sizes into DIR"
    )
    args = parser.parse_args(argv)
    small, large = args.sizes or ((500, 2000) if args.quick else (1000, 10000))
    repeat = args.repeat or (1 if args.quick else 3)
    iree_sizes = (
        args.iree_sizes
        if args.iree_sizes is not None
        else ([500, 1000] if args.quick else [1000, 2000, 4000])
    )
    if args.generate_only:
        os.makedirs(args.generate_only, exist_ok=True)
        for count in (small, large):
            for kind, text in zip(
                ("structured", "builtin", "iree"), generate(count, args.seed), strict=True
            ):
                with open(os.path.join(args.generate_only, f"{kind}-{count}.mlir"), "w") as f:
                    f.write(text)
        return 0
    work = args.keep or tempfile.mkdtemp(prefix="abi-bench-")
    os.makedirs(work, exist_ok=True)
    report = Report()
    report.add(f"# bench_pipelines: {machine()}")
    report.add(f"seed {args.seed}, repeat {repeat} (median), times are CPU seconds of the child")
    try:
        bench_startup(max(repeat * 5, 5), work, report)
        at = {
            small: bench_size(small, args.seed, repeat, work, report, large=False),
            large: bench_size(large, args.seed, repeat, work, report, large=True),
        }
        report.add(f"\n## scaling {large} / {small}")
        factor = large / small
        limit = 11 * factor / 10
        for key in ("v1", "legacy", "v1-floor", "legacy-floor", "xdsl-opt builtin"):
            value = at[large][key].cpu / at[small][key].cpu
            report.add(f"  {key:18} x{value:5.2f}")
            if key in ("v1", "legacy"):
                report.target(f"scaling {key} {large}/{small}", value, limit)
        report.add(f"\n## peak RSS at {large}")
        big = at[large]
        base = big["xdsl-opt builtin"].rss_mb
        for key in ("v1", "legacy", "v1-floor", "legacy-floor", "abi-opt builtin"):
            value = big[key].rss_mb / base
            report.add(
                f"  {key:18} {big[key].rss_mb:6.0f} MB / xdsl-opt builtin {base:6.0f} MB"
                f" = {value:.2f}"
            )
            if key in ("v1", "legacy"):
                report.target(f"peak RSS {key} / xdsl-opt builtin at {large}", value, 1.30)
        same_ir = big["xdsl-opt v1 generic"].rss_mb
        for key in ("v1", "abi-opt v1 generic"):
            report.add(
                f"  {key:18} {big[key].rss_mb:6.0f} MB / xdsl-opt on v1's output IR "
                f"{same_ir:6.0f} MB = {big[key].rss_mb / same_ir:.2f}"
            )
        report.figures["rss_same_ir_v1"] = big["v1"].rss_mb / same_ir
        if iree_sizes:
            bench_iree(iree_sizes, args.seed, repeat, work, report)
        report.add("\n## targets")
        for name, value, limit, ok in report.verdicts:
            report.add(
                f"  {'met    ' if ok else 'NOT MET'} {name}: {value:.2f} (target <= {limit:g})"
            )
        report.figures["machine"] = machine()
        report.figures["targets"] = [
            {"name": n, "value": v, "limit": lim, "met": ok} for n, v, lim, ok in report.verdicts
        ]
        if args.json:
            with open(args.json, "w") as stream:
                json.dump(report.figures, stream, indent=1)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
