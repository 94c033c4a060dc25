"""The README's Python snippets of `compile` and `load` run as written, one after the
other in one namespace (a newcomer copies them: they used names they never defined), and
give what their comments say. Needs JAX, torch and IREE (skipped otherwise)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks(section: str) -> list[str]:
    """The ```python blocks of the README's section whose heading starts ``section``."""
    text = README.read_text()
    start = text.index(f"\n## {section}")
    end = text.find("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], re.DOTALL)


def test_the_compile_and_load_snippets_run(tmp_path: Path, monkeypatch: Any) -> None:
    for needed in ("jax", "torch", "iree.compiler", "iree.runtime"):
        pytest.importorskip(needed)
    import numpy as np
    import torch

    blocks = python_blocks("A framework's object") + python_blocks("A deployed `.vmfb`")
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)  # the README's own text
    inputs, a, b, mask = (namespace[name] for name in ("inputs", "a", "b", "mask"))
    got = namespace["module"].main(inputs, (a, b), mask=mask)
    expected = namespace["Model"]()(inputs, (a, b), mask)
    assert isinstance(got["out"], torch.Tensor)
    np.testing.assert_array_equal(got["out"].numpy(), expected["out"].numpy())
    compiled = namespace["info"]
    assert compiled["aux"] is None and float(compiled["loss"]) == 373.5  # (its comment's)
    exec(compile(blocks[1], str(README), "exec"), namespace)  # the deployed module
    assert os.path.isfile(tmp_path / "model.vmfb")
    loaded = namespace["info"]
    assert loaded is not compiled and float(loaded["loss"]) == 373.5
