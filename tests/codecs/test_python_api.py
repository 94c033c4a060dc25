"""The stub writer (`abi-sig stub`, `abi_compiler.codecs.python_api`) on names and file
names from anyone: every stub is valid Python that defines exactly the names it means to.
Python reads identifiers NFKC-normalized (``ｃａｓｔ`` is ``cast``, ``ｓｅｌｆ`` is
``self``), and a file name goes into docstrings (``m\"\"\"x.vmfb`` would end one)."""

from __future__ import annotations

import ast
import unicodedata
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from abi_compiler.call_model import Array, Constant, Container, OriginalCall
from abi_compiler.codecs.python_api import PythonApi, StubFunction, StubGeneration, is_identifier
from abi_compiler.model import Argument, Leaf, NDArray, Scalar, Signature

# What the stub binds besides its classes.
IMPORTED = {
    "annotations",
    "dataclasses",
    "os",
    "KeysView",
    "Any",
    "Literal",
    "NamedTuple",
    "Protocol",
    "TypedDict",
    "cast",
    "numpy",
}
TRICKY = [
    "self",
    "ｓｅｌｆ",
    "cast",
    "ｃａｓｔ",
    "Ｃａｓｔ",
    "load",
    "ｌｏａｄ",
    "TYPES",
    "numpy",
    "float",
    "annotations",
    "__all__",
    "class",
    "None",
    "x",
    "𝐱",  # MATHEMATICAL BOLD SMALL X: x
    "ﬁeld",  # the ligature fi: field
    "ª",  # FEMININE ORDINAL INDICATOR: a
    "a-b",
    "",
    '"""',
    "m\"\"\"\nx = 1\n'''",
    "\\",
    "\ud800",  # a lone surrogate (JSON's "\ud800")
]
NAMES = st.one_of(
    st.sampled_from(TRICKY),
    st.text(st.sampled_from('abxｘｓ𝐱ﬁª_1 ."\\\n'), min_size=1, max_size=6),
)
F32 = Array(0, "float32", (2,))


@st.composite
def calls(draw: Any) -> OriginalCall:
    """An original call whose labels, keywords, record names, fields and dict keys are
    drawn names."""
    fields = draw(st.lists(NAMES, min_size=1, max_size=3))
    kind = draw(st.sampled_from(["namedtuple", "dataclass", "model_output", "dict"]))
    record = Container(
        kind,
        tuple(F32 for _ in fields),
        tuple(fields),
        None if kind == "dict" else draw(NAMES),
        draw(st.lists(st.tuples(NAMES, st.just(Constant(2, "int"))), max_size=2))
        if kind == "dataclass"
        else (),
    )
    positional = draw(st.lists(st.sampled_from([F32, record]), max_size=3))
    labels = draw(st.lists(st.one_of(st.none(), NAMES), min_size=len(positional)))
    keywords = draw(st.dictionaries(NAMES, st.sampled_from([F32, record]), max_size=2))
    return OriginalCall(
        tuple(positional),
        tuple(keywords.items()),
        draw(st.sampled_from([F32, record])),
        labels=tuple(labels[: len(positional)]),
    )


@st.composite
def records(draw: Any) -> Signature:
    leaf = Leaf(NDArray(Scalar("f", 32), (2,)), 0)
    names = draw(st.lists(st.one_of(st.none(), NAMES), max_size=3))
    named = [name for name in names if name is not None]
    if len(set(named)) != len(named):
        names = [None] * len(names)
    arguments = tuple(Argument(key, leaf, name) for key, name in enumerate(names))
    return Signature(arguments, (leaf,))


@st.composite
def functions(draw: Any) -> list[StubFunction]:
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    found = []
    for name in names:
        if draw(st.booleans()):
            found.append(StubFunction(name, draw(calls()), None))
        else:
            found.append(StubFunction(name, None, draw(st.one_of(st.none(), records()))))
    return found


