"""The small real models the frontend tests use, one per framework, each with its example
call. Importing this module imports no framework; each builder imports its own.

* `torch_mlp`: an `nn.Module` whose forward takes a dict, a tuple, a Python number and
  two keyword arguments (a bool mask and a uint8 tensor), uses a parameter and a buffer,
  and returns a dict holding a tuple holding a list, plus a namedtuple;
* `torch_outputs`: an `nn.Module` returning a registered dataclass and a transformers
  `ModelOutput`, each with a None field, for an input of a named `Dim`;
* `onnx_classifier`: an ONNX graph with two named inputs (`input_ids`, `attention_mask`)
  and two named outputs (`logits`, `total`);
* `tf_signature`: a `tf.Module` saved with a `serving_default` signature of two named
  inputs and a dict of two outputs, reading a variable.
"""

from __future__ import annotations

import collections
import dataclasses
from pathlib import Path
from typing import Any

Pair = collections.namedtuple("Pair", ["first", "second"])


def torch_mlp() -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """The module and its example ``(args, kwargs)``; weights are seeded."""
    import torch

    class MLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hidden = torch.nn.Linear(4, 8)
            self.out = torch.nn.Linear(8, 3)
            self.register_buffer("scale", torch.tensor([2.0, 3.0, 4.0]))

        def forward(
            self, x: dict[str, Any], pair: tuple[Any, Any], steps: int, *, mask: Any, ids: Any
        ) -> tuple[dict[str, Any], Pair]:
            first, second = pair
            y = self.out(torch.relu(self.hidden(x["features"]))) * self.scale * steps
            y = torch.where(mask, y, 0.0)
            rest = (first + second, [second.to(torch.int64), ids + 1])
            return {"y": y, "rest": rest}, Pair(first * 2, second)

    torch.manual_seed(0)
    args = (
        {"features": torch.linspace(-1.0, 1.0, 8).reshape(2, 4)},
        (torch.ones(3), torch.arange(3, dtype=torch.int32)),
        2,
    )
    kwargs = {
        "mask": torch.tensor([True, False, True]),
        "ids": torch.tensor([1, 2, 255], dtype=torch.uint8),
    }
    return MLP().eval(), args, kwargs


@dataclasses.dataclass
class Scores:
    """A result class registered with `torch.export.register_dataclass` (`torch_outputs`)."""

    logits: Any
    total: Any
    note: Any = None


def torch_outputs() -> tuple[Any, tuple[Any, ...], dict[str, Any], Any]:
    """A module whose forward returns a registered dataclass (`Scores`, its ``note``
    None) and a transformers `BaseModelOutputWithPooling` (``pooler_output`` None), for
    an input whose first dim is ``Dim("seqlen", max=16)``; the module, its example
    ``(args, kwargs)`` and its ``dynamic_shapes``."""
    import torch
    from transformers.modeling_outputs import BaseModelOutputWithPooling

    if Scores not in torch.utils._pytree.SUPPORTED_NODES:
        torch.export.register_dataclass(Scores)

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5, 3.0]))

        def forward(self, x: Any) -> tuple[Scores, Any]:
            h = x * self.scale + 1.0
            pooled = BaseModelOutputWithPooling(
                last_hidden_state=h, pooler_output=None, hidden_states=(x, h * 2.0)
            )
            return Scores(h, h.sum(), None), pooled

    x = torch.linspace(-1.0, 1.0, 12).reshape(3, 4)
    return Head().eval(), (x,), {}, ({0: torch.export.Dim("seqlen", max=16)},)


