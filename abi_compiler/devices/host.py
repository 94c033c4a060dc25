"""This machine's CPU as a module's targets name CPUs (docs/calling.md, "Devices and
targets"): its executable format (``embedded-elf-x86_64``: what IREE's runtime loads
here) and its features by LLVM's names, read from the kernel's flags (``/proc/cpuinfo``,
``flags`` on x86, ``Features`` on Arm) through a table. A feature the table does not
name (LLVM's ``evex512``, ``avx10.1``, …) is not known here, and never reported
missing: only what the kernel says can be checked. Pure: no IREE import.
"""

from __future__ import annotations

import functools
import platform

__all__ = ["ELF_ARCHES", "cpu_features", "executable_format", "missing_features"]

#: `platform.machine()` → the architecture in IREE's executable format names.
ELF_ARCHES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "aarch64": "arm_64",
    "arm64": "arm_64",
    "riscv64": "riscv_64",
    "i386": "x86_32",
    "i686": "x86_32",
}

# The kernel's x86 flag → LLVM's feature, where the names differ (the others are equal).
_X86_NAMES = {
    "fpu": "x87",
    "lm": "64bit",
    "pni": "sse3",
    "sse4_1": "sse4.1",
    "sse4_2": "sse4.2",
    "lahf_lm": "sahf",
    "abm": "lzcnt",
    "pclmulqdq": "pclmul",
    "rdrand": "rdrnd",
    "3dnowprefetch": "prfchw",
    "bmi1": "bmi",
    "sha_ni": "sha",
    "avx_vnni": "avxvnni",
    "avx512_vnni": "avx512vnni",
    "avx512_bitalg": "avx512bitalg",
    "avx512_vpopcntdq": "avx512vpopcntdq",
    "avx512_vbmi2": "avx512vbmi2",
    "avx512_bf16": "avx512bf16",
    "avx512_fp16": "avx512fp16",
    "avx512_vp2intersect": "avx512vp2intersect",
    "amx_tile": "amx-tile",
    "amx_bf16": "amx-bf16",
    "amx_int8": "amx-int8",
    "amx_fp16": "amx-fp16",
    "amx_complex": "amx-complex",
    "avx_ifma": "avxifma",
    "avx_vnni_int8": "avxvnniint8",
    "avx_vnni_int16": "avxvnniint16",
    "avx_ne_convert": "avxneconvert",
    "user_shstk": "shstk",
}

#: The LLVM x86 features the kernel's flags can say are present or absent (those a
#: module may need: instruction sets, not system state).
_X86_CHECKED = frozenset(
    {
        *_X86_NAMES.values(),
        *[
            "adx",
            "aes",
            "avx",
            "avx2",
            "avx512bw",
            "avx512cd",
            "avx512dq",
            "avx512f",
            "avx512ifma",
            "avx512vbmi",
            "avx512vl",
            "bmi2",
            "cldemote",
            "clflushopt",
            "clwb",
            "clzero",
            "cmov",
            "cmpccxadd",
            "cx16",
            "cx8",
            "f16c",
            "fma",
            "fma4",
            "fsgsbase",
            "fxsr",
            "gfni",
            "invpcid",
            "mmx",
            "movbe",
            "movdir64b",
            "movdiri",
            "mwaitx",
            "popcnt",
            "rdpid",
            "rdpru",
            "rdseed",
            "rtm",
            "serialize",
            "sha512",
            "sm3",
            "sm4",
            "sse",
            "sse2",
            "sse4a",
            "ssse3",
            "tbm",
            "tsxldtrk",
            "vaes",
            "vpclmulqdq",
            "waitpkg",
            "wbnoinvd",
            "xop",
            "xsave",
            "xsavec",
            "xsaveopt",
            "xsaves",
        ],
    }
    - {"shstk"}  # (the kernel's flag says whether it is enabled, not whether it exists)
)

# The kernel's Arm feature → LLVM's.
_ARM_NAMES = {
    "fp": "fp-armv8",
    "asimd": "neon",
    "aes": "aes",
    "sha2": "sha2",
    "sha3": "sha3",
    "sm4": "sm4",
    "crc32": "crc",
    "atomics": "lse",
    "fphp": "fullfp16",
    "asimdrdm": "rdm",
    "asimddp": "dotprod",
    "asimdfhm": "fp16fml",
    "jscvt": "jsconv",
    "fcma": "complxnum",
    "lrcpc": "rcpc",
    "dcpop": "ccpp",
    "sve": "sve",
    "sve2": "sve2",
    "i8mm": "i8mm",
    "bf16": "bf16",
    "sme": "sme",
    "bti": "bti",
    "mte": "mte",
    "rng": "rand",
    "frint": "fptoint",
}
_ARM_CHECKED = frozenset(_ARM_NAMES.values())


def executable_format(machine: str | None = None) -> str | None:
    """The format of IREE's CPU executables this machine loads (``embedded-elf-x86_64``);
    None for an architecture IREE's CPU backend does not build for."""
    arch = ELF_ARCHES.get((machine if machine is not None else platform.machine()).lower())
    return None if arch is None else f"embedded-elf-{arch}"


def features_from_cpuinfo(text: str, machine: str) -> tuple[frozenset[str], frozenset[str]]:
    """From ``/proc/cpuinfo`` text of a ``machine``: the LLVM features present, and those
    the text can tell about (present or absent)."""
    arch = ELF_ARCHES.get(machine.lower())
    key, names, checked = (
        ("flags", _X86_NAMES, _X86_CHECKED)
        if arch in ("x86_64", "x86_32")
        else ("features", _ARM_NAMES, _ARM_CHECKED)
    )
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() == key:
            flags = value.split()
            break
    else:
        return frozenset(), frozenset()
    if names is _ARM_NAMES:
        present = {names[flag] for flag in flags if flag in names}
    else:
        present = {names.get(flag, flag) for flag in flags} & checked
    return frozenset(present), checked


@functools.cache
def cpu_features() -> tuple[frozenset[str], frozenset[str]]:
    """This CPU's LLVM features, and those it can tell about (both empty where
    ``/proc/cpuinfo`` cannot be read: nothing is then checked)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as stream:
            text = stream.read()
    except OSError:
        return frozenset(), frozenset()
    return features_from_cpuinfo(text, platform.machine())


def missing_features(needed: tuple[str, ...]) -> list[str]:
    """The features of ``needed`` (LLVM's names) this CPU lacks, as far as it can tell."""
    present, known = cpu_features()
    return [feature for feature in needed if feature in known and feature not in present]
