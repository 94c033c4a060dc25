"""Targets as `target=` and `--target` name them, the iree-compile flags they become, the
executable targets read back from iree-compile's text, and a CPU's features read from
`/proc/cpuinfo` text (`abi_compiler.devices`; docs/calling.md, "Devices and targets").
Pure: no IREE."""

from __future__ import annotations

import pytest

from abi_compiler.codecs.provenance_json import TargetRecord
from abi_compiler.devices.host import executable_format, features_from_cpuinfo
from abi_compiler.devices.targets import (
    FORMS,
    Target,
    executable_targets,
    is_target_flag,
    parse_target,
    parse_targets,
    portable_target,
    target_flags,
)
from abi_compiler.errors import AbiError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cpu", Target("cpu", "host")),
        ("cpu:host", Target("cpu", "host")),
        ("cpu:x86-64-v3", Target("cpu", "x86-64-v3")),
        ("cpu:aarch64-linux-android:generic", Target("cpu", "generic", "aarch64-linux-android")),
        ("cuda", Target("cuda")),
        ("cuda:sm_80", Target("cuda", "sm_80")),
        ("rocm:gfx942", Target("rocm", "gfx942")),
        ("vulkan", Target("vulkan")),
        ("vulkan:rdna3", Target("vulkan", "rdna3")),
        ("metal", Target("metal")),
        ("vmvx", Target("vmvx")),
    ],
)
def test_targets(text: str, expected: Target) -> None:
    assert parse_target(text) == expected
    assert str(expected) == (text if text != "cpu" else "cpu:host")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("host", f"unknown target 'host' (a CPU is named cpu:host): expected {FORMS}"),
        ("gpu:sm_80", f"unknown target 'gpu:sm_80': expected {FORMS}"),
        ("cpu:", f"unknown target 'cpu:': expected {FORMS}"),
        ("cpu:a:b:c", f"unknown target 'cpu:a:b:c': expected {FORMS}"),
        ("cuda:sm 80", f"unknown target 'cuda:sm 80': expected {FORMS}"),
        ("cuda:sm_80:x", f"unknown target 'cuda:sm_80:x': expected {FORMS}"),
        ("metal:apple", f"unknown target 'metal:apple': expected {FORMS}"),
        ("vmvx:x", f"unknown target 'vmvx:x': expected {FORMS}"),
        ("", f"unknown target '': expected {FORMS}"),
        ("rocm", f"target 'rocm' needs an architecture (rocm:gfx942): expected {FORMS}"),
    ],
)
def test_malformed_targets(text: str, message: str) -> None:
    with pytest.raises(AbiError) as caught:
        parse_target(text)
    assert str(caught.value) == message


def test_forms_say_rocm_needs_an_architecture() -> None:
    # IREE needs a ROCm architecture (docs/calling.md's table: `rocm:ARCH`), so the forms an
    # error lists must not offer a bare `rocm`, which is refused.
    assert "rocm:ARCH (e.g. rocm:gfx942)" in FORMS
    assert "rocm[" not in FORMS


def test_target_lists() -> None:
    assert parse_targets("vmvx") == (Target("vmvx"),)
    assert parse_targets(["cuda:sm_80", "cpu"]) == (Target("cuda", "sm_80"), Target("cpu", "host"))
    with pytest.raises(AbiError, match=r"^no target: expected one or more of cpu\[:CPU\]"):
        parse_targets([])
    with pytest.raises(AbiError) as caught:
        parse_targets(["cpu:x86-64-v3", "vmvx", "cpu:host"])
    assert str(caught.value) == (
        "targets 'cpu:x86-64-v3' and 'cpu:host': one module holds one target of each kind "
        "(iree-compile takes one cpu setting)"
    )
    with pytest.raises(TypeError, match="a target must be a str, not int"):
        parse_targets([3])  # type: ignore[list-item]


