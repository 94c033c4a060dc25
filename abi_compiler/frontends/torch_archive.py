"""A torch program saved by `torch.export.save` (a `.pt2` archive) read as data
(docs/abi-compile.md#what-is-read).

    from abi_compiler.frontends.torch_archive import load

    exported = load("model.pt2")  # a torch.export.ExportedProgram, or an AbiError

`torch.export.load` itself runs code a file chooses: it unpickles the archive's sample
inputs, pickled weights and constants with `torch.load(..., weights_only=False)` (and
its opaque constants with `pickle.loads`), rebuilds TorchScript objects, imports any
module a tree spec names (a `defaultdict`'s factory, an enum's class) and parses every
symbolic size with `sympy.sympify`, which evaluates its text as Python. `load` runs
torch's own reader with each of those doors shut, for the duration of the call:

* the sample inputs (`data/sample_inputs/`; `serialized_example_inputs.pt` in torch's
  older archives) are never read or never unpickled (compiling does not need them: the
  program's `example_inputs` are None);
* every `torch.load` is `weights_only=True` (torch's tensor-only unpickler; also
  `TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`): a pickled weight or constant that holds more than
  tensors is refused, naming its record;
* TorchScript objects and opaque (pickled) constants are refused;
* a module a tree spec names is looked up among the modules already imported, never
  imported (import it first: `abi-compile --import MODULE`);
* a symbolic size's text is parsed by Python's `ast` (never evaluated) and refused unless
  it is arithmetic, comparisons and calls of sympy's and torch's size functions on names
  and numbers.

When transformers is installed, `transformers.modeling_outputs` is imported first, as
transformers itself does on import: that registers its output classes
(`BaseModelOutputWithPoolingAndCrossAttentions`, …) as pytree nodes, which a program
that returns one names. A class the archive names that is not registered is an error
naming it and the module to import.

The patches are process-wide for the duration of a call (one call at a time: a lock).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import importlib.util
import io
import os
import pickle
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

try:
    import torch
    from torch._export.serde import serialize as torch_serialize
    from torch.export.pt2_archive import _package as torch_package
    from torch.utils import _pytree as torch_pytree

    sympy = importlib.import_module("sympy")  # torch's (untyped)
except ImportError as _error:  # pragma: no cover - exercised without torch installed
    raise ImportError(
        "abi_compiler.frontends.torch_archive needs torch: pip install 'abi-compiler[torch]'"
    ) from _error

from abi_compiler.errors import AbiError

__all__ = ["load"]

_SAMPLE_INPUTS = "data/sample_inputs/"
_LOCK = threading.Lock()
_UNREGISTERED = re.compile(r"Deserializing (\S+) in pytree is not registered")


def load(path: str | os.PathLike[str]) -> Any:
    """The `torch.export.ExportedProgram` saved at ``path`` (see the module's
    documentation for what is read and what is refused). Every problem is an `AbiError`
    (a bad archive's message is torch's)."""
    with open(path, "rb") as stream:
        data = stream.read()
    _register_transformers()
    with _LOCK, _data_only():
        try:
            return _quiet_load(data)
        except _Refused as error:
            raise AbiError(error.message) from None
        except Exception as error:  # torch raises its own types for a bad archive
            raise AbiError(_explain(error)) from None


class _Refused(Exception):
    """Something the archive asks for that a data file may not do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _register_transformers() -> None:
    """Import `transformers.modeling_outputs` when transformers is installed (see the
    module's documentation); nothing otherwise."""
    if "transformers.modeling_outputs" in sys.modules:
        return

    if importlib.util.find_spec("transformers") is None:
        return
    with contextlib.suppress(Exception):  # an installation that cannot import: as without
        importlib.import_module("transformers.modeling_outputs")


def _explain(error: BaseException) -> str:
    found = _UNREGISTERED.search(str(error))
    if found is not None:
        name = found.group(1)
        module, _, _ = name.rpartition(".")
        package = module.split(".")[0]
        hint = f"import {module} first (abi-compile --import {module})"
        if package and importlib.util.find_spec(package) is None:
            hint = f"{package} is not installed (pip install {package}); then {hint}"
        return f"the program's pytree holds {name}, a class that is not registered: {hint}"
    return f"cannot load the torch program: {error}"


def _quiet_load(data: bytes) -> Any:
    """`torch.export.load` without its log lines on stderr (its logger caught: it logs
    the traceback of a bad archive as a warning, then raises an error that points at
    that warning: the error raised here is the logged one)."""
    import logging

    class Caught(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.WARNING)
            self.errors: list[BaseException] = []

        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info and record.exc_info[1] is not None:
                self.errors.append(record.exc_info[1])

    logger = logging.getLogger("torch.export")
    caught, handlers, propagate = Caught(), logger.handlers, logger.propagate
    logger.handlers, logger.propagate = [caught], False  # (torch's own handler is here)
    try:
        return torch.export.load(io.BytesIO(data))
    except Exception:
        for error in caught.errors:
            if isinstance(error, _Refused):
                raise error from None
        if caught.errors:
            raise caught.errors[0] from None
        raise
    finally:
        logger.handlers, logger.propagate = handlers, propagate


