"""`abi-sig stub` on a compiled module: the stub it writes loads the module, its calls
return the stub's own classes, and `mypy --strict` accepts a correct call through it and
refuses a wrong keyword and a result field the model does not have (the exact text of a
stub is pinned by tests/filecheck/abi-sig/stub.mlir)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
pytest.importorskip("mypy")

from tests.calling.helpers import compile_quietly  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "frontends" / "inputs" / "torch_mlp.mlir"

CALL = """
import numpy as np

from model_api import CompiledModule, Pair, load

module: CompiledModule = load()
out = module.main(
    {"features": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)},
    (np.ones(3, np.float32), np.arange(3, dtype=np.int32)),
    2,
    mask=np.array([True, False, True]),
    ids=np.arange(3, dtype=np.uint8),
)
pair: Pair = out[1]
rest = out[0]["rest"]
print(type(pair).__module__, type(pair).__name__, pair.first.dtype, pair.second.tolist())
"""

WRONG = """
import numpy as np

from model_api import load

module = load()
out = module.main(
    {"features": np.zeros((2, 4), np.float32)},
    (np.ones(3, np.float32), np.arange(3, dtype=np.int32)),
    2,
    mask=np.array([True, False, True]),
    idz=np.arange(3, dtype=np.uint8),
)
print(out[1].third)
"""


# What a user writes (README, docs/calling.md): nested lists and numpy scalars as inputs,
# a session's loop, run from another folder than the stub's (load() finds the module
# beside the stub).
SESSION = """
import numpy as np

from model_api import CompiledModule, CompiledSession, load

module: CompiledModule = load()
features = [[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0]]
with module.session() as session:
    steps: CompiledSession = session
    for step in range(2):
        out = steps.main(
            {"features": np.asarray(features, np.float32)},
            (np.float32(step) + np.ones(3, np.float32), [1, 2, 3]),
            2,
            mask=[True, False, True],
            ids=np.arange(3, dtype=np.uint8),
        )
        print(out[1].first.tolist(), out[1].second.tolist())
    steps.reset()
module.close()
"""


@pytest.fixture(scope="module")
def stubbed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stub")
    vmfb = compile_quietly(MODEL.read_text()).vmfb
    (folder / "mlp.vmfb").write_bytes(vmfb)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "abi_compiler.commands.sig_main",
            "stub",
            "mlp.vmfb",
            "-o",
            "model_api.py",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    (folder / "call.py").write_text(CALL)
    (folder / "wrong.py").write_text(WRONG)
    (folder / "session.py").write_text(SESSION)
    return folder


def _mypy(
    folder: Path, script: str, stub: str = "model_api.py"
) -> subprocess.CompletedProcess[str]:
    # abi_compiler is found on MYPYPATH (this checkout, whatever this process has
    # installed); its own modules are not what is checked here.
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(folder / ".mypy_cache"),
            stub,
            script,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _run(
    folder: Path, script: Path | str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``script`` run with the stubs in ``folder`` importable (from ``cwd``, else
    ``folder``)."""
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd or folder,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])},
        check=False,
    )


def test_a_call_through_the_stub_gives_its_classes(stubbed: Path) -> None:
    done = _run(stubbed, "call.py")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "model_api Pair float32 [0, 1, 2]\n"


def test_mypy_accepts_a_correct_call_and_refuses_wrong_ones(stubbed: Path) -> None:
    good = _mypy(stubbed, "call.py")
    assert good.returncode == 0, good.stdout
    bad = _mypy(stubbed, "wrong.py")
    assert bad.returncode == 1
    errors = sorted(
        line.split(": error: ", 1)[1] for line in bad.stdout.splitlines() if ": error: " in line
    )
    assert errors == [
        '"Pair" has no attribute "third"  [attr-defined]',
        'Unexpected keyword argument "idz" for "main" of "CompiledModule"  [call-arg]',
    ]


