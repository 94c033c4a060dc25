"""The fixes of xDSL (`abi_compiler.xdsl_boundary`: `defects`, `mlir_compat`, `speedups`,
put together by `xdsl_fixes`) are the pipeline's own: nothing of xDSL is changed outside a
run, and the xDSL members a fix stands in for are the ones it was written against.

* `test_fixed_members_are_unchanged` is a canary: it pins the source of every xDSL member
  a fix replaces or overrides. When the pinned xDSL version changes (an upgrade), a
  changed member fails here by name: read its new source, check whether the fix is still
  needed and still right, then update the digest.
* After `run_pipeline` (also one that fails, and with fixes nested), every member of every
  xDSL class is what it was before (checked in a fresh interpreter, so that nothing else
  in the test process has touched xDSL).
* Each fix docs/xdsl-fixes.md lists is in the module of its kind: the module cites the
  fix's heading (`test_each_fix_is_in_the_module_of_its_kind`).
"""

from __future__ import annotations

import hashlib
import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from xdsl.utils.exceptions import ParseError

from abi_compiler.xdsl_boundary.xdsl_fixes import FIXED_MEMBERS

#: (class, member) -> the first 16 hex digits of the SHA-256 of its source in xDSL 0.74.0
#: (for a regular expression: of its pattern).
PINNED = {
    ("SymbolTable", "lookup_symbol"): "82e0e8ad61863db1",
    ("StringLiteral", "bytes_contents"): "8592a2fa4dd5b91f",
    ("DenseIntOrFPElementsAttr", "__len__"): "1b1afd2b5fc26de4",
    ("DenseIntOrFPElementsAttr", "is_splat"): "d38119b3ba92c920",
    ("DenseIntOrFPElementsAttr", "get_values"): "c420a78996bf48a8",
    ("DenseIntOrFPElementsAttr", "iter_values"): "6c4fc4b732c91c70",
    ("DenseIntOrFPElementsAttr", "get_attrs"): "49051306a6b44cea",
    ("DenseIntOrFPElementsAttr", "iter_attrs"): "99699228029c3ebe",
    ("DenseIntOrFPElementsAttr", "print_without_type"): "cb67ddaccc722728",
    ("MLIRLexer", "_lex_string_literal"): "a32cb3f03385cf6c",
    ("MLIRLexer", "_unescaped_characters_regex"): "2d5cce671a4d08fb",
    ("MLIRLexer", "_consume_whitespace"): "7752ec9de0230eda",
    ("Parser", "__init__"): "a9c4b4bd3216d4f4",
    ("AttrParser", "parse_dense_int_or_fp_elements_attr"): "20bf934205998b33",
    ("AttrParser", "parse_optional_builtin_int_or_float_attr"): "b8402b0c28827d5f",
    ("AttrParser", "_parse_builtin_densearray_attr"): "e5acf223a3f3cb0d",
    ("AttrParser", "_parse_dialect_resource_handle"): "a5a59a1c22d81347",
    ("Parser", "_parse_external_resources"): "98276fd9c4f8a441",
    ("Printer", "print_float"): "7025e6b4fbc4da08",
    ("Printer", "print_bytes_literal"): "c4811267fa415cc0",
    ("Printer", "print_attribute"): "dcb4fade9403ef6d",
    ("DenseArrayBase", "print_builtin"): "092425216daa0633",
}


def _digest(owner: type, name: str) -> str:
    member: Any = next(k.__dict__[name] for k in owner.__mro__ if name in k.__dict__)
    if isinstance(member, staticmethod | classmethod):
        member = member.__func__
    if isinstance(member, property):
        member = member.fget
    text = member.pattern if hasattr(member, "pattern") else inspect.getsource(member)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


ROOT = Path(__file__).resolve().parents[2]
BOUNDARY = ROOT / "abi_compiler" / "xdsl_boundary"
FIXES_PAGE = "docs/xdsl-fixes.md"
#: The modules of each kind of fix (docs/xdsl-fixes.md, "The fixes").
KIND_MODULES = {
    "defect": ("defects.py",),
    "MLIR compatibility": ("mlir_compat.py",),
    "speed-up": ("speedups.py", "symbol_cache.py"),
}


def _fixes() -> list[tuple[str, list[str]]]:
    """(title, kinds) of each fix docs/xdsl-fixes.md lists: its headings `### Title (kind,
    and kind)` under "The fixes"; the first kind is the fix's own."""
    section = (ROOT / FIXES_PAGE).read_text().split("\n## The fixes\n")[1]
    return [
        (title, re.split(r",? and |, ", kinds))
        for title, kinds in re.findall(r"^### (.+) \((.+)\)$", section, re.M)
    ]