# -- the doors shut while loading ----------------------------------------------------------


@contextlib.contextmanager
def _data_only() -> Iterator[dict[str, bytes]]:
    """Patch torch's reader for one load (see the module's documentation); yields the
    records read so far, by name (for messages)."""
    records: dict[str, bytes] = {}
    reader = torch_package.PT2ArchiveReader
    read_bytes = reader.read_bytes
    original_load = torch.load
    parse = torch_serialize.GraphModuleDeserializer._parse_sym_expr
    deserialize = torch_serialize.GraphModuleDeserializer.deserialize

    def read(self: Any, name: str) -> bytes:
        if name.startswith(_SAMPLE_INPUTS):
            return b""
        data: bytes = read_bytes(self, name)
        records[name] = data
        return data

    def tensors_only(f: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("weights_only", None)
        kwargs.pop("pickle_module", None)
        try:
            return original_load(f, *args, weights_only=True, **kwargs)
        except Exception as error:
            raise _Refused(
                f"the archive's {_record_of(f, records)} is a pickle that holds more than "
                "tensors, which abi-compile does not unpickle "
                f"({_unpickler_reason(error)})"
            ) from None

    def without_sample_inputs(
        self: Any, module: Any, state_dict: Any, constants: Any, *rest: Any, **named: Any
    ) -> Any:
        # Torch's older archives (`serialized_example_inputs.pt`) pass them here.
        if rest:
            rest = (None, *rest[1:])
        if "example_inputs" in named:
            named["example_inputs"] = None
        return deserialize(self, module, state_dict, constants, *rest, **named)

    def checked_parse(self: Any, expr: Any, hint: Any = None) -> Any:
        if isinstance(expr, str):
            _check_size_expression(expr, self.sympy_functions)
        return parse(self, expr, hint)

    with contextlib.ExitStack() as stack:
        patch = stack.enter_context(_patches())
        patch(reader, "read_bytes", read)
        patch(torch, "load", tensors_only)
        patch(torch._C, "_pickle_load_obj", _refuse("a TorchScript object"))
        patch(torch_package, "pickle", _PickleWithoutLoads())
        patch(torch_pytree, "importlib", _ImportlibWithoutImports())
        patch(torch_serialize.GraphModuleDeserializer, "_parse_sym_expr", checked_parse)
        patch(torch_serialize.GraphModuleDeserializer, "deserialize", without_sample_inputs)
        stack.enter_context(_environment("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1"))
        yield records


def _unpickler_reason(error: Exception) -> str:
    """What torch's tensor-only unpickler refused (`Unsupported global: GLOBAL io.open was
    not an allowed global by default`), without its advice to load the file unsafely."""
    _, marker, rest = str(error).partition("WeightsUnpickler error:")
    lines = [line.strip() for line in rest.splitlines() if line.strip()] if marker else []
    return lines[0].split(" Please use")[0].rstrip(".") if lines else type(error).__name__


def _record_of(f: Any, records: dict[str, bytes]) -> str:
    data = f.getvalue() if isinstance(f, io.BytesIO) else None
    for name, value in records.items():
        if value == data:
            return f"'{name}'"
    return "pickle"


def _refuse(what: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise _Refused(f"the archive holds {what}, which abi-compile does not unpickle")

    return refuse


class _PickleWithoutLoads:
    """`pickle` for torch's archive reader, whose `loads` refuses."""

    loads = staticmethod(_refuse("a pickled object"))

    def __getattr__(self, name: str) -> Any:
        return getattr(pickle, name)


class _ImportlibWithoutImports:
    """`importlib` for torch's pytree reader, whose `import_module` imports nothing."""

    def import_module(self, name: str, package: str | None = None) -> Any:
        return _imported_module(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib, name)


def _imported_module(name: str) -> Any:
    if name in sys.modules:
        return sys.modules[name]
    raise _Refused(
        f"the archive names module '{name}', which is not imported: a model file imports "
        f"nothing (import it first: abi-compile --import {name})"
    )


@contextlib.contextmanager
def _patches() -> Iterator[Callable[[Any, str, Any], None]]:
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    try:
        yield patch
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


# -- symbolic sizes --------------------------------------------------------------------------

#: The sympy classes and functions a saved size expression calls: torch writes
#: `sympy.srepr` (`Mul(Integer(2), Symbol('s0', integer=True, positive=True))`), older
#: archives `str` (`2*s0`); beside torch's own (the deserializer's ``sympy_functions``).
_SYMPY_CALLS = frozenset(
    [
        "Add",
        "Mul",
        "Pow",
        "Integer",
        "Rational",
        "Float",
        "Symbol",
        "Dummy",
        "Max",
        "Min",
        "Abs",
        "Mod",
        "floor",
        "ceiling",
        "sqrt",
        "Eq",
        "Ne",
        "Lt",
        "Le",
        "Gt",
        "Ge",
        "Equality",
        "Unequality",
        "StrictLessThan",
        "LessThan",
        "StrictGreaterThan",
        "GreaterThan",
        "And",
        "Or",
        "Not",
        "Xor",
        "Piecewise",
        "ExprCondPair",
        "ITE",
        "BooleanTrue",
        "BooleanFalse",
        "Infinity",
        "NegativeInfinity",
        "NaN",
        "ComplexInfinity",
        "Zero",
        "One",
        "NegativeOne",
        "Half",
    ]
)
#: The calls whose arguments may be strings and keywords (a name, assumptions, a
#: precision): they never parse a string as an expression.
_NAMED = frozenset({"Symbol", "Dummy", "Float"})
_OPERATORS = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.BitAnd,
    ast.BitOr,
    ast.BitXor,
    ast.USub,
    ast.UAdd,
    ast.Invert,
    ast.Not,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.And,
    ast.Or,
)
#: The other nodes an expression may hold.
_STRUCTURE = (
    ast.Expression,
    ast.Load,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.keyword,
    *_OPERATORS,
)
#: Bounds that keep sympy's exact arithmetic short: integers of at most 256 bits, powers
#: by a name or by an integer of at most 64 in magnitude, at most 8 powers.
_MAX_BITS = 256
_MAX_EXPONENT = 64
_MAX_POWERS = 8


def _check_size_expression(text: str, functions: dict[str, Any]) -> None:
    """Refuse a size expression that `sympy.sympify` would evaluate as anything but
    arithmetic on sizes: it is parsed with `ast` and may hold only names (not private
    ones), numbers, operators, comparisons and calls of sympy's size classes and
    functions (`_SYMPY_CALLS`), torch's (``functions``) or names sympy and Python do not
    define (sympy makes them undefined functions); strings and keywords only as the
    arguments of `_NAMED` calls; powers bounded as `_MAX_POWERS` says."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise _Refused(f"the archive's size expression {text[:80]!r} is not one") from None
    allowed = _SYMPY_CALLS | set(functions)
    named: set[int] = set()  # the strings and keyword values of `_NAMED` calls
    powers = 0
    bad = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = node.func
            if not isinstance(callee, ast.Name):
                bad = True
                break
            name = callee.id
            bad = name not in allowed and (hasattr(sympy, name) or hasattr(builtins, name))
            if node.keywords or any(
                isinstance(a, ast.Constant) and type(a.value) is str for a in node.args
            ):
                bad = (
                    bad
                    or name not in _NAMED
                    or any(
                        not isinstance(value, ast.Constant)
                        for value in [*node.args, *(k.value for k in node.keywords)]
                    )
                )
                named.update(id(value) for value in [*node.args, *(k.value for k in node.keywords)])
            if name == "Pow":
                powers += 1
                bad = bad or len(node.args) != 2 or not _small_exponent(node.args[1])
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            powers += 1
            bad = not _small_exponent(node.right)
        elif isinstance(node, ast.Name):
            bad = node.id.startswith("_")
        elif isinstance(node, ast.Constant):
            value = node.value
            if type(value) is int:
                bad = value.bit_length() > _MAX_BITS
            else:
                bad = type(value) not in (float, bool) and not (
                    type(value) is str and id(node) in named
                )
        else:
            bad = not isinstance(node, _STRUCTURE)
        if bad or powers > _MAX_POWERS:
            break
    if bad or powers > _MAX_POWERS:
        raise _Refused(
            f"the archive's size expression {text[:80]!r} is not arithmetic on sizes "
            "(abi-compile evaluates no code from a model file)"
        )


def _small_exponent(node: ast.expr) -> bool:
    """A name, a `Symbol(…)`, or an integer (`k`, `-k`, `Integer(k)`, `Rational(p, q)`)
    of at most `_MAX_EXPONENT` in magnitude."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _small_exponent(node.operand)
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return type(node.value) is int and abs(node.value) <= _MAX_EXPONENT
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("Symbol", "Dummy"):
            return True
        if node.func.id in ("Integer", "Rational"):
            return all(_small_exponent(arg) for arg in node.args) and not node.keywords
    return False
