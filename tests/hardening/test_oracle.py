"""Proof by difference (docs/testing.md), in the test command: a fixed seed's generated
modules (`tests/hardening/oracle.py`) through `abi-opt` with no pass, the reflection pass
and both pipelines, judged by IREE's `iree-opt` — the generic form of the no-pass output
is the input's, the reflection pass changes nothing but `iree.reflection`, and every
pipeline output is accepted and keeps the ops it does not rewrite. The forms `abi-opt`
still gets wrong are left out (`oracle.RESTRICTED`); the long mode is
``python -m tests.hardening.oracle --count 5000``. Skipped without IREE's compiler.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.hardening import oracle
from tests.hardening.oracle import Features, IreeOpt, check_modules, generate

SEED = 21
#: 300 modules in batches that pytest-xdist spreads over its workers; each batch is one
#: `iree-opt` process per stage and about 10 s of CPU.
BATCHES = 3
PER_BATCH = 100

# A text that only the family of forms a feature turns on writes (None: not visible in
# the text alone).
MARKERS: dict[str, str | None] = {
    "dialect_body_comments": r"// (?:x|a, b|-> c|loc|#-)\r?\n",
    "locations_in_values": r"loc\(1\)|\[loc\(|\"m\.py\":10:4\), x>",
    "nested_modules": r"\n\s+(?:builtin\.)?module @",
    "ops_on_one_line": (
        r"(?m)^[ \t]*\}(?: loc\(.*\))? (?:func\.func|(?:builtin\.)?module @|memref\.global|util\.global|"
        r'"func\.func"|"foo\.top")'
        r"|\{ (?:%[\w#:]+ = |return)"
    ),
    "cr_line_ends": r"\r(?!\n)",
    "crlf_line_ends": r"\r\n",
    "escaped_symbol_names": r'@"[^"\n]*\\(?:"|\\|09|[2-7][0-9A-F])',
    "aliases_between_ops": r"\}(?:\r\n|\r|\n)#loc\d+ = loc\(",
    "symbol_collisions": r'(?:memref\.global "private"|util\.global private) @"?_|sym_name = "_',
    "symbol_aliases": r"#callee\d+ = @",
    "structured_type_aliases": r"!pair\d+ = ",
    "loc_whitespace": r"loc\s+\( ?(?:#|\"|unknown|fused|callsite)|loc\( ",
    "typed_attribute_aliases": r"#a\d+ = #foo\.attr<.*> : !foo\.type",
    "affine_sets": r"affine_set<",
    "attributes_type_name": r"!foo\.attributes",
    "angle_in_dialect_strings": r'"(?:a>b|<|>|<<|x->y|a>=0)"',
    "opaque_dialect_values": r"[#!]foo<",
    "sparse_elements": r"sparse<",
    "distinct_attributes": r"distinct\[",
    "extended_floats": r"\bf(?:80|128)\b",
    "resource_strings": r"external_resources",
    "non_utf8_strings": r"\\FF|\\80",
    "exotic_values_in_parsed_bodies": None,
    "more_locations": r"\^bb0\(%b0: [^)]*loc",
    "declarations": r"func\.func private @(?:ext|extern_fn|ext2)\(",
    "dict_key_spellings": r'!abi\.dict<[^\n]*"q\\"t": ',
    "typed_strings": r'" : i32',
    "references_to_functions": r'(?<=[a-z_])(?<!callee) ?= ?@(?:f|main|predict|"with space"|inner::@f)\b',
    "jax_functions": r"jax\.result_info",
}


def _iree_opt() -> str:
    pytest.importorskip("iree.compiler")
    path = oracle.find_iree_opt()
    if path is None or not Path(path).exists():
        pytest.skip("iree-opt is not installed")
    return path


def test_every_feature_has_a_marker() -> None:
    assert sorted(MARKERS) == sorted(Features.names())
    assert set(Features.names()) >= oracle.RESTRICTED


def test_generation_is_deterministic() -> None:
    features = Features()
    assert [generate(SEED, i, features) for i in range(20)] == [
        generate(SEED, i, features) for i in range(20)
    ]
    assert generate(SEED, 0, features) != generate(SEED + 1, 0, features)


def test_the_generator_writes_every_form_and_leaves_out_the_restricted() -> None:
    """With every feature on, each family shows up within the first 200 modules; with
    `Features.passing()` none of the restricted families does."""
    everything = [generate(SEED, i, Features()) for i in range(200)]
    passing = [generate(SEED, i, Features.passing()) for i in range(200)]
    for name, marker in MARKERS.items():
        if marker is None:
            continue
        pattern = re.compile(marker)
        assert any(pattern.search(text) for text in everything), f"{name} never generated"
        if name in oracle.RESTRICTED:
            found = [i for i, text in enumerate(passing) if pattern.search(text)]
            assert not found, f"{name} generated although restricted (modules {found[:5]})"


@pytest.mark.parametrize("batch", range(BATCHES))
def test_abi_opt_agrees_with_iree_opt(batch: int, tmp_path: Path) -> None:
    iree_opt = IreeOpt(_iree_opt(), tmp_path)
    indices = range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
    texts = [generate(SEED, i, Features.passing()) for i in indices]
    outcomes = check_modules(texts, iree_opt, tmp_path, timeout=120, explain_skipped=True)
    for index, outcome in zip(indices, outcomes, strict=True):
        outcome.index = index
    counts = Counter(outcome.category for outcome in outcomes)
    skipped = [outcome for outcome in outcomes if outcome.category == "skipped"]
    # Inputs iree-opt rejects are generator defects: a few may slip through, not many.
    assert len(skipped) <= PER_BATCH // 20, "\n".join(o.report(SEED) for o in skipped[:3])
    failures = [o for o in outcomes if o.category not in ("identical", "skipped")]
    assert not failures, f"{dict(counts)}\n" + "\n".join(
        f"{o.report(SEED)}input:\n{o.text}" for o in failures[:3]
    )


def test_carried_ops_ignore_value_names_renames_and_distinct_numbers() -> None:
    generic = (
        '%0 = "foo.x"(%arg0) {a = [distinct[3]<>, distinct[4]<1 : i32>]} : (i32) -> i32\n'
        '"foo.call"(%1) <{callee = @_f}> : (i32) -> ()\n'
        '"arith.constant"() <{value = 0 : index}> : () -> index\n'
    )
    assert oracle.carried_ops(generic) == Counter(
        {
            '% = "foo.x"(%) {a = [distinct[]<>, distinct[]<1 : i32>]} : (i32) -> i32': 1,
            '"foo.call"(%) <{callee = @f}> : (i32) -> ()': 1,
        }
    )
