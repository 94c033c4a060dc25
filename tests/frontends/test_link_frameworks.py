"""Several framework programs in one module, each with its own names (docs/calling.md,
"Several functions in one module"): two torch programs whose weights have one shape and
dtype (iree-turbine names its blobs by shape and dtype) each compute with their own
weights, through `compile`, `compile_vmfb` and `abi-compile a=… b=…`; JAX exports with
location aliases and private functions (a flax/optax init and train step) compile together
and give the numbers each gives alone; `Module.save` of a torch program with big weights
loads where torch cannot be imported. Skips without the framework."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from tests.frontends.generate.values import encode  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),  # torch's own pytree API
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # numpy 2 __array__ in turbine
    pytest.mark.filterwarnings("ignore::abi_compiler.iree.CompileWarning"),
]


def _linear_pair(size: int) -> tuple[Any, Any, Any, Any, Any]:
    """Two `nn.Linear(size, 3)` of other weights, their exports, and an input."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    torch.manual_seed(0)
    first, second = torch.nn.Linear(size, 3).eval(), torch.nn.Linear(size, 3).eval()
    x = torch.randn(2, size)
    return (
        first,
        second,
        torch.export.export(first, (x,)),
        torch.export.export(second, (x,)),
        x,
    )


def _each_its_own(module: Any, first: Any, second: Any, x: Any) -> None:
    import torch

    with torch.no_grad():
        for got, model in ((module.first(x), first), (module.second(x), second)):
            np.testing.assert_allclose(np.asarray(got), model(x).numpy(), rtol=1e-5, atol=1e-6)


# 4x3 weights: blobs in the text; 5462x3 (64 KiB and more): named parameters in memory.
@pytest.mark.parametrize("size", [4, 5462])
def test_two_torch_programs_of_one_shape_keep_their_weights(size: int) -> None:
    first, second, ea, eb, x = _linear_pair(size)
    module = abi_iree.compile({"first": ea, "second": eb})
    if size > 4:
        assert sorted(module.parameter_buffers or ()) == ["second/weight", "weight"]
    _each_its_own(module, first, second, x)
    _each_its_own(
        abi_iree.load(abi_iree.compile_vmfb({"first": ea, "second": eb})), first, second, x
    )


def test_abi_compile_links_two_torch_programs_of_one_shape(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")

    from abi_compiler.commands.compile_main import main

    first, second, ea, eb, x = _linear_pair(4)
    torch.export.save(ea, tmp_path / "x.pt2")
    torch.export.save(eb, tmp_path / "y.pt2")
    out = tmp_path / "both.vmfb"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(
            [f"first={tmp_path / 'x.pt2'}", f"second={tmp_path / 'y.pt2'}", "-o", str(out)]
        )
    assert status == 0
    _each_its_own(abi_iree.load(out), first, second, x)


def _flax_pair() -> tuple[Any, Any, Any, tuple[Any, ...]]:
    """A flax MLP's parameters drawn by `init(rng)`, and its `TrainState` (optax adam)
    updated by `step(state, x, y)`, exported: `init` draws with threefry (private
    functions whose argument locations use aliases defined before the module)."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    nn = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")
    from flax.training import train_state
    from jax import export

    class MLP(nn.Module):  # type: ignore[misc]
        @nn.compact
        def __call__(self, x: Any) -> Any:
            return nn.Dense(2)(nn.relu(nn.Dense(8)(x)))

    model, tx = MLP(), optax.adam(1e-2)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    y = np.ones((4, 2), np.float32)

    def init(rng: Any) -> Any:
        return model.init(rng, x)["params"]

    def step(state: Any, x: Any, y: Any) -> Any:
        def loss(params: Any) -> Any:
            return jnp.mean((state.apply_fn({"params": params}, x) - y) ** 2)

        value, grads = jax.value_and_grad(loss)(state.params)
        return state.apply_gradients(grads=grads), value

    rng = jax.random.PRNGKey(0)
    state = train_state.TrainState.create(apply_fn=model.apply, params=init(rng), tx=tx)
    e_init = export.export(jax.jit(init))(rng)
    e_step = export.export(jax.jit(step))(state, x, y)
    return e_init, e_step, rng, (state, x, y)


def _leaves(value: Any) -> list[np.ndarray]:
    """The arrays of a result, in order, whatever class holds them."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            leaf
            for field in dataclasses.fields(value)
            if field.metadata.get("pytree_node", True)
            for leaf in _leaves(getattr(value, field.name))
        ]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [np.asarray(value)]


