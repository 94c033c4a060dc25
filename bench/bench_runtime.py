"""Marshalling throughput: `pack` + `unpack` (and the legacy pair) on realistic nested
signatures (docs/spec.md §10).

Each figure is reported next to `json.dumps` + `json.loads` of an equivalent document —
the same argument and result values as one JSON document, every array replaced by its
shape list (a stand-in for a buffer reference) — measured in the same run, as a ratio
(marshalling time / json time; lower is better, 1.0 is as fast as the C-accelerated json
module). The `iree.abi` text is passed to every call, as a runtime would: decoding is
cached, so the figures are the marshalling itself. The `*-model` forms pass the decoded
model objects instead of the texts; the closing "plan cache" lines give their time over
the text form's, which stays near 1.0 while call plans are cached for models too. Not part
of the test suite:

    python bench/bench_runtime.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import sys
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from signatures import bert_saved_model, document, spec_example, tensor

from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.codecs.raw import decode_raw, encode_raw
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.model import Argument, FlatSignature, Sequence, Signature, SipSignature
from abi_compiler.runtime import pack, pack_legacy, unpack, unpack_legacy


def _array(*shape: int) -> Any:
    return np.zeros(shape, np.float32)


@dataclass
class Case:
    """A signature, the call's arguments, and the function's results (VM form)."""

    name: str
    abi: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result_values: tuple[Any, ...]  # Python values, one per `r` record

    def vm_results(self) -> list[Any]:
        """The results as the VM returns them: `pack` of the result records (an inlined
        structure as its items)."""
        signature = decode_json(self.abi)
        as_arguments = Signature(
            tuple(Argument(i, node) for i, node in enumerate(signature.results)), ()
        )
        packed = pack(as_arguments, *self.result_values)
        return packed[0] if signature.inlined_result else packed

    def leaf_count(self) -> int:
        signature = decode_json(self.abi)
        return len(signature.argument_leaves()) + len(signature.result_leaves())


def _layer() -> dict[str, Any]:
    return {
        "attention": {k: _array(8, 8) for k in ("key", "out", "query", "value")},
        "mlp": (_array(8, 32), _array(32), _array(32, 8), _array(8)),
        "norm": [_array(8), _array(8)],
    }


def _cases() -> list[Case]:
    spec = spec_example()
    bert = bert_saved_model()
    layer_record = [
        "sdict",
        ["attention", ["sdict", *([k, tensor(8, 8)] for k in ("key", "out", "query", "value"))]],
        ["mlp", ["stuple", tensor(8, 32), tensor(32), tensor(32, 8), tensor(8)]],
        ["norm", ["slist", tensor(8), tensor(8)]],
    ]
    pytree = document(
        [
            ["slist", *([layer_record] * 6)],
            tensor(None, None, 8),
            ["py_homogeneous_list", "i64"],
            ["named", "step", "i64"],
        ],
        [["stuple", tensor(None, None, 8), ["slist", *([layer_record] * 6)]]],
    )
    ids = np.zeros((1, 128), np.int32)
    bert_out = {
        "hidden_states": tuple(np.zeros((1, 128, 768), np.float32) for _ in range(13)),
        "logits": np.zeros((1, 2), np.float32),
        "pooled": np.zeros((1, 768), np.float32),
    }
    layers = [_layer() for _ in range(6)]
    return [
        Case(
            "spec §4.2 example, numpy",
            spec,
            (_array(3, 4), 7),
            {},
            ((_array(4), _array(4)),),
        ),
        Case(
            "spec §4.2 example, nested lists",
            spec,
            ([[1.0, 2.0, 3.0, 4.0]] * 3, 7),
            {},
            (([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]),),
        ),
        Case(
            "BERT saved model: keywords, sdict result",
            bert,
            (),
            {"attention_mask": ids, "input_ids": ids, "token_type_ids": ids},
            (bert_out,),
        ),
        Case(
            "6-layer param pytree (~130 leaves)",
            pytree,
            (layers, _array(2, 16, 8), list(range(16))),
            {"step": 1000},
            ((_array(2, 16, 8), layers),),
        ),
    ]


def _legacy_form(case: Case) -> tuple[str, str, tuple[Any, ...], dict[str, Any], list[Any]]:
    """The case as a raw + SIP pair: the texts, the call's arguments (keywords when every
    argument is named: a dict root, docs/spec.md §6) and the flat result list."""
    signature = decode_json(case.abi)
    flat_signature = signature.flat()
    roots = signature.sip_roots()
    if all(argument.name is not None for argument in signature.arguments):
        args: tuple[Any, ...] = ()
        kwargs = case.kwargs
    else:
        values = iter(case.args)
        args = tuple(
            next(values) if argument.name is None else case.kwargs[argument.name]
            for argument in signature.arguments
        )
        kwargs = {}
    # The flat results: the result values scattered by a SIP whose input is the result root.
    scatter = SipSignature(Sequence("list", (roots.results,)), None)
    result_value = case.result_values[0] if len(case.result_values) == 1 else case.result_values
    flat_results = pack_legacy(FlatSignature(flat_signature.results, ()), scatter, result_value)
    return encode_raw(flat_signature), encode_sip(roots), args, kwargs, flat_results


def _json_stand_in(value: Any) -> Any:
    """The equivalent JSON document: arrays become their shape lists."""
    if isinstance(value, np.ndarray):
        return list(value.shape)
    if isinstance(value, dict):
        return {key: _json_stand_in(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_stand_in(item) for item in value]
    return value


def _best(functions: list[Callable[[], object]], repeat: int) -> list[float]:
    """Seconds per call of each function, best of ``repeat`` runs. The runs are
    interleaved, so that load drifting during the run hits every function alike."""
    timers = [timeit.Timer(function) for function in functions]
    numbers = [timer.autorange()[0] for timer in timers]
    best = [float("inf")] * len(timers)
    for _ in range(repeat):
        for index, (timer, number) in enumerate(zip(timers, numbers, strict=True)):
            best[index] = min(best[index], timer.timeit(number) / number)
    return best


def _json_round_trip(document: Any) -> Callable[[], object]:
    def round_trip() -> object:
        return json.loads(json.dumps(document, separators=(",", ":"), sort_keys=True))

    return round_trip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()

    print(f"Python {platform.python_version()} on {platform.machine()} ({sys.platform})")
    header = (
        f"{'signature':42} {'form':12} {'leaves':>6} {'pack µs':>8} {'unpack µs':>9} "
        f"{'json µs':>8} {'ratio':>6} {'leaves/s':>10}"
    )
    print(header)
    print("-" * len(header))
    cache_ratios: list[tuple[str, float, float]] = []
    for case in _cases():
        results = case.vm_results()
        document = {
            "args": _json_stand_in(list(case.args)),
            "kwargs": _json_stand_in(case.kwargs),
            "results": _json_stand_in(list(case.result_values)),
        }
        # The legacy flat convention: the same structure through raw `f` + SIP `sip`.
        flat, sip, legacy_args, legacy_kwargs, flat_results = _legacy_form(case)
        # The same calls with decoded models instead of texts (`*-model`): the plan cache
        # is keyed on the frozen model, so these must cost what the text forms cost; a
        # model that is re-planned on every call shows here as a ratio well above 1.
        signature = decode_json(case.abi)
        flat_model, sip_model = decode_raw(flat), decode_sip(sip)
        forms: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
            (
                "v1",
                functools.partial(pack, case.abi, *case.args, **case.kwargs),
                functools.partial(unpack, case.abi, results),
            ),
            (
                "v1-model",
                functools.partial(pack, signature, *case.args, **case.kwargs),
                functools.partial(unpack, signature, results),
            ),
            (
                "legacy",
                functools.partial(pack_legacy, flat, sip, *legacy_args, **legacy_kwargs),
                functools.partial(unpack_legacy, flat, sip, flat_results),
            ),
            (
                "legacy-model",
                functools.partial(
                    pack_legacy, flat_model, sip_model, *legacy_args, **legacy_kwargs
                ),
                functools.partial(unpack_legacy, flat_model, sip_model, flat_results),
            ),
        ]
        calls = [_json_round_trip(document)]
        for _, pack_call, unpack_call in forms:
            calls += [pack_call, unpack_call]
        json_time, *times = _best(calls, options.repeat)
        totals: dict[str, float] = {}
        for index, (form, _, _) in enumerate(forms):
            pack_time, unpack_time = times[2 * index], times[2 * index + 1]
            total = totals[form] = pack_time + unpack_time
            print(
                f"{case.name:42} {form:12} {case.leaf_count():6} {pack_time * 1e6:8.1f} "
                f"{unpack_time * 1e6:9.1f} {json_time * 1e6:8.1f} {total / json_time:6.2f} "
                f"{case.leaf_count() / total:10.0f}"
            )
        cache_ratios.append(
            (
                case.name,
                totals["v1-model"] / totals["v1"],
                totals["legacy-model"] / totals["legacy"],
            )
        )
    print()
    print("plan cache: time with a decoded model / time with the text (1.0: the model's plan")
    print("is cached like the text's; re-planning on every call would be several times 1.0)")
    for name, v1_ratio, legacy_ratio in cache_ratios:
        print(f"{name:42} v1 {v1_ratio:5.2f}  legacy {legacy_ratio:5.2f}")


if __name__ == "__main__":
    main()
