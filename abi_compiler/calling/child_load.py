"""The child-checked load (docs/calling.md, "Errors"): a module's context first created in
a child process, so that IREE's runtime crashing on a corrupted `.vmfb` (or one not built
for this machine) ends the child, not the caller; modules `compile_vmfb` made in this
process are trusted without one."""

from __future__ import annotations

import hashlib
import os
import sys
from typing import Any

from abi_compiler import child
from abi_compiler.attribute_names import PARAMETER_SCOPE
from abi_compiler.calling.placement import LOCAL_DRIVERS
from abi_compiler.errors import AbiError

__all__ = ["compiled_here", "compiled_in_this_process", "load_in_a_child"]


# What `load(isolate=True)` runs in a child: the module's context created as `Module` does
# (its initializers load its executables), on the driver given (a local CPU: on the
# calling thread). Exit status 3:
# IREE refused it (raised), which the load in this process reports itself.
_CHILD = """
import sys
from iree import runtime as rt

data = sys.stdin.buffer.read()
instance = rt.VmInstance()
device = rt.get_device(sys.argv[3])
mapped = sys.argv[4]
modules = [rt.create_hal_module(instance, device)]
try:
    if sys.argv[1]:
        index = rt.ParameterIndex()
        try:
            index.load(sys.argv[1])
        except Exception as error:
            sys.stdout.write(" ".join(str(error).split()))
            sys.exit(4)
        provider = index.create_provider(scope=sys.argv[2])
        modules.append(rt.create_io_parameters_module(instance, provider))
    if mapped:
        modules.append(rt.VmModule.mmap(instance, mapped))
    else:
        modules.append(rt.VmModule.copy_buffer(instance, data))
    rt.VmContext(instance, modules)
except Exception:
    sys.exit(3)
"""

# The sha256 of each `.vmfb` `compile_vmfb` made in this process (`load` trusts those).
_COMPILED: set[bytes] = set()


def compiled_here(vmfb: bytes) -> None:
    """Note that this process compiled ``vmfb`` (`load` then needs no child to try it)."""
    _COMPILED.add(hashlib.sha256(vmfb).digest())


def compiled_in_this_process(module: Any) -> bool:
    """Whether ``module`` (a `.vmfb`'s bytes) is one `compile_vmfb` made in this process."""
    return isinstance(module, (bytes, bytearray, memoryview)) and (
        hashlib.sha256(module).digest() in _COMPILED
    )


def load_in_a_child(
    data: Any, archive: str | os.PathLike[str] | None, driver: str, mapped: str | None = None
) -> None:
    """Create the module's context in a child process, on ``driver`` (a local CPU's:
    ``local-sync``), from ``data`` or the file ``mapped`` the child maps itself; an
    `AbiError` when IREE's runtime crashed there."""
    if driver.split(":", 1)[0] in LOCAL_DRIVERS:
        driver = "local-sync"
    command = [
        *(sys.executable, "-I", "-c", _CHILD),
        *(os.fspath(archive or ""), PARAMETER_SCOPE, driver, mapped or ""),
    ]
    try:
        child.run(command, b"" if mapped else data)
    except child.ChildFailed as ended:
        if ended.status == 4 and archive is not None:
            # IREE's parser refused the archive: not parsed again here (its reading of a
            # corrupted index is not always the same: a refusal there, a crash here).
            message = ended.stdout.decode("utf-8", "replace")
            raise AbiError(
                f"cannot load the parameters '{os.fspath(archive)}': {message}"
            ) from None
        if ended.signal is None:
            return  # IREE refused it (exit status 3): the load here reports it
        corrupted = (
            "the module is corrupted"
            if archive is None
            else f"the module or its parameters '{os.fspath(archive)}' are corrupted"
        )
        raise AbiError(
            f"cannot load the compiled module: IREE's runtime crashed ({ended.reason}) "
            f"creating its context in a child process; {corrupted}, or not built "
            "for this machine (load(…, isolate=False) skips this check)"
        ) from None
