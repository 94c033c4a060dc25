"""Shared helpers for the runtime marshalling tests."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from abi_compiler.errors import AbiError


def abi(a: list[Any], r: list[Any] | None = None) -> str:
    """An `iree.abi` JSON text from Python records (docs/spec.md §4.2 form)."""
    document = {"a": a, "r": [] if r is None else r, "v": 1}
    return json.dumps(document, separators=(",", ":"), sort_keys=True)


def error_of(call: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The message of the `AbiError` ``call`` raises."""
    with pytest.raises(AbiError) as info:
        call(*args, **kwargs)
    return str(info.value)


def compile_quietly(source: Any, *args: Any, vmfb: bool = False, **options: Any) -> Any:
    """`abi_compiler.iree.compile(source, *args, **options)` (with `vmfb=True`,
    `compile_vmfb`: the module's bytes) without its `CompileWarning`s (what IREE says of
    the host CPU, names a legacy SIP root drops and the like); skips without IREE."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from abi_compiler import iree as abi_iree

    compile_ = abi_iree.compile_vmfb if vmfb else abi_iree.compile
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        return compile_(source, *args, **options)


# A function that reads one named parameter, `w` (4 floats) of scope `model`.
PARAMETER_TEXT = """
util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<4xf32>
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = util.global.load @w : tensor<4xf32>
  %r = arith.addf %x, %w : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
