"""The devices a module is compiled for (docs/calling.md, "Devices and targets"): a target
named as `compile_vmfb(…, target=…)` and `abi-compile --target` take it —
``cpu[:<cpu>]``, ``cpu:<triple>:<cpu>``, ``cuda[:<arch>]``, ``rocm:<arch>``,
``vulkan[:<arch>]``, ``metal``, ``vmvx`` — read into a `Target`, and a list of them into
iree-compile's flags: one device per kind (``local`` holds the CPU and vmvx executables,
in the order given), several devices as IREE's device select (the runtime takes the first
that is present). What iree-compile resolved each target to (its executable format, CPU
and features, GPU architecture) is read back from its ``#hal.executable.target`` text
(`executable_targets`). Pure: no IREE import.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass

from abi_compiler.codecs.provenance_json import TargetRecord
from abi_compiler.errors import AbiError

__all__ = [
    "FORMS",
    "Target",
    "executable_targets",
    "is_target_flag",
    "parse_target",
    "parse_targets",
    "portable_target",
    "target_flags",
]

#: The forms a target takes, as an error names them.
FORMS = (
    "cpu[:CPU] (an LLVM CPU name or level: host, x86-64-v3, znver4, generic, …), "
    "cpu:TRIPLE:CPU (e.g. cpu:aarch64-linux-android:generic), cuda[:ARCH] (e.g. cuda:sm_80), "
    "rocm:ARCH (e.g. rocm:gfx942), vulkan[:ARCH], metal, vmvx"
)

#: Per kind: IREE's compiler backend and HAL device.
_KINDS: dict[str, tuple[str, str]] = {
    "cpu": ("llvm-cpu", "local"),
    "vmvx": ("vmvx", "local"),
    "cuda": ("cuda", "cuda"),
    "rocm": ("rocm", "hip"),
    "vulkan": ("vulkan-spirv", "vulkan"),
    "metal": ("metal-spirv", "metal"),
}

#: The flag that names a GPU kind's architecture.
_ARCH_FLAGS = {
    "cuda": "--iree-cuda-target",
    "rocm": "--iree-rocm-target",
    "vulkan": "--iree-vulkan-target",
}

# An LLVM CPU name, GPU architecture or triple: letters, digits and . _ + - only.
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*\Z")


@dataclass(frozen=True, slots=True)
class Target:
    """One target: its ``kind`` (``cpu``, ``cuda``, ``rocm``, ``vulkan``, ``metal``,
    ``vmvx``), the CPU or GPU architecture ``name`` (None: IREE's default; a CPU's
    default is ``host``) and a CPU's LLVM ``triple`` (None: this machine's)."""

    kind: str
    name: str | None = None
    triple: str | None = None

    @property
    def backend(self) -> str:
        """IREE's compiler backend (``llvm-cpu``, ``cuda``, ``rocm``, ``vulkan-spirv``,
        ``metal-spirv``, ``vmvx``)."""
        return _KINDS[self.kind][0]

    @property
    def device(self) -> str:
        """IREE's HAL device (``local``, ``cuda``, ``hip``, ``vulkan``, ``metal``)."""
        return _KINDS[self.kind][1]

    def __str__(self) -> str:
        return ":".join(part for part in (self.kind, self.triple, self.name) if part is not None)


