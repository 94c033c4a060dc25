"""The `abi.provenance` codec: round trips, the exact JSON, the readable lines, and a
located `AbiError` for each malformed entry (docs/formats.md, "Where a module came from")."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abi_compiler.codecs.provenance_json import (
    InputRecord,
    Provenance,
    decode_provenance,
    encode_provenance,
    format_provenance,
)
from abi_compiler.errors import AbiError

SHA = "ab" * 32
MADE = Provenance(
    "0.1.0",
    "3.13.0",
    "host",
    ("--iree-hal-target-device=local", "--iree-llvmcpu-target-cpu=host"),
    (
        InputRecord(
            "predict", "torch", (("torch", "2.13.0"), ("iree-turbine", "3.9.0")), SHA, "program"
        ),
        InputRecord(None, "mlir", (), SHA, "text"),
    ),
)


def test_exact_json() -> None:
    assert encode_provenance(MADE) == (
        '{"abi-compiler":"0.1.0","flags":["--iree-hal-target-device=local",'
        '"--iree-llvmcpu-target-cpu=host"],"inputs":[{"entry":"predict","frontend":"torch",'
        f'"kind":"program","sha256":"{SHA}","versions":{{"iree-turbine":"3.9.0",'
        '"torch":"2.13.0"}},{"entry":null,"frontend":"mlir","kind":"text",'
        f'"sha256":"{SHA}","versions":{{}}}}],"iree-compiler":"3.13.0","target":"host","v":1}}'
    )


def test_readable_lines() -> None:
    assert format_provenance(MADE) == [
        "made by abi-compiler 0.1.0 with IREE's compiler 3.13.0, target host",
        "iree-compile flags: --iree-hal-target-device=local --iree-llvmcpu-target-cpu=host",
        f"input: predict: torch (iree-turbine 3.9.0, torch 2.13.0), sha256 of the serialized program {SHA}",
        f"input: mlir, sha256 of the MLIR text {SHA}",
    ]


names = st.text(max_size=8)


@given(
    st.builds(
        Provenance,
        names,
        names,
        names,
        st.lists(names, max_size=3).map(tuple),
        st.lists(
            st.builds(
                InputRecord,
                st.none() | names,
                names,
                st.dictionaries(names, names, max_size=2).map(lambda d: tuple(sorted(d.items()))),
                names,
                st.sampled_from(["file", "program", "graph", "text"]),
            ),
            max_size=3,
        ).map(tuple),
    )
)
def test_round_trip(made: Provenance) -> None:
    assert decode_provenance(encode_provenance(made)) == made


def _entry(**changes: object) -> str:
    document = json.loads(encode_provenance(MADE))
    for key, value in changes.items():
        if value is _DROP:
            del document[key]
        else:
            document[key] = value
    return json.dumps(document)


_DROP = object()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{",
            "abi.provenance: not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ("[]", "abi.provenance: entry must be an object"),
        (_entry(v=2), "abi.provenance: unsupported version 2 (expected 1)"),
        (_entry(v=True), "abi.provenance: unsupported version True (expected 1)"),
        (
            _entry(target=_DROP),
            "abi.provenance: entry: members ['abi-compiler', 'flags', 'inputs', 'iree-compiler', 'v'], expected ['abi-compiler', 'flags', 'inputs', 'iree-compiler', 'target', 'v']",
        ),
        (_entry(flags="x"), "abi.provenance: flags must be a list"),
        (_entry(flags=[1]), "abi.provenance: flags must be a string"),
        (_entry(inputs={}), "abi.provenance: inputs must be a list"),
        (_entry(inputs=[1]), "abi.provenance: inputs[0] must be an object"),
        (_entry(target=3), "abi.provenance: target must be a string"),
        (
            _entry(
                inputs=[
                    {"entry": None, "frontend": "x", "versions": [], "sha256": "", "kind": "file"}
                ]
            ),
            "abi.provenance: inputs[0].versions must be an object",
        ),
        (
            _entry(
                inputs=[
                    {"entry": None, "frontend": "x", "versions": {}, "sha256": "", "kind": "zip"}
                ]
            ),
            "abi.provenance: inputs[0].kind must be one of file, program, graph, text, not 'zip'",
        ),
        (
            _entry(
                inputs=[{"entry": 1, "frontend": "x", "versions": {}, "sha256": "", "kind": "file"}]
            ),
            "abi.provenance: inputs[0].entry must be a string",
        ),
    ],
)
def test_malformed(text: str, message: str) -> None:
    with pytest.raises(AbiError) as caught:
        decode_provenance(text)
    assert str(caught.value) == message
