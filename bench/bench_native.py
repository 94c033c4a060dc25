"""`abi-opt` against native `iree-opt` parsing and printing the same file (bench/RESULTS.md).

Every figure is a ratio of CPU seconds measured in the same run: the commands of a case
run round-robin ``--repeat`` times (so drifts in machine load hit them alike), each
figure the median of the child's user + system seconds (`os.wait4`, with the helpers of
`bench_pipelines.py`). `iree-opt` is IREE's (`iree-base-compiler`), run with
`--mlir-disable-threading --allow-unregistered-dialect` and no passes: it parses,
verifies and prints the file, what a native MLIR tool costs on it.

Cases (``--quick``: the sizes in brackets, one repeat):

* structured signatures, 1 000 [200], 2 000 [400] and 10 000 [2 000] functions: half of
  them with `tuple` and `!abi.dict` values in their signature (bodies that return
  arguments, which `abi-opt` parses to lower them), half flat with
  `tf_saved_model.index_path` on every argument and result (bodies carried); the types
  are `bench_pipelines.Generator`'s. `-p iree-abi-v1` and `-p iree-abi-legacy`. Target:
  at most 10x `iree-opt` at 10 000, and linear scaling (10 000 / 2 000 at most 5.5x);
* 10 000 [2 000] flat functions (the builtin-only module of `bench_pipelines.generate`:
  typed signatures, `arith` and `func.call` bodies, carried), both pipelines;
* one function of 20 000 [2 000] `arith` ops and a 128 MB [16 MB] hex constant
  (`bench_carried.model_module`, `constant_module`), `-p iree-abi-v1`;
* start-up: `abi-opt --version` vs `iree-opt --version`, and a one-function module
  (`-p iree-abi-v1`) vs `iree-opt` on the same file.

``--before COMMIT`` adds the `abi-opt` of that commit (a `git archive` of it run with the
installed dependencies, `bench_carried.tree_at`) to every case, in the same rounds:
before/after figures of one run. The load average is printed before every case (the
machine is shared). Not part of the test suite; figures in bench/RESULTS.md.

    python bench/bench_native.py [--repeat 3] [--quick] [--before COMMIT] [--json FILE]
        [--only structured,flat,model,constant,startup] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_carried import constant_module, model_module, run_tree_command, tree_at, write
from bench_pipelines import (
    TINY,
    Generator,
    Leaf,
    Measured,
    Tup,
    Type,
    generate,
    machine,
    measure_together,
    tool,
    type_text,
)

PIPELINES = ("iree-abi-v1", "iree-abi-legacy")
CASES = ("structured", "flat", "model", "constant", "startup")


def iree_opt() -> str | None:
    """IREE's `iree-opt` from `iree-base-compiler`, or the one on PATH."""
    try:
        from iree.compiler.tools.binaries import find_tool

        return find_tool("iree-opt")
    except (ImportError, OSError, ValueError):
        return shutil.which("iree-opt")


# --------------------------------------------------------------------------------------
# The structured module: `bench_pipelines`' types, in signatures and in index paths.
# --------------------------------------------------------------------------------------

Path = tuple[int | str, ...]


def leaf_paths(t: Type, path: Path = ()) -> Iterator[tuple[Path, Leaf]]:
    """The leaves of ``t`` in natural order (tuples by position, dicts by sorted key),
    with their index paths below ``path``."""
    if isinstance(t, Leaf):
        yield path, t
    elif isinstance(t, Tup):
        for i, item in enumerate(t.items):
            yield from leaf_paths(item, (*path, i))
    else:
        for key, item in sorted(t.entries):
            yield from leaf_paths(item, (*path, key))


def _path_attr(path: Path) -> str:
    items = ", ".join(f'"{c}"' if isinstance(c, str) else str(c) for c in path)
    return f"{{tf_saved_model.index_path = [{items}]}}"


def _typed_function(gen: Generator, name: str) -> list[str]:
    """Tuples and dicts in the signature; the body returns some of the arguments."""
    rng = gen.rng
    types: list[Type] = [
        gen.structure(1) if rng.random() < 0.6 else gen.leaf() for _ in range(rng.randint(1, 4))
    ]
    if all(isinstance(t, Leaf) for t in types):
        types[0] = gen.structure(1)
    returned = sorted(rng.sample(range(len(types)), rng.randint(1, min(2, len(types)))))
    args = ", ".join(f"%a{i}: {type_text(t)}" for i, t in enumerate(types))
    results = ", ".join(type_text(types[i]) for i in returned)
    return [
        f"  func.func @{name}({args}) -> ({results}) {{",
        f"    func.return {', '.join(f'%a{i}' for i in returned)} : {results}",
        "  }",
    ]


