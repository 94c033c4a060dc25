"""A fixed-seed sample of the hostile-input campaign (`tests/hardening/hostile_campaign.py`;
docs/formats.md, "The original call: `abi.call`"; docs/calling.md, "Errors";
docs/abi-compile.md, "Diagnostics and exit status"): every generated `abi.call` entry,
parameter mapping and archive, `abi-compile` name and input ends as a result, an
`AbiError`, a `TypeError` naming the value or a diagnostic — never another exception, a
crash or a hang. The long mode: `python -m tests.hardening.hostile_campaign --count 1200`."""

from __future__ import annotations

from tests.calling.conftest import needs_iree

needs_iree()

from tests.hardening.hostile_campaign import FAMILIES, good, run_campaign  # noqa: E402


def test_a_sample_of_hostile_inputs() -> None:
    found, defects = run_campaign({family: 12 for family in FAMILIES}, seed=0, timeout=120)
    assert defects == []
    assert all(good(outcome) for _, outcome in found), found
    assert sum(found.values()) == 12 * len(FAMILIES)