def bound(body: list[ast.stmt]) -> list[str]:
    """The names statements bind, in order (a name bound twice, twice)."""
    found: list[str] = []
    for statement in body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            found += [(alias.asname or alias.name).split(".")[0] for alias in statement.names]
        elif isinstance(statement, (ast.ClassDef, ast.FunctionDef)):
            found.append(statement.name)
        elif isinstance(statement, ast.Assign):
            found += [t.id for t in statement.targets if isinstance(t, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            found.append(statement.target.id)
    return found


# What a stub of a module with a generation job binds besides (`generate`'s annotations).
GENERATION_IMPORTED = {"Mapping", "Sequence", "TYPE_CHECKING", "overload"}
GENERATIONS = st.one_of(st.none(), st.builds(StubGeneration, st.booleans(), st.booleans()))


@settings(max_examples=200, deadline=None)
@given(functions(), NAMES.map(lambda name: name + ".vmfb"), st.booleans(), GENERATIONS)
def test_every_stub_is_python_that_defines_what_it_means_to(
    stubbed: list[StubFunction], source: str, default: bool, generation: StubGeneration | None
) -> None:
    text = PythonApi().stub(stubbed, source, "1.0", source if default else None, generation)
    generates = generation is not None and all(f.name != "generate" for f in stubbed)
    compile(text, "stub.py", "exec")  # (a SyntaxError: names bound twice as parameters too)
    text.encode("utf-8")  # what `abi-sig stub -o` writes
    tree = ast.parse(text)
    assert ast.get_docstring(tree, clean=False) == (
        f"Typed API of the compiled module {source!r}.\n\nWritten by `abi-sig stub` "
        "(abi-compiler 1.0); write it anew when the\nmodule changes. `load()` loads the "
        "module with `abi_compiler.iree.load`: every\nfunction takes and returns what the "
        "model's framework did, with numpy arrays\nfor arrays and this module's classes "
        "for the recorded namedtuples and\ndataclasses."
    )
    names = bound(tree.body)
    exported = next(
        statement.value
        for statement in tree.body
        if isinstance(statement, ast.Assign) and bound([statement]) == ["__all__"]
    )
    assert isinstance(exported, ast.List)
    classes = [ast.literal_eval(item) for item in exported.elts]
    # (`import numpy` and `import numpy.typing` both bind numpy)
    imported = [*IMPORTED, *(GENERATION_IMPORTED if generates else ())]
    assert sorted(names) == sorted([*imported, "numpy", "__all__", "TYPES", *classes])
    # Every name is written in the form Python reads it in.
    for node in ast.walk(tree):
        for name in _identifiers(node):
            assert unicodedata.normalize("NFKC", name) == name, name
    # (`__all__`: the record classes, then CompiledModule, CompiledSession and load)
    protocol = next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == classes[-3])
    assert ast.get_docstring(protocol, clean=False) == f"The functions of {source!r}."
    own = ("session", "close", "reset", "closed", "function_names", "__enter__", "__exit__")
    methods = [s.name for s in protocol.body if isinstance(s, ast.FunctionDef)]
    assert [m for m in methods if m not in own] == [
        f.name for f in stubbed if is_identifier(f.name) and f.name not in own
    ] + ["generate"] * (0 if not generates else 4 if generation and generation.text else 3)
    for function in stubbed:
        if not is_identifier(function.name):
            assert f"    # {function.name!r}: call it as module[{function.name!r}]" in text
    for method in protocol.body:
        if (
            isinstance(method, ast.FunctionDef)
            and method.name not in own
            and method.name in {f.name for f in stubbed}
        ):
            _check_keywords(method, next(f for f in stubbed if f.name == method.name))


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    return []


def _check_keywords(method: ast.FunctionDef, function: StubFunction) -> None:
    """A method's keyword-only parameters are the function's keywords, as they are (a
    caller passes them by name); where one cannot be written, the method takes
    ``(*args, **kwargs)``."""
    if function.call is not None:
        keywords = [name for name, _ in function.call.keywords]
    elif function.signature is not None:
        keywords = [a.name for a in function.signature.arguments if a.name is not None]
    else:
        keywords = []
    written = [a.arg for a in method.args.kwonlyargs]
    if method.args.vararg is not None:
        assert method.args.kwarg is not None and not written
    else:
        assert written == keywords


def test_a_file_name_that_ends_a_docstring() -> None:
    source = 'm"""\nimport os; os.remove("x")\n"""x.vmfb'
    text = PythonApi().stub([], source, "1.0", source)
    tree = ast.parse(text)
    assert ast.get_docstring(tree, clean=False).startswith(  # type: ignore[union-attr]
        f"Typed API of the compiled module {source!r}."
    )
    assert not any(isinstance(s, ast.Expr) and s is not tree.body[0] for s in tree.body)


def test_names_python_reads_as_others() -> None:
    """A record class ``ｃａｓｔ`` is given a name that does not rebind ``cast``; a
    parameter ``ｓｅｌｆ`` is not a second ``self``; a function ``ｃａｓｔ`` (which
    ``module.ｃａｓｔ`` cannot reach: Python looks up ``cast``) is a comment."""
    record = Container("namedtuple", (F32,), ("x",), "ｃａｓｔ")
    call = OriginalCall((record, F32), (), record, labels=("ｓｅｌｆ", "𝐱"))
    text = PythonApi().stub(
        [StubFunction("main", call, None), StubFunction("ｍａｉｎ", call, None)], "m.vmfb", "1"
    )
    compile(text, "stub.py", "exec")
    assert "class cast_2(NamedTuple):" in text
    assert "'ｃａｓｔ': cast_2," in text  # (`load` builds the recorded name as it)
    assert "    def main(self, arg0: cast_2, arg1: numpy.typing.ArrayLike, /)" in text
    assert "    # 'ｍａｉｎ': call it as module['ｍａｉｎ'](…) (not a Python name)" in text