def _index_path_function(gen: Generator, name: str) -> list[str]:
    """Flat leaves with index paths: argument k's structure below [k]; the results are
    1 to 3 of the argument leaves, in a tuple ([j]), a dict (["key"]) or alone ([])."""
    rng = gen.rng
    flat: list[tuple[Path, Leaf]] = []
    for k in range(rng.randint(1, 4)):
        t = gen.structure(1) if rng.random() < 0.6 else gen.leaf()
        flat.extend(leaf_paths(t, (k,)))
    args = [f"%a{i}: {leaf.text} {_path_attr(path)}" for i, (path, leaf) in enumerate(flat)]
    picked = sorted(rng.sample(range(len(flat)), rng.randint(1, min(3, len(flat)))))
    roll = rng.random()
    if len(picked) == 1 and roll < 0.3:
        paths: list[Path] = [()]
    elif roll < 0.6:
        paths = [(j,) for j in range(len(picked))]
    else:
        paths = [(key,) for key in sorted(rng.sample(_RESULT_KEYS, len(picked)))]
    types = [flat[i][1].text for i in picked]
    results = ", ".join(f"{t} {_path_attr(p)}" for t, p in zip(types, paths, strict=True))
    return [
        f"  func.func @{name}({', '.join(args)}) -> ({results}) {{",
        f"    func.return {', '.join(f'%a{i}' for i in picked)} : {', '.join(types)}",
        "  }",
    ]


_RESULT_KEYS = ["logits", "state", "loss", "scores", "mask"]


def structured_module(count: int, seed: int) -> str:
    """``count`` exported functions, alternately typed-structured and index-path."""
    gen = Generator(seed)
    lines = ["module {"]
    for index in range(count):
        make = _typed_function if index % 2 == 0 else _index_path_function
        lines.extend(make(gen, f"f{index}"))
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Running and reporting.
# --------------------------------------------------------------------------------------


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    targets: list[tuple[str, float, float]] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.lines.append(text)
        print(text, flush=True)

    def load(self) -> None:
        one, five, fifteen = os.getloadavg()
        self.add(f"  (load average {one:.2f} {five:.2f} {fifteen:.2f})")


@dataclass
class Tools:
    abi_opt: str
    iree_opt: str
    before: str | None  # an extracted source tree

    def abi(self, *args: str) -> list[str]:
        return [self.abi_opt, *args]

    def old(self, *args: str) -> list[str] | None:
        return None if self.before is None else run_tree_command(self.before, list(args))

    def native(self, *args: str) -> list[str]:
        return [self.iree_opt, "--mlir-disable-threading", "--allow-unregistered-dialect", *args]


def case(
    report: Report,
    tools: Tools,
    label: str,
    path: str,
    pipelines: tuple[str, ...],
    repeat: int,
) -> dict[str, Measured]:
    """`abi-opt -p <pipeline>` (and the before tree's) vs `iree-opt` on ``path``."""
    commands: dict[str, list[str]] = {"iree-opt": tools.native(path)}
    for pipeline in pipelines:
        commands[pipeline] = tools.abi(path, "-p", pipeline)
        old = tools.old(path, "-p", pipeline)
        if old is not None:
            commands[f"{pipeline} before"] = old
    report.add(f"\n## {label} ({os.path.getsize(path) / 1e6:.1f} MB)")
    report.load()
    m = measure_together(commands, repeat)
    native = m["iree-opt"]
    for key, measured in m.items():
        ratio = "" if key == "iree-opt" else f"  {measured.cpu / native.cpu:7.2f}x iree-opt"
        report.add(f"  {key:26} {measured.cpu:8.2f} s cpu {measured.rss_mb:7.0f} MB{ratio}")
    for pipeline in pipelines:
        if f"{pipeline} before" in m:
            before, now = m[f"{pipeline} before"].cpu, m[pipeline].cpu
            report.add(f"  {pipeline}: before / now = {before / now:.2f}")
    report.figures[label] = {
        key: {"cpu": v.cpu, "rss_mb": v.rss_mb, "samples": [s.cpu for s in v.samples]}
        for key, v in m.items()
    }
    return m


def bench_structured(
    report: Report, tools: Tools, work: str, sizes: tuple[int, int, int], repeat: int, seed: int
) -> None:
    _, middle, large = sizes
    at: dict[int, dict[str, Measured]] = {}
    for count in sizes:
        path = write(work, f"structured-{count}.mlir", structured_module(count, seed))
        at[count] = case(report, tools, f"{count} structured functions", path, PIPELINES, repeat)
        os.unlink(path)
    report.add(f"\n## scaling {large} / {middle} structured functions (x{large / middle:g})")
    limit = 5.5 * (large / middle) / 5
    for key in at[large]:
        value = at[large][key].cpu / at[middle][key].cpu
        report.add(f"  {key:26} x{value:5.2f}")
        if key in PIPELINES:
            report.targets.append((f"scaling {key} {large}/{middle}", value, limit))
    for pipeline in PIPELINES:
        ratio = at[large][pipeline].cpu / at[large]["iree-opt"].cpu
        report.targets.append((f"{pipeline} / iree-opt at {large} structured", ratio, 10.0))