def test_flags() -> None:
    assert target_flags(parse_targets("cpu:x86-64-v3")) == [
        "--iree-hal-target-device=local",
        "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-llvmcpu-target-cpu=x86-64-v3",
    ]
    assert target_flags(parse_targets(["cuda:sm_80", "vmvx", "cpu:aarch64-linux:generic"])) == [
        "--iree-hal-target-device=cuda,local",
        "--iree-hal-local-target-device-backends=vmvx",
        "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-hal-link-executables=false",
        "--iree-cuda-target=sm_80",
        "--iree-llvmcpu-target-cpu=generic",
        "--iree-llvmcpu-target-triple=aarch64-linux",
    ]
    assert target_flags(parse_targets(["rocm:gfx942", "vulkan", "metal"])) == [
        "--iree-hal-target-device=hip,vulkan,metal",
        "--iree-hal-link-executables=false",
        "--iree-rocm-target=gfx942",
    ]
    flags = target_flags(parse_targets(["rocm:gfx942", "vulkan:rdna3", "cpu"]))
    assert all(is_target_flag(flag) for flag in flags)
    assert not is_target_flag("--iree-opt-level=O3")


def test_portable_target() -> None:
    assert portable_target("x86_64") == "cpu:x86-64-v3"
    assert portable_target("AMD64") == "cpu:x86-64-v3"
    assert portable_target("aarch64") == "cpu:generic"
    assert portable_target("riscv64") == "cpu:generic"
    assert executable_format("x86_64") == "embedded-elf-x86_64"
    assert executable_format("arm64") == "embedded-elf-arm_64"
    assert executable_format("sparc") is None


# iree-compile's `--compile-to=flow` text for cuda,local with llvm-cpu and vmvx (cut).
FLOW = (
    '#device_target_cuda = #hal.device.target<"cuda", [#hal.executable.target<"cuda", '
    '"cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_80", '
    'features = "+ptx76", wgp = <compute = fp32>>}>]> : !hal.device\n'
    '#device_target_local = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", '
    '"embedded-elf-x86_64", {cpu = "x86-64-v2", cpu_features = "+sse4.2,-avx,+popcnt,+cx16", '
    'data_layout = "e-m:e", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, '
    'target_triple = "x86_64-unknown-unknown-eabi-elf"}>, #hal.executable.target<"vmvx", '
    '"vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>}>]>\n'
    'hal.executable.variant public @x target(#hal.executable.target<"vmvx", "vmvx-bytecode-fb">)'
)


def test_executable_targets() -> None:
    assert executable_targets(FLOW) == (
        TargetRecord("cuda", "cuda-nvptx-fb", arch="sm_80"),
        TargetRecord(
            "llvm-cpu",
            "embedded-elf-x86_64",
            cpu="x86-64-v2",
            features=("cx16", "popcnt", "sse4.2"),
            triple="x86_64-unknown-unknown-eabi-elf",
        ),
        TargetRecord("vmvx", "vmvx-bytecode-fb"),
    )
    assert executable_targets("no targets") == ()


X86 = """processor\t: 0
vendor_id\t: GenuineIntel
flags\t\t: fpu cx8 sse sse2 pni ssse3 sse4_1 sse4_2 lahf_lm abm avx2 avx512_vnni sha_ni hypervisor
bugs\t\t: spectre_v1
"""

ARM = """processor\t: 0
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics asimddp sve
CPU implementer\t: 0x41
"""


def test_features_from_cpuinfo() -> None:
    present, known = features_from_cpuinfo(X86, "x86_64")
    assert sorted(present) == [
        "avx2",
        "avx512vnni",
        "cx8",
        "lzcnt",
        "sahf",
        "sha",
        "sse",
        "sse2",
        "sse3",
        "sse4.1",
        "sse4.2",
        "ssse3",
        "x87",
    ]
    assert {"avx512f", "sse4a", "avx2", "amx-tile"} <= known
    assert not {"evex512", "avx10.1", "crc32", "hypervisor"} & known  # not in the flags
    present, known = features_from_cpuinfo(ARM, "aarch64")
    assert sorted(present) == ["aes", "crc", "dotprod", "fp-armv8", "lse", "neon", "sha2", "sve"]
    assert {"sve2", "i8mm", "bf16"} <= known
    assert features_from_cpuinfo("processor: 0\n", "x86_64") == (frozenset(), frozenset())
