"""What carrying bodies as text (`abi-opt`'s default; `--parse-all` parses everything, as
`abi-opt` did before) costs on real model sizes, against the tools users would otherwise
run on the same file. Every figure is a ratio of measurements taken in the same run
(commands interleaved ``--repeat`` times, medians of CPU seconds; peak RSS the largest
sample), with the helpers of `bench_pipelines.py`:

* 10 000 (and 1 000) generated exported functions — half with flat typed signatures
  (reflection only), half with index-path signatures (wrapped, no body parse), bodies of
  `arith` ops: `-p iree-abi-v1` vs the `abi-opt` of the last commit before carried text
  (``--before``, default f8d84c5, run from a `git archive` of it with the same installed
  dependencies: "today" in the target) and vs `-p iree-abi-v1 --parse-all` (today's
  code parsing everything). Target: at least 10x faster than before at 10 000.
* the same functions as a `util.func` module: IREE's `iree-opt
  --iree-abi-wrap-entry-points` vs our `-p iree-abi-v1` at 1 000 functions. Target: ours
  faster.
* a model-shaped module (one function, 20 000 body ops) and one holding a 128 MB hex
  constant: `abi-opt -p iree-abi-v1` vs native `iree-opt` parsing and printing the same
  file (and `xdsl-opt` on the model-shaped one). Targets: time within 3x, peak memory
  within 2x of `iree-opt`.
* the structured benchmark of `bench_pipelines.py` (nested tuples and dicts, whose bodies
  must be parsed): `-p iree-abi-v1` vs `--parse-all` and vs before. Target: no slower.

Usage: ``python bench/bench_carried.py [--repeat N] [--quick]``; figures in
bench/RESULTS.md. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_pipelines import (
    generate,
    machine,
    measure_together,
    tool,
)

TENSORS = ["tensor<4xf32>", "tensor<?x8xf32>", "tensor<2x3xi32>", "tensor<16xf32>"]


def _body(names: list[str], types: list[str], rng: random.Random) -> list[str]:
    """A few `arith` ops on the first argument, returning it (any tool parses this)."""
    lines = []
    first, first_type = names[0], types[0]
    previous = first
    for i in range(rng.randint(3, 6)):
        op = rng.choice(["arith.addf", "arith.mulf", "arith.subf"])
        if "i32" in first_type:
            op = op.replace("f", "i")
        lines.append(f"    %v{i} = {op} {previous}, {first} : {first_type}")
        previous = f"%v{i}"
    lines.append(f"    RETURN {previous} : {first_type}")
    return lines


def reflection_module(count: int, seed: int) -> tuple[str, str]:
    """(our module, the same functions as IREE `util.func`s)."""
    rng = random.Random(seed)
    ours, theirs = ["module {"], ["module {"]
    for index in range(count):
        arity = rng.randint(1, 4)
        types = [rng.choice(TENSORS) for _ in range(arity)]
        names = [f"%arg{i}" for i in range(arity)]
        indexed = index % 2 == 1
        args = []
        for i, (name, type_) in enumerate(zip(names, types, strict=True)):
            path = f' {{tf_saved_model.index_path = ["in", {i}]}}' if indexed else ""
            args.append(f"{name}: {type_}{path}")
        result = types[0] + (' {tf_saved_model.index_path = ["out"]}' if indexed else "")
        header = f"@f{index}({', '.join(args)}) -> ({result})"
        body = _body(names, types, rng)
        ours.append(f"  func.func {header} {{")
        ours += [line.replace("RETURN", "return") for line in body]
        ours.append("  }")
        flat = ", ".join(f"{n}: {t}" for n, t in zip(names, types, strict=True))
        theirs.append(f"  util.func public @f{index}({flat}) -> {types[0]} {{")
        theirs += [line.replace("RETURN", "util.return") for line in body]
        theirs.append("  }")
    ours.append("}")
    theirs.append("}")
    return "\n".join(ours) + "\n", "\n".join(theirs) + "\n"


def model_module(ops: int) -> str:
    """One exported function with ``ops`` body ops (a model's forward pass)."""
    lines = [
        "module {",
        "  func.func @forward(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {",
    ]
    previous = "%x"
    for i in range(ops):
        op = ("arith.mulf", "arith.addf", "arith.subf")[i % 3]
        lines.append(f"    %{i} = {op} {previous}, %w : tensor<64x64xf32>")
        previous = f"%{i}"
    lines += [f"    return {previous} : tensor<64x64xf32>", "  }", "}"]
    return "\n".join(lines) + "\n"


def constant_module(megabytes: int) -> str:
    """One exported function holding a hex constant of ``megabytes`` MB."""
    elements = megabytes * 1024 * 1024 // 4
    rng = random.Random(megabytes)
    chunk = "".join(f"{rng.getrandbits(32):08X}" for _ in range(4096))
    hex_text = (chunk * (elements // 4096 + 1))[: elements * 8]
    return (
        "module {\n"
        f"  func.func @weights(%x: tensor<{elements}xf32>) -> tensor<{elements}xf32> {{\n"
        f'    %c = arith.constant dense<"0x{hex_text}"> : tensor<{elements}xf32>\n'
        f"    %0 = arith.addf %x, %c : tensor<{elements}xf32>\n"
        f"    return %0 : tensor<{elements}xf32>\n"
        "  }\n"
        "}\n"
    )


def write(work: str, name: str, text: str) -> str:
    path = os.path.join(work, name)
    with open(path, "w") as stream:
        stream.write(text)
    return path


def line(label: str, measured: dict, first: str, second: str) -> str:
    a, b = measured[first], measured[second]
    return (
        f"  {label}: {first} {a.cpu:.2f} s / {a.rss_mb:.0f} MB, {second} {b.cpu:.2f} s / "
        f"{b.rss_mb:.0f} MB; time {second}/{first} = {b.cpu / a.cpu:.2f}, "
        f"memory {first}/{second} = {a.rss_mb / b.rss_mb:.2f}"
    )


# Runs the `abi-opt` of a source tree extracted from git (argv[1]), with the installed
# dependencies: its `abi_compiler` package first on the path, its `passes/` and `dialects/`
# folders mapped to `abi_compiler.passes` / `abi_compiler.dialects` as pyproject.toml does,
# and the `abi-opt` entry point its pyproject.toml names (the driver moved over time).
_RUN_TREE = """
import importlib, os, re, sys
root = sys.argv[1]
sys.path.insert(0, root)
import abi_compiler
abi_compiler.__path__.append(root)
with open(os.path.join(root, "pyproject.toml")) as stream:
    entry = re.search(r'^abi-opt = "([\\w.]+):(\\w+)"', stream.read(), re.M)
sys.argv = ["abi-opt", *sys.argv[2:]]
getattr(importlib.import_module(entry[1]), entry[2])()
"""


def run_tree_command(tree: str, args: list[str]) -> list[str]:
    """The command running the `abi-opt` of the extracted ``tree`` with ``args``."""
    return [sys.executable, "-c", _RUN_TREE, tree, *args]


# The last commit before carried text: `abi-opt` as it was when the work began ("today"
# in the targets).
BEFORE = "f8d84c5"


def tree_at(commit: str, work: str) -> str | None:
    """The project's files at ``commit``, extracted under ``work``; None without git."""
    root = os.path.join(work, f"tree-{commit}")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        archive = subprocess.run(
            ["git", "-C", here, "archive", commit], check=True, capture_output=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    os.makedirs(root)
    subprocess.run(["tar", "-x", "-C", root], input=archive, check=True)
    return root


def v1_commands(abi_opt: str, path: str, before: str | None) -> dict[str, list[str]]:
    """`-p iree-abi-v1` on ``path``: carried (the default), `--parse-all`, and the
    abi-opt of the tree ``before`` (if any)."""
    commands = {
        "carried": [abi_opt, path, "-p", "iree-abi-v1"],
        "parse-all": [abi_opt, path, "-p", "iree-abi-v1", "--parse-all"],
    }
    if before is not None:
        commands["before"] = run_tree_command(before, [path, "-p", "iree-abi-v1"])
    return commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repeat")
    parser.add_argument(
        "--before",
        default=BEFORE,
        help=f"commit whose abi-opt is the 'before' baseline (default {BEFORE}; '' for none)",
    )
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    sizes = (200, 2000) if args.quick else (1000, 10000)
    abi_opt = tool("abi-opt")
    iree_opt = shutil.which("iree-opt")
    xdsl_opt = tool("xdsl-opt")
    print(f"# bench_carried on {machine()}\n")
    with tempfile.TemporaryDirectory() as work:
        before = tree_at(args.before, work) if args.before else None
        print("## Reflection-only and index-path signatures: carried vs --parse-all")
        for count in sizes:
            ours, theirs = reflection_module(count, seed=count)
            path = write(work, f"reflect-{count}.mlir", ours)
            commands = v1_commands(abi_opt, path, before)
            if iree_opt is not None and count == sizes[0]:
                util = write(work, f"util-{count}.mlir", theirs)
                commands["iree-opt"] = [
                    iree_opt,
                    "--mlir-disable-threading",
                    "--pass-pipeline=builtin.module(iree-abi-wrap-entry-points)",
                    util,
                ]
            m = measure_together(commands, repeat)
            print(line(f"{count} functions", m, "carried", "parse-all"))
            if "before" in m:
                print(line(f"{count} functions", m, "carried", "before"))
            if "iree-opt" in m:
                print(line(f"{count} functions", m, "carried", "iree-opt"))
        print("\n## Model-shaped: one function of 20 000 ops (native iree-opt parses and prints)")
        path = write(work, "model.mlir", model_module(2000 if args.quick else 20000))
        commands = {"carried": [abi_opt, path, "-p", "iree-abi-v1"]}
        if before is not None:
            commands["before"] = v1_commands(abi_opt, path, before)["before"]
        if iree_opt is not None:
            commands["iree-opt"] = [iree_opt, "--mlir-disable-threading", path]
        commands["xdsl-opt"] = [xdsl_opt, "--disable-verify", path]
        m = measure_together(commands, repeat)
        for other in commands:
            if other != "carried":
                print(line("model", m, "carried", other))
        print("\n## A hex constant (native iree-opt parses and prints)")
        for megabytes in (16,) if args.quick else (16, 128):
            path = write(work, f"constant-{megabytes}.mlir", constant_module(megabytes))
            commands = {"carried": [abi_opt, path, "-p", "iree-abi-v1"]}
            if before is not None:
                commands["before"] = v1_commands(abi_opt, path, before)["before"]
            if iree_opt is not None:
                commands["iree-opt"] = [iree_opt, "--mlir-disable-threading", path]
            m = measure_together(commands, 1)
            for other in commands:
                if other != "carried":
                    print(line(f"{megabytes} MB", m, "carried", other))
            if len(commands) == 1:
                print(f"  {megabytes} MB: carried {m['carried'].cpu:.2f} s")
            os.unlink(path)
        print("\n## Structured signatures (bodies parsed): carried vs --parse-all")
        structured, _, _ = generate(sizes[0], 1)
        path = write(work, "structured.mlir", structured)
        commands = v1_commands(abi_opt, path, before)
        m = measure_together(commands, repeat)
        print(line(f"{sizes[0]} structured functions", m, "carried", "parse-all"))
        if "before" in m:
            print(line(f"{sizes[0]} structured functions", m, "carried", "before"))


if __name__ == "__main__":
    main()