def bench_flat(report: Report, tools: Tools, work: str, count: int, repeat: int, seed: int) -> None:
    _, builtin, _ = generate(count, seed)
    path = write(work, f"flat-{count}.mlir", builtin)
    case(report, tools, f"{count} flat functions", path, PIPELINES, repeat)
    os.unlink(path)


def bench_model(report: Report, tools: Tools, work: str, ops: int, repeat: int) -> None:
    path = write(work, f"model-{ops}.mlir", model_module(ops))
    case(report, tools, f"one function of {ops} ops", path, ("iree-abi-v1",), repeat)
    os.unlink(path)


def bench_constant(report: Report, tools: Tools, work: str, megabytes: int, repeat: int) -> None:
    path = write(work, f"constant-{megabytes}.mlir", constant_module(megabytes))
    case(report, tools, f"a {megabytes} MB constant", path, ("iree-abi-v1",), repeat)
    os.unlink(path)


def bench_startup(report: Report, tools: Tools, work: str, repeat: int) -> None:
    path = write(work, "tiny.mlir", TINY)
    commands: dict[str, list[str]] = {
        "iree-opt --version": [tools.iree_opt, "--version"],
        "abi-opt --version": tools.abi("--version"),
        "iree-opt tiny": tools.native(path),
        "abi-opt tiny -p iree-abi-v1": tools.abi(path, "-p", "iree-abi-v1"),
    }
    for key, args in (
        ("abi-opt --version before", ["--version"]),
        ("abi-opt tiny before", [path, "-p", "iree-abi-v1"]),
    ):
        old = tools.old(*args)
        if old is not None:
            commands[key] = old
    report.add("\n## start-up")
    report.load()
    m = measure_together(commands, repeat)
    for key, measured in m.items():
        report.add(f"  {key:30} {measured.cpu:6.3f} s cpu {measured.rss_mb:6.0f} MB")
    report.add(
        f"  --version: abi-opt / iree-opt = {m['abi-opt --version'].cpu / m['iree-opt --version'].cpu:.2f};"
        f" one function: abi-opt / iree-opt = {m['abi-opt tiny -p iree-abi-v1'].cpu / m['iree-opt tiny'].cpu:.2f}"
    )
    report.figures["startup"] = {key: v.cpu for key, v in m.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repeat")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--before", help="also run the abi-opt of this commit")
    parser.add_argument("--only", help=f"comma-separated cases of {', '.join(CASES)}")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--keep", metavar="DIR", help="work (and keep the tree) in DIR")
    args = parser.parse_args()
    native = iree_opt()
    if native is None:
        print("iree-opt not found (pip install iree-base-compiler)", file=sys.stderr)
        return 1
    repeat = 1 if args.quick else args.repeat
    only = set(args.only.split(",")) if args.only else set(CASES)
    unknown = only - set(CASES)
    if unknown:
        parser.error(f"unknown cases: {', '.join(sorted(unknown))}")
    work = args.keep or tempfile.mkdtemp(prefix="abi-native-")
    os.makedirs(work, exist_ok=True)
    report = Report()
    try:
        before = tree_at(args.before, work) if args.before else None
        if args.before and before is None:
            print(f"cannot extract {args.before} with git", file=sys.stderr)
            return 1
        tools = Tools(tool("abi-opt"), native, before)
        report.add(f"# bench_native on {machine()}")
        report.add(
            f"repeat {repeat} (median CPU s of the child), seed {args.seed}"
            + (f", before = {args.before}" if args.before else "")
        )
        if "startup" in only:
            bench_startup(report, tools, work, max(5, repeat * 3))
        if "structured" in only:
            sizes = (200, 400, 2000) if args.quick else (1000, 2000, 10000)
            bench_structured(report, tools, work, sizes, repeat, args.seed)
        if "flat" in only:
            bench_flat(report, tools, work, 2000 if args.quick else 10000, repeat, args.seed)
        if "model" in only:
            bench_model(report, tools, work, 2000 if args.quick else 20000, repeat)
        if "constant" in only:
            bench_constant(report, tools, work, 16 if args.quick else 128, repeat)
        if report.targets:
            report.add("\n## targets")
            for name, value, limit in report.targets:
                verdict = "met    " if value <= limit else "NOT MET"
                report.add(f"  {verdict} {name}: {value:.2f} (target <= {limit:g})")
        report.load()
        if args.json:
            report.figures["targets"] = report.targets
            with open(args.json, "w") as stream:
                json.dump(report.figures, stream, indent=1)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
