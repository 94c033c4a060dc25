"""A campaign of corrupted MLIR bytecode against IREE's bytecode reader, the one
`abi_compiler.text.bytecode` runs in a child process: how often a mutation is refused with a
diagnostic, read, or crashes the reader (a signal, ``LLVM ERROR``), or makes it loop.

    python tests/hardening/bytecode_campaign.py [COUNT [FIRST_SEED]]

Each mutation is reproducible from its seed (`mutate`): one to three flipped bits, one
byte replaced, or the file cut short, at offsets after the magic number. The base file
is `SOURCE` written as bytecode by IREE's `iree-opt` (`base_bytecode`), the same bytes on
every machine with the IREE this project pins. Mutations run in batches in one worker
process that is restarted after each crash. One whose read uses more than
`HANG_CPU_SECONDS` of CPU time counts as a hang (the worker's `RLIMIT_CPU`, as
`abi_compiler.text.bytecode` bounds its child; a machine's load does not change it), as
does one that takes longer than `HANG_SECONDS` of wall-clock time (a reader that blocks).
`tests/hardening/test_corrupted_files.py` pins crashes it found,
`tests/hardening/test_bytecode_limits.py` a hang.
"""

from __future__ import annotations

import collections
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A module with what bytecode holds: dialect and op names, types, attributes (dense
# constants, dictionaries, strings), locations, blocks with arguments, regions.
SOURCE = """\
module @m attributes {mhlo.num_partitions = 1 : i32, foo.bar = #foo.attr<"x">} {
  func.func public @main(%arg0: tensor<4x3xf32> {jax.arg_info = "params['w']"}, %arg1: tensor<?x4xf32> {jax.arg_info = "x"}, %arg2: tuple<i32, tensor<2xf8E4M3FN>>, %arg3: complex<f32>) -> (tensor<?x3xf32> {jax.result_info = "result"}) attributes {iree.reflection = {iree.abi = "{\\"a\\":[],\\"r\\":[],\\"v\\":1}"}} {
    %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<4x3xf32>
    %i = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %s = arith.constant 7 : index
    %0 = "stablehlo.dot"(%arg1, %c) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %1 = "tf.Identity"(%0) {T = "x", v = [1, 2, 3], d = {a = 1 : i8}} : (tensor<?x3xf32>) -> tensor<?x3xf32> loc("x.py":3:4)
    cf.br ^bb1(%1 : tensor<?x3xf32>)
  ^bb1(%2: tensor<?x3xf32>):
    return %2 : tensor<?x3xf32>
  }
  func.func private @helper(%a: i32) -> i32 {
    %0 = "tf.Identity"(%a) : (i32) -> i32
    %r = "foo.region"() ({
      "foo.yield"(%0) : (i32) -> ()
    }) : () -> i32
    return %r : i32
  }
}
"""

HANG_CPU_SECONDS = 10
HANG_SECONDS = 10 * HANG_CPU_SECONDS + 60

# The worker: one bytecode file per line of its input list, "START <path>" before it
# reads one and "<path> <outcome>" after; each read may use HANG_CPU_SECONDS (argv[2]) of
# CPU time (the soft limit, moved on before each read; SIGXCPU ends the worker).
_WORKER = """
import math, resource, sys
from abi_compiler.text import bytecode
import iree.compiler.ir
for path in open(sys.argv[1]).read().split():
    data = open(path, "rb").read()
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(used.ru_utime + used.ru_stime + float(sys.argv[2]))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    print("START", path, flush=True)
    try:
        bytecode._read(data)
        outcome = "read"
    except bytecode.BytecodeError as error:
        outcome = "refused: " + error.message.removeprefix(bytecode.CANNOT_READ + ": ")[:40]
    print(path, outcome, flush=True)
"""


def base_bytecode(folder: Path) -> bytes:
    """`SOURCE` as IREE's `iree-opt` writes it in bytecode (a relative file name, so that
    its locations are the same wherever it is made)."""
    from iree.compiler.tools.binaries import find_tool

    (folder / "m.mlir").write_text(SOURCE)
    subprocess.run(
        [
            find_tool("iree-opt"),
            "--allow-unregistered-dialect",
            "--emit-bytecode",
            "m.mlir",
            "-o",
            "m.mlirbc",
        ],
        cwd=folder,
        check=True,
    )
    return (folder / "m.mlirbc").read_bytes()


def mutate(data: bytes, seed: int) -> tuple[bytes, str]:
    """Mutation ``seed`` of ``data`` and what it did."""
    rng = random.Random(seed)
    mutated = bytearray(data)
    kind = rng.choice(["flip", "flip", "cut", "byte"])
    if kind == "cut":
        end = rng.randrange(4, len(mutated))
        return bytes(mutated[:end]), f"cut at {end}"
    if kind == "byte":
        offset = rng.randrange(4, len(mutated))
        mutated[offset] = rng.randrange(256)
        return bytes(mutated), f"byte {offset} = 0x{mutated[offset]:02x}"
    done = []
    for _ in range(rng.randint(1, 3)):
        offset, bit = rng.randrange(4, len(mutated)), rng.randrange(8)
        mutated[offset] ^= 1 << bit
        done.append(f"{offset}^{1 << bit}")
    return bytes(mutated), "flip " + ", ".join(done)


def run(files: list[Path]) -> dict[Path, str]:
    """The outcome of reading each file: ``read``, ``refused: …``, ``crash: …``, ``hang``."""
    root = str(Path(__file__).resolve().parents[2])
    environment = {**os.environ, "PYTHONPATH": root}
    outcomes: dict[Path, str] = {}
    remaining = list(files)
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "files"
        while remaining:
            listing.write_text("\n".join(map(str, remaining)))
            worker = subprocess.Popen(
                [sys.executable, "-c", _WORKER, str(listing), str(HANG_CPU_SECONDS)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=environment,
            )
            assert worker.stdout is not None and worker.stderr is not None
            pending, started, since = b"", None, time.monotonic()
            while True:
                ready, _, _ = select.select([worker.stdout], [], [], 1)
                if ready:
                    chunk = os.read(worker.stdout.fileno(), 65536)
                    if not chunk:
                        worker.wait()
                        if started is not None and worker.returncode == -signal.SIGXCPU:
                            outcomes[started] = f"hang: over {HANG_CPU_SECONDS} s of CPU time"
                        elif started is not None:
                            errors = worker.stderr.read().decode("utf-8", "replace")
                            said = [ln for ln in errors.splitlines() if ln.strip()]
                            last = said[-1][:90] if said else ""
                            outcomes[started] = f"crash: status {worker.returncode} {last}"
                        break
                    pending += chunk
                    while b"\n" in pending:
                        line, pending = pending.split(b"\n", 1)
                        text = line.decode()
                        if text.startswith("START "):
                            started, since = Path(text[6:]), time.monotonic()
                        else:
                            path, outcome = text.split(" ", 1)
                            outcomes[Path(path)] = outcome
                            started = None
                if started is not None and time.monotonic() - since > HANG_SECONDS:
                    outcomes[started] = f"hang: over {HANG_SECONDS} s of wall-clock time"
                    worker.kill()
                    worker.wait()
                    break
            remaining = [path for path in remaining if path not in outcomes]
    return outcomes


def main(count: int = 300, first_seed: int = 0) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        data = base_bytecode(folder)
        described: dict[Path, tuple[int, str]] = {}
        for seed in range(first_seed, first_seed + count):
            mutated, what = mutate(data, seed)
            path = folder / f"seed-{seed}.mlirbc"
            path.write_bytes(mutated)
            described[path] = (seed, what)
        outcomes = run(list(described))
    kinds = collections.Counter(
        outcome if outcome.startswith(("crash", "hang")) else outcome.split(":")[0]
        for outcome in outcomes.values()
    )
    print(f"{count} mutations of {len(data)} bytes (seeds {first_seed}..{first_seed + count - 1})")
    for kind, number in kinds.most_common():
        print(f"{number:6} {kind}")
    for path, outcome in outcomes.items():
        if outcome.startswith(("crash", "hang")):
            seed, what = described[path]
            print(f"seed {seed} ({what}): {outcome}")


if __name__ == "__main__":
    main(*(int(argument) for argument in sys.argv[1:3]))