def _same_numbers(got: Any, expected: Any) -> None:
    got_leaves, expected_leaves = _leaves(got), _leaves(expected)
    assert len(got_leaves) == len(expected_leaves)
    for value, want in zip(got_leaves, expected_leaves, strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_a_flax_init_and_train_step_compile_together() -> None:
    jax = pytest.importorskip("jax")

    e_init, e_step, rng, (state, x, y) = _flax_pair()
    module = abi_iree.compile({"init": e_init, "step": e_step})
    assert module.function_names == ["init", "step"]
    _same_numbers(module.init(rng), e_init.call(rng))
    _same_numbers(module.step(state, x, y), e_step.call(state, x, y))
    # The same numbers as each export compiled alone.
    _same_numbers(module.init(rng), abi_iree.compile(e_init).main(rng))
    _same_numbers(module.step(state, x, y), abi_iree.compile(e_step).main(state, x, y))
    assert len(jax.tree.leaves(e_init.call(rng))) == 4


def test_jax_exports_with_private_functions_and_location_aliases_link() -> None:
    jax = pytest.importorskip("jax")
    nn = pytest.importorskip("flax.linen")
    from jax import export

    class Two(nn.Module):  # type: ignore[misc]
        @nn.compact
        def __call__(self, x: Any) -> Any:
            return nn.Dense(5)(nn.tanh(nn.Dense(4)(x)))

    x = np.ones((4, 3), np.float32)
    rng = jax.random.PRNGKey(1)
    exports = {
        name: export.export(jax.jit(lambda key, model=model: model.init(key, x)))(rng)
        for name, model in (("dense", nn.Dense(3)), ("two", Two()))
    }
    for exported in exports.values():
        # Private functions (threefry), and location aliases before the module used in
        # other locations.
        text = exported.mlir_module()
        assert "func.func private" in text and "= loc(callsite(#loc" in text.split("module @")[0]
    module = abi_iree.compile(exports)
    for name, exported in exports.items():
        _same_numbers(module[name](rng), exported.call(rng))
        _same_numbers(module[name](rng), abi_iree.compile(exported).main(rng))


SERVER = """
import importlib.abc, json, sys

BLOCKED = ("torch", "jax", "jaxlib", "flax", "optax", "onnx", "tensorflow")


class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is not installed on this server")
        return None


sys.meta_path.insert(0, Refuse())
from abi_compiler import iree as abi_iree
from tests.frontends.generate.values import decode

module = abi_iree.load(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as stream:
    got = module.main(*decode(json.load(stream)))
print(json.dumps(got.tolist()))
"""


def test_a_saved_torch_module_with_big_weights_loads_without_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")

    first, _, program, _, x = _linear_pair(5462)
    module = abi_iree.compile(program)
    assert module.parameters is not None  # the weight (64 KiB) is beside the module
    module.save(tmp_path / "model.vmfb")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.irpa", "model.vmfb"]
    with pytest.raises(ValueError, match=r"its parameters go to the path with the suffix \.irpa"):
        module.save(tmp_path / "model.irpa")
    arguments = tmp_path.parent / "arguments.json"
    arguments.write_text(json.dumps(encode([x])), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", SERVER, str(tmp_path / "model.vmfb"), str(arguments)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with torch.no_grad():
        expected = first(x).numpy()
    got = np.array(json.loads(done.stdout), np.float32)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    # Saved again over the files it was loaded from, it still loads.
    loaded = abi_iree.load(tmp_path / "model.vmfb")
    loaded.save(tmp_path / "model.vmfb")
    np.testing.assert_allclose(
        abi_iree.load(tmp_path / "model.vmfb").main(x), expected, rtol=1e-5, atol=1e-5
    )
    # Without its archive, the error says where it looked.
    (tmp_path / "model.irpa").unlink()
    with pytest.raises(AbiError, match=r"or keep its archive beside it as '.*model\.irpa'"):
        abi_iree.load(tmp_path / "model.vmfb")


def test_two_transformers_models_of_one_shape_keep_their_own_weights() -> None:
    """Two BERTs of one config (every weight of one shape and dtype in both) and a GPT-2
    beside a BERT, in one module: each entry runs with its own weights."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    transformers = pytest.importorskip("transformers")

    config = transformers.BertConfig(
        vocab_size=100,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
    )
    models = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        models.append(transformers.BertModel(config).eval())
    torch.manual_seed(2)
    gpt2 = transformers.GPT2Model(
        transformers.GPT2Config(
            vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=32, use_cache=False
        )
    ).eval()
    ids = torch.randint(0, 100, (1, 8))
    extra = {
        "position_ids": torch.arange(8)[None],
        "attention_mask": torch.ones(1, 8, dtype=torch.long),
    }
    first, second = (torch.export.export(model, (ids,)) for model in models)
    other = torch.export.export(gpt2, (ids,), extra)
    with torch.no_grad():
        expected = [model(ids).last_hidden_state for model in models]
        expected_gpt2 = gpt2(ids, **extra).last_hidden_state
    for module in (
        abi_iree.compile({"first": first, "second": second}),
        abi_iree.load(abi_iree.compile_vmfb({"first": first, "second": second})),
    ):
        for function, wanted in zip((module.first, module.second), expected, strict=True):
            torch.testing.assert_close(
                function(ids).last_hidden_state, wanted, rtol=1e-5, atol=1e-5
            )
    module = abi_iree.compile({"bert": first, "gpt2": other})
    torch.testing.assert_close(
        module.bert(ids).last_hidden_state, expected[0], rtol=1e-5, atol=1e-5
    )
    torch.testing.assert_close(
        module.gpt2(ids, **extra).last_hidden_state, expected_gpt2, rtol=1e-5, atol=1e-5
    )
