"""Constants keep their value through `abi-opt` (docs/design.md#constants): every bit
pattern of every float type xDSL has survives print → parse → print, splats stay one
element, and the other literal forms either round-trip exactly or are located errors.
The expected texts are what `iree-opt` (IREE 3.13) prints for the same input.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import builtin
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    ModuleOp,
)
from xdsl.dialects.func import FuncOp

from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.xdsl_boundary import xdsl_fixes
from abi_compiler.xdsl_boundary.bit_patterns import float_bits, float_value, format_float
from abi_compiler.xdsl_boundary.dense_elements import is_compact_splat
from tests.lowering.helpers import parse, print_module

# Every float type of xDSL 0.74 that has a bit-level representation (not f80, f128).
FLOAT_TYPES: list[AnyFloat] = [
    builtin.f16,
    builtin.BFloat16Type(),
    builtin.f32,
    builtin.f64,
    builtin.FloatTF32Type(),
    builtin.Float8E5M2Type(),
    builtin.Float8E4M3Type(),
    builtin.Float8E4M3FNType(),
    builtin.Float8E5M2FNUZType(),
    builtin.Float8E4M3FNUZType(),
    builtin.Float8E4M3B11FNUZType(),
    builtin.Float8E3M4Type(),
    builtin.Float8E8M0FNUType(),
    builtin.Float6E2M3FNType(),
    builtin.Float6E3M2FNType(),
    builtin.Float4E2M1FNType(),
]
SMALL_TYPES = [t for t in FLOAT_TYPES if t.bitwidth <= 16]


@pytest.fixture(autouse=True)
def _fixed_xdsl() -> Iterator[None]:
    """As inside a run: compact splats answer `len()` and `get_values()` (the IR these
    tests inspect is the pipeline's)."""
    with xdsl_fixes.applied():
        yield


def _reads_back(text: str, type: AnyFloat) -> int:
    """The bits the parser makes of a printed float element."""
    if text.startswith("0x"):
        return int(text, 16)
    return float_bits(float(text), type)


@pytest.mark.parametrize("type", SMALL_TYPES, ids=lambda t: t.name)
def test_every_bit_pattern_of_small_types(type: AnyFloat) -> None:
    """Exhaustive for the types of at most 16 bits: bits → value → bits is the
    identity, and the printed text reads back to the same bits."""
    for bits in range(1 << type.bitwidth):
        assert float_bits(float_value(bits, type), type) == bits, hex(bits)
        assert _reads_back(format_float(bits, type), type) == bits, hex(bits)


def _constants_module(type: AnyFloat, patterns: list[int]) -> str:
    name = type.name
    digits = (type.bitwidth + 3) // 4
    hexes = [f"0x{p:0{digits}X}" for p in patterns]
    n = len(patterns)
    return (
        f"func.func @f() -> (tensor<{name}>, tensor<{n}x{name}>, tensor<3x{name}>, {name})"
        f" attributes {{a = array<{name}: {', '.join(hexes)}>}} {{\n"
        f"  %0 = arith.constant dense<{hexes[0]}> : tensor<{name}>\n"
        f"  %1 = arith.constant dense<[{', '.join(hexes)}]> : tensor<{n}x{name}>\n"
        f"  %2 = arith.constant dense<{hexes[-1]}> : tensor<3x{name}>\n"
        f"  %3 = arith.constant {hexes[0]} : {name}\n"
        f"  func.return %0, %1, %2, %3 : tensor<{name}>, tensor<{n}x{name}>, tensor<3x{name}>, {name}\n"
        "}\n"
    )


def _constant_bits(module: ModuleOp) -> list[list[int]]:
    """The bit patterns each constant of the module holds (a splat: one per element),
    then those of the function's `a` array attribute."""
    found: list[list[int]] = []
    array: list[list[int]] = []
    for op in module.walk():
        if isinstance(op, FuncOp):
            attribute = op.attributes["a"]
            assert isinstance(attribute, DenseArrayBase)
            size = attribute.elt_type.compile_time_size
            data = attribute.data.data
            array.append(
                [int.from_bytes(data[i : i + size], "little") for i in range(0, len(data), size)]
            )
        if not isinstance(op, ConstantOp):
            continue
        value = op.value
        if isinstance(value, FloatAttr):
            found.append([float_bits(value.value.data, value.type)])
        else:
            assert isinstance(value, DenseIntOrFPElementsAttr)
            size = value.get_element_type().compile_time_size
            data = value.data.data
            if is_compact_splat(value):
                data *= len(value)
            found.append(
                [int.from_bytes(data[i : i + size], "little") for i in range(0, len(data), size)]
            )
    return found + array


@st.composite
def typed_patterns(draw: st.DrawFn) -> tuple[AnyFloat, list[int]]:
    type = draw(st.sampled_from(FLOAT_TYPES))
    width = type.bitwidth
    # Bias towards the all-ones exponents (infinities, NaNs and their payloads) and the
    # sign bit, where xDSL used to lose them.
    special = st.builds(
        lambda sign, low: (sign << (width - 1)) | (((1 << width) - 1) >> 1) ^ low,
        st.integers(0, 1),
        st.integers(0, (1 << min(width - 1, 24)) - 1),
    )
    pattern = st.one_of(st.integers(0, (1 << width) - 1), special)
    size = draw(st.integers(1, 8))
    return type, draw(st.lists(pattern, min_size=size, max_size=size))


@settings(max_examples=300, deadline=None)
@given(typed_patterns())
def test_any_float_bit_pattern_survives(case: tuple[AnyFloat, list[int]]) -> None:
    """Splat, per-element and scalar hexadecimal constants hold the written bits, and
    print → parse → print is stable and keeps them."""
    type, patterns = case
    module = parse(_constants_module(type, patterns))
    held = _constant_bits(module)
    assert held == [[patterns[0]], patterns, [patterns[-1]] * 3, [patterns[0]], patterns]
    printed = print_module(module)
    again = parse(printed)
    assert _constant_bits(again) == held
    assert print_module(again) == printed


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([builtin.f16, builtin.BFloat16Type(), builtin.f32, builtin.f64]),
    st.data(),
)
def test_hex_blobs_survive(type: AnyFloat, data: st.DataObject) -> None:
    """More than 100 elements print as one `"0x…"` string; its bytes come back."""
    width = type.bitwidth
    patterns = data.draw(st.lists(st.integers(0, (1 << width) - 1), min_size=101, max_size=140))
    raw = b"".join(p.to_bytes(width // 8, "little") for p in patterns)
    n = len(patterns)
    text = (
        f"func.func @f() -> tensor<{n}x{type.name}> attributes {{a = array<i8>}} {{\n"
        f'  %0 = arith.constant dense<"0x{raw.hex()}"> : tensor<{n}x{type.name}>\n'
        f"  func.return %0 : tensor<{n}x{type.name}>\n}}\n"
    )
    module = parse(text)
    assert _constant_bits(module)[0] == patterns
    printed = print_module(module)
    if len(set(patterns)) > 1:
        assert f'dense<"0x{raw.hex().upper()}">' in printed
    assert _constant_bits(parse(printed))[0] == patterns


def test_negative_zero_is_not_a_splat_of_zero() -> None:
    module = parse(
        "func.func @f() -> tensor<2xf32> {\n"
        "  %0 = arith.constant dense<[0.0, -0.0]> : tensor<2xf32>\n"
        "  func.return %0 : tensor<2xf32>\n}\n"
    )
    assert "dense<[0.000000e+00, -0.000000e+00]>" in print_module(module)


def test_splat_is_stored_once() -> None:
    module = parse(
        "func.func @f() -> tensor<100000000xf32> {\n"
        "  %0 = arith.constant dense<1.5> : tensor<100000000xf32>\n"
        "  func.return %0 : tensor<100000000xf32>\n}\n"
    )
    (op,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    value = op.value
    assert isinstance(value, DenseIntOrFPElementsAttr)
    assert is_compact_splat(value)
    assert value.data.data == struct.pack("<f", 1.5)
    assert len(value) == 100_000_000 and value.is_splat()
    assert "dense<1.500000e+00> : tensor<100000000xf32>" in print_module(module)


def test_compact_splat_values_expand_on_request() -> None:
    module = parse(
        "func.func @f() -> tensor<2x2xi16> {\n"
        "  %0 = arith.constant dense<-3> : tensor<2x2xi16>\n"
        "  func.return %0 : tensor<2x2xi16>\n}\n"
    )
    (op,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    value = op.value
    assert isinstance(value, DenseIntOrFPElementsAttr)
    assert value.get_values() == (-3, -3, -3, -3)
    assert list(value.iter_values()) == [-3, -3, -3, -3]
    assert [a.value.data for a in value.get_attrs()] == [-3] * 4
    assert [a.value.data for a in value.iter_attrs()] == [-3] * 4


def test_abi_opt_output_through_the_spool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The driver's output (written through its binary spool) is the printed module."""
    source = tmp_path / "in.mlir"
    source.write_text(
        "func.func @f() -> tensor<f32> {\n"
        "  %0 = arith.constant dense<0xFF800000> : tensor<f32>\n"
        "  func.return %0 : tensor<f32>\n}\n"
    )
    assert AbiOptMain.main([str(source)]) == 0
    assert "dense<0xFF800000> : tensor<f32>" in capsys.readouterr().out


# f80 and f128 literals no double holds: beyond its range, infinities, NaNs, 113 bits.
EXTENDED_FLOATS = [
    "1.5 : f80",
    "-2.5 : f128",
    "1.0e4000 : f80",
    "0x7FFF8000000000000000 : f80",
    "0x3FFF0000000000000000000000000001 : f128",
    "0x7FFF8000000000000000000000000000 : f128",
]


@pytest.mark.parametrize("literal", EXTENDED_FLOATS)
def test_extended_float_literals_are_kept(literal: str) -> None:
    """xDSL holds a float attribute as a double, which cannot hold every f80/f128 value
    (these printed as an internal error, or changed): parsed attributes keep the literal
    as written, which MLIR reads as the same value (in a function header, and in a body
    that is parsed)."""
    module = parse(
        f"func.func @f() attributes {{a = {literal}}} {{\n"
        f'  "test.op"() {{b = [{literal}]}} : () -> ()\n'
        "  func.return\n}\n",
        allow_unregistered=True,
    )
    printed = print_module(module)
    assert f"attributes {{a = {literal}}}" in printed
    assert f"{{b = [{literal}]}}" in printed
    assert print_module(parse(printed, allow_unregistered=True)) == printed


def test_extended_float_values_a_pass_makes_print_exactly() -> None:
    """An f80/f128 attribute built from a double (not read from text) prints its exact
    decimal value."""
    value = FloatAttr(0.1, builtin.f80)
    module = parse("func.func @f() {\n  func.return\n}\n")
    (func,) = [op for op in module.walk() if isinstance(op, FuncOp)]
    func.attributes["a"] = value
    func.attributes["b"] = FloatAttr(float("inf"), builtin.f128)
    printed = print_module(module)
    assert "a = 1.00000000000000006e-01 : f80" in printed
    assert "b = 0x7FFF0000000000000000000000000000 : f128" in printed