def test_the_fixes_are_listed_by_kind() -> None:
    fixes = _fixes()
    assert len(fixes) >= 13
    assert {kind for _, kinds in fixes for kind in kinds} == set(KIND_MODULES)


@pytest.mark.parametrize(("title", "kinds"), _fixes(), ids=[title for title, _ in _fixes()])
def test_each_fix_is_in_the_module_of_its_kind(title: str, kinds: list[str]) -> None:
    """A fix's code cites its heading (the page, a comma and the heading in quotes) from a
    module of its kind: a newcomer finds a defect's fix in `defects.py`, and the report
    beside it."""
    citation = f'{FIXES_PAGE}, "{title}"'
    citing = [
        path.name
        for path in sorted(BOUNDARY.glob("*.py"))
        if citation in " ".join(path.read_text().split())
    ]
    assert set(citing) & set(KIND_MODULES[kinds[0]]), (
        f"{title} ({kinds[0]}) is cited by {citing}, not by {KIND_MODULES[kinds[0]]}"
    )


def test_every_fixed_member_is_pinned() -> None:
    assert {(owner.__name__, name) for owner, name in FIXED_MEMBERS} == set(PINNED)


@pytest.mark.parametrize(
    ("owner", "name"), FIXED_MEMBERS, ids=[f"{o.__name__}.{n}" for o, n in FIXED_MEMBERS]
)
def test_fixed_members_are_unchanged(owner: type, name: str) -> None:
    assert _digest(owner, name) == PINNED[(owner.__name__, name)], (
        f"xDSL's {owner.__name__}.{name} changed: check its fix (put in place by "
        "abi_compiler/xdsl_boundary/xdsl_fixes.py) against its new source, then update PINNED"
    )


_NO_LEAK = textwrap.dedent(
    """
    import importlib, pkgutil, sys, warnings
    import xdsl

    def snapshot():
        found = {}
        for info in pkgutil.walk_packages(xdsl.__path__, "xdsl."):
            module = sys.modules.get(info.name)
            if module is None:
                continue
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__.startswith("xdsl"):
                    found[(value.__module__, value.__qualname__)] = dict(vars(value))
        return found

    import abi_compiler
    from abi_compiler.pipeline import PipelineError
    from abi_compiler.xdsl_boundary import xdsl_fixes

    limit = sys.getrecursionlimit()
    # Load every module a run loads, then take the picture.
    abi_compiler.run_pipeline("func.func @f() {\\n  func.return\\n}\\n", "iree-abi-v1")
    before = snapshot()
    text = open(sys.argv[1]).read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pipeline in ("", "iree-abi-v1", "iree-abi-legacy"):
            abi_compiler.run_pipeline(text, pipeline)
        with xdsl_fixes.applied():
            with xdsl_fixes.applied():
                abi_compiler.run_pipeline(text, "iree-abi-v1", parse_all=True)
        try:
            abi_compiler.run_pipeline("func.func @f(%a: tuple<i32>) {", "iree-abi-v1")
        except PipelineError:
            pass
    after = snapshot()
    changed = sorted(
        ".".join((*cls, name))
        for cls, members in before.items()
        for name in members.keys() | after[cls].keys()
        # (Python creates a class's `__annotations__` on first access.)
        if members.get(name) is not after[cls].get(name) and name != "__annotations__"
    )
    ours = sorted(
        ".".join((*cls, name))
        for cls, members in after.items()
        for name, member in members.items()
        if (getattr(getattr(member, "fget", member), "__module__", "") or "").startswith(
            "abi_compiler"
        )
    )
    print(changed, ours, sys.getrecursionlimit() == limit)
    """
)


def test_a_run_leaves_xdsl_as_it_was() -> None:
    example = str(__import__("pathlib").Path(__file__).parents[2] / "examples" / "structured.mlir")
    done = subprocess.run(
        [sys.executable, "-c", _NO_LEAK, example], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[] [] True", done.stdout + done.stderr


def test_an_unclosed_string_as_the_first_token_is_lexed_in_linear_time() -> None:
    """xDSL's parser lexed its first token with xDSL's own string pattern, which
    backtracks exponentially on an unclosed literal (found by test_fuzz_pipelines: a
    mutated input hung); the fixed parser lexes it with `FixedLexer`. 60 characters took
    hours before."""
    from abi_compiler.pipeline.dialects import context
    from abi_compiler.xdsl_boundary.xdsl_fixes import FixedParser, applied

    with applied():
        for text in ('"' + "a" * 60, b'"' + b"a" * 60):
            with pytest.raises(ParseError, match="closing string literal"):
                FixedParser(context(), text).parse_module()
        assert FixedParser(context(), b'"x"').lexer.input.content == '"x"'