def onnx_classifier() -> Any:
    """An `onnx.ModelProto`: ``logits = (input_ids * attention_mask) @ W``, ``total`` its
    sum, for inputs of shape ``[batch, 4]``."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weights = (np.arange(12, dtype=np.float32).reshape(4, 3) - 6.0) / 4.0
    graph = helper.make_graph(
        [
            helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["input_ids", "mask_f"], ["masked"]),
            helper.make_node("MatMul", ["masked", "W"], ["logits"]),
            helper.make_node("ReduceSum", ["logits"], ["total"], keepdims=0),
        ],
        "classifier",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.FLOAT, ["batch", 4]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", 4]),
        ],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3]),
            helper.make_tensor_value_info("total", TensorProto.FLOAT, []),
        ],
        [numpy_helper.from_array(weights, "W")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def onnx_inputs() -> dict[str, Any]:
    import numpy as np

    return {
        "input_ids": np.arange(8, dtype=np.float32).reshape(2, 4) / 8.0,
        "attention_mask": np.array([[1, 1, 0, 0], [1, 1, 1, 1]], np.int64),
    }


def tf_signature(directory: Path) -> None:
    """Save the SavedModel into ``directory``."""
    import tensorflow as tf

    class Classifier(tf.Module):
        def __init__(self) -> None:
            self.weights = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]) / 4.0)

        @tf.function(
            input_signature=[
                tf.TensorSpec([2, 4], tf.float32, name="input_ids"),
                tf.TensorSpec([2, 4], tf.int32, name="attention_mask"),
            ]
        )
        def serve(self, input_ids: Any, attention_mask: Any) -> dict[str, Any]:
            masked = input_ids * tf.cast(attention_mask, tf.float32)
            return {"logits": tf.matmul(masked, self.weights), "total": tf.reduce_sum(masked)}

    model = Classifier()
    tf.saved_model.save(model, str(directory), signatures={"serving_default": model.serve})


def tf_inputs() -> dict[str, Any]:
    import numpy as np

    return {
        "input_ids": np.arange(8, dtype=np.float32).reshape(2, 4) / 8.0,
        "attention_mask": np.array([[1, 1, 0, 0], [1, 1, 1, 1]], np.int32),
    }


def tf_two_signatures(directory: Path) -> None:
    """A SavedModel with two signatures, `serving_default` and `score`, that read the same
    variable."""
    import tensorflow as tf

    class Scorer(tf.Module):
        def __init__(self) -> None:
            self.weights = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]) / 4.0)

        @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32, name="x")])
        def serve(self, x: Any) -> dict[str, Any]:
            return {"logits": tf.matmul(x, self.weights)}

        @tf.function(
            input_signature=[
                tf.TensorSpec([2, 4], tf.float32, name="x"),
                tf.TensorSpec([2, 3], tf.float32, name="y"),
            ]
        )
        def score(self, x: Any, y: Any) -> dict[str, Any]:
            difference = tf.matmul(x, self.weights) - y
            return {"loss": tf.reduce_sum(difference * difference)}

    model = Scorer()
    signatures = {"serving_default": model.serve, "score": model.score}
    tf.saved_model.save(model, str(directory), signatures=signatures)


def jax_train_step() -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """A flax + optax training step, exported: ``step(state, batch) -> (state, metrics)``
    where ``state`` is a flax `TrainState` (its optimizer state optax's
    ``(ScaleByAdamState, EmptyState)``), ``batch`` a dict and ``metrics`` a dict holding
    `None`. Returns the `jax.export.Exported` and the example ``(args, kwargs)``."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    from flax.training import train_state
    from jax import export

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x: Any) -> Any:
            return nn.Dense(2)(nn.relu(nn.Dense(4)(x)))

    model = MLP()
    x = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3)
    y = np.array([[0.5, -0.5]] * 4, np.float32)
    params = model.init(jax.random.PRNGKey(0), x)
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(0.1))

    def step(state: Any, batch: dict[str, Any]) -> Any:
        def loss_fn(params: Any) -> Any:
            return jnp.mean((state.apply_fn(params, batch["x"]) - batch["y"]) ** 2)

        loss, grads = jax.value_and_grad(loss_fn)(state.params)
        return state.apply_gradients(grads=grads), {"loss": loss, "aux": None}

    batch = {"x": x, "y": y}
    exported = export.export(jax.jit(step))(state, batch)
    return exported, (state, batch), {}
