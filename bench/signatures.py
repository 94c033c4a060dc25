"""Sample `iree.abi` JSON documents shared by the codec and marshalling benchmarks."""

from __future__ import annotations

import json
from typing import Any


def tensor(*dims: int | None, element: str = "f32") -> list[Any]:
    """An `ndarray` record; `None` is a dynamic dimension."""
    return ["ndarray", element, len(dims), *dims]


def document(arguments: list[Any], results: list[Any]) -> str:
    """The `iree.abi` JSON text of a signature, as the encoder writes it."""
    return json.dumps({"a": arguments, "r": results, "v": 1}, separators=(",", ":"), sort_keys=True)


def spec_example() -> str:
    """The example of docs/spec.md §4.2: three values."""
    return document([tensor(None, 4), "i32"], [["stuple", tensor(4), tensor(4)]])


def bert_saved_model() -> str:
    """A BERT-style saved model: three keyword inputs, one `sdict` result."""
    return document(
        [
            ["named", name, tensor(None, 128, element="i32")]
            for name in ("attention_mask", "input_ids", "token_type_ids")
        ],
        [
            [
                "sdict",
                ["hidden_states", ["stuple", *(tensor(None, 128, 768) for _ in range(13))]],
                ["logits", tensor(None, 2)],
                ["pooled", tensor(None, 768)],
            ]
        ],
    )
