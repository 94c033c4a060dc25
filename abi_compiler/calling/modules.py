"""A loaded IREE module and its functions, called with Python values: `load` puts a
compiled module (a `.vmfb` path or its bytes) on a local CPU device and exposes each
exported function as a `Function`, which marshals by the function's reflection (`abi.call`
with `iree.abi`, V1 `iree.abi`, legacy `f` + `sip`, or flat) through
`abi_compiler.calling.vm` (docs/calling.md)."""

from __future__ import annotations

import errno
import inspect
import mmap as memory_map
import os
import stat
import tempfile
import threading
import weakref
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from abi_compiler.attribute_names import (
    ABI_CALL,
    ABI_PARAMETERS,
    IREE_ABI,
    PARAMETER_SCOPE,
    RAW,
    SIP,
)
from abi_compiler.calling.call_leaves import leaves_of, plan
from abi_compiler.calling.child_load import compiled_here, compiled_in_this_process, load_in_a_child
from abi_compiler.calling.iree_runtime import np, rt
from abi_compiler.calling.marshal import (
    pack_call,
    pack_legacy,
    unpack,
    unpack_legacy,
)
from abi_compiler.calling.mismatch import Mismatch, plural, type_name
from abi_compiler.calling.original_call import (
    TypesError,
    TypeSource,
    Unflatten,
    own_types,
)
from abi_compiler.calling.placement import choose_driver, module_targets
from abi_compiler.calling.sessions import (
    Session,
    StateContext,
    close_module,
    generation_method,
    state_of,
)
from abi_compiler.calling.updates import check_targets, write_back
from abi_compiler.calling.value_ranges import index_check_failure
from abi_compiler.calling.vm import Marshal, ResultsMode
from abi_compiler.calling.vm_arrays import VmList
from abi_compiler.codecs.call_json import decode_call, format_call, format_updates
from abi_compiler.codecs.json_abi import decode_json, format_declaration
from abi_compiler.codecs.python_api import PythonApi, StubFunction
from abi_compiler.codecs.raw import decode_raw, format_raw
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.codecs.state_json import StateGlobal
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Dict,
    FlatSignature,
    IndexPathComponent,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    ValueType,
    leaf_paths,
    signature_from_legacy,
)
from abi_compiler.signatures.module_signatures import caller_visible, not_a_module

__all__ = [
    "PARAMETER_SCOPE",
    "Function",
    "Module",
    "compiled_here",
    "load",
    "parameter_index",
    "save_parameters",
]

# --------------------------------------------------------------------------------------
# Functions.
# --------------------------------------------------------------------------------------

Convention = Literal["v1", "legacy", "flat"]


