"""State the caller owns: a loaded module's mutable globals (its state) live in an IREE
VM context; `Module` keeps its default state in its own context, and `Session` keeps
another, over the same `VmModule`, HAL module and parameter module, so sessions share the
module's code, weights and device (docs/calling.md, "State and sessions"; the choice in
docs/design.md, "Where state lives")."""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator, Mapping
from typing import Any, TypeAlias

from abi_compiler.attribute_names import ABI_STATE
from abi_compiler.calling.iree_runtime import np
from abi_compiler.calling.mismatch import describe_shaped, dims_text, keys_text, type_name
from abi_compiler.calling.vm_arrays import VmList
from abi_compiler.codecs.state_json import StateGlobal, decode_state
from abi_compiler.errors import AbiError
from abi_compiler.text.state import accessor_name

# The loaded module and its functions (`abi_compiler.calling.modules`, which imports this
# module): named loosely here, so that the two files do not import each other.
Module: TypeAlias = Any
Function: TypeAlias = Any


class StateContext:
    """The VM context a function calls in (its state), refused once closed: a
    `Function` invokes through it, so a call after the close is an `AbiError` before the
    VM (IREE would use a context whose state was released)."""

    __slots__ = ("context", "refusal")

    def __init__(self, context: Any) -> None:
        self.context: Any = context
        #: Why a call is refused once closed.
        self.refusal = ""

    def invoke(self, vm_function: Any, arguments: Any, results: Any) -> None:
        context = self.context
        if context is None:
            raise AbiError(f"@{vm_function.name}: {self.refusal}")
        context.invoke(vm_function, arguments, results)

    def close(self, refusal: str) -> None:
        self.context = None
        self.refusal = refusal


def new_context(module: Module) -> Any:
    """A new VM context over the module's VM modules (HAL, parameters, the module): its
    state initialized as the module's initializers set it; the weights (immutable
    globals, named parameters) and executables are the `VmModule`'s, the parameter
    index's and the HAL device's, not copied (docs/design.md, "Where state lives")."""
    return module.new_context()


def _bound(function: Function, state: StateContext) -> Function:
    """A copy of ``function`` that calls in ``state``: its plans and converters shared,
    its own methods (the convention's ``_call``) bound to the copy."""
    bound = copy.copy(function)
    for name, value in vars(function).items():
        if getattr(value, "__self__", None) is function:
            setattr(bound, name, getattr(bound, value.__func__.__name__))
    bound._context = state
    return bound


def state_of(function: Function) -> list[StateGlobal] | None:
    """The state a function reads or writes, from its `abi.state` (docs/formats.md);
    None without one; an `AbiError` naming the function for a malformed one."""
    text = function.reflection.get(ABI_STATE)
    if text is None:
        return None
    try:
        return decode_state(text)
    except AbiError as error:
        raise AbiError(
            f"function @{function.name}: malformed reflection '{ABI_STATE}': {error}"
        ) from None


def generate_text(target: Any, prompt: Any = None, **options: Any) -> Any:
    """Generate from the language model the module records (`abi.generation`), on
    ``target``'s cache (a `Module` or a `Session`): ``prompt`` text (a `GeneratedText`
    back) or token ids (`GeneratedTokens`), or ``messages=[{"role": …, "content": …}]``
    through the recorded chat template; ``max_new_tokens``, ``do_sample``,
    ``temperature``, ``top_k``, ``top_p``, ``seed``, ``stop``, ``stream``. Also
    `abi_compiler.generation.generate`. The loop (`abi_compiler.generation.loop`,
    imported when called) is told the module and whether ``target`` is a session of it:
    it imports nothing of this module (docs/calling.md, "Generating text")."""
    from abi_compiler.generation.loop import generate_on

    on_session = isinstance(target, Session)
    module = target.module if on_session else target
    return generate_on(target, module, on_session, prompt, **options)


def generation_method(target: Any) -> Any:
    """``target.generate``: the module's own exported function named ``generate`` when it
    has one (its functions come first: `abi_compiler.generation.generate(target, …)`
    generates then), else `generate_text` bound to ``target``."""
    if "generate" in target:
        return target["generate"]
    return types.MethodType(generate_text, target)


def module_state(module: Module) -> list[StateGlobal]:
    """The module's state: each mutable global any function's `abi.state` names, once,
    in the order the functions first name them."""
    found: dict[str, StateGlobal] = {}
    for name in module.function_names:
        for used in module[name].state or ():
            found.setdefault(used.name, used)
    return list(found.values())


def _accessor(module: Module, name: str, kind: str) -> Any:
    vm_function = module.vm_module.lookup_function(accessor_name(name, kind))
    if vm_function is None:
        raise AbiError(
            f"module '{module.name}' has no accessors of its state (global '{name}'): it was "
            "compiled before states could move, or not by abi_compiler; compile it again"
        )
    return vm_function


def read_state(module: Module, state: StateContext) -> dict[str, Any]:
    """The state held in ``state``, global by global, as host arrays (copies)."""
    found = {}
    marshal = module._marshal
    for used in module_state(module):
        results = VmList(1)
        state.invoke(_accessor(module, used.name, "get"), VmList(0), results)
        found[used.name] = np.array(marshal.read_dynamic(results, 0), copy=True)
    return found


