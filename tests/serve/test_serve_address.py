"""`abi-serve --address`: joining a running Ray cluster (docs/serving.md). The cluster is a
head started with `ray start --head --block` on the loopback, with token authentication
(Ray's default for `ray start`), in its own process; `abi-serve` joins it, serves, and on
Ctrl-C deletes its application and leaves the cluster running. The translation of Ray's
refusals and the loopback test run without Ray."""

from __future__ import annotations

import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from abi_compiler.errors import AbiError
from abi_compiler.serve.local_ray import is_loopback, join_ray

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (
    "func.func @double(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
    "  %b = arith.addf %a, %a : tensor<3xf32>\n"
    "  return %b : tensor<3xf32>\n"
    "}"
)


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1:6379", True),
        ("127.0.0.2:6379", True),
        ("localhost:6379", True),
        ("[::1]:6379", True),
        ("::1", True),
        ("10.0.0.5:6379", False),
        ("head.example:6379", False),
        ("auto", False),
    ],
)
def test_loopback_addresses(address: str, loopback: bool) -> None:
    assert is_loopback(address) is loopback


def test_a_cluster_that_refuses_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray's ConnectionError (after its retries) becomes an `AbiError` with its first line."""

    def refuse(**options: object) -> None:
        raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379\nmore")

    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(init=refuse))
    with pytest.raises(AbiError) as caught:
        join_ray("10.0.0.5:6379")
    assert str(caught.value) == (
        "cannot join the Ray cluster at 10.0.0.5:6379: "
        "Failed to connect to Ray cluster at 10.0.0.5:6379"
    )


class Output:
    """A process's output lines, read by a thread as they come."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        stream = process.stdout
        assert stream is not None

        def read() -> None:
            for line in stream:
                self.lines.put(line.rstrip("\n"))
            self.lines.put(None)

        threading.Thread(target=read, daemon=True).start()

    def wait_for(self, marker: str, seconds: float) -> None:
        """Until a line containing ``marker``; fails after ``seconds`` or at the end."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if marker in line:
                return
        raise AssertionError(f"no {marker!r} within {seconds} s; output:\n" + "\n".join(self.seen))


def _spawn(
    command: list[str], environment: dict[str, str], cwd: Path | None = None
) -> subprocess.Popen[str]:
    """``command`` in its own process group, its output (with its errors) read by `Output`."""
    return subprocess.Popen(
        command,
        env=environment,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _stop(process: subprocess.Popen[str], sig: int) -> int:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            return process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    return process.wait(timeout=30)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A Ray head on the loopback with token authentication, in its own process group:
    its address and the environment a client of it needs."""
    pytest.importorskip("ray.serve", reason="ray[serve] is not installed")
    ray_command = shutil.which("ray", path=os.path.dirname(sys.executable))
    if ray_command is None:
        pytest.skip("the ray command is not installed beside this Python")
    from tests.serve.ray_harness import free_port

    port = free_port()
    environment = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "PYTHONPATH": str(ROOT),
    }
    head = _spawn(
        [
            ray_command,
            "start",
            "--head",
            "--block",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        environment,
    )
    try:
        Output(head).wait_for("Ray runtime started", 120)
        client = {k: v for k, v in environment.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
        yield f"127.0.0.1:{port}", client
    finally:
        _stop(head, signal.SIGTERM)


def test_abi_serve_joins_a_cluster_on_the_loopback(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    """Without RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER in its environment, `abi-serve` still
    finds a loopback head (Ray alone would look for it at the machine's routable
    address), serves the module, and on Ctrl-C exits 130 leaving the head running."""
    from tests.calling.helpers import compile_quietly
    from tests.serve.ray_harness import Server, free_port

    address, environment = cluster
    model = tmp_path / "double.vmfb"
    model.write_bytes(compile_quietly(SOURCE, "iree-abi-v1", vmfb=True))
    port = free_port()
    serving = _spawn(
        [
            sys.executable,
            "-c",
            "import sys; from abi_compiler.commands.console import abi_serve; abi_serve()",
            str(model),
            "--address",
            address,
            "--port",
            str(port),
        ],
        environment,
        tmp_path,
    )
    try:
        Output(serving).wait_for("abi-serve: serving double", 240)
        status, answer = Server(port).json(
            "POST", "/v1/functions/double", {"args": [[1.0, -2.5, 4.0]]}
        )
        assert (status, answer) == (200, {"result": [2.0, -5.0, 8.0]})
    finally:
        code = _stop(serving, signal.SIGINT)
    assert code == 130
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import ray; ray.init(address={address!r}, _node_ip_address='127.0.0.1'); "
            "print(int(ray.cluster_resources()['CPU']))",
        ],
        env={**environment, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.stdout.strip().splitlines()[-1] == "2", check.stderr[-2000:]


def test_a_local_instance_is_a_new_one_beside_a_cluster(
    cluster: tuple[str, dict[str, str]],
) -> None:
    """With a `ray start` cluster running on this machine (and named by RAY_ADDRESS),
    `start_local_ray` starts its own instance (its 1 CPU, not the cluster's 2): `abi-serve`
    without --address, the tests and the bench never join a cluster by accident."""
    address, environment = cluster
    code = (
        "import ray\n"
        "from abi_compiler.serve.local_ray import start_local_ray\n"
        "start_local_ray(1)\n"
        "print(int(ray.cluster_resources()['CPU']), ray.get_runtime_context().gcs_address)\n"
        "ray.shutdown()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**environment, "RAY_ADDRESS": address},
        capture_output=True,
        text=True,
        timeout=180,
    )
    cpus, gcs = done.stdout.strip().splitlines()[-1].split()
    assert (cpus, gcs != address) == ("1", True), done.stderr[-2000:]
