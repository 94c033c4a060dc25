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

from signatures import bert_saved_model, document, spec_example, tensor

from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.raw import decode_raw, encode_raw
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.model import Signature


def _signatures() -> dict[str, Signature]:
    """A fixed set: small typed, MLP-ish, a saved-model dict signature, a large pytree."""
    mlp = document(
        [tensor(None, 784)]
        + [tensor(784 if i == 0 else 256, 256) for i in range(4)]
        + [tensor(256) for _ in range(4)],
        [tensor(None, 10)],
    )
    layers = [
        [
            "sdict",
            [
                "attention",
                ["sdict", *([k, tensor(512, 512)] for k in ("key", "out", "query", "value"))],
            ],
            [
                "mlp",
                ["stuple", tensor(512, 2048), tensor(2048), tensor(2048, 512), tensor(512)],
            ],
            ["norm", ["slist", tensor(512), tensor(512)]],
        ]
        for _ in range(6)
    ]
    pytree = document(
        [["slist", *layers], tensor(None, None, 512), ["py_homogeneous_list", "unknown"], "i64"],
        [["stuple", tensor(None, None, 512), ["slist", *layers]]],
    )
    return {
        "spec §4.2 example (3 values)": decode_json(spec_example()),
        "MLP, 9 tensors": decode_json(mlp),
        "BERT saved model, dicts": decode_json(bert_saved_model()),
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
