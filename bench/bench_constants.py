"""Large constants: CPU time and peak memory of `abi-opt -p iree-abi-v1` on one function
holding a `dense<"0x…">` constant of 16 and 128 MB, before and after the fixes
of docs/design.md#constants, against `xdsl-opt` and IREE's native `iree-opt` in the same run.

"Before" is the tree of a git revision (``--baseline``, default the commit before the
fixes), extracted with `git archive` and laid out as the installed package; it runs
under an address-space limit (``--baseline-limit-gb``) so that it cannot take the
shared machine's memory. Each command runs ``--repeats`` times, round robin; a figure is
the median CPU time (user + system of the child, `os.wait4`) and the largest peak RSS.

    python bench/bench_constants.py                # 16 and 128 MB, 1 repeat
    python bench/bench_constants.py --sizes 16 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "b46cc7f"  # main before the constants fixes


@dataclass
class Figures:
    cpu: list[float] = field(default_factory=list[float])
    rss_mb: float = 0.0
    failure: str | None = None

    def cell(self) -> str:
        if self.failure is not None:
            return f"fails: {self.failure} (at {self.rss_mb:.0f} MB)"
        return f"{statistics.median(self.cpu):.2f} s / {self.rss_mb:.0f} MB"


def generate(path: Path, megabytes: int, seed: int) -> None:
    """One function returning a `dense<"0x…">` f32 constant of ``megabytes`` MB."""
    size = megabytes << 20
    data = random.Random(seed).randbytes(size)
    count = size // 4
    with path.open("w") as stream:
        stream.write(f"func.func @weights() -> tensor<{count}xf32> {{\n")
        stream.write('  %0 = arith.constant dense<"0x')
        for start in range(0, size, 1 << 20):
            stream.write(data[start : start + (1 << 20)].hex().upper())
        stream.write(f'"> : tensor<{count}xf32>\n')
        stream.write(f"  func.return %0 : tensor<{count}xf32>\n}}\n")


def baseline_tree(revision: str, into: Path) -> Path:
    """The package of ``revision`` as installed: `dialects/` and `passes/` inside
    `abi_compiler/`. Returns the directory to put on PYTHONPATH."""
    archive = into / "baseline.tar"
    with archive.open("wb") as stream:
        subprocess.run(["git", "archive", revision], cwd=ROOT, stdout=stream, check=True)
    source = into / "source"
    with tarfile.open(archive) as tar:
        tar.extractall(source, filter="data")
    package = into / "package"
    shutil.copytree(source / "abi_compiler", package / "abi_compiler")
    shutil.copytree(source / "dialects", package / "abi_compiler" / "dialects")
    shutil.copytree(source / "passes", package / "abi_compiler" / "passes")
    return package


def measure(
    command: list[str], env: dict[str, str], cwd: Path, limit_bytes: int | None
) -> tuple[float, float, str | None]:
    """(CPU seconds, peak RSS in MB, first error line or None) of one run."""

    def limit() -> None:
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
    )
    assert process.stderr is not None
    error = process.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.stderr.close()
    failure = None
    if status != 0:
        failure = next((line for line in error.splitlines() if line.strip()), "no message")
        failure = failure.split("error: ", 1)[-1]
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, failure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,128", help="constant sizes in MB")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline", default=BASELINE, help="git revision measured as 'before'")
    parser.add_argument("--baseline-limit-gb", type=float, default=8.0)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    iree_opt = shutil.which("iree-opt")
    xdsl_opt = shutil.which("xdsl-opt")
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        package = baseline_tree(args.baseline, work)
        plain_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        baseline_env = {**plain_env, "PYTHONPATH": str(package)}
        python = sys.executable
        rows: list[tuple[int, dict[str, Figures]]] = []
        for megabytes in (int(s) for s in args.sizes.split(",")):
            source = work / f"constant-{megabytes}mb.mlir"
            generate(source, megabytes, args.seed)
            opt = [python, "-m", "abi_compiler.commands.opt_main", str(source)]
            commands: dict[str, tuple[list[str], dict[str, str], int | None]] = {
                "after": ([*opt, "-p", "iree-abi-v1", "-o", "/dev/null"], plain_env, None),
                "before": (
                    [*opt, "-p", "iree-abi-v1", "-o", "/dev/null"],
                    baseline_env,
                    int(args.baseline_limit_gb * (1 << 30)),
                ),
            }
            if xdsl_opt:
                commands["xdsl-opt"] = ([xdsl_opt, str(source), "-o", "/dev/null"], plain_env, None)
            if iree_opt:
                commands["iree-opt"] = (
                    [iree_opt, "--mlir-disable-threading", str(source), "-o", "/dev/null"],
                    plain_env,
                    None,
                )
            figures = {name: Figures() for name in commands}
            for _ in range(args.repeats):
                for name, (command, env, limit) in commands.items():
                    cpu, rss, failure = measure(command, env, work, limit)
                    entry = figures[name]
                    entry.cpu.append(cpu)
                    entry.rss_mb = max(entry.rss_mb, rss)
                    entry.failure = entry.failure or failure
                    print(
                        f"{megabytes} MB {name}: {cpu:.2f} s, {rss:.0f} MB, {failure or 'ok'}",
                        file=sys.stderr,
                    )
            source.unlink()
            rows.append((megabytes, figures))

    names = list(rows[0][1])
    print("| constant | " + " | ".join(f"`{n}`" for n in names) + " |")
    print("| --- |" + " --- |" * len(names))
    for megabytes, figures in rows:
        print(f"| {megabytes} MB | " + " | ".join(figures[n].cell() for n in names) + " |")
    print()
    for megabytes, figures in rows:
        after = figures["after"]
        for name in ("before", "xdsl-opt", "iree-opt"):
            other = figures.get(name)
            if other is None or other.failure or after.failure:
                continue
            cpu = statistics.median(after.cpu) / statistics.median(other.cpu)
            print(
                f"{megabytes} MB: after / {name}: CPU {cpu:.2f}x, "
                f"peak RSS {after.rss_mb / other.rss_mb:.2f}x"
            )


if __name__ == "__main__":
    main()
