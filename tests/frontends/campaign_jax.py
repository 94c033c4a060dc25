"""A generated campaign comparing the JAX call adapter with JAX itself (issue 29): random
exports with symbolic shapes (shared symbols, ``k*s + c`` dims, static dims, constraints)
called with consistent and mismatched shapes, and integer arguments of every dtype
called with Python ints in and out of range. For every call, the adapter
(`abi_compiler.frontends.jax.program(exported).adapter`) must refuse it exactly when
`exported.call` (JAX's own check) refuses it; an int exactly when numpy refuses it in the
dtype (JAX takes no Python int for a dtype other than its default one, the adapter takes
those that fit). Nothing is compiled by IREE: the adapter's checks run before the VM.

Needs JAX; not collected by pytest (tests/hardening/test_call_campaign.py runs the
framework-free campaign in the suite):

    PYTHONPATH=. python tests/frontends/campaign_jax.py [exports] [calls per export] [seed]
"""

from __future__ import annotations

import random
import sys
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

from abi_compiler.errors import AbiError
from abi_compiler.frontends import jax as jax_frontend

SYMBOLS = ("a", "b", "c")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def random_dim(rng: random.Random) -> str:
    kind = rng.choice(["static", "symbol", "symbol", "linear"])
    if kind == "static":
        return str(rng.randint(1, 4))
    symbol = rng.choice(SYMBOLS)
    if kind == "symbol":
        return symbol
    k, c = rng.randint(2, 3), rng.randint(0, 2)
    return f"{k}*{symbol}" + (f" + {c}" if c else "")


def random_export(rng: random.Random) -> tuple[Any, list[str], tuple[str, ...]] | None:
    specs = [
        ", ".join(random_dim(rng) for _ in range(rng.randint(0, 3)))
        for _ in range(rng.randint(1, 3))
    ]
    constraints: tuple[str, ...] = ()
    if rng.random() < 0.4:
        first, second = rng.sample(SYMBOLS, 2)
        constraints = (rng.choice([f"{first} >= {second}", f"{first} <= {rng.randint(2, 9)}"]),)
    scope = export.SymbolicScope(constraints)
    try:
        shapes = [export.symbolic_shape(spec, scope=scope) if spec else () for spec in specs]
        arguments = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in shapes]
        exported = export.export(jax.jit(lambda *xs: [x.sum() for x in xs]))(*arguments)
    except Exception:  # a combination JAX refuses to export (an unsolvable symbol)
        return None
    return exported, specs, constraints


def concrete(spec: str, values: dict[str, int]) -> tuple[int, ...]:
    if not spec:
        return ()
    return tuple(_size(dim, values) for dim in spec.split(", "))


def _size(dim: str, values: dict[str, int]) -> int:
    """A dim as `random_dim` writes it (``3``, ``b``, ``2*b + 1``) for the symbols' values."""
    total = 0
    for term in dim.split(" + "):
        factors = term.split("*")
        product = 1
        for factor in factors:
            product *= values[factor] if factor in values else int(factor)
        total += product
    return total


def jax_accepts(exported: Any, args: list[Any]) -> bool:
    try:
        exported.call(*args)
    except (ValueError, TypeError):
        return False
    return True


def adapter_accepts(adapter: Any, args: list[Any]) -> tuple[bool, str]:
    try:
        adapter.arguments(tuple(args), {})
    except AbiError as error:
        return False, str(error)
    return True, ""


def dims_campaign(rng: random.Random, exports: int, calls: int) -> dict[str, int]:
    counts = {"exports": 0, "skipped": 0, "accepted": 0, "refused": 0, "disagreements": 0}
    while counts["exports"] < exports:
        made = random_export(rng)
        if made is None:
            counts["skipped"] += 1
            continue
        exported, specs, constraints = made
        counts["exports"] += 1
        adapter = jax_frontend.program(exported).adapter
        for _ in range(calls):
            values = {symbol: rng.randint(1, 6) for symbol in SYMBOLS}
            shapes = [list(concrete(spec, values)) for spec in specs]
            if rng.random() < 0.6:
                candidates = [(i, k) for i, shape in enumerate(shapes) for k in range(len(shape))]
                if candidates:
                    i, k = rng.choice(candidates)
                    shapes[i][k] = max(0, shapes[i][k] + rng.choice([-2, -1, 1, 2]))
            args = [np.zeros(shape, np.float32) for shape in shapes]
            ours, message = adapter_accepts(adapter, args)
            theirs = jax_accepts(exported, args)
            counts["accepted" if theirs else "refused"] += 1
            if ours != theirs:
                counts["disagreements"] += 1
                print(
                    f"DISAGREE {specs} {constraints} {shapes}: ours {ours} ({message}), JAX {theirs}"
                )
    return counts


def ints_campaign(rng: random.Random, calls: int) -> dict[str, int]:
    counts = {"calls": 0, "accepted": 0, "refused": 0, "disagreements": 0}
    with jax.enable_x64(True):
        adapters = {
            dtype: jax_frontend.program(
                export.export(jax.jit(lambda x: x + 1))(jax.ShapeDtypeStruct((2,), dtype))
            ).adapter
            for dtype in INT_DTYPES
        }
    for _ in range(calls):
        dtype = rng.choice(INT_DTYPES)
        info = np.iinfo(dtype)
        low, high = int(info.min), int(info.max)
        pick = [low, high, low - 1, high + 1, rng.randint(low, high), rng.randint(-(2**70), 2**70)]
        value = [rng.choice(pick), rng.choice(pick)]
        try:
            np.array(value, dtype)
            numpy_ok = all(low <= v <= high for v in value)
        except OverflowError:
            numpy_ok = False
        ours, message = adapter_accepts(adapters[dtype], [value])
        counts["calls"] += 1
        counts["accepted" if numpy_ok else "refused"] += 1
        if ours != numpy_ok:
            counts["disagreements"] += 1
            print(f"DISAGREE {dtype} {value}: ours {ours} ({message}), numpy {numpy_ok}")
    return counts


def main() -> None:
    exports = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 29
    warnings.simplefilter("ignore")
    rng = random.Random(seed)
    print("dims:", dims_campaign(rng, exports, calls))
    print("ints:", ints_campaign(rng, exports * calls))


if __name__ == "__main__":
    main()
