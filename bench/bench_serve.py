"""Serving on Ray Serve at scale (docs/serving.md): a local Ray instance on the loopback,
Serve's HTTP proxy on 127.0.0.1, everything stopped at the end.

* **answers**: 500 requests from 16 concurrent clients to 2 replicas of the structured
  model of tests/serve (a namedtuple of a dict in, a dataclass and a dict out), each
  answer compared with the direct `module.main(…)`;
* **throughput**: the same 500 × 16 against a model whose step takes milliseconds (four
  512 × 512 matmuls of a 32 × 512 batch), 1 replica and 2 replicas in interleaved rounds,
  each replica on `local-sync` (one thread: the replicas are the parallelism);
* **memory**: 1, 2 and 4 replicas of a module with 256 MiB of weights, embedded in the
  `.vmfb` (mapped, and read into each replica with ``mmap=False``) and in an `.irpa`
  beside it; after a call on every replica, the replicas' resident (RSS), proportional
  (PSS: shared pages divided among the processes that map them) and private memory from
  /proc/<pid>/smaps_rollup, and the same for replicas of a module without weights (what a
  replica costs anyway).

    python bench/bench_serve.py [--output bench/RESULTS_serve.md] [--parts answers,throughput,memory]

Needs IREE's compiler and ray[serve]. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.serve import app  # noqa: E402
from abi_compiler.serve.json_values import encode_value  # noqa: E402
from tests.serve.helpers import SOURCE, direct_result, structured_request  # noqa: E402
from tests.serve.ray_harness import Server, serving, wait_for_replicas  # noqa: E402

CLIENTS = 16
REQUESTS = 500
WIDTH = 512
BATCH = 32
WEIGHT_ROWS = 65536  # x 1024 float32: 256 MiB
WEIGHT_COLUMNS = 1024


def matmuls(count: int) -> str:
    """``count`` chained 512 × 512 matmuls of a 32 × 512 batch (two weights, alternating):
    the step grows with ``count``, the request and the answer do not."""
    shape = f"tensor<{BATCH}x{WIDTH}xf32>"
    weight = f"tensor<{WIDTH}x{WIDTH}xf32>"
    lines = [
        *(
            f'util.global private @w{i} = #flow.parameter.named<"model"::"w{i}"> : {weight}'
            for i in range(2)
        ),
        f"func.func @main(%x: {shape}) -> {shape} {{",
        *(f"  %w{i} = util.global.load @w{i} : {weight}" for i in range(2)),
        "  %zero = arith.constant 0.0 : f32",
        f"  %empty = tensor.empty() : {shape}",
        f"  %init = linalg.fill ins(%zero : f32) outs(%empty : {shape}) -> {shape}",
    ]
    value = "%x"
    for i in range(count):
        lines.append(
            f"  %m{i} = linalg.matmul ins({value}, %w{i % 2} : {shape}, {weight}) "
            f"outs(%init : {shape}) -> {shape}"
        )
        value = f"%m{i}"
    return "\n".join([*lines, f"  return {value} : {shape}", "}"])


BIG = f"""
util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<{WEIGHT_ROWS}x{WEIGHT_COLUMNS}xf32>
func.func @main(%x: tensor<{WEIGHT_COLUMNS}xf32>) -> tensor<{WEIGHT_ROWS}xf32> {{
  %w = util.global.load @w : tensor<{WEIGHT_ROWS}x{WEIGHT_COLUMNS}xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<{WEIGHT_ROWS}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<{WEIGHT_ROWS}xf32>) -> tensor<{WEIGHT_ROWS}xf32>
  %y = linalg.matvec ins(%w, %x : tensor<{WEIGHT_ROWS}x{WEIGHT_COLUMNS}xf32>, tensor<{WEIGHT_COLUMNS}xf32>) outs(%init : tensor<{WEIGHT_ROWS}xf32>) -> tensor<{WEIGHT_ROWS}xf32>
  return %y : tensor<{WEIGHT_ROWS}xf32>
}}
"""

TINY = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }"


def _load(clients: int, count: int, server: Server, body: Any) -> tuple[float, list[Any]]:
    """``count`` requests (``body(i)``) from ``clients`` threads, each with its own
    connection: the wall time and every (status, JSON) answer, in request order."""
    import http.client
    import json

    answers: list[Any] = [None] * count
    next_index = iter(range(count))
    lock = threading.Lock()

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            while True:
                with lock:
                    index = next(next_index, None)
                if index is None:
                    return
                path, payload = body(index)
                connection.request("POST", path, json.dumps(payload).encode())
                response = connection.getresponse()
                answers[index] = (response.status, json.loads(response.read()))
        finally:
            connection.close()

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(client) for _ in range(clients)]:
            future.result(timeout=900)
    return time.perf_counter() - start, answers


def answers(folder: Path) -> list[str]:
    path = folder / "structured.vmfb"
    path.write_bytes(abi_iree.compile_vmfb(SOURCE))
    module = abi_iree.load(path, results="numpy")
    requests = [
        structured_request(i % 97 - 40, 1 + i % 7, 0.25 * (i % 13)) for i in range(REQUESTS)
    ]
    with serving(app(path, replicas=2, device="local-sync"), "structured", num_cpus=8) as server:
        wait_for_replicas("structured", 2, 180)
        seconds, got = _load(
            CLIENTS, REQUESTS, server, lambda i: ("/v1/functions/main", requests[i])
        )
    wrong = sum(
        1
        for request, (status, answer) in zip(requests, got, strict=True)
        if status != 200 or answer != {"result": encode_value(direct_result(module, request))}
    )
    lines = [
        "## Answers: 500 requests, 16 clients, 2 replicas",
        "",
        f"The structured model: {REQUESTS} requests in {seconds:.1f} s "
        f"({REQUESTS / seconds:.0f} requests/s), {REQUESTS - wrong} equal to the direct "
        f"`module.main(…)`, {wrong} wrong or failed.",
        "",
    ]
    return lines + _language_model_answers(folder)


def _language_model_answers(folder: Path) -> list[str]:
    """500 greedy completions of 4 tokens from the MLIR language model of tests/generation
    (its tokenizer trained there), each compared with `module.generate`."""
    from tests.serve.test_openai import compiled_language_model

    path = compiled_language_model(folder)
    module = abi_iree.load(path)
    prompts = ["The quick", "brown fox", "café", "hello there", "lazy dog", "symbols", "emoji"]
    expected = {p: str(module.generate(p, max_new_tokens=4, do_sample=False)) for p in prompts}

    def body(i: int) -> tuple[str, Any]:
        prompt = prompts[i % len(prompts)]
        return "/v1/completions", {"prompt": prompt, "max_tokens": 4, "temperature": 0}

    with serving(app(path, replicas=2, device="local-sync"), "lm", num_cpus=8) as server:
        wait_for_replicas("lm", 2, 180)
        seconds, got = _load(CLIENTS, REQUESTS, server, body)
    wrong = sum(
        1
        for i, (status, answer) in enumerate(got)
        if status != 200 or answer["choices"][0]["text"] != expected[prompts[i % len(prompts)]]
    )
    return [
        f"The tiny language model (`/v1/completions`, 4 greedy tokens): {REQUESTS} requests "
        f"in {seconds:.1f} s ({REQUESTS / seconds:.0f} requests/s), {REQUESTS - wrong} equal "
        f"to `module.generate(…)`, {wrong} wrong or failed.",
        "",
    ]


# (chained matmuls, encoding of the request and the answer): the first is the JSON a
# small client writes (nested lists); the others send the arrays in base64, as a client
# of big arrays would, with a short and a long step.
THROUGHPUT_CASES = ((4, "lists"), (4, "base64"), (32, "base64"))


#: Ray's process titles (``ray::ProxyActor`` …) and the role each plays for a request.
ROLES = (
    ("ProxyActor", "Serve's HTTP proxy"),
    ("ServeReplica", "the replicas"),
    ("ServeController", "Serve's controller"),
    ("raylet", "Ray's raylet, GCS and agents"),
    ("gcs_server", "Ray's raylet, GCS and agents"),
    ("agent", "Ray's raylet, GCS and agents"),
)
CLIENTS_ROLE = "the 16 clients (this process)"


def _cpu_by_role() -> dict[str, float]:
    """CPU seconds (user + system) so far of each role's processes (from /proc), and of
    this process (the clients' threads)."""
    ticks = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = {CLIENTS_ROLE: sum(os.times()[:2])}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as stream:
                command = stream.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        role = next((r for marker, r in ROLES if marker in command), None)
        if role is not None:
            found[role] = found.get(role, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return found


def _same(body: tuple[str, Any], index: int) -> tuple[str, Any]:
    return body


def throughput(
    folder: Path, rounds: int, cases: tuple[tuple[int, str], ...] = THROUGHPUT_CASES
) -> list[str]:
    import ray
    from ray import serve

    from abi_compiler.serve.local_ray import LOOPBACK, start_local_ray
    from tests.serve.ray_harness import free_port

    rng = np.random.default_rng(0)
    weights = {
        f"w{i}": (rng.standard_normal((WIDTH, WIDTH)) / WIDTH**0.5).astype(np.float32)
        for i in range(2)
    }
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    lines = [
        "## Throughput: 1 and 2 replicas",
        "",
        f"Chained 512 × 512 matmuls of a {BATCH} × {WIDTH} batch (the step in this process on "
        f"`local-sync` beside each table). {REQUESTS} requests from {CLIENTS} clients per "
        "round, rounds interleaved (1 replica, 2 replicas, …), each replica on `local-sync` "
        "(one thread: the replicas are the parallelism). The request's array and the answer "
        'are nested JSON lists or base64 (`"encoding": "base64"`).',
        "",
    ]
    start_local_ray(8)
    try:
        port = free_port()
        serve.start(http_options={"host": LOOPBACK, "port": port})
        for count, encoding in cases:
            (folder / f"{count}-{encoding}").mkdir()
            path = (
                folder / f"{count}-{encoding}" / "matmuls.vmfb"
            )  # the deployment's name: "matmuls"
            path.write_bytes(abi_iree.compile_vmfb(matmuls(count), parameters=weights))
            module = abi_iree.load(path, results="numpy", device="local-sync")
            module.main(x)
            start = time.perf_counter()
            for _ in range(20):
                module.main(x)
            step = (time.perf_counter() - start) / 20
            expected = encode_value(module.main(x), encoding)  # type: ignore[arg-type]
            request: dict[str, Any] = {"args": [encode_value(x, encoding)]}  # type: ignore[arg-type]
            if encoding == "base64":
                request["encoding"] = "base64"
            found: dict[int, list[float]] = {1: [], 2: []}
            cpu: dict[int, dict[str, list[float]]] = {}
            errors = 0
            for _ in range(rounds):
                for replicas in (1, 2):
                    serve.run(
                        app(path, replicas=replicas, device="local-sync"),
                        name="matmuls",
                        route_prefix="/",
                    )
                    wait_for_replicas("matmuls", replicas, 180)
                    body = functools.partial(_same, ("/v1/functions/main", request))
                    _load(4, 16, Server(port), body)  # warm
                    before = _cpu_by_role()
                    seconds, got = _load(CLIENTS, REQUESTS, Server(port), body)
                    after = _cpu_by_role()
                    for role, total in after.items():
                        spent = (total - before.get(role, 0.0)) / REQUESTS * 1e3
                        cpu.setdefault(replicas, {}).setdefault(role, []).append(spent)
                    errors += sum(
                        1
                        for status, answer in got
                        if status != 200 or answer != {"result": expected}
                    )
                    found[replicas].append(REQUESTS / seconds)
            ratios = [two / one for one, two in zip(found[1], found[2], strict=True)]
            lines += [
                f"### {count} matmuls ({step * 1e3:.1f} ms per call), {encoding}",
                "",
                f"{errors} wrong or failed answers.",
                "",
                "| round | 1 replica (requests/s) | 2 replicas (requests/s) | 2 / 1 |",
                "| --- | --- | --- | --- |",
                *[
                    f"| {i + 1} | {one:.1f} | {two:.1f} | {two / one:.2f} |"
                    for i, (one, two) in enumerate(zip(found[1], found[2], strict=True))
                ],
                "",
                f"Median ratio {statistics.median(ratios):.2f}.",
                "",
                "CPU per request, by role (ms; median of the rounds; a role's processes "
                "read from /proc before and after each round):",
                "",
                "| role | 1 replica | 2 replicas |",
                "| --- | --- | --- |",
                *[
                    f"| {role} | {statistics.median(cpu[1].get(role, [0.0])):.2f} | "
                    f"{statistics.median(cpu[2].get(role, [0.0])):.2f} |"
                    for role in dict.fromkeys([*cpu[1], *cpu[2]])
                ],
                "",
            ]
    finally:
        try:
            serve.shutdown()
        finally:
            ray.shutdown()
    return lines


def _memory(pid: int) -> dict[str, int]:
    found = {}
    with open(f"/proc/{pid}/smaps_rollup") as stream:
        for line in stream:
            parts = line.split()
            if len(parts) >= 3 and parts[0].endswith(":"):
                found[parts[0][:-1]] = int(parts[1]) * 1024
    return {
        "rss": found["Rss"],
        "pss": found["Pss"],
        "private": found.get("Private_Clean", 0) + found.get("Private_Dirty", 0),
    }


def memory(folder: Path) -> list[str]:
    import ray
    from ray import serve

    from abi_compiler.calling.modules import save_parameters
    from abi_compiler.serve.local_ray import LOOPBACK, start_local_ray
    from tests.serve.ray_harness import free_port

    rng = np.random.default_rng(1)
    w = rng.standard_normal((WEIGHT_ROWS, WEIGHT_COLUMNS), dtype=np.float32)
    beside = folder / "beside.vmfb"
    beside.write_bytes(abi_iree.compile_vmfb(BIG))
    save_parameters({"w": w}, folder / "beside.irpa")
    embedded = folder / "embedded.vmfb"
    embedded.write_bytes(abi_iree.compile_vmfb(BIG, parameters={"w": w}))
    tiny = folder / "tiny.vmfb"
    tiny.write_bytes(abi_iree.compile_vmfb(TINY))
    x = rng.standard_normal(WEIGHT_COLUMNS).astype(np.float32)
    expected = w @ x
    del w
    weights = WEIGHT_ROWS * WEIGHT_COLUMNS * 4
    cases = [
        ("no weights (a replica's own cost)", tiny, True, {"args": [[1.0, 2.0, 3.0, 4.0]]}),
        ("256 MiB in the `.vmfb`, mapped", embedded, True, {"args": [x.tolist()]}),
        ("256 MiB in the `.vmfb`, read (`mmap=False`)", embedded, False, {"args": [x.tolist()]}),
        ("256 MiB in an `.irpa` beside it", beside, True, {"args": [x.tolist()]}),
    ]
    rows = []
    start_local_ray(8)
    try:
        port = free_port()
        serve.start(http_options={"host": LOOPBACK, "port": port})
        for label, path, mapped, request in cases:
            for replicas in (1, 2, 4):
                serve.run(
                    app(
                        path,
                        replicas=replicas,
                        device="local-sync",
                        mmap=mapped,
                        cpus_per_replica=1,
                        name="weights",
                    ),
                    name="weights",
                    route_prefix="/",
                )
                pids = wait_for_replicas("weights", replicas, 300)
                served = set()
                for _ in range(40 * replicas):  # until every replica has answered (bounded)
                    status, answer = Server(port).json("POST", "/v1/functions/main", request)
                    assert status == 200, answer
                    if path is not tiny:
                        got = np.asarray(answer["result"], np.float32)
                        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-2)
                    served = {p for p in pids if _memory(p)["private"] > 0}
                    if len(served) == replicas and _all_called(pids, path is tiny, weights):
                        break
                used = [_memory(p) for p in pids]
                rows.append((label, replicas, {k: sum(u[k] for u in used) for k in used[0]}))
                serve.delete("weights")
    finally:
        try:
            serve.shutdown()
        finally:
            ray.shutdown()
    mib = 2**20
    lines = [
        "## Memory: 1, 2, 4 replicas of 256 MiB of weights",
        "",
        "Sums over the replica processes after every replica answered (a call reads every "
        "weight), in MiB; *per extra replica*: (sum at 4 − sum at 1) / 3, and that less "
        "the same for the module without weights, as a fraction of the weights.",
        "",
        "| module | replicas | RSS | PSS | private | PSS per extra replica | over a weightless replica |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    base = {n: t for label, n, t in rows if label.startswith("no weights")}
    by_label: dict[str, dict[int, dict[str, int]]] = {}
    for label, n, totals in rows:
        by_label.setdefault(label, {})[n] = totals
    for label, per in by_label.items():
        extra = (per[4]["pss"] - per[1]["pss"]) / 3
        over = extra - (base[4]["pss"] - base[1]["pss"]) / 3
        for n, totals in sorted(per.items()):
            shown = f"{extra / mib:.0f} MiB" if n == 4 else ""
            net = (
                f"{over / weights:.3f}× the weights"
                if n == 4 and not label.startswith("no")
                else ""
            )
            lines.append(
                f"| {label} | {n} | {totals['rss'] / mib:.0f} | {totals['pss'] / mib:.0f} | "
                f"{totals['private'] / mib:.0f} | {shown} | {net} |"
            )
    return [*lines, ""]


def _all_called(pids: list[int], tiny: bool, weights: int) -> bool:
    """Whether every replica has read the weights (its RSS holds them)."""
    return tiny or all(_memory(p)["rss"] > weights * 0.9 for p in pids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "RESULTS_serve.md")
    parser.add_argument("--parts", default="answers,throughput,memory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--cases",
        default=",".join(f"{count}:{encoding}" for count, encoding in THROUGHPUT_CASES),
        help="the throughput cases, MATMULS:ENCODING (lists or base64), comma-separated",
    )
    options = parser.parse_args()
    parts = options.parts.split(",")
    lines = [
        "# Serving on Ray Serve",
        "",
        f"`python bench/bench_serve.py --parts {options.parts}`; Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs shared with other jobs (load average "
        f"{os.getloadavg()[0]:.1f} at the start), ray {__import__('ray').__version__}, "
        "iree-base-runtime 3.13. A local Ray instance on the loopback, Serve's HTTP proxy on "
        "127.0.0.1, clients in this process (one HTTP connection each).",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as folder:
        if "answers" in parts:
            lines += answers(Path(folder))
        if "throughput" in parts:
            cases = tuple(
                (int(count), encoding)
                for count, encoding in (case.split(":") for case in options.cases.split(","))
            )
            lines += throughput(Path(folder), options.rounds, cases)
        if "memory" in parts:
            lines += memory(Path(folder))
    options.output.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
