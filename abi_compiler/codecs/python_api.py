"""A compiled module's functions as Python sees them: the parameters and annotations of
each function (`inspect.Signature` of a loaded function) and a typed stub module for the
whole module (`abi-sig stub`), both read from the original call (`abi.call`) where the
function has one, else from its `iree.abi` records (docs/calling.md, "Signatures and
typed stubs").

Pure: no xDSL, no numpy, no IREE; the text it writes imports numpy and
`abi_compiler.iree` when it is used, not when it is written.

What the annotations say:

* an array is ``numpy.typing.NDArray[numpy.<dtype>]`` (``NDArray[Any]`` for a dtype numpy
  has no class for, as ``bfloat16``); a 0-d argument also takes a Python number;
* a string-keyed dict is a `TypedDict` (the functional form when a key is not an
  identifier), another dict ``dict[K, V]``; tuples and lists are ``tuple[…]`` and
  ``list[…]``; `None` leaves are ``None``; a specialized constant is a ``Literal``;
* a namedtuple is a ``typing.NamedTuple`` class and a dataclass (or another registered
  node with fields) a frozen ``dataclasses.dataclass`` of the recorded name, which the
  stub's ``load`` passes as ``types=`` so that results are instances of them; a class
  whose name or fields are not Python identifiers (or are keywords) is ``Any``;
* results are typed as numpy arrays: the stub's ``load`` asks for ``results="numpy"``;
* a module that records a generation job (`StubGeneration`) has ``generate`` on the
  module and on its sessions, typed as `abi_compiler.generation` returns: a
  ``GeneratedText`` for text, ``GeneratedTokens`` for token ids, a ``GenerationStream``
  with ``stream=True``.
"""

from __future__ import annotations

import builtins
import keyword
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from abi_compiler.call_model import (
    Array,
    CallNode,
    Constant,
    Container,
    NoneLeaf,
    OriginalCall,
    Unused,
)
from abi_compiler.model import (
    Dict,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Signature,
    ValueType,
)
from abi_compiler.model import Sequence as SequenceNode

__all__ = ["Parameter", "PythonApi", "StubFunction", "StubGeneration", "is_identifier"]

Side = Literal["argument", "result"]

# numpy's scalar classes by the dtype names `abi.call` records (docs/formats.md).
_NUMPY = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    }
)
# The records' element types (`iree.abi`, docs/formats.md) as numpy dtypes.
_RECORD_DTYPES = {
    ("i", 1): "bool",
    ("i", 8): "int8",
    ("i", 16): "int16",
    ("i", 32): "int32",
    ("i", 64): "int64",
    ("si", 8): "int8",
    ("si", 16): "int16",
    ("si", 32): "int32",
    ("si", 64): "int64",
    ("ui", 8): "uint8",
    ("ui", 16): "uint16",
    ("ui", 32): "uint32",
    ("ui", 64): "uint64",
    ("f", 16): "float16",
    ("f", 32): "float32",
    ("f", 64): "float64",
}
# The longest line a method is written on before its parameters get a line each.
_WIDTH = 99
_PYTHON_NUMBER = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


def is_identifier(name: object) -> bool:
    """Whether ``name`` can be a Python attribute, parameter or class name written as it
    is: an identifier, not a keyword, and in the form Python reads it in (NFKC: Python
    reads ``ｃａｓｔ`` as ``cast``, so a stub that wrote it would name another thing)."""
    return (
        isinstance(name, str)
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and unicodedata.normalize("NFKC", name) == name
    )


@dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter of a function: ``kind`` positional-only, positional-or-keyword
    (``"either"``: a torch program's `forward(self, x)`) or keyword-only."""

    name: str
    kind: Literal["positional", "either", "keyword"]
    annotation: str


@dataclass(frozen=True, slots=True)
class StubFunction:
    """A function of a module as the stub writer reads it: its original call, else its
    records (None: neither; its parameters are then unknown)."""

    name: str
    call: OriginalCall | None
    signature: Signature | None


@dataclass(frozen=True, slots=True)
class StubGeneration:
    """A module's recorded generation job (`abi.generation`) as the stub types its
    ``generate``: ``text``, whether it records a tokenizer (a `str` prompt); ``chat``,
    whether it records a chat template (``messages``)."""

    text: bool
    chat: bool


@dataclass
class _Class:
    """A class the annotations name: its Python name, recorded name and definition."""

    name: str
    recorded: str | None
    lines: list[str]


@dataclass
class PythonApi:
    """Annotations for the functions of one module, with the classes they name (shared
    by every function: one class per recorded name and fields)."""

    classes: list[_Class] = field(default_factory=list)
    _by_key: dict[tuple[object, ...], str] = field(default_factory=dict)
    _taken: set[str] = field(default_factory=set)

    # -- parameters --------------------------------------------------------------------

    def parameters(self, function: StubFunction) -> list[Parameter] | None:
        """The function's parameters (None: unknown, ``(*args, **kwargs)``)."""
        stem = _camel(function.name)
        if function.call is not None:
            call = function.call
            labels = call.labels or (None,) * len(call.positional)
            found = []
            for position, (label, node) in enumerate(zip(labels, call.positional, strict=True)):
                name = _parameter_name(label, position)
                annotation = self.annotation(node, "argument", _camel(name), top=True)
                kind: Literal["positional", "either"] = "either" if call.by_name else "positional"
                found.append(Parameter(name, kind, annotation))
            found += [
                Parameter(
                    name, "keyword", self.annotation(node, "argument", _camel(name), top=True)
                )
                for name, node in call.keywords
            ]
            return _unique(found)
        if function.signature is None:
            return None
        found = []
        for argument in function.signature.arguments:
            hint = _camel(argument.name) if argument.name else f"{stem}Arg{argument.key}"
            annotation = self.record_annotation(argument.node, "argument", hint, top=True)
            if argument.name is None:
                found.append(Parameter(f"arg{argument.key}", "positional", annotation))
            else:
                found.append(Parameter(argument.name, "keyword", annotation))
        return _unique(found)

    def result(self, function: StubFunction) -> str:
        """The annotation of the function's result."""
        stem = _camel(function.name) + "Result"
        if function.call is not None:
            return self.annotation(function.call.result, "result", stem, top=True)
        if function.signature is None:
            return "Any"
        results = function.signature.results
        if not results:
            return "None"
        if len(results) == 1:
            return self.record_annotation(results[0], "result", stem)
        items = [
            self.record_annotation(node, "result", f"{stem}{i}") for i, node in enumerate(results)
        ]
        return f"tuple[{', '.join(items)}]"

    # -- original calls ----------------------------------------------------------------

    def annotation(self, node: CallNode, side: Side, hint: str, top: bool = False) -> str:
        """The annotation of one node of an original call (``top``: a parameter's own,
        where a 0-d array argument also takes a Python number)."""
        if isinstance(node, (Array, Unused)):
            return _ARGUMENT if side == "argument" else _array(node.dtype, False)
        if isinstance(node, NoneLeaf):
            return "None"
        if isinstance(node, Constant):
            if node.text is None and isinstance(node.value, (bool, int, str)):
                return f"Literal[{node.value!r}]"
            if node.text is None and isinstance(node.value, float):
                return "float"
            return "Any"
        # A recorded class is one class for arguments and results (its instances are
        # what results are rebuilt as): its fields are annotated as results are.
        inner: Side = side if node.kind in ("tuple", "list", "dict") else "result"
        children = [
            self.annotation(child, inner, _nested_hint(hint, key))
            for child, key in zip(
                node.children, node.keys or range(len(node.children)), strict=True
            )
        ]
        return self._container(node, children, hint)

    def _container(self, node: Container, children: list[str], hint: str) -> str:
        if node.kind == "tuple":
            return f"tuple[{', '.join(children)}]" if children else "tuple[()]"
        if node.kind == "list":
            return f"list[{_union(children)}]"
        if node.kind == "dict":
            if node.keys and all(isinstance(key, str) for key in node.keys):
                keys = [str(key) for key in node.keys]
                return self._typed_dict(hint, keys, children)
            key_types = _union(sorted({type(key).__name__ for key in node.keys})) or "Any"
            return f"dict[{key_types}, {_union(children)}]"
        fields = [str(key) for key in node.keys]
        # (the class's own name is free: `load` finds it by its recorded name)
        name = unicodedata.normalize("NFKC", (node.name or "Record").rsplit(".", 1)[-1])
        if not fields:  # a registered node with children by position
            return f"tuple[{', '.join(children)}]" if children else "tuple[()]"
        if not is_identifier(name) or not all(is_identifier(f) for f in fields):
            return "Any"
        if len(set(fields)) != len(fields) or any(f.startswith("_") for f in fields):
            return "Any"
        return self._record_class(node, name, fields, children)

    def _record_class(
        self, node: Container, name: str, fields: list[str], children: list[str]
    ) -> str:
        # A dataclass's recorded static fields are fields of its class too (`load` gives
        # them to the class with the values of the call).
        static = [(f, self.annotation(value, "result", name)) for f, value in node.static]
        if any(not is_identifier(f) or f.startswith("_") for f, _ in static):
            return "Any"
        key = ("class", node.kind, node.name, tuple(fields), tuple(children), tuple(static))
        found = self._by_key.get(key)
        if found is not None:
            return found
        python = self._fresh(name)
        self._by_key[key] = python
        recorded: str | None = node.name
        if node.kind == "namedtuple":
            lines = [f"class {python}(NamedTuple):"]
        elif node.kind == "model_output":
            # The rebuilt transformers ModelOutput (docs/calling.md) as its interface:
            # `load` keeps its own class, which holds every field as an attribute.
            recorded = None
            lines = [f"class {python}(Protocol):"]
        else:
            lines = ["@dataclasses.dataclass(frozen=True)", f"class {python}:"]
        lines += [f"    {f}: {child}" for f, child in zip(fields, children, strict=True)]
        lines += [f"    {f}: {annotation}" for f, annotation in static]
        if node.kind == "model_output":
            lines += [
                "",
                "    def __getitem__(self, key: str | int | slice, /) -> Any: ...",
                "    def keys(self) -> KeysView[str]: ...",
                "    def to_tuple(self) -> tuple[Any, ...]: ...",
            ]
        self.classes.append(_Class(python, recorded, lines))
        return python

    def _typed_dict(self, hint: str, keys: list[str], children: list[str]) -> str:
        key = ("dict", tuple(keys), tuple(children))
        found = self._by_key.get(key)
        if found is not None:
            return found
        python = self._fresh(hint)
        self._by_key[key] = python
        if all(is_identifier(k) for k in keys):
            lines = [f"class {python}(TypedDict):"]
            lines += [f"    {k}: {child}" for k, child in zip(keys, children, strict=True)]
        else:
            items = ", ".join(f"{k!r}: {child}" for k, child in zip(keys, children, strict=True))
            lines = [f"{python} = TypedDict({python!r}, {{{items}}})"]
        self.classes.append(_Class(python, None, lines))
        return python

    def _fresh(self, name: str) -> str:
        candidate, count = name, 1
        while candidate in self._taken or candidate in _RESERVED:
            count += 1
            candidate = f"{name}_{count}"
        self._taken.add(candidate)
        return candidate

    # -- records -----------------------------------------------------------------------

    def record_annotation(self, node: Node | None, side: Side, hint: str, top: bool = False) -> str:
        """The annotation of one node of a function's records."""
        if node is None:
            return "None"
        if isinstance(node, Leaf):
            if side == "argument" and isinstance(node.type, NDArray):
                return _ARGUMENT
            return _record_type(node.type, top and side == "argument")
        if isinstance(node, SequenceNode):
            items = [
                self.record_annotation(item, side, _nested_hint(hint, i))
                for i, item in enumerate(node.items)
            ]
            if node.kind == "list":
                return f"list[{_union(items)}]"
            return f"tuple[{', '.join(items)}]" if items else "tuple[()]"
        assert isinstance(node, Dict)
        keys = [key for key, _ in node.items]
        children = [
            self.record_annotation(child, side, _nested_hint(hint, key))
            for key, child in node.items
        ]
        return self._typed_dict(hint, keys, children) if keys else "dict[str, Any]"

    # -- the stub ----------------------------------------------------------------------

    def stub(
        self,
        functions: Sequence[StubFunction],
        source: str,
        version: str,
        default_path: str | None = None,
        generation: StubGeneration | None = None,
    ) -> str:
        """A typed Python module for the module read from ``source``; its ``load`` takes
        ``default_path`` when no path is given (None: a path must be given); with
        ``generation`` (the module records a job), ``generate`` on the module and its
        sessions, unless a function of the module is named ``generate`` (its functions
        come first, as at run time)."""
        methods: list[list[str]] = []
        for function in functions:
            parameters = self.parameters(function)
            result = self.result(function)
            methods.append(_method(function.name, parameters, result))
        if generation is not None and all(f.name != "generate" for f in functions):
            methods.append(_generate_method(generation))
        else:
            generation = None
        protocol = self._fresh("CompiledModule")
        session = self._fresh("CompiledSession")
        types = [c for c in self.classes if c.recorded is not None]
        lines = [
            f'"""{_docstring(f"Typed API of the compiled module {source!r}.")}',
            "",
            f"Written by `abi-sig stub` (abi-compiler {version}); write it anew when the",
            "module changes. `load()` loads the module with `abi_compiler.iree.load`: every",
            "function takes and returns what the model's framework did, with numpy arrays",
            "for arrays and this module's classes for the recorded namedtuples and",
            'dataclasses."""',
            "",
            "from __future__ import annotations",
            "",
            "import dataclasses",
            "import os",
            *(
                [
                    "from collections.abc import KeysView",
                    "from typing import Any, Literal, NamedTuple, Protocol, TypedDict, cast",
                ]
                if generation is None
                else [
                    "from collections.abc import KeysView, Mapping, Sequence",
                    "from typing import (",
                    "    TYPE_CHECKING,",
                    *(
                        f"    {name},"
                        for name in ("Any", "Literal", "NamedTuple", "Protocol", "TypedDict")
                    ),
                    "    cast,",
                    "    overload,",
                    ")",
                ]
            ),
            "",
            "import numpy",
            "import numpy.typing",
            "",
            *(
                []
                if generation is None
                else [
                    "if TYPE_CHECKING:",
                    "    from abi_compiler.generation import (",
                    "        GeneratedText,",
                    "        GeneratedTokens,",
                    "        GenerationStream,",
                    "    )",
                    "",
                ]
            ),
            "__all__ = "
            + _list_literal([*(c.name for c in self.classes), protocol, session, "load"]),
            "",
        ]
        for cls in self.classes:
            lines += ["", *cls.lines, ""]
        lines += ["", f"class {session}(Protocol):"]
        lines += [
            '    """'
            + _docstring(f"The functions of {source!r} with state of their own (`session()`).")
            + '"""',
            "",
        ]
        for method in methods:
            lines += [*method, ""]
        lines += [
            "    def reset(self) -> None: ...",
            "",
            "    def close(self) -> None: ...",
            "",
            f"    def __enter__(self) -> {session}: ...",
            "",
            "    def __exit__(self, *exc: object) -> None: ...",
            "",
            "",
            f"class {protocol}(Protocol):",
            f'    """{_docstring(f"The functions of {source!r}.")}"""',
            "",
        ]
        for method in methods:
            lines += [*method, ""]
        lines += [
            f"    def session(self) -> {session}: ...",
            "",
            "    def close(self) -> None: ...",
            "",
            f"    def __enter__(self) -> {protocol}: ...",
            "",
            "    def __exit__(self, *exc: object) -> None: ...",
            "",
        ]
        lines += [
            "",
            "# The recorded class names and the classes above that results are built as.",
            "TYPES: dict[str, type] = {",
            *(f"    {c.recorded!r}: {c.name}," for c in types),
            "}",
            "",
            "",
            *(
                [
                    f"def load(path: str | os.PathLike[str], **options: Any) -> {protocol}:",
                    '    """Load the module (`abi_compiler.iree.load`; its options are taken '
                    "as they",
                    '    are, with ``types=TYPES`` and ``results="numpy"`` unless given)."""',
                ]
                if default_path is None
                else [
                    "def load(path: str | os.PathLike[str] | None = None, **options: Any) -> "
                    f"{protocol}:",
                    '    """Load the module (`abi_compiler.iree.load`), by default the one this '
                    "stub",
                    "    was written from, found beside this file; its options are taken as "
                    "they are,",
                    '    with ``types=TYPES`` and ``results="numpy"`` unless given)."""',
                ]
            ),
            "    from abi_compiler import iree",
            "",
            *(
                []
                if default_path is None
                else [
                    "    if path is None:",
                    "        here = os.path.dirname(os.path.abspath(__file__))",
                    f"        path = os.path.join(here, {default_path!r})",
                ]
            ),
            "    options.setdefault('types', TYPES)",
            "    options.setdefault('results', 'numpy')",
            f"    return cast({protocol!r}, iree.load(path, **options))",
            "",
        ]
        return _tidy(lines)


# The names the stub binds besides its classes (its imports, ``TYPES``, ``load``), and
# the builtins its annotations name: a class is never given one of them.
_RESERVED = frozenset(
    {
        "__all__",
        "annotations",  # (`from __future__ import annotations` binds it)
        "Any",
        "KeysView",
        "Literal",
        "NamedTuple",
        "Protocol",
        "TypedDict",
        "TYPES",
        "cast",
        # (those of a module with a generation job)
        "GeneratedText",
        "GeneratedTokens",
        "GenerationStream",
        "Mapping",
        "Sequence",
        "TYPE_CHECKING",
        "overload",
        "dataclasses",
        "load",
        "numpy",
        "os",
        *dir(builtins),
    }
)


def _docstring(text: str) -> str:
    """``text`` as the contents of a triple-quoted string whose value is ``text``: a
    backslash and a quote escaped (a file named ``m\"\"\"x.vmfb`` would end it)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


# What a loaded module and its sessions have of their own: a function of one of these
# names is reached as module["…"] only.
_OWN_MEMBERS = frozenset({"session", "close", "reset", "closed", "function_names"})


def _method(name: str, parameters: list[Parameter] | None, result: str) -> list[str]:
    python = name if is_identifier(name) else None
    head = "    def " + (python or "__getitem__")
    if name in _OWN_MEMBERS:
        return [f"    # {name!r}: call it as module[{name!r}](…) (the module's own {name!r})"]
    if python is None:
        # A name Python cannot spell (`predict.v2`): reached as module["…"], which the
        # Protocol cannot type per name; a comment keeps it visible.
        return [f"    # {name!r}: call it as module[{name!r}](…) (not a Python name)"]
    if parameters is None:
        return [f"{head}(self, *args: Any, **kwargs: Any) -> {result}: ..."]
    parts = ["self"]
    positional = [p for p in parameters if p.kind == "positional"]
    either = [p for p in parameters if p.kind == "either"]
    keywords = [p for p in parameters if p.kind == "keyword"]
    parts += [f"{p.name}: {p.annotation}" for p in positional]
    if positional:
        parts.append("/")
    parts += [f"{p.name}: {p.annotation}" for p in either]
    if keywords:
        parts.append("*")
        parts += [f"{p.name}: {p.annotation}" for p in keywords]
    line = f"{head}({', '.join(parts)}) -> {result}: ..."
    if len(line) <= _WIDTH:
        return [line]
    return [f"{head}(", *(f"        {part}," for part in parts), f"    ) -> {result}: ..."]


def _generate_method(generation: StubGeneration) -> list[str]:
    """``generate`` as `abi_compiler.generation.generate` takes it (docs/calling.md,
    "Generating text"), one overload per result: text (a `str` prompt or messages, when
    the module records a tokenizer), token ids, a stream, and a ``stream`` not known
    until run time."""
    settings = [
        "max_new_tokens: int | None = None",
        "do_sample: bool | None = None",
        "temperature: float | None = None",
        "top_k: int | None = None",
        "top_p: float | None = None",
        "seed: int | None = None",
    ]
    messages = ["messages: Sequence[Mapping[str, Any]] | None = None"] if generation.chat else []
    ids = "Sequence[int] | numpy.typing.NDArray[numpy.integer[Any]]"
    overloads: list[tuple[list[str], str]] = []
    if generation.text:
        text_prompt = "prompt: str | None = None" if generation.chat else "prompt: str"
        stop = "stop: str | Sequence[str] = ()"
        overloads.append(
            (
                [text_prompt, "*", *messages, *settings, stop, "stream: Literal[False] = False"],
                "GeneratedText",
            )
        )
    overloads.append(
        (
            [
                f"prompt: {ids}",
                "*",
                *settings,
                "stop: int | Sequence[int] = ()",
                "stream: Literal[False] = False",
            ],
            "GeneratedTokens",
        )
    )
    prompt = f"prompt: str | {ids} | None = None" if generation.text else f"prompt: {ids}"
    stop = "stop: str | int | Sequence[str] | Sequence[int] = ()"
    if not generation.text:
        stop = "stop: int | Sequence[int] = ()"
    either = [prompt, "*", *messages, *settings, stop]
    overloads.append(([*either, "stream: Literal[True]"], "GenerationStream"))
    results = "GeneratedText | GeneratedTokens" if generation.text else "GeneratedTokens"
    overloads.append(([*either, "stream: bool = False"], f"{results} | GenerationStream"))
    lines: list[str] = []
    for parameters, result in overloads:
        lines += ["    @overload", "    def generate(", "        self,"]
        lines += [f"        {parameter}," for parameter in parameters]
        lines.append(f"    ) -> {result}: ...")
    return lines


# An array argument: whatever the call converts to an array (numpy arrays and scalars,
# nested lists of numbers, Python numbers, torch tensors, IREE device arrays: numpy's
# `ArrayLike`, which takes any object with `__array__`); the call checks its dtype and dims.
_ARGUMENT = "numpy.typing.ArrayLike"


def _array(dtype: str | None, scalar: bool) -> str:
    if dtype in _NUMPY:
        spelled = "numpy.bool_" if dtype == "bool" else f"numpy.{dtype}"
        array = f"numpy.typing.NDArray[{spelled}]"
    else:
        array = "numpy.typing.NDArray[Any]"
    if scalar and dtype is not None:
        number = _PYTHON_NUMBER.get(_kind(dtype))
        if number is not None:
            return f"{array} | {number}"
    return array


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "b"
    if dtype.startswith("uint"):
        return "u"
    if dtype.startswith("int"):
        return "i"
    if dtype.startswith(("float", "bfloat")):
        return "f"
    if dtype.startswith("complex"):
        return "c"
    return ""


def _record_type(t: ValueType | None, number: bool) -> str:
    if isinstance(t, NDArray) and isinstance(t.element, Scalar):
        dtype = _RECORD_DTYPES.get((t.element.kind, t.element.width))
        return _array(dtype, number and t.dims == ())
    if isinstance(t, Scalar):
        if (t.kind, t.width) == ("i", 1):
            return "bool"
        return "float" if t.kind in ("f", "bf") else "int"
    if isinstance(t, ListRef):
        return "list[Any]"
    return "Any"


def _union(items: Iterable[str]) -> str:
    unique = list(dict.fromkeys(items))
    return " | ".join(unique) if unique else "Any"


def _camel(name: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in name).split()
    text = unicodedata.normalize("NFKC", "".join(word[:1].upper() + word[1:] for word in words))
    if not text or not text.isidentifier():
        return "X" + text if (("X" + text).isidentifier()) else "X"
    return text


def _nested_hint(hint: str, key: object) -> str:
    """The class name a nested dict is given: its key's, or its parent's and position."""
    return _camel(key) if isinstance(key, str) else f"{hint}{key}"


def _parameter_name(label: str | None, position: int) -> str:
    return label if label is not None and is_identifier(label) else f"arg{position}"


def _unique(parameters: list[Parameter]) -> list[Parameter] | None:
    """Parameters whose names are distinct: a positional one whose name is taken takes
    ``<name>_<n>`` (a caller never spells it); a keyword one is called by its name, so
    one that cannot be written as it is (not an identifier, not in the form Python reads
    it in, ``self``) makes the parameters unknown (``(*args, **kwargs)``)."""
    keywords = {p.name for p in parameters if p.kind == "keyword"}
    if "self" in keywords or not all(is_identifier(name) for name in keywords):
        return None
    seen: set[str] = {"self", *keywords}
    found: list[Parameter] = []
    for parameter in parameters:
        name, count = parameter.name, 1
        while parameter.kind == "positional" and name in seen:
            count += 1
            name = f"{parameter.name}_{count}"
        seen.add(name)
        found.append(Parameter(name, parameter.kind, parameter.annotation))
    return found


def _list_literal(names: Iterable[str]) -> str:
    return "[" + ", ".join(repr(name) for name in names) + "]"


def _tidy(lines: list[str]) -> str:
    """The lines as a file: no run of more than two blank lines, one final newline."""
    out: list[str] = []
    blanks = 0
    for line in lines:
        blanks = blanks + 1 if not line else 0
        if blanks <= 2:
            out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"
