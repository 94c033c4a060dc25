"""A local Ray instance and Serve for one test module or bench run: the node address and
every server on the loopback, Serve's HTTP proxy on 127.0.0.1 at a free port, each HTTP
request bounded in time; everything stopped on the way out, also when a test fails."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from abi_compiler.serve.local_ray import LOOPBACK, start_local_ray

#: How long one HTTP request may take before the test calls it a hang.
REQUEST_SECONDS = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    """Serve's HTTP proxy on the loopback."""

    port: int

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        timeout: float = REQUEST_SECONDS,
    ) -> tuple[int, bytes]:
        """One request: its status and body (a refused or dropped connection: status 0)."""
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=timeout)
        try:
            connection.request(method, path, data, headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
            return 0, b""
        finally:
            connection.close()

    def json(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, data = self.request(method, path, body)
        return status, json.loads(data) if data else None


@contextmanager
def serving(application: Any, name: str, num_cpus: int = 4) -> Iterator[Server]:
    """``application`` served under ``name`` at ``/`` on a local Ray instance that this
    context starts and stops."""
    import ray
    from ray import serve

    start_local_ray(num_cpus)
    try:
        port = free_port()
        serve.start(http_options={"host": LOOPBACK, "port": port})
        serve.run(application, name=name, route_prefix="/")
        yield Server(port)
    finally:
        try:
            serve.shutdown()
        finally:
            ray.shutdown()


def replica_pids(name: str) -> list[int]:
    """The processes of the replicas of deployment ``name`` (this process's descendants,
    by the title Ray gives them)."""
    import psutil

    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            title = " ".join(process.cmdline())
        except psutil.Error:
            continue
        if title.startswith(f"ray::ServeReplica:{name}:"):
            found.append(process.pid)
    return sorted(found)


def wait_for_replicas(name: str, count: int, seconds: float, gone: int | None = None) -> list[int]:
    """The replica processes once ``count`` are running (and ``gone`` is not one of
    them), polled for at most ``seconds``; an `AssertionError` after that."""
    from ray import serve

    deadline = time.monotonic() + seconds
    while True:
        pids = replica_pids(name)
        deployment = serve.status().applications[name].deployments[name]
        running = deployment.replica_states.get("RUNNING", 0)
        if running == count and len(pids) == count and gone not in pids:
            return pids
        if time.monotonic() > deadline:
            raise AssertionError(f"replicas {pids}, states {deployment.replica_states}")
        time.sleep(0.5)


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