def test_a_session_loop_of_lists_type_checks_and_runs_from_another_folder(
    stubbed: Path, tmp_path: Path
) -> None:
    """The stub's `session()` gives a typed session of the same functions, its inputs
    take what the call takes (`ArrayLike`: lists, numpy scalars), and `load()` finds the
    module beside the stub, not in the current folder."""
    checked = _mypy(stubbed, "session.py")
    assert (checked.returncode, checked.stdout) == (
        0,
        "Success: no issues found in 2 source files\n",
    )
    done = _run(stubbed, stubbed / "session.py", tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "[2.0, 2.0, 2.0] [1, 2, 3]\n[4.0, 4.0, 4.0] [1, 2, 3]\n"


# A language model's stub (docs/calling.md, "Signatures and typed stubs"): `generate` on
# the module and its sessions, typed as `abi_compiler.generation` returns.
GENERATE = """
import numpy as np

from abi_compiler.generation import GeneratedText, GeneratedTokens, GenerationStream
from chat_api import CompiledModule, CompiledSession, load

module: CompiledModule = load()
text: GeneratedText = module.generate("Hello", max_new_tokens=4, stop=["."])
ids: GeneratedTokens = module.generate([0, 5, 9], max_new_tokens=3, stop=[1])
more: GeneratedTokens = module.generate(np.array([0, 5, 9]), max_new_tokens=3)
stream: GenerationStream = module.generate("Hello", stream=True, max_new_tokens=4)
pieces = "".join(stream)
chat: GeneratedText = module.generate(messages=[{"role": "user", "content": "hi"}])
either = module.generate("Hello", stream=len(pieces) > 1000, max_new_tokens=1)
with module.session() as session:
    turns: CompiledSession = session
    first: GeneratedText = turns.generate("Hello", max_new_tokens=2)
    print(first.finish_reason, len(first.token_ids))
print(text.finish_reason, list(ids) == list(more), ids.finish_reason)
print(pieces == str(module.generate("Hello", max_new_tokens=4)), stream.finish_reason)
"""

# A module without a tokenizer takes token ids only; one without a job has no generate.
GENERATE_WRONG = """
from ids_api import load as load_ids
from model_api import load as load_plain

module = load_ids()
module.generate("text")
module.generate([1, 2], temprature=0.5)
module.generate([1, 2]).token_ids
load_plain().generate([1, 2])
"""


@pytest.fixture(scope="module")
def generation_stubs(stubbed: Path) -> Path:
    pytest.importorskip("tokenizers")
    import warnings

    from abi_compiler import iree as abi_iree
    from tests.generation import fixtures

    tokenizer = fixtures.train_tokenizer()
    fixtures.save_tokenizer(tokenizer, stubbed / "tokenizer")
    model = fixtures.mlir_model(tokenizer.get_vocab_size())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        chat = abi_iree.compile_vmfb(
            model, pipeline=None, tokenizer=stubbed / "tokenizer" / "tokenizer.json"
        )
        ids = abi_iree.compile_vmfb(model, pipeline=None, generation=True)
    for name, data in (("chat", chat), ("ids", ids)):
        (stubbed / f"{name}.vmfb").write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-m", "abi_compiler.commands.sig_main", "stub", f"{name}.vmfb"],
            cwd=stubbed,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stderr) == (0, "")
        (stubbed / f"{name}_api.py").write_text(done.stdout)
    (stubbed / "generate.py").write_text(GENERATE)
    (stubbed / "generate_wrong.py").write_text(GENERATE_WRONG)
    return stubbed


def test_a_language_models_stub_types_generate(generation_stubs: Path) -> None:
    """`generate` on the module and on a session: a `str` prompt or messages give a
    `GeneratedText`, token ids a `GeneratedTokens`, ``stream=True`` a
    `GenerationStream`; mypy accepts those uses and they run."""
    checked = _mypy(generation_stubs, "generate.py", "chat_api.py")
    assert (checked.returncode, checked.stdout) == (
        0,
        "Success: no issues found in 2 source files\n",
    )
    done = _run(generation_stubs, "generate.py")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "length 2\nlength True length\nTrue length\n"


def test_generate_is_typed_by_what_the_job_records(generation_stubs: Path) -> None:
    """A job without a tokenizer takes token ids only; a module without a job has no
    `generate`."""
    assert "def generate" not in (generation_stubs / "model_api.py").read_text()
    checked = _mypy(generation_stubs, "generate_wrong.py", "ids_api.py")
    errors = [
        line.split(": error: ", 1)[1] for line in checked.stdout.splitlines() if ": error: " in line
    ]
    assert errors == [
        'Argument 1 to "generate" of "CompiledModule" has incompatible type "str"; expected '
        '"Sequence[int] | ndarray[tuple[Any, ...], dtype[integer[Any]]]"  [arg-type]',
        'Unexpected keyword argument "temprature" for overloaded function "generate" of '
        '"CompiledModule"; did you mean "temperature"?  [call-overload]',
        'No overload variant of "generate" of "CompiledModule" matches argument types '
        '"list[int]", "float"  [call-overload]',
        '"GeneratedTokens" has no attribute "token_ids"  [attr-defined]',
        '"CompiledModule" has no attribute "generate"  [attr-defined]',
    ]
