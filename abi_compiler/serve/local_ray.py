"""A local Ray instance that listens on the loopback only (docs/serving.md, "Where it
listens"): `abi-serve` without ``--address``, the tests and the bench start Ray this way.

``ray.init(_node_ip_address="127.0.0.1")`` alone is not enough on Linux: Ray turns the
loopback into the machine's routable address ("a remotely reachable IP") unless it is
told that this node is no cluster's (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read by
Ray when it is imported, and by the processes it starts); then its node address, its
agents and its gRPC servers are all on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from typing import Any

from abi_compiler.errors import AbiError

__all__ = ["LOOPBACK", "start_local_ray"]

LOOPBACK = "127.0.0.1"
_NO_CLUSTER = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def start_local_ray(num_cpus: int, **options: Any) -> None:
    """Start a local Ray instance with ``num_cpus`` logical CPUs, its node address the
    loopback, no dashboard; an `AbiError` (and nothing left running) when Ray still
    chose another address."""
    previous = os.environ.get(_NO_CLUSTER)
    os.environ[_NO_CLUSTER] = "0"  # (inherited by the processes Ray starts)
    try:
        import ray

        constants: Any = sys.modules.get("ray._private.ray_constants")
        if constants is not None:  # Ray imported before the variable was set
            constants.ENABLE_RAY_CLUSTER = False
        ray.init(
            _node_ip_address=LOOPBACK,
            include_dashboard=False,
            num_cpus=num_cpus,
            **{"log_to_driver": False, **options},
        )
    finally:
        if previous is None:
            del os.environ[_NO_CLUSTER]
        else:
            os.environ[_NO_CLUSTER] = previous
    address = ray.util.get_node_ip_address()
    if address != LOOPBACK:
        ray.shutdown()
        raise AbiError(f"Ray chose the node address {address}, not the loopback: not started")
