"""Codec throughput: encode + decode of the three encodings on realistic signatures.

Each figure is reported next to `json.dumps` / `json.loads` of an equivalent document —
the signature's `iree.abi` JSON object, the same information for every encoding —
measured in the same run, as a ratio (codec time / json time; lower is better, 1.0 is
as fast as the C-accelerated json module). Not part of the test suite:

    python bench/bench_codecs.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.raw import decode_raw, encode_raw
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.model import Signature


def _tensor(*dims: int | None, element: str = "f32") -> list[Any]:
    return ["ndarray", element, len(dims), *dims]


def _document(arguments: list[Any], results: list[Any]) -> str:
    return json.dumps({"a": arguments, "r": results, "v": 1}, separators=(",", ":"), sort_keys=True)


def _signatures() -> dict[str, Signature]:
    """A fixed set: small typed, MLP-ish, a saved-model dict signature, a large pytree."""
    spec_example = _document([_tensor(None, 4), "i32"], [["stuple", _tensor(4), _tensor(4)]])
    mlp = _document(
        [_tensor(None, 784)]
        + [_tensor(784 if i == 0 else 256, 256) for i in range(4)]
        + [_tensor(256) for _ in range(4)],
        [_tensor(None, 10)],
    )
    bert = _document(
        [
            ["named", name, _tensor(None, 128, element="i32")]
            for name in ("attention_mask", "input_ids", "token_type_ids")
        ],
        [
            [
                "sdict",
                ["hidden_states", ["stuple", *(_tensor(None, 128, 768) for _ in range(13))]],
                ["logits", _tensor(None, 2)],
                ["pooled", _tensor(None, 768)],
            ]
        ],
    )
    layers = [
        [
            "sdict",
            [
                "attention",
                ["sdict", *([k, _tensor(512, 512)] for k in ("key", "out", "query", "value"))],
            ],
            [
                "mlp",
                ["stuple", _tensor(512, 2048), _tensor(2048), _tensor(2048, 512), _tensor(512)],
            ],
            ["norm", ["slist", _tensor(512), _tensor(512)]],
        ]
        for _ in range(6)
    ]
    pytree = _document(
        [["slist", *layers], _tensor(None, None, 512), ["py_homogeneous_list", "unknown"], "i64"],
        [["stuple", _tensor(None, None, 512), ["slist", *layers]]],
    )
    return {
        "spec §4.2 example (3 values)": decode_json(spec_example),
        "MLP, 9 tensors": decode_json(mlp),
        "BERT saved model, dicts": decode_json(bert),
        "6-layer param pytree (~130 leaves)": decode_json(pytree),
    }


def _best(function: Callable[[], object], repeat: int) -> float:
    """CPU seconds per call, best of ``repeat`` runs (CPU time: steadier than wall time
    on a shared machine)."""
    timer = timeit.Timer(function, timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    print(f"Python {platform.python_version()} on {platform.machine()} ({sys.platform})")
    header = (
        f"{'signature':36} {'codec':5} {'bytes':>6} {'enc µs':>8} {'dec µs':>8} "
        f"{'dumps µs':>9} {'loads µs':>9} {'enc/dumps':>10} {'dec/loads':>10}"
    )
    print(header)
    print("-" * len(header))
    for name, sig in _signatures().items():
        json_text = encode_json(sig)
        document = json.loads(json_text)
        dumps = _best(
            partial(json.dumps, document, separators=(",", ":"), sort_keys=True, ensure_ascii=True),
            args.repeat,
        )
        loads = _best(partial(json.loads, json_text), args.repeat)
        codecs: list[tuple[str, Callable[[], str], Callable[[str], object]]] = [
            ("raw", partial(encode_raw, sig.flat()), decode_raw),
            ("sip", partial(encode_sip, sig.sip_roots()), decode_sip),
            ("json", partial(encode_json, sig), decode_json),
        ]
        for codec, encode, decode in codecs:
            text = encode()
            encode_time = _best(encode, args.repeat)
            decode_time = _best(partial(decode, text), args.repeat)
            print(
                f"{name:36} {codec:5} {len(text):6} {encode_time * 1e6:8.1f} "
                f"{decode_time * 1e6:8.1f} {dumps * 1e6:9.1f} {loads * 1e6:9.1f} "
                f"{encode_time / dumps:10.2f} {decode_time / loads:10.2f}"
            )


if __name__ == "__main__":
    main()