def write_state(module: Module, state: StateContext, values: Mapping[str, Any]) -> None:
    """Store ``values`` (global name → array, as `read_state` gives them) in ``state``,
    each checked against the module's `abi.state` first: every global given, no other,
    each of its dtype and shape; an `AbiError` naming the global otherwise (nothing is
    stored then)."""
    if not isinstance(values, Mapping):
        raise AbiError(
            f"state: expected a mapping of global names to arrays, got {type_name(values)}"
        )
    globals_ = module_state(module)
    names = [used.name for used in globals_]
    if set(values) != set(names):
        raise AbiError(
            f"state: expected the globals {keys_text(names) if names else '(none)'}, got "
            f"{keys_text(list(values)) if values else '(none)'}"
        )
    arrays = [(used, _state_array(used, values[used.name])) for used in globals_]
    marshal = module._marshal
    for used, array in arrays:
        arguments = VmList(1)
        marshal.push_dynamic(arguments, array)
        state.invoke(_accessor(module, used.name, "set"), arguments, VmList(0))


def _state_array(used: StateGlobal, value: Any) -> Any:
    """``value`` as the global's array, or an `AbiError` saying what it should be."""
    wanted = f"{used.dtype}{dims_text(used.shape or ())}"
    if used.dtype is None or used.shape is None:
        raise AbiError(f"state {used.name!r}: a global of type {used.type} cannot be restored")
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is None or dtype is None or getattr(dtype, "hasobject", False):
        raise AbiError(f"state {used.name!r}: expected {wanted}, got {type_name(value)}")
    if (
        dtype.name != used.dtype
        or len(shape) != len(used.shape)
        or any(
            want is not None and want != got for want, got in zip(used.shape, shape, strict=True)
        )
    ):
        raise AbiError(
            f"state {used.name!r}: expected {wanted}, got {describe_shaped(value, tuple(shape))}"
        )
    return np.asarray(value, order="C")  # (0-d stays 0-d)


def close_module(module: Module) -> None:
    """Release a module's default state and its sessions' states (`Module.close`): under
    the module's lock, so that a session made at the same time is either closed here or
    refused (never an open session of a closed module)."""
    refusal = f"{module.described} is closed"
    with module._sessions_lock:
        module._state.close(refusal)
        for session in list(module._sessions):
            session._state.close(refusal)
        module._sessions.clear()
        module.context = None


class Session:
    """A loaded module's functions with their own state (`Module.session`):
    ``session.<name>`` and ``session["<name>"]`` call as the module's functions do (the
    same marshalling and original call) in the session's context; `reset` starts the
    state over, `close` releases it. A session keeps its module alive; closing the
    module closes its sessions. The module holds its sessions weakly: one nobody refers
    to is freed with its state."""

    def __init__(self, module: Module, state: Mapping[str, Any] | None = None) -> None:
        self.module = module
        self._functions: dict[str, Function] = {}
        with module._sessions_lock:  # (`close_module`)
            if module.closed:
                raise AbiError(module._state.refusal)
            self._state = StateContext(new_context(module))
            module._sessions.add(self)
        if state is not None:
            try:
                write_state(module, self._state, state)
            except BaseException:
                self.close()
                raise

    @property
    def closed(self) -> bool:
        return self._state.context is None

    @property
    def context(self) -> Any:
        """The session's current VM context (None once closed; another after `reset`)."""
        return self._state.context

    @property
    def generate(self) -> Any:
        """`Module.generate` on the session's cache, continuing its conversation: what
        its cache holds is not fed again (`abi_compiler.generation`; docs/calling.md,
        "Generating text"); the module's own function when it exports one named
        ``generate``."""
        return generation_method(self)

    def _check_open(self) -> None:
        if self._state.context is None:
            raise AbiError(self._state.refusal)

    def reset(self) -> None:
        """Start the state over: a new context, initialized as the module's was."""
        with self.module._sessions_lock:  # (not reopened by a reset racing a close)
            self._check_open()
            self._state.context = new_context(self.module)

    def state(self) -> dict[str, Any]:
        """The session's state now: each mutable global its module's functions use
        (`abi.state`) by name, as a host array of its own (numpy), which
        ``module.session(state=…)`` restores — in this process or in another that loaded
        the same module (docs/calling.md, "Moving a session")."""
        self._check_open()
        return read_state(self.module, self._state)

    def close(self) -> None:
        """Release the session's state; a call after this is an `AbiError`."""
        with self.module._sessions_lock:  # (not reopened by a reset racing it)
            self._state.close(f"this session of {self.module.described} is closed")
            self.module._sessions.discard(self)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def function_names(self) -> list[str]:
        return self.module.function_names

    def __getitem__(self, name: str) -> Function:
        self._check_open()
        function = self._functions.get(name)
        if function is None:
            function = _bound(self.module[name], self._state)
            self._functions[name] = function
        return function

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]  # (`NoSuchFunction`, as ``module.<name>``: an AttributeError too)

    def __contains__(self, name: object) -> bool:
        return name in self.module

    def __iter__(self) -> Iterator[str]:
        return iter(self.function_names)

    def __repr__(self) -> str:
        shown = " (closed)" if self.closed else ""
        return f"<abi_compiler.iree.Session of '{self.module.name}'{shown}>"