def parse_target(text: str) -> Target:
    """The `Target` ``text`` names; an `AbiError` naming the accepted forms otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"a target must be a str, not {type(text).__name__}")
    kind, colon, rest = text.partition(":")
    parts = rest.split(":") if colon else []
    if kind not in _KINDS and not colon and _WORD.match(text):
        raise AbiError(f"unknown target {text!r} (a CPU is named cpu:{text}): expected {FORMS}")
    if kind not in _KINDS or not all(_WORD.match(part) for part in parts):
        raise AbiError(f"unknown target {text!r}: expected {FORMS}")
    if kind == "cpu" and len(parts) <= 2:
        return Target("cpu", parts[-1] if parts else "host", parts[0] if len(parts) == 2 else None)
    if kind == "rocm" and not parts:
        raise AbiError(f"target 'rocm' needs an architecture (rocm:gfx942): expected {FORMS}")
    if kind in _ARCH_FLAGS and len(parts) <= 1:
        return Target(kind, parts[0] if parts else None)
    if not parts and kind in ("metal", "vmvx"):
        return Target(kind)
    raise AbiError(f"unknown target {text!r}: expected {FORMS}")


def parse_targets(value: str | Sequence[str]) -> tuple[Target, ...]:
    """The targets of ``target=`` (one, or a sequence of them: one module with an
    executable per target); an `AbiError` for none, for two of one kind (iree-compile
    takes one CPU and one architecture per GPU kind) or a malformed one."""
    texts = [value] if isinstance(value, str) else list(value)
    if not texts:
        raise AbiError(f"no target: expected one or more of {FORMS}")
    targets = tuple(parse_target(text) for text in texts)
    for position, target in enumerate(targets):
        for earlier in targets[:position]:
            if earlier.kind == target.kind:
                raise AbiError(
                    f"targets {str(earlier)!r} and {str(target)!r}: one module holds one "
                    f"target of each kind (iree-compile takes one {target.kind} setting)"
                )
    return targets


def target_flags(targets: Sequence[Target]) -> list[str]:
    """iree-compile's flags for ``targets``: ``--iree-hal-target-device`` with each device
    once, in the order of its first target (several: a device select, the first present
    device taken at run time); the local device's backends in order; then each target's
    CPU, triple or architecture."""
    devices = list(dict.fromkeys(target.device for target in targets))
    flags = [f"--iree-hal-target-device={','.join(devices)}"]
    flags += [
        f"--iree-hal-local-target-device-backends={target.backend}"
        for target in targets
        if target.device == "local"
    ]
    if len(targets) > 1:
        # IREE 3.13 links each backend's executables into one executable per backend, each
        # with that backend's variant alone: a device that loads another format then
        # fails to create it (UNAVAILABLE at load) instead of taking its own variant.
        flags.append("--iree-hal-link-executables=false")
    for target in targets:
        if target.kind == "cpu":
            flags.append(f"--iree-llvmcpu-target-cpu={target.name}")
            if target.triple is not None:
                flags.append(f"--iree-llvmcpu-target-triple={target.triple}")
        elif target.kind in _ARCH_FLAGS and target.name is not None:
            flags.append(f"{_ARCH_FLAGS[target.kind]}={target.name}")
    return flags


#: The prefixes of the iree-compile flags `target_flags` gives.
_TARGET_FLAG_PREFIXES = (
    "--iree-hal-target-device=",
    "--iree-hal-local-target-device-backends=",
    "--iree-llvmcpu-target-cpu=",
    "--iree-llvmcpu-target-triple=",
    "--iree-hal-link-executables=",
    *(f"{flag}=" for flag in _ARCH_FLAGS.values()),
)


def is_target_flag(flag: str) -> bool:
    """Whether ``flag`` is one that `target_flags` gives (it says where the module runs)."""
    return flag.startswith(_TARGET_FLAG_PREFIXES)


#: A portable CPU level per machine (`platform.machine()`), for a file that is shipped.
_PORTABLE = {"x86_64": "x86-64-v3", "amd64": "x86-64-v3", "aarch64": "generic", "arm64": "generic"}


def portable_target(machine: str | None = None) -> str:
    """The target `compile_vmfb` and `abi-compile` compile for by default: a CPU level
    that other machines of this one's architecture run (``cpu:x86-64-v3``, AVX2, on x86-64;
    ``cpu:generic`` elsewhere), not this CPU's own features (docs/calling.md, "Devices and
    targets")."""
    found = (machine if machine is not None else platform.machine()).lower()
    return f"cpu:{_PORTABLE.get(found, 'generic')}"


# `#hal.executable.target<"backend", "format", {…}>` as iree-compile prints it.
_EXECUTABLE_TARGET = re.compile(r'#hal\.executable\.target<"([^"]*)", "([^"]*)"')
_STRING_MEMBER = re.compile(r'(?<![\w.])(cpu|cpu_features|target_triple|arch) = "([^"]*)"')


def executable_targets(text: str) -> tuple[TargetRecord, ...]:
    """Each executable target in iree-compile's output ``text`` (its device targets, as
    `--compile-to=flow` prints them), once, in order: backend, format, and the CPU, its
    features (those turned on, without the ``+``), triple, or GPU architecture."""
    found: dict[tuple[str, ...], TargetRecord] = {}
    matches = list(_EXECUTABLE_TARGET.finditer(text))
    for position, match in enumerate(matches):
        backend, executable_format = match.group(1), match.group(2)
        end = matches[position + 1].start() if position + 1 < len(matches) else len(text)
        body = text[match.end() : end]
        members: dict[str, str] = {}
        for key, value in _STRING_MEMBER.findall(body):
            members.setdefault(key, value)  # (the target's own, before any nested one)
        features = members.get("cpu_features", "").split(",")
        record = TargetRecord(
            backend,
            executable_format,
            members.get("cpu"),
            tuple(sorted({f[1:] for f in features if f.startswith("+")})),
            members.get("target_triple"),
            members.get("arch"),
        )
        found.setdefault((backend, executable_format), record)
    return tuple(found.values())
