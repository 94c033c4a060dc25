"""What Python tools see of a loaded function (`inspect.signature`, `help()`, IDEs,
`functools.wraps`): `__signature__` from the original call, else from the records;
`__doc__` with the `called as` line of `abi-sig show`; `__name__` and `__qualname__`."""

from __future__ import annotations

import functools
import inspect
import pydoc
from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "tests" / "frontends" / "inputs" / "torch_mlp.mlir"
STRUCTURED = ROOT / "examples" / "structured.mlir"

NDARRAY_F32 = "numpy.typing.NDArray[numpy.float32]"
# An array argument: what the call converts to an array
# (docs/calling.md, "Signatures and typed stubs").
ARRAY_LIKE = "numpy.typing.ArrayLike"


@pytest.fixture(scope="module")
def mlp() -> object:
    return compile_quietly(MLP.read_text())


def test_the_original_call_is_the_signature(mlp: object) -> None:
    main = mlp.main  # type: ignore[attr-defined]
    signature = inspect.signature(main)
    assert [(p.name, p.kind.name) for p in signature.parameters.values()] == [
        ("arg0", "POSITIONAL_ONLY"),
        ("arg1", "POSITIONAL_ONLY"),
        ("arg2", "POSITIONAL_ONLY"),
        ("mask", "KEYWORD_ONLY"),
        ("ids", "KEYWORD_ONLY"),
    ]
    assert str(signature) == (
        f"(arg0: 'Arg0', arg1: 'tuple[{ARRAY_LIKE}, {ARRAY_LIKE}]', "
        f"arg2: 'Literal[2]', /, *, mask: '{ARRAY_LIKE}', "
        f"ids: '{ARRAY_LIKE}') -> 'tuple[MainResult0, Pair]'"
    )
    assert (main.__name__, main.__qualname__) == ("main", "main")
    assert main.__doc__.splitlines()[2] == (
        "Called as main({'features': float32[2,4]}, (float32[3], int32[3]), =2, *, "
        "mask: bool[3], ids: uint8[3]) -> ({'y': float32[2,3], 'rest': (float32[3], "
        "[int64[3], uint8[3]])}, Pair(first=float32[3], second=int32[3]))"
    )
    # help() prints the documentation; functools sees the same signature through a wrapper.
    assert "Called as main(" in pydoc.render_doc(main, renderer=pydoc.plaintext)
    wrapped = functools.wraps(main)(lambda *args, **kwargs: main(*args, **kwargs))
    assert inspect.signature(wrapped) == signature


def test_a_loaded_file_has_the_same_signature(mlp: object, tmp_path: Path) -> None:
    from abi_compiler import iree as abi_iree

    path = tmp_path / "mlp.vmfb"
    mlp.save(path)  # type: ignore[attr-defined]
    loaded = abi_iree.load(path)
    assert inspect.signature(loaded.main) == inspect.signature(mlp.main)  # type: ignore[attr-defined]
    assert loaded.main.__doc__ == mlp.main.__doc__  # type: ignore[attr-defined]


def test_records_give_positional_and_keyword_only_parameters() -> None:
    module = compile_quietly(STRUCTURED.read_text())
    assert str(inspect.signature(module.generate)) == (
        f"(arg0: '{ARRAY_LIKE}', /, *, temperature: 'float', "
        "top_k: 'int') -> 'numpy.typing.NDArray[numpy.int32]'"
    )
    assert str(inspect.signature(module.swap)) == (
        f"(arg0: 'tuple[{ARRAY_LIKE}, {ARRAY_LIKE}]', /) -> "
        f"'tuple[numpy.typing.NDArray[numpy.int32], {NDARRAY_F32}]'"
    )
    assert module.generate.__doc__ == (
        "The compiled function @generate.\n\nRecords: generate(tensor<?xi32>, "
        "temperature: f32, top_k: i32) -> (tensor<?xi32>) (v1)"
    )


def test_legacy_and_flat_functions() -> None:
    legacy = compile_quietly(STRUCTURED.read_text(), pipeline="iree-abi-legacy")
    assert legacy.swap.convention == "legacy"
    assert str(inspect.signature(legacy.swap)) == (
        f"(arg0: 'list[{ARRAY_LIKE}]', /) -> "
        f"'tuple[numpy.typing.NDArray[numpy.int32], {NDARRAY_F32}]'"
    )
    flat = compile_quietly(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { func.return %x : tensor<4xf32> }",
        pipeline=None,
    )
    assert flat.f.convention == "flat"
    assert str(inspect.signature(flat.f)) == "(*args, **kwargs) -> 'Any'"
