"""A JAX module's results (docs/calling.md, "From a framework's object"): in memory,
`compile(exported).main(...)` returns what `Exported.call` returns — the export's own
`out_tree`, its classes and their static fields — so a flax `TrainState` goes back into
`jax.jit`; from a file, the caller's own class with `types=`, its static fields given
with `functools.partial` or named in an `AbiError`.

Skips without JAX, flax and optax (or IREE)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from abi_compiler.errors import AbiError

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

from tests.calling.helpers import compile_quietly  # noqa: E402
from tests.frontends.generate import models  # noqa: E402


@pytest.fixture(scope="module")
def train_step() -> Any:
    exported, args, kwargs = models.jax_train_step()
    return exported, args, kwargs, compile_quietly(exported)


def _close(got: Any, expected: Any) -> None:
    for g, e in zip(jax.tree.leaves(got), jax.tree.leaves(expected), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)


def test_in_memory_the_result_is_what_exported_call_returns(train_step: Any) -> None:
    exported, (state, batch), _, module = train_step
    got = module.main(state, batch)
    expected = exported.call(state, batch)
    assert jax.tree.structure(got) == jax.tree.structure(expected)
    new_state, metrics = got
    assert type(new_state) is type(state)
    # Static (meta) fields intact: the model's apply and the optimizer.
    assert new_state.apply_fn is state.apply_fn and new_state.tx is state.tx
    assert metrics["aux"] is None
    _close(got, expected)
    # A real pytree: it goes back into jax.jit, and into the module again.
    steps = jax.jit(lambda s: s.step + 1)(new_state)
    assert int(steps) == int(new_state.step) + 1
    _close(module.main(new_state, batch), exported.call(new_state, batch))


def test_from_a_file_types_with_static_fields(train_step: Any) -> None:
    from flax.training.train_state import TrainState

    from abi_compiler import iree as abi_iree

    _, (state, batch), _, module = train_step
    # The file cannot hold apply_fn and tx (functions): named, when the function is
    # looked up.
    loaded = abi_iree.load(module.vmfb, types=[TrainState])
    with pytest.raises(AbiError) as info:
        loaded.main  # noqa: B018
    assert str(info.value) == (
        "function @main: types: TrainState takes the fields apply_fn, tx, which are not "
        "values of the call (static fields the file does not hold); give them with "
        "types={'TrainState': functools.partial(TrainState, apply_fn=…, tx=…)}"
    )
    import optax

    own = functools.partial(TrainState, apply_fn=state.apply_fn, tx=state.tx)
    types = {"TrainState": own, "ScaleByAdamState": optax.ScaleByAdamState}
    loaded = abi_iree.load(module.vmfb, types=types | {"EmptyState": optax.EmptyState})
    new_state, _ = loaded.main(state, batch)
    assert type(new_state) is TrainState and new_state.tx is state.tx
    assert jax.tree.structure(new_state) == jax.tree.structure(state)
    _close(new_state, module.main(state, batch)[0])


def test_static_fields_of_json_values_come_from_the_file() -> None:
    from flax import struct

    from abi_compiler import iree as abi_iree

    class Layer(struct.PyTreeNode):  # type: ignore[misc]
        weights: Any
        width: int = struct.field(pytree_node=False)
        name: str = struct.field(pytree_node=False)
        act: Any = struct.field(pytree_node=False, default=None)

    layer = Layer(np.ones(3, np.float32), 3, "dense", np.tanh)
    exported = jax.export.export(jax.jit(lambda s: s.replace(weights=s.weights * 2)))(layer)
    module = compile_quietly(exported)
    assert module.main(layer).act is np.tanh  # in memory: the export's own
    # From a file: width and name recorded, act (a function) not, but it has a default.
    got = abi_iree.load(module.vmfb, types=[Layer]).main(layer)
    assert type(got) is Layer and (got.width, got.name, got.act) == (3, "dense", None)
    np.testing.assert_array_equal(got.weights, np.full(3, 2.0, np.float32))


def test_an_entry_of_a_mapping_too(train_step: Any) -> None:
    exported, (state, batch), _, _ = train_step
    module = compile_quietly({"step": exported})
    got = module.step(state, batch)
    assert jax.tree.structure(got) == jax.tree.structure(exported.call(state, batch))