class Function:
    """An exported function of a loaded module, called with Python values.

    ``convention`` says how it marshals: ``"v1"`` (by its ``iree.abi`` reflection),
    ``"legacy"`` (by ``f`` + ``sip``) or ``"flat"`` (no reflection: positional values
    converted dynamically). ``signature`` is the decoded reflection (a `Signature`, a
    ``(FlatSignature, SipSignature)`` pair, or None)."""

    def __init__(self, module: Module, vm_function: Any) -> None:
        self.module = module
        self.vm_function = vm_function
        self.name: str = vm_function.name
        self.reflection: dict[str, str] = dict(vm_function.reflection)
        self._context = module._state  # (a session's copy calls in its own: calling.sessions)
        marshal = module._marshal
        self._convert = marshal.convert
        abi = self.reflection.get(IREE_ABI)
        f, sip = self.reflection.get(RAW), self.reflection.get(SIP)
        self.signature: Signature | tuple[FlatSignature, SipSignature] | None = None
        try:
            if abi is not None:
                self.convention: Convention = "v1"
                self._setup_v1(abi, decode_json(abi), marshal)
            elif f is not None and sip is not None:
                self.convention = "legacy"
                self._setup_legacy(f, sip, decode_raw(f), decode_sip(sip), marshal)
            else:
                self.convention = "flat"
                self._push_any = marshal.push_dynamic
                self._read_any = marshal.read_dynamic
                self._call = self._call_flat
        except TypesError as error:
            raise AbiError(f"function @{self.name}: {error}") from None
        except AbiError as error:
            raise AbiError(f"function @{self.name}: malformed reflection: {error}") from None
        # What Python tools read of a function (help(), IDEs, functools): its name, and
        # its original call as `abi-sig show` prints it; `__signature__` is computed when
        # first asked for.
        self.__name__ = self.__qualname__ = self.name
        self.__doc__ = self._doc()
        self._python_signature: inspect.Signature | None = None

    @property
    def __signature__(self) -> inspect.Signature:
        """The function's parameters as `inspect.signature` gives them: the original
        call's (positional-only, then keyword-only), else the records' (positional roots,
        then named roots as keyword-only); annotations as `abi-sig stub` writes them
        (docs/calling.md, "Signatures and typed stubs")."""
        if self._python_signature is None:
            self._python_signature = _python_signature(self._stub_function())
        return self._python_signature

    def _stub_function(self) -> StubFunction:
        call = getattr(self, "_plan", None)
        records = self.signature
        if isinstance(records, tuple):
            records = signature_from_legacy(*records)
        return StubFunction(self.name, call.call if call is not None else None, records)

    def _doc(self) -> str:
        lines = [f"The compiled function @{self.name}."]
        plan = getattr(self, "_plan", None)
        if plan is not None:
            lines.append(f"Called as {self.name}{format_call(plan.call)}")
            if plan.call.updates:
                lines.append(f"Updates in place: {format_updates(plan.call)}")
        lines.append(f"Records: {self.name}{self.declaration} ({self.convention})")
        return "\n\n".join(lines)

    def _setup_v1(self, abi: str, signature: Signature, marshal: Marshal) -> None:
        _check_arguments(self.vm_function, [argument.node for argument in signature.arguments])
        self.signature = signature
        self._abi = abi
        self._labels: list[IndexPathComponent] = [
            argument.name if argument.name is not None else position
            for position, argument in enumerate(signature.arguments)
        ]
        self._pushers = [marshal.pusher(argument.node) for argument in signature.arguments]
        self._iree_packer = marshal.iree_packer(signature)
        self._invoke_context = marshal.invoke_context
        if signature.inlined_result:
            root = signature.results[0]
            assert isinstance(root, (Sequence, Dict))
            items = root.items if isinstance(root, Sequence) else tuple(c for _, c in root.items)
            keys = (
                list(range(len(items)))
                if isinstance(root, Sequence)
                else [key for key, _ in root.items]
            )
            self._readers = [marshal.reader(item) for item in items]
            self._result_paths: list[tuple[IndexPathComponent, list[IndexPathComponent]]] = [
                (0, [key]) for key in keys
            ]
        else:
            self._readers = [marshal.reader(node) for node in signature.results]
            self._result_paths = [(i, []) for i in range(len(signature.results))]
        self._call = self._call_v1
        call = self.reflection.get(ABI_CALL)
        if call is not None:
            checked = self._iree_packer is not None  # else the pushers check the arrays
            self._plan = plan(
                decode_call(call),
                signature,
                marshal,
                self.module,
                checked,
                self.module.unflatten.get(self.name),
            )
            roots: tuple[Node | None, ...] = signature.results
            if signature.inlined_result:
                root = signature.results[0]
                assert isinstance(root, (Sequence, Dict))
                roots = (
                    root.items if isinstance(root, Sequence) else tuple(c for _, c in root.items)
                )
            tensors = self._plan.tensor_readers
            self._flat_readers = [marshal.flat_reader(node, tensors) for node in roots]
            self._result_count = sum(len(leaves_of(node)) for node in signature.results)
            self._call = self._call_original

    def _setup_legacy(
        self, f: str, sip: str, flat: FlatSignature, structure: SipSignature, marshal: Marshal
    ) -> None:
        _check_arguments(self.vm_function, list(flat.inputs))
        self.signature = (flat, structure)
        self._f, self._sip = f, sip
        self._pushers = [marshal.value_pusher(t, raw=True) for t in flat.inputs]
        self._readers = [marshal.value_reader(t) for t in flat.results]
        self._input_paths = _leaf_locations(structure.inputs, len(flat.inputs))
        self._result_paths = _leaf_locations(structure.results, len(flat.results))
        self._call = self._call_legacy

    @property
    def state(self) -> list[StateGlobal] | None:
        """The module state it reads or writes (`abi.state`), None when it records none."""
        return state_of(self)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return self._call(args, kwargs)

    def __repr__(self) -> str:
        return f"<abi_compiler.iree.Function @{self.name}{self.declaration}>"

    @property
    def declaration(self) -> str:
        """The signature in readable form: ``(tensor<?x4xf32>, x: i32) -> (…)`` for V1,
        the raw form for the legacy ABI, ``(…)`` without reflection."""
        if isinstance(self.signature, Signature):
            return format_declaration(self.signature)
        if isinstance(self.signature, tuple):
            return format_raw(self.signature[0])
        return "(...)"

    # -- the three conventions ---------------------------------------------------------

    def _call_v1(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        packed = pack_call(self._abi, args, kwargs, convert=self._convert)
        return unpack(
            self._abi,
            self._read(self._invoke(self._vm_arguments(packed, True), len(self._readers))),
        )

    def _call_original(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The original call (`abi.call`): the plan checks every leaf as it packs it."""
        plan = self._plan
        packed, targets, sent = plan.bind(args, kwargs)
        updates = plan.call.updates
        if len(targets) > 1:
            check_targets(targets, [plan.updated_paths[argument] for argument, _ in updates])
        if self._iree_packer is not None:  # (the plan checked the arrays)
            arguments = self._iree_packer[0].pack(self._invoke_context, packed, {})
        else:
            arguments = self._vm_arguments(packed, False)
        results = self._invoke(arguments, len(self._readers))
        flat: list[Any] = [None] * self._result_count
        done = 0
        try:
            for read in self._flat_readers:
                read(results, done, flat)
                done += 1
        except Mismatch as mismatch:
            root, path = self._result_paths[done]
            mismatch.inside(*path)
            raise mismatch.error("result", root) from None
        if updates:
            for target, (argument, written) in zip(targets, updates, strict=True):
                write_back(target, flat[written], plan.updated_paths[argument])
        return plan.rebuild(flat, sent)

    def _vm_arguments(self, packed: list[Any], check: bool) -> Any:
        """The VM argument list of packed roots; ``check``: arrays not yet checked."""
        labels = self._labels
        done = 0
        if self._iree_packer is not None:
            packer, checkers = self._iree_packer
            if check:
                try:
                    for check_root in checkers:
                        if check_root is not None:
                            packed[done] = check_root(packed[done])
                        done += 1
                except Mismatch as mismatch:
                    raise mismatch.error("argument", labels[done]) from None
            return packer.pack(self._invoke_context, packed, {})
        arguments = VmList(len(packed))
        try:
            for push, value in zip(self._pushers, packed, strict=True):
                push(arguments, value)
                done += 1
        except Mismatch as mismatch:
            raise mismatch.error("argument", labels[done]) from None
        return arguments

    def _call_legacy(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        flat = pack_legacy(self._f, self._sip, *args, convert=self._convert, **kwargs)
        arguments = VmList(len(flat))
        done = 0
        try:
            for push, value in zip(self._pushers, flat, strict=True):
                push(arguments, value)
                done += 1
        except Mismatch as mismatch:
            root, path = self._input_paths[done]
            mismatch.inside(*path)
            raise mismatch.error("argument", root) from None
        results = self._invoke(arguments, len(self._readers))
        return unpack_legacy(self._f, self._sip, self._read(results))

    def _call_flat(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if kwargs:
            name = next(iter(kwargs))
            raise AbiError(
                f"argument {name!r}: unexpected keyword argument (@{self.name} has no "
                "reflection: arguments are positional)"
            )
        arguments = VmList(len(args))
        for position, value in enumerate(args):
            try:
                self._push_any(arguments, value)
            except Mismatch as mismatch:
                raise mismatch.error("argument", position) from None
        results = self._invoke(arguments, None)
        values = []
        for index in range(len(results)):
            try:
                values.append(self._read_any(results, index))
            except Mismatch as mismatch:  # pragma: no cover - dynamic reads do not mismatch
                raise mismatch.error("result", index) from None
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def _invoke(self, arguments: Any, expected: int | None) -> Any:
        results = VmList(expected or 1)
        try:
            self._context.invoke(self.vm_function, arguments, results)
        except RuntimeError as error:  # the module's own index check (frontends.index_checks)
            failed = index_check_failure(error)
            if failed is None:
                raise
            raise AbiError(f"@{self.name}: {failed}") from None
        if expected is not None and len(results) != expected:
            raise AbiError(
                f"@{self.name}: the VM returned {plural(len(results), 'result')}, its "
                f"reflection describes {expected}"
            )
        return results

    def _read(self, results: Any) -> list[Any]:
        values: list[Any] = []
        try:
            for index, read in enumerate(self._readers):
                values.append(read(results, index))
        except Mismatch as mismatch:
            root, path = self._result_paths[len(values)]
            mismatch.inside(*path)
            raise mismatch.error("result", root) from None
        return values


def _python_signature(function: StubFunction) -> inspect.Signature:
    api = PythonApi()
    parameters = api.parameters(function)
    result = api.result(function)
    if parameters is None:
        found = [
            inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
        ]
    else:
        kinds = {
            "positional": inspect.Parameter.POSITIONAL_ONLY,
            "either": inspect.Parameter.POSITIONAL_OR_KEYWORD,
            "keyword": inspect.Parameter.KEYWORD_ONLY,
        }
        found = [
            inspect.Parameter(p.name, kinds[p.kind], annotation=p.annotation) for p in parameters
        ]
    return inspect.Signature(found, return_annotation=result)


def _check_arguments(vm_function: Any, described: list[Node | ValueType | None]) -> None:
    """An `AbiError` when the reflection describes other arguments than the VM function
    takes — another number, or a value of another VM kind (a `.vmfb` whose reflection
    is not its function's: the VM refused every call with a ValueError or RuntimeError
    of its own). The VM's kinds are read from the calling convention in the function's
    repr, ``<VmFunction f(0rIi_r), …>``, the only place IREE's Python runtime shows it;
    a variadic one (``C…D``) is not checked, nor a record whose VM kind is not known."""
    shown = repr(vm_function)
    start = shown.find("(")
    end = shown.find(")", start)
    convention = shown[start + 1 : end] if 0 <= start < end else ""
    inputs, separator, _ = convention[1:].partition("_")
    if not convention.startswith("0") or not separator or "C" in inputs:
        return
    codes = inputs.replace("v", "")
    if len(codes) != len(described):
        raise AbiError(
            f"the records describe {plural(len(described), 'argument')}, the VM function "
            f"takes {len(codes)}"
        )
    for position, (record, code) in enumerate(zip(described, codes, strict=True)):
        wanted = _vm_code(record)
        if wanted is not None and code in _VM_KINDS and code != wanted:
            raise AbiError(
                f"argument {position}: the records describe {_VM_KINDS[wanted]}, the VM "
                f"function takes {_VM_KINDS[code]}"
            )


# The VM's value kinds in a calling convention.
_VM_KINDS = {"i": "an i32", "I": "an i64", "f": "an f32", "F": "an f64", "r": "a reference"}


def _vm_code(record: Node | ValueType | None) -> str | None:
    """The calling-convention code of a record's value as the pushers send it (None: not
    known, e.g. `"unknown"`, an odd width)."""
    if isinstance(record, Leaf):
        record = record.type
    if isinstance(record, (Sequence, Dict, NDArray, ListRef)):
        return "r"
    if isinstance(record, Scalar):
        if record.kind in ("i", "si", "ui") and 1 <= record.width <= 32:
            return "i"
        if record.kind in ("i", "si", "ui") and record.width == 64:
            return "I"
        if record.kind == "f" and record.width in (32, 64):
            return "f" if record.width == 32 else "F"
    return None


def _leaf_locations(
    root: Node | None, count: int
) -> list[tuple[IndexPathComponent, list[IndexPathComponent]]]:
    """For each flat index, the root key and the rest of the SIP path of its leaf."""
    found: list[tuple[IndexPathComponent, list[IndexPathComponent]]] = [
        (index, []) for index in range(count)
    ]
    if root is None:
        return found
    for path, leaf in leaf_paths(root):
        if 0 <= leaf.index < count:
            found[leaf.index] = (path[0], list(path[1:])) if path else (0, [])
    return found


# --------------------------------------------------------------------------------------
# Modules.
# --------------------------------------------------------------------------------------


_READS_PARAMETERS = (
    "the module reads named parameters (weights kept out of the .vmfb): "
    "load it with parameters= (an .irpa path or a mapping of name to array)"
)


# The name IREE gives a module whose MLIR does not name it.
_DEFAULT_NAME = "module"


class Module:
    """A compiled module loaded on a device: ``module.<name>`` and ``module["<name>"]``
    are its exported functions (`Function`)."""

    def __init__(
        self,
        vm_module: Any,
        *,
        device: Any,
        convert: bool,
        results: ResultsMode | None,
        types: TypeSource = None,
        vmfb: bytes | None = None,
        parameters: Any = None,
    ) -> None:
        if results not in (None, "numpy", "device"):
            raise ValueError(f"results must be 'numpy' or 'device', not {results!r}")
        self.vm_module = vm_module
        self.device = device
        self.instance = _instance()
        hal_module = rt.create_hal_module(self.instance, device)
        # The index of the module's named parameters (`load`), and the host arrays it was
        # built from, when it was.
        self.parameters = parameters
        self.parameter_buffers: Mapping[str, Any] | None = None
        modules = [hal_module, vm_module]
        if parameters is not None:
            provider = parameters.create_provider(scope=PARAMETER_SCOPE)
            modules.insert(1, rt.create_io_parameters_module(self.instance, provider))
        try:
            self.context = rt.VmContext(self.instance, modules)
        except ValueError as error:
            if parameters is None and "io_parameters" in str(error):
                raise AbiError(_READS_PARAMETERS) from None
            raise _refused(error) from None
        except Exception as error:  # e.g. an executable the module names that it lacks
            raise _refused(error) from None
        #: The VM modules of its contexts (HAL, parameters, the module): a session's
        #: context is made of the same ones (calling.sessions).
        self.vm_modules = modules
        self._state = StateContext(self.context)
        self._sessions: weakref.WeakSet[Session] = weakref.WeakSet()
        #: Held while a session is made or reset and while the module closes (calling.sessions).
        self._sessions_lock = threading.Lock()
        #: None: results as the framework gives them (`abi.call`), numpy arrays otherwise.
        self.results = results
        #: The caller's own classes for rebuilt results (`load(…, types=…)`).
        self.types = types
        own_types(types)  # (a TypeError now, not at the first call)
        self._vmfb = vmfb
        #: The framework's own unflatten of a function's result, by function name (a JAX
        #: export's ``out_tree``, which `compile(exported)` gives): the result is built by
        #: it instead of from the recorded structure. Set before the function is looked up.
        self.unflatten: dict[str, Unflatten] = {}
        self._marshal = Marshal(device, convert, results or "numpy")
        self._functions: dict[str, Function] = {}
        #: The name of the file it was loaded from (`load`), for messages.
        self.file_name: str | None = None

    def new_context(self) -> Any:
        """A new VM context over this module's VM modules (`abi_compiler.calling.sessions`):
        its own state, the weights and executables shared."""
        try:
            return rt.VmContext(self.instance, self.vm_modules)
        except Exception as error:  # as the module's own context (it was created once)
            raise _refused(error) from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the `.vmfb` this module was loaded from to ``path``; a module that reads
        named parameters (the big weights of a torch program `compile` keeps beside the
        module) also writes them, as an IREE parameter archive beside it named as
        `parameter_archive` says (``model.vmfb`` → ``model.irpa``), where `load` finds
        them. Each file is written whole (to a temporary name, then renamed), so a module
        saved over the files it was loaded from stays readable."""
        if self._vmfb is None:
            raise ValueError("this module was not loaded from .vmfb bytes")
        archive = None if self.parameters is None else parameter_archive(path)
        if archive is not None and os.path.abspath(archive) == os.path.abspath(path):
            raise ValueError(
                f"cannot save to '{os.fspath(path)}': its parameters go to the path with the "
                "suffix .irpa, which is this one: name the module .vmfb"
            )
        pending: list[tuple[str, str]] = []
        try:
            if archive is not None:
                pending.append((_temporary(archive), archive))
                self.parameters.create_archive_file(pending[-1][0])
            pending.append((_temporary(path), os.fspath(path)))
            with open(pending[-1][0], "wb") as stream:
                stream.write(self._vmfb)
            for written, target in pending:
                os.replace(written, target)
        finally:
            for written, _ in pending:
                if os.path.exists(written):
                    os.unlink(written)

    @property
    def generate(self) -> Any:
        """Generate from the language model the module records (`abi.generation`),
        starting from an empty cache each time in the module's default state (a `session`
        continues a conversation): `abi_compiler.calling.sessions.generate_text` bound to
        the module — or, when the module exports a function named ``generate``, that
        function (its functions come first; `abi_compiler.generation.generate(module, …)`
        generates then). docs/calling.md, "Generating text"."""
        return generation_method(self)

    def session(self, state: Mapping[str, Any] | None = None) -> Session:
        """The module's functions with state of their own (docs/calling.md, "State and
        sessions"); the module's own functions keep its default state. ``state``: start
        from it (a `Session.state` of this module, or of another process's copy of it:
        docs/calling.md, "Moving a session") instead of the initial state."""
        return Session(self, state)

    @property
    def closed(self) -> bool:
        return self._state.context is None

    def close(self) -> None:
        """Release the default state and the sessions' (then a call is an `AbiError`)."""
        close_module(self)

    def __enter__(self) -> Module:
        return self

    def __exit__(self, *exc: object) -> None:
        close_module(self)

    @property
    def vmfb(self) -> bytes:
        """The `.vmfb` bytes this module was loaded from."""
        if self._vmfb is None:
            raise ValueError("this module was not loaded from .vmfb bytes")
        return self._vmfb

    @property
    def name(self) -> str:
        return str(self.vm_module.name)

    @property
    def described(self) -> str:
        """What messages call the module: ``module 'model.vmfb'`` (the file it was loaded
        from), ``module 'jit_f'`` (its own name), or ``the module`` (one IREE named by
        default, ``module``, as every module of MLIR text without a name is)."""
        if self.file_name is not None:
            return f"module {self.file_name!r}"
        if self.name != _DEFAULT_NAME:
            return f"module {self.name!r}"
        return "the module"

    @property
    def function_names(self) -> list[str]:
        """The functions a caller calls: the exports without those IREE's compiler adds
        for itself (`caller_visible`), which are not reachable by name either
        (``module["main$async"]`` is a `KeyError`; `vm_module` still has them)."""
        try:
            names = self.vm_module.function_names
        except RuntimeError as error:  # a name that is not UTF-8
            raise _refused(error) from None
        return [name for name in names if caller_visible(name)]

    def __getitem__(self, name: str) -> Function:
        function = self._functions.get(name)
        if function is None:
            vm_function = self.vm_module.lookup_function(name) if caller_visible(name) else None
            if vm_function is None:
                raise NoSuchFunction(
                    f"{self.described} exports no function '{name}' (its functions: "
                    f"{', '.join(self.function_names) or 'none'})"
                )
            try:
                function = Function(self, vm_function)
            except RuntimeError as error:  # a reflection entry that is not UTF-8
                if "conversion error" not in str(error):
                    raise
                raise _refused(error) from None
            self._functions[name] = function
        return function

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.function_names

    def __iter__(self) -> Iterator[str]:
        return iter(self.function_names)

    def __repr__(self) -> str:
        return f"<abi_compiler.iree.Module '{self.name}' on {self.device}>"


_instance_lock = threading.Lock()
_shared_instance: Any = None


def _instance() -> Any:
    """One VM instance for every module this process loads."""
    global _shared_instance
    with _instance_lock:
        if _shared_instance is None:
            _shared_instance = rt.VmInstance()
        return _shared_instance


def parameter_index(parameters: Any) -> Any:
    """An IREE `ParameterIndex` of ``parameters``: an IREE parameter archive (an `.irpa`
    path, mapped), or a mapping of name → array (its bytes, not copied)."""
    index = rt.ParameterIndex()
    if isinstance(parameters, (str, os.PathLike)):
        path = os.fspath(parameters)
        _check_archive(path)
        try:
            index.load(path)
        except Exception as error:  # IREE's parser: ValueError, IndexError, …
            message = " ".join(str(error).split())
            raise AbiError(f"cannot load the parameters '{path}': {message}") from None
        return index
    for name, array in host_parameters(parameters).items():
        index.add_buffer(name, array)
    return index


def _check_archive(path: str) -> None:
    """Python's own OSError for a missing file or a directory; an `AbiError` for a file
    that is not a regular one (a FIFO, a device: IREE's parser would wait on it)."""
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(mode):
        raise AbiError(f"cannot load the parameters '{path}': not a regular file")


def host_parameters(parameters: Any) -> dict[str, Any]:
    """The arrays of a mapping of parameter name → array as IREE's `ParameterIndex` takes
    them: each a C-contiguous buffer of numbers (a strided array is copied); a `TypeError`
    naming the parameter for anything else (a list, None, an object array)."""
    if not isinstance(parameters, Mapping):
        raise TypeError(
            f"expected an .irpa path or a mapping of names to arrays, got {type_name(parameters)}"
        )
    found: dict[str, Any] = {}
    for name, array in parameters.items():
        if not isinstance(name, str):
            raise TypeError(f"parameter {name!r}: expected a name (str), got {type_name(name)}")
        if getattr(getattr(array, "dtype", None), "hasobject", False):
            # (its buffer holds the addresses of Python objects)
            raise TypeError(f"parameter {name!r}: expected an array of numbers, got {array.dtype}")
        try:
            view = memoryview(array)
        except TypeError:
            raise TypeError(
                f"parameter {name!r}: expected an array (a buffer of numbers), got "
                f"{type_name(array)}"
            ) from None
        if not view.c_contiguous:
            array = np.ascontiguousarray(array)
        found[name] = array
    return found


def parameter_archive(path: str | os.PathLike[str]) -> str:
    """Where `Module.save` writes the named parameters of the module it writes to
    ``path``, and where `load` looks for them: ``path`` with its suffix replaced by
    `.irpa` (``model.vmfb`` → ``model.irpa``; ``model`` → ``model.irpa``)."""
    root, _ = os.path.splitext(os.fspath(path))
    return root + ".irpa"


def _named_archive(vm_module: Any) -> str | None:
    """The file name of the parameter archive the module names (`abi.parameters`, written
    by `abi-compile --parameters`); an `AbiError` for a name that is not a plain file
    name (a module is data: it never points elsewhere), or for a name or reflection entry
    that is not UTF-8 (as `Module` says of one)."""
    try:
        found = [
            (name, dict(vm_module.lookup_function(name).reflection).get(ABI_PARAMETERS))
            for name in vm_module.function_names
        ]
    except RuntimeError as error:  # nanobind's "conversion error" of a string
        raise _refused(error) from None
    for name, value in found:
        if value is None:
            continue
        if value in ("", ".", "..") or os.path.basename(value) != value or "/" in value:
            raise AbiError(
                f"function @{name}: malformed reflection 'abi.parameters': {value!r} is not "
                "a file name"
            )
        return str(value)
    return None


def _temporary(path: str | os.PathLike[str]) -> str:
    """A new file's name beside ``path``, for writing it whole before renaming it."""
    directory, name = os.path.split(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    os.close(descriptor)
    return temporary


def save_parameters(parameters: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``parameters`` (name → array, as `Program.parameters`) as an IREE parameter
    archive, which `load(…, parameters=path)` maps."""
    parameter_index(parameters).create_archive_file(os.fspath(path))


class NoSuchFunction(AbiError, KeyError, AttributeError):
    """A function the module does not export: an `AbiError`, and the `KeyError` of
    ``module[name]`` and `AttributeError` of ``module.name`` (``hasattr`` is False)."""

    __str__ = AbiError.__str__


def _refused(error: Exception) -> AbiError:
    """The `AbiError` of a module IREE's runtime refuses (a corrupted `.vmfb`), with its
    message on one line (`abi-sig show` says the same of the file)."""
    if isinstance(error, RuntimeError) and "conversion error" in str(error):
        return AbiError(
            "cannot read the compiled module: a function name or reflection entry in it "
            "is not valid UTF-8"
        )
    return AbiError(f"cannot load the compiled module: {' '.join(str(error).split())}")


def _parameter_bytes(parameters: str | os.PathLike[str] | Mapping[str, Any] | None) -> int:
    """The bytes of the parameters a module is loaded with (an archive's file size)."""
    if parameters is None:
        return 0
    if isinstance(parameters, (str, os.PathLike)):
        return os.path.getsize(parameters)
    return sum(memoryview(array).nbytes for array in parameters.values())


def _mapped(path: str) -> Any:
    """The file at ``path`` mapped read-only (an empty file: its empty contents, which
    cannot be mapped)."""
    with open(path, "rb") as stream:
        if os.fstat(stream.fileno()).st_size == 0:
            return b""
        return memory_map.mmap(stream.fileno(), 0, access=memory_map.ACCESS_READ)


def load(
    module: str | os.PathLike[str] | bytes | bytearray | memoryview,
    *,
    device: Any = None,
    convert: bool = False,
    results: ResultsMode | None = None,
    types: TypeSource = None,
    parameters: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    isolate: bool | None = None,
    mmap: bool = False,
) -> Module:
    """Load a compiled module (a `.vmfb` path, or its bytes) on ``device``: a HAL driver
    name or device URI (``"local-task"``, the multi-threaded local CPU; ``"local-sync"``
    runs on the calling thread; ``"cuda"``, ``"hip"``, ``"vulkan"``), or an
    `iree.runtime.HalDevice` (taken as it is, unchecked). By default (None), the best
    driver the module's targets and this machine share: a GPU's with a device here, then
    the local CPU's by the module's size (its `.vmfb` and parameters): ``local-sync`` below
    256 MiB (`placement.LOCAL_TASK_BYTES`), whose calls are too short to pay for a second
    thread, ``local-task`` from there (on two CPUs or more). A module none of whose
    targets runs on it (a GPU absent, a CPU executable for another architecture or
    needing features this CPU lacks) is an `AbiError` naming its targets, the features
    missing and the drivers present (`abi_compiler.calling.placement`; docs/calling.md,
    "Devices and targets").

    ``convert=True`` lets array arguments of another numeric dtype be converted to the
    record's (otherwise an `AbiError`). Results are numpy arrays (a torch model's are
    `torch.Tensor`s when torch can be imported); ``results="numpy"`` gives numpy arrays
    always, ``results="device"`` IREE `DeviceArray`s. A function with an original call
    (`abi.call`) rebuilds namedtuples and dataclasses as types of the recorded name and
    fields, or as the caller's own ``types`` (classes, matched by ``__name__``, or a
    mapping by recorded name). Nothing the file names is imported. ``parameters`` are the
    parameters a module reads by name (`#flow.parameter.named<"model"::"<name>">`): an IREE
    parameter archive (`.irpa` path) or a mapping of name → array (`Program.parameters`);
    without them, a module loaded from a path that reads parameters takes the archive
    beside it (`parameter_archive`: ``model.vmfb`` → ``model.irpa``, as `Module.save`
    writes it).

    ``isolate``: create the module's context in a child process first, so that a module
    whose native code crashes IREE's runtime as it loads (a corrupted file) is an
    `AbiError` here, not the end of this process (about 0.2 s). By default, for a path,
    for bytes this process did not compile (`compile_vmfb`), and for any module given a
    parameter archive (IREE's parser of a corrupted `.irpa` can crash too).

    ``mmap=True`` maps a `.vmfb` path instead of reading it (its `.irpa` is always
    mapped): processes that load the same file share its pages, so N servers on one
    machine hold one copy of the weights. The file must then not be changed in place
    while the module lives (replacing it by a rename, as `Module.save` does, is safe)."""
    if isolate is None:
        isolate = (
            isinstance(module, (str, os.PathLike))
            or isinstance(parameters, (str, os.PathLike))
            or not compiled_in_this_process(module)
        )
    mapped = None
    if isinstance(module, (str, os.PathLike)):
        if mmap:
            mapped = os.fspath(module)
            data: Any = _mapped(mapped)
        else:
            with open(module, "rb") as stream:
                data = stream.read()
    elif isinstance(module, (bytes, bytearray, memoryview)):
        data = bytes(module)
    else:
        raise TypeError(f"expected a .vmfb path or bytes, got {type_name(module)}")
    beside = None
    if parameters is None and isinstance(module, (str, os.PathLike)):
        # The archive `Module.save` wrote beside the module, when it reads one (IREE's
        # module then imports `io_parameters`; any other module ignores the file).
        beside = parameter_archive(module)
        if data.find(b"io_parameters") != -1 and os.path.isfile(beside):
            parameters = beside
    try:
        if isinstance(data, memory_map.mmap):
            vm_module = rt.VmModule.wrap_buffer(_instance(), data)
        else:
            vm_module = rt.VmModule.copy_buffer(_instance(), data)
    except Exception as error:  # IREE's verifier: ValueError, IndexError, UnicodeDecodeError…
        seems = not_a_module(data[:4096])
        if seems is not None:
            raise AbiError(
                f"cannot load the compiled module: the file is {seems}: compile it first "
                "(abi-compile FILE -o model.vmfb, or abi_compiler.iree.compile_vmfb)"
            ) from None
        raise _refused(error) from None
    if beside is not None:
        # The archive the module names (`abi-compile --parameters`), beside it.
        named = _named_archive(vm_module)
        if named is not None:
            beside = os.path.join(os.path.dirname(beside), named)
            parameters = beside if os.path.isfile(beside) else None
    if isinstance(parameters, (str, os.PathLike)):
        _check_archive(os.fspath(parameters))  # (before a child would wait on a FIFO)
    elif parameters is not None:
        parameters = host_parameters(parameters)  # (copies kept alive with the module)
    if device is None or isinstance(device, str):
        # (before its context: a module this machine cannot run never runs here)
        size = len(data) + _parameter_bytes(parameters)
        device = choose_driver(module_targets(vm_module), device, size)
    if isolate:
        archive = parameters if isinstance(parameters, (str, os.PathLike)) else None
        load_in_a_child(
            data,
            archive,
            device if isinstance(device, str) else "local-sync",
            mapped if isinstance(data, memory_map.mmap) else None,
        )
    hal_device = rt.get_device(device) if isinstance(device, str) else device
    index = None if parameters is None else parameter_index(parameters)
    try:
        loaded = Module(
            vm_module,
            device=hal_device,
            convert=convert,
            results=results,
            types=types,
            vmfb=data,
            parameters=index,
        )
    except AbiError as error:
        if beside is None or str(error) != _READS_PARAMETERS:
            raise
        raise AbiError(
            f"{error}, or keep its archive beside it as '{beside}' (Module.save writes both)"
        ) from None
    if isinstance(module, (str, os.PathLike)):
        loaded.file_name = os.path.basename(os.fspath(module))
    # The module reads its parameters from these host arrays (not copied) while it lives.
    loaded.parameter_buffers = parameters if isinstance(parameters, Mapping) else None
    return loaded
