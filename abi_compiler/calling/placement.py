"""Which device a loaded module runs on (docs/calling.md, "Devices and targets"): its
executable targets, as its `abi.provenance` records them, against the HAL drivers this
machine has a device for and this CPU's features (`abi_compiler.devices.host`). `load`
asks `choose_driver` before it creates the module's context, so that a module none of
whose targets can run here is an `AbiError` naming them, the CPU features missing and
the drivers present — never an illegal instruction at the first call. On the local CPU
the default driver follows the module's size (`local_driver`): a small module's call is
too short for IREE's task system to pay for its threads."""

from __future__ import annotations

import functools
import os
from typing import Any

from abi_compiler.attribute_names import ABI_PROVENANCE
from abi_compiler.calling.iree_runtime import rt
from abi_compiler.codecs.provenance_json import TargetRecord, decode_provenance, format_target
from abi_compiler.devices.host import executable_format, missing_features
from abi_compiler.errors import AbiError

__all__ = [
    "LOCAL_DRIVERS",
    "LOCAL_TASK_BYTES",
    "choose_driver",
    "local_driver",
    "module_targets",
    "present_drivers",
]

#: The drivers of the local CPU (they run `llvm-cpu` and `vmvx` executables).
LOCAL_DRIVERS = ("local-task", "local-sync")

#: The module size (its `.vmfb` and the parameters it reads, in bytes) from which `load`
#: runs it on ``local-task`` by default, below which on ``local-sync``: a call of a
#: module of this size reads about as many bytes of weights, long enough for a second
#: thread to pay for waking it at each of its dispatches; below it no run measured a clear
#: gain (`bench/bench_device_default.py`; docs/calling.md, "The local CPU driver").
LOCAL_TASK_BYTES = 256 << 20

#: The driver of each GPU backend, in the order `load` prefers them.
_GPU_DRIVERS = {"cuda": "cuda", "rocm": "hip", "vulkan-spirv": "vulkan", "metal-spirv": "metal"}


def module_targets(vm_module: Any) -> tuple[TargetRecord, ...]:
    """The executable targets the module records (`abi.provenance` of its first function
    that has one); none for a module that records none, or a malformed entry or name
    (which `abi-sig show` and the load report)."""
    try:
        for name in vm_module.function_names:
            text = dict(vm_module.lookup_function(name).reflection).get(ABI_PROVENANCE)
            if text is not None:
                return decode_provenance(text).targets
    except (AbiError, RuntimeError):  # (a name not UTF-8: loading it says so)
        return ()
    return ()


@functools.cache
def present_drivers() -> tuple[str, ...]:
    """The HAL drivers of IREE's runtime with a device on this machine (the local ones
    always; a GPU's when its library loads and lists a device)."""
    found: list[str] = []
    for name in rt.query_available_drivers():
        if name in LOCAL_DRIVERS:
            found.append(name)
            continue
        try:
            if rt.get_driver(name).query_available_devices():
                found.append(name)
        except Exception:  # its library is absent (no GPU): IREE's ValueError/RuntimeError
            continue
    return tuple(sorted(found))


def _local_refusal(targets: tuple[TargetRecord, ...]) -> str | None:
    """Why the local CPU cannot run the module (None: it can). IREE's runtime takes the
    first local executable whose format it loads, so a CPU executable of this machine's
    architecture that needs features this CPU lacks is what it would run."""
    here = executable_format()
    reasons: list[str] = []
    for target in targets:
        if target.backend == "vmvx":
            return None
        if target.backend != "llvm-cpu":
            continue
        if target.format != here:
            reasons.append(f"{format_target(target)} is not for this machine ({here})")
            continue
        missing = missing_features(target.features)
        if not missing:
            return None
        reasons.append(
            f"{format_target(target)} needs CPU features this CPU lacks: {', '.join(missing)}"
        )
        break
    return "; ".join(reasons) or "it has no CPU or vmvx executable"


def local_driver(size: int, cpus: int | None = None) -> str:
    """The local CPU driver for a module of ``size`` bytes (its `.vmfb` and the parameters
    it reads): ``local-task`` from `LOCAL_TASK_BYTES` on where the process may run on two
    CPUs or more (``cpus``; by default those of its affinity mask), ``local-sync``
    otherwise. The size stands for the work of a call, which is not known before one: a
    module whose work comes from its inputs rather than its weights is best given its
    ``device``."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    return "local-task" if size >= LOCAL_TASK_BYTES and cpus >= 2 else "local-sync"


def choose_driver(targets: tuple[TargetRecord, ...], requested: str | None, size: int) -> str:
    """The driver to load a module of ``targets`` and ``size`` bytes with: ``requested``
    (a driver name or device URI) when one of the targets runs on it, else the best the
    module and this machine share — a GPU's driver with a device here, then the local
    CPU's for its size (`local_driver`). A module that records no targets goes to
    ``requested`` or the local CPU unchecked. An `AbiError` naming the targets, the CPU
    features missing and the drivers present otherwise."""
    if not targets:
        return requested or local_driver(size)
    driver = None if requested is None else requested.split(":", 1)[0]
    if driver is None or driver not in LOCAL_DRIVERS:
        for backend, gpu in _GPU_DRIVERS.items():
            if driver not in (None, gpu) or not any(t.backend == backend for t in targets):
                continue
            if gpu in present_drivers():
                return requested or gpu
    local = _local_refusal(targets)
    if (driver is None or driver in LOCAL_DRIVERS) and local is None:
        return requested or local_driver(size)
    named = "; ".join(format_target(target) for target in targets)
    why = [] if local is None else [f"on the CPU: {local}"]
    where = "on this machine" if driver is None else f"on the driver '{driver}'"
    raise AbiError(
        f"the module cannot run {where}: its targets: {named}"
        + "".join(f"; {reason}" for reason in why)
        + f"; drivers present: {', '.join(present_drivers()) or 'none'}"
        + " (compile it for one of them: docs/calling.md, 'Devices and targets')"
    )
