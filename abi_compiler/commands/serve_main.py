"""`abi-serve MODEL.vmfb`: a compiled module on Ray Serve, behind HTTP (docs/serving.md).
A local Ray instance whose node address is the loopback by default (``--address`` joins a
cluster), Serve's HTTP proxy on ``--host`` (127.0.0.1) and ``--port`` (8000), one
deployment of ``--replicas`` replicas; it serves until Ctrl-C (or SIGTERM), then stops
what it started. Exit status 1 with one line for a module it cannot serve or a missing
Ray; 130 after Ctrl-C, as the other tools."""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, NoReturn

from abi_compiler.commands import status
from abi_compiler.errors import AbiError

PROG = "abi-serve"


def parser() -> status.ArgumentParser:
    found = status.ArgumentParser(
        prog=PROG, description="Serve a compiled module (.vmfb) over HTTP on Ray Serve."
    )
    found.add_argument("model", help="the compiled module (.vmfb)")
    found.add_argument("--replicas", type=int, default=1, help="replicas of the module (1)")
    found.add_argument("--host", default="127.0.0.1", help="the address HTTP listens on")
    found.add_argument("--port", type=int, default=8000, help="the HTTP port (8000)")
    found.add_argument(
        "--address",
        default=None,
        help="a Ray cluster to join (ray.init's address); by default a local instance",
    )
    found.add_argument("--name", default=None, help="the deployment's name (the file's stem)")
    found.add_argument(
        "--max-body-mb", type=float, default=64, help="the largest request body (64 MiB)"
    )
    found.add_argument(
        "--cpus-per-replica", type=float, default=1.0, help="Ray CPUs each replica takes (1)"
    )
    return found


def main(argv: list[str] | None = None) -> int:
    def run() -> int:
        options = parser().parse_args(argv)
        if options.replicas < 1:
            raise status.UsageError(f"--replicas must be at least 1, got {options.replicas}")
        return serve(options)

    return status.finish(PROG, run)


def serve(options: Any) -> int:
    from abi_compiler.serve.module_file import read_functions

    try:  # (the file first: what is wrong with it is said whether Ray is here or not)
        read_functions(options.model)
    except (AbiError, OSError) as error:
        raise status.UsageError(str(error)) from None
    try:
        import ray
        from ray import serve as ray_serve

        from abi_compiler.serve.deployment import app
        from abi_compiler.serve.local_ray import join_ray, start_local_ray
    except ImportError as error:
        raise status.UsageError(
            f"Ray Serve is not installed ({error}): pip install 'abi-compiler[serve]'"
        ) from None
    try:
        application = app(
            options.model,
            replicas=options.replicas,
            name=options.name,
            max_body=int(options.max_body_mb * 2**20),
            cpus_per_replica=options.cpus_per_replica,
        )
    except (AbiError, OSError) as error:
        raise status.UsageError(str(error)) from None
    if options.address is None:
        cpus = max(os.cpu_count() or 1, int(options.replicas * options.cpus_per_replica + 0.999))
        try:
            start_local_ray(cpus)
        except AbiError as error:
            raise status.UsageError(str(error)) from None
    else:
        try:
            join_ray(options.address)
        except AbiError as error:
            raise status.UsageError(str(error)) from None
    name = options.name or os.path.splitext(os.path.basename(options.model))[0]
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        ray_serve.start(http_options={"host": options.host, "port": options.port})
        ray_serve.run(application, name=name, route_prefix="/")
        sys.stdout.write(
            f"{PROG}: serving {name} ({options.replicas} replica"
            f"{'' if options.replicas == 1 else 's'}) at http://{options.host}:{options.port}/\n"
        )
        sys.stdout.flush()
        threading.Event().wait()  # until Ctrl-C or SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
        try:
            if options.address is None:
                ray_serve.shutdown()
            else:  # a cluster's Serve may serve others' applications: only ours goes
                ray_serve.delete(name)
        finally:
            ray.shutdown()
    return status.OK  # pragma: no cover - the wait above ends by an exception


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt
