"""From a framework's own object to MLIR whose exported function takes the original call
(docs/spec.md §3.4).

The exact structure of a JAX or torch function — tuple or list, keyword arguments, `None`
leaves, arguments the export dropped as unused — lives in the framework's objects, never
in the MLIR text. A frontend reads it there and gives a `Program`: the MLIR text, with the
structure written so that `-p iree-abi-v1` gives the function the matching `iree.abi`
records, and what the records cannot say (namedtuples, `None` leaves, unused arguments,
the framework's tensor type, symbolic dims) as the function's `abi.call` reflection entry
(`abi_compiler.call_model.OriginalCall`), which the pipeline carries into the compiled
module and `abi_compiler.iree.load` calls with.

One module per framework, each imported only when used (the framework is an optional
dependency; importing the module without it raises an ImportError that names the extra):

* `abi_compiler.frontends.jax`: a `jax.export.Exported`;
* `abi_compiler.frontends.torch`: a `torch.export.ExportedProgram` (through iree-turbine);
* `abi_compiler.frontends.onnx`: an ONNX model (`onnx.ModelProto` or a `.onnx` path);
* `abi_compiler.frontends.tf`: a TensorFlow SavedModel directory.

Each has `to_mlir(obj) -> str` and `program(obj) -> Program`. `program` here picks the
frontend by the object's type, without importing any framework.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from abi_compiler.call_model import OriginalCall

__all__ = ["Program", "frontend_name", "program", "quiet"]


@dataclass(frozen=True)
class Program:
    """What a frontend makes of a framework object."""

    #: The module's MLIR text, to run through a pipeline (`-p iree-abi-v1`).
    mlir: str
    #: The function the original call reaches.
    function: str = "main"
    #: The original call, which ``mlir`` carries as the function's `abi.call` entry.
    call: OriginalCall | None = None
    #: Parameters kept out of the text: name → host array (their bytes), which the
    #: module reads as `#flow.parameter.named<"model"::"<name>">`
    #: (`abi_compiler.iree.load(…, parameters=…)`).
    parameters: dict[str, Any] = field(default_factory=dict)
    #: The framework's own classes of the call's containers (namedtuples, `ModelOutput`s,
    #: …), which `compile(obj)` gives `load` so that results come back in them; a loaded
    #: `.vmfb` alone rebuilds types of the recorded names and fields (`load(…, types=…)`).
    types: tuple[type, ...] = ()
    #: The framework's own unflatten of the function's result (its arrays in flatten
    #: order → the result), which `compile(obj)` builds results with: a JAX export's
    #: ``out_tree``, which holds the exporter's classes and their static fields.
    unflatten: Callable[[list[Any]], Any] | None = None


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """While a framework's own code lowers a program for a frontend (torch's
    decompositions, iree-turbine's import, IREE's ONNX importer), the deprecation warnings
    it raises (`DeprecationWarning`, `PendingDeprecationWarning`, `FutureWarning`) are
    addressed to that library's code, not to the caller, who can do nothing about them:
    they are ignored, within this block only (`warnings.catch_warnings`). Other warnings
    go through."""
    with warnings.catch_warnings():
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.filterwarnings("ignore", category=category)
        yield


def frontend_name(obj: object) -> str | None:
    """The frontend module for ``obj`` (``"jax"``, ``"torch"``, ``"onnx"``, ``"tf"``), or
    None when it is not a framework object (MLIR text, bytes, an MLIR file path). A path
    (`os.PathLike`) ending in ``.onnx`` is an ONNX model; a one-line `str` is one when it
    ends in ``.onnx`` (or names a SavedModel directory), MLIR text otherwise."""
    cls = type(obj)
    module, name = cls.__module__, cls.__name__
    if name == "Exported" and module.startswith("jax"):
        return "jax"
    if name == "ExportedProgram" and module.startswith("torch"):
        return "torch"
    if name == "ModelProto" and module.startswith("onnx"):
        return "onnx"
    if isinstance(obj, os.PathLike):
        path = os.fspath(obj)
        if isinstance(path, str) and path.endswith(".onnx"):
            return "onnx"
        if isinstance(path, str) and os.path.isfile(os.path.join(path, "saved_model.pb")):
            return "tf"
    if isinstance(obj, str) and _names_a_path(obj):
        # A `str` is MLIR text, unless it is one line naming a `.onnx` file (a missing
        # one is then FileNotFoundError) or an existing SavedModel directory: no MLIR
        # text is such a name.
        if obj.endswith(".onnx"):
            return "onnx"
        if os.path.isfile(os.path.join(obj, "saved_model.pb")):
            return "tf"
    return None


def _names_a_path(text: str) -> bool:
    """Whether ``text`` could be a file name rather than MLIR text: one line, no NUL, not
    longer than a path can be."""
    return 0 < len(text) <= 4096 and "\n" not in text and "\0" not in text


def program(obj: object, **options: Any) -> Program:
    """The `Program` of a framework object, by the frontend `frontend_name` picks."""
    name = frontend_name(obj)
    if name is None:
        raise TypeError(
            f"expected a jax.export.Exported, a torch.export.ExportedProgram, an ONNX model "
            f"or a SavedModel directory, got {type(obj).__name__}"
        )
    frontend = importlib.import_module(f"abi_compiler.frontends.{name}")
    result: Program = frontend.program(obj, **options)
    return result
