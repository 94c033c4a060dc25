"""Index-path keys are bounded (docs/design.md#hostile-input): gaps are kept as `null`
records, so a key is an allocation; above `MAX_SEQUENCE_KEY` it is an error, at the limit it
works."""

from __future__ import annotations

import pytest

from abi_compiler.codecs.json_abi import decode_json, encode_json
from abi_compiler.codecs.sip import decode_sip, encode_sip
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    MAX_SEQUENCE_KEY,
    Scalar,
    Sequence,
    signature_from_index_paths,
)

I32 = Scalar("i", 32)


def test_the_largest_key_is_accepted_and_round_trips() -> None:
    sig = signature_from_index_paths([((0, MAX_SEQUENCE_KEY), I32)], [((MAX_SEQUENCE_KEY,), I32)])
    inner = sig.arguments[0].node
    assert isinstance(inner, Sequence) and len(inner.items) == MAX_SEQUENCE_KEY + 1
    assert decode_json(encode_json(sig)) == sig
    text = encode_sip(sig.sip_roots())  # SIP leaves carry no types: compare texts
    assert encode_sip(decode_sip(text)) == text


@pytest.mark.parametrize(
    ("arguments", "results", "where", "message"),
    [
        ([((0, MAX_SEQUENCE_KEY + 1), I32)], [], ("argument", 0), "sequence key 1048577"),
        ([((2**31,), I32)], [], ("argument", 0), "sequence key 2147483648"),
        ([((0,), I32)], [((1, 2**64), I32)], ("result", 0), "sequence key of 65 bits"),
    ],
)
def test_larger_keys_are_errors(
    arguments: list[tuple[tuple[int, ...], Scalar]],
    results: list[tuple[tuple[int, ...], Scalar]],
    where: tuple[str, int],
    message: str,
) -> None:
    with pytest.raises(AbiError) as info:
        signature_from_index_paths(arguments, results)
    assert info.value.message == (
        f"{message} in structure path is out of range (at most {MAX_SEQUENCE_KEY})"
    )
    assert info.value.where == where
