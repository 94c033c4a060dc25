"""A local Ray instance that listens on the loopback only (docs/serving.md, "Where it
listens"): `abi-serve` without ``--address``, the tests and the bench start Ray this way.

``ray.init(_node_ip_address="127.0.0.1")`` alone is not enough on Linux: Ray turns the
loopback into the machine's routable address ("a remotely reachable IP") unless it is
told that this node is no cluster's (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read by
Ray when it is imported, and by the processes it starts); then its node address, its
agents and its gRPC servers are all on 127.0.0.1. `join_ray` joins a running cluster
(``abi-serve --address``), with the same care where the cluster's address is a loopback
one (a head started with ``ray start --head --node-ip-address=127.0.0.1``)."""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from abi_compiler.errors import AbiError

__all__ = ["LOOPBACK", "join_ray", "start_local_ray"]

LOOPBACK = "127.0.0.1"
_NO_CLUSTER = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextmanager
def _no_cluster() -> Iterator[None]:
    """Ray told, while it starts or connects, that this node is no cluster's: its node
    address stays the loopback."""
    previous = os.environ.get(_NO_CLUSTER)
    os.environ[_NO_CLUSTER] = "0"  # (inherited by the processes Ray starts)
    try:
        constants: Any = sys.modules.get("ray._private.ray_constants")
        if constants is not None:  # Ray imported before the variable was set
            constants.ENABLE_RAY_CLUSTER = False
        yield
    finally:
        if previous is None:
            del os.environ[_NO_CLUSTER]
        else:
            os.environ[_NO_CLUSTER] = previous


def start_local_ray(num_cpus: int, **options: Any) -> None:
    """Start a new local Ray instance with ``num_cpus`` logical CPUs, its node address
    the loopback, no dashboard (a new one even where a cluster runs on this machine); an `AbiError` (and nothing left running) when Ray still
    chose another address."""
    with _no_cluster():
        import ray

        ray.init(
            address="local",  # (not a cluster `ray start` left running, nor RAY_ADDRESS's)
            _node_ip_address=LOOPBACK,
            include_dashboard=False,
            num_cpus=num_cpus,
            **{"log_to_driver": False, **options},
        )
    address = ray.util.get_node_ip_address()
    if address != LOOPBACK:
        ray.shutdown()
        raise AbiError(f"Ray chose the node address {address}, not the loopback: not started")


def is_loopback(address: str) -> bool:
    """Whether a Ray address (``HOST:PORT``, or ``HOST``) names this machine's loopback."""
    if address.startswith("["):  # [IPv6]:PORT
        host = address[1:].split("]", 1)[0]
    elif address.count(":") == 1:  # HOST:PORT
        host = address.split(":", 1)[0]
    else:  # HOST, or a bare IPv6 address
        host = address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_ray(address: str) -> None:
    """Connect to the running Ray cluster at ``address`` (``ray.init``'s address); on a
    loopback address the node address stays the loopback (Ray would otherwise look for the
    cluster at the machine's routable address). An `AbiError` with Ray's reason when it
    cannot connect; a cluster with token authentication needs ``RAY_AUTH_MODE=token`` and
    its token (``RAY_AUTH_TOKEN`` or ``~/.ray/auth_token``), as every Ray client does."""
    import ray

    try:
        if is_loopback(address):
            with _no_cluster():
                ray.init(address=address, _node_ip_address=LOOPBACK, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise AbiError(f"cannot join the Ray cluster at {address}: {first}") from None
