"""What the project uses of xDSL (0.74) although xDSL does not promise it: private names,
internal attributes, methods it replaces. All of it is in the hook modules of
`abi_compiler/xdsl_boundary/` (`HOOK_MODULES`): `xdsl_compat.py` (public names for the
internals the project reads), the fixes of each kind (`defects.py`, `mlir_compat.py`,
`speedups.py`) and `xdsl_fixes.py`, which puts them together for a run; every other module
uses xDSL's public names only (`test_no_private_xdsl_name_outside_the_hook_modules`).

Each name the hook modules uses is listed here with the parameters it relies on
(`FUNCTIONS`, `ATTRIBUTES`), and the list is kept in sync with the module
(`test_the_lists_name_what_the_hook_module_uses`). An xDSL upgrade that renames or
reshapes one fails here, by name, instead of silently falling back to xDSL's own
behaviour (an exponential string regex, a lost float bit pattern, an unlocated
diagnostic).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import io
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
)
from xdsl.ir import Block
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils import arg_spec
from xdsl.utils.mlir_lexer import MLIRLexer, StringLiteral

ROOT = Path(__file__).resolve().parents[2]
HOOK_MODULES = (
    "abi_compiler/xdsl_boundary/xdsl_compat.py",
    "abi_compiler/xdsl_boundary/defects.py",
    "abi_compiler/xdsl_boundary/mlir_compat.py",
    "abi_compiler/xdsl_boundary/speedups.py",
    "abi_compiler/xdsl_boundary/xdsl_fixes.py",
)

# (owner, name, parameters) of the functions the hook modules calls, overrides or
# replaces; what for is in the comment.
FUNCTIONS: list[tuple[Any, str, list[str]]] = [
    # HookedParser: the driver's parsers locate ops, name unknown ones, record block
    # arguments, skip a cached type's text
    (Parser, "_get_op_by_name", ["self", "name"]),
    (Parser, "_register_ssa_definition", ["self", "name", "values", "span"]),
    (Parser, "_resume_from", ["self", "pos"]),
    # HookedParser: a location alias used before its definition (`loc(#loc3)`)
    (AttrParser, "_parse_location", ["self"]),
    # public methods the driver's parsers override (type_cache, locations)
    (Parser, "parse_operation", ["self"]),
    (Parser, "resolve_operand", ["self", "operand", "type"]),
    (Parser, "parse_optional_type", ["self"]),
    # string literals, float bits, splats, resources
    (MLIRLexer, "_lex_string_literal", ["self", "start_pos"]),
    # whitespace and comments skipped by the scanner (`lexer.skip_blank`)
    (MLIRLexer, "_consume_whitespace", ["self"]),
    (AttrParser, "_parse_builtin_densearray_attr", ["self"]),
    (AttrParser, "_parse_dialect_resource_handle", ["self", "dialect_name", "interface"]),
    (Parser, "_parse_external_resources", ["self"]),
    (AttrParser, "_parse_tensor_literal", ["self"]),
    (AttrParser, "_parse_dense_literal_type", ["self"]),
    (AttrParser, "_parse_attribute_type", ["self"]),
    (AttrParser, "_consume_token", ["self", "expected_kind"]),
    (AttrParser, "parse_dense_int_or_fp_elements_attr", ["self", "type"]),
    (AttrParser, "parse_optional_builtin_int_or_float_attr", ["self"]),
    (Printer, "print_float", ["self", "value", "type"]),
    (Printer, "print_bytes_literal", ["self", "bytestring"]),
    (DenseArrayBase, "print_builtin", ["self", "printer"]),
    (DenseIntOrFPElementsAttr, "__len__", ["self"]),
    (DenseIntOrFPElementsAttr, "is_splat", ["self"]),
    (DenseIntOrFPElementsAttr, "get_values", ["self"]),
    (DenseIntOrFPElementsAttr, "iter_values", ["self"]),
    (DenseIntOrFPElementsAttr, "get_attrs", ["self"]),
    (DenseIntOrFPElementsAttr, "iter_attrs", ["self"]),
    (DenseIntOrFPElementsAttr, "print_without_type", ["self", "printer"]),
    # symbol lookups skip unregistered ops; symbol_cache answers from a dictionary
    (SymbolTable, "lookup_symbol", ["op", "name"]),
    # HookedPrinter: the driver's printer
    (Printer, "_print_new_line", ["self", "indent", "print_message"]),
    # pass options
    (arg_spec, "_convert_arg_to_type", ["value", "dest_type"]),
    (arg_spec.ArgSpec, "_spec_parameter_type_str", ["arg"]),
]

# (owner, name) of the other attributes the hook modules reads or replaces; their kind
# is checked by `test_hooked_attributes_exist`.
ATTRIBUTES: list[tuple[Any, str]] = [
    (MLIRLexer, "_unescaped_characters_regex"),
    (StringLiteral, "bytes_contents"),
    (OpAsmDialectInterface, "_blob_storage"),
    (Parser, "_current_token"),
    (Parser, "_parser_state"),
    (Printer, "_blocks"),
    (Printer, "_ssa_values"),
    (Block, "_args"),
    (AttrParser, "_builtin_float_types"),
    (AttrParser, "_builtin_integer_type_regex"),
]


@pytest.mark.parametrize(
    ("owner", "name", "parameters"),
    FUNCTIONS,
    ids=[f"{getattr(o, '__name__', o)}.{n}" for o, n, _ in FUNCTIONS],
)
def test_hooked_function_exists_with_its_parameters(
    owner: Any, name: str, parameters: list[str]
) -> None:
    function = getattr(owner, name, None)
    assert function is not None, f"xDSL no longer has {name}"
    assert list(inspect.signature(function).parameters) == parameters


def test_hooked_attributes_exist() -> None:
    assert hasattr(MLIRLexer, "_unescaped_characters_regex")
    assert isinstance(StringLiteral.__dict__.get("bytes_contents"), property)
    # The elements `_parse_tensor_literal` returns.
    element = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]
    assert {f.name for f in dataclasses.fields(element)} >= {"is_negative", "value", "span"}
    assert "_blob_storage" in OpAsmDialectInterface.__annotations__
    # The builtin number types by name (text_to_ir/type_reader.py).
    floats = AttrParser._builtin_float_types  # pyright: ignore[reportPrivateUsage]
    assert floats["f32"] == Float32Type() and floats["bf16"] == BFloat16Type()
    integer = AttrParser._builtin_integer_type_regex  # pyright: ignore[reportPrivateUsage]
    assert integer.match("si32").group(1) == "32" and integer.match("x32") is None
    parser = Parser(Context(), "", "<test>")
    for name in ("_parser_state", "_current_token", "forward_ssa_references", "ssa_values"):
        assert hasattr(parser, name), name
    assert hasattr(parser._parser_state, "dialect_stack")  # pyright: ignore[reportPrivateUsage]
    assert hasattr(parser._parser_state, "current_token")  # pyright: ignore[reportPrivateUsage]
    printer = Printer(stream=io.StringIO())
    assert isinstance(printer._blocks, dict)  # pyright: ignore[reportPrivateUsage]
    assert isinstance(printer._ssa_values, dict)  # pyright: ignore[reportPrivateUsage]
    assert isinstance(Block()._args, tuple)  # pyright: ignore[reportPrivateUsage]


# -- Private names of xDSL, found in the source ------------------------------------------
#
# A use of xDSL beyond its public names is one of:
#
# * importing a `_name` from xDSL (`from xdsl.utils.arg_spec import _convert_arg_to_type`);
# * `X._name` where `X` is bound to something imported from xDSL (a module, a class);
# * `self._name`, `cls._name`, `super()._name`, or defining `_name`, in a class deriving
#   from an xDSL class that has `_name` (its methods, class attributes, dataclass fields
#   and the attributes its own source assigns to `self`);
# * `obj._name` on any other object, where `_name` is a private name of an xDSL class or
#   module the module imports (with their bases), and the module does not define
#   `_name` itself;
# * assigning an attribute of something imported from xDSL, or `setattr` on it (a
#   replaced method: the project's changes to xDSL are all `install`ed in one place).


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_xdsl(obj: Any) -> bool:
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", "")
    return isinstance(module, str) and (module == "xdsl" or module.startswith("xdsl."))


@functools.cache
def _self_assigned(cls: type) -> frozenset[str]:
    """The private attributes the source of ``cls`` assigns to `self`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return frozenset()
    return frozenset(
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and _is_private(node.attr)
    )


@functools.cache
def _class_private_names(cls: type) -> frozenset[str]:
    """Private names the xDSL classes among ``cls`` and its bases define."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if _is_xdsl(klass):
            names.update(n for n in vars(klass) if _is_private(n))
            names.update(n for n in vars(klass).get("__annotations__", {}) if _is_private(n))
            names.update(_self_assigned(klass))
    return frozenset(names)


def _private_names(obj: Any) -> frozenset[str]:
    """Private names of an xDSL object: of a class and its bases; of a module, its own
    and those of the classes it defines."""
    if isinstance(obj, type):
        return _class_private_names(obj)
    if isinstance(obj, types.ModuleType):
        names = {n for n in vars(obj) if _is_private(n)}
        for value in vars(obj).values():
            if isinstance(value, type) and value.__module__ == obj.__name__:
                names |= _class_private_names(value)
        return frozenset(names)
    if _is_xdsl(type(obj)):  # an instance (`i64`)
        return _class_private_names(type(obj))
    return frozenset()


def _imported(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except AttributeError:
        return importlib.import_module(f"{module}.{name}")


def _xdsl_bindings(tree: ast.AST) -> dict[str, Any]:
    """Name -> object, for every name the source binds to an import from xDSL."""
    bound: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and _is_xdsl_name(node.module):
            for alias in node.names:
                bound[alias.asname or alias.name] = _imported(node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_xdsl_name(alias.name):
                    if alias.asname is None:
                        bound[alias.name.split(".")[0]] = importlib.import_module("xdsl")
                    else:
                        bound[alias.asname] = importlib.import_module(alias.name)
    return bound


def _is_xdsl_name(module: str) -> bool:
    return module == "xdsl" or module.startswith("xdsl.")


def _own_names(tree: ast.AST) -> set[str]:
    """Private names the source defines itself: functions, classes, class attributes,
    attributes assigned to `self`, module-level names."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            names.add(node.attr)
    return {name for name in names if _is_private(name)}


def _root(node: ast.expr, *, through_calls: bool = True) -> ast.expr:
    """The name an attribute chain starts from (`a` of `a.b(c)[0].d`; of `a.b.d` only
    when not ``through_calls``)."""
    while isinstance(node, ast.Attribute) or (
        through_calls and isinstance(node, ast.Subscript | ast.Call)
    ):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names a function binds itself (parameters, assignments), which hide the module's."""
    arguments = function.args
    names = {
        a.arg
        for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    }
    body = function.body if isinstance(function.body, list) else [function.body]
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


@dataclasses.dataclass
class PrivateUse:
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.how} {self.name}"


class _Finder(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.bound = _xdsl_bindings(tree)
        self.hidden: list[set[str]] = []
        own = _own_names(tree)
        reachable: set[str] = set()
        for obj in self.bound.values():
            reachable |= _private_names(obj)
        reachable |= {name for _, name, _ in FUNCTIONS if _is_private(name)}
        reachable |= {name for _, name in ATTRIBUTES if _is_private(name)}
        self.anywhere = frozenset(reachable - own)
        # Private xDSL names of the classes being visited (innermost last).
        self.classes: list[frozenset[str] | None] = []
        self.found: list[PrivateUse] = []

    def _report(self, node: ast.AST, name: str, how: str) -> None:
        self.found.append(PrivateUse(getattr(node, "lineno", 0), name, how))

    def _xdsl_root(self, node: ast.expr, *, through_calls: bool = True) -> bool:
        root = _root(node, through_calls=through_calls)
        return (
            isinstance(root, ast.Name)
            and root.id in self.bound
            and not any(root.id in hidden for hidden in self.hidden)
        )

    def _class_names(self) -> frozenset[str]:
        """Private xDSL names of the enclosing class (all reachable ones when its bases
        cannot be resolved)."""
        names = self.classes[-1] if self.classes else None
        return self.anywhere if names is None else names

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and _is_xdsl_name(node.module):
            for part in node.module.split("."):
                if _is_private(part):
                    self._report(node, node.module, "imports from the private module")
            for alias in node.names:
                if _is_private(alias.name):
                    self._report(node, f"{node.module}.{alias.name}", "imports")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if _is_xdsl_name(alias.name) and any(_is_private(p) for p in alias.name.split(".")):
                self._report(node, alias.name, "imports the private module")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        names: set[str] | None = set()
        for base in node.bases:
            try:
                value = eval(ast.unparse(base), self.namespace)
            except Exception:
                names = None
                break
            if isinstance(value, type):
                names |= _class_private_names(value)
        self.classes.append(None if names is None else frozenset(names))
        class_names = self._class_names() if self.classes[-1] is not None else frozenset()
        for statement in node.body:
            defined: list[str] = []
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                defined = [statement.name]
            elif isinstance(statement, ast.Assign):
                defined = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                defined = [statement.target.id]
            for name in defined:
                if name in class_names:
                    self._report(statement, name, "overrides xDSL's")
        self.generic_visit(node)
        self.classes.pop()

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.hidden.append(_local_names(node))
        # A function's own class context: methods keep it, nested functions too.
        self.generic_visit(node)
        self.hidden.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function
    visit_Lambda = _visit_function

    def visit_Attribute(self, node: ast.Attribute) -> None:
        receiver = node.value
        if isinstance(node.ctx, ast.Store | ast.Del) and self._xdsl_root(
            receiver, through_calls=False
        ):
            self._report(node, node.attr, "replaces xDSL's")
        elif _is_private(node.attr):
            if self._xdsl_root(receiver):
                self._report(node, node.attr, "uses xDSL's")
            elif self.classes and (
                (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"))
                or (
                    isinstance(receiver, ast.Call)
                    and isinstance(receiver.func, ast.Name)
                    and receiver.func.id == "super"
                )
            ):
                if node.attr in self._class_names():
                    self._report(node, node.attr, "uses xDSL's")
            elif node.attr in self.anywhere:
                self._report(node, node.attr, "uses xDSL's")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Name) and function.id in ("getattr", "setattr", "delattr"):
            if (
                node.args
                and function.id != "getattr"
                and self._xdsl_root(node.args[0], through_calls=False)
            ):
                self._report(node, function.id, "replaces an attribute of xDSL with")
            name = node.args[1] if len(node.args) > 1 else None
            if (
                isinstance(name, ast.Constant)
                and isinstance(name.value, str)
                and _is_private(name.value)
                and (self._xdsl_root(node.args[0]) or name.value in self.anywhere)
            ):
                self._report(node, name.value, "uses xDSL's")
        self.generic_visit(node)


def private_xdsl_uses(source: str, namespace: dict[str, Any]) -> list[PrivateUse]:
    """Every use of xDSL beyond its public names in ``source``, a module whose globals
    are ``namespace`` (to resolve the bases of its classes)."""
    tree = ast.parse(source)
    finder = _Finder(tree, namespace)
    finder.visit(tree)
    return finder.found


def _module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    if parts[0] != "abi_compiler":
        parts.insert(0, "abi_compiler")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


SOURCES = sorted(
    path.relative_to(ROOT).as_posix()
    for folder in ("abi_compiler", "dialects", "passes")
    for path in (ROOT / folder).rglob("*.py")
)


def _uses(path: str) -> list[PrivateUse]:
    try:
        namespace = vars(importlib.import_module(_module_name(path)))
    except ImportError:  # an optional dependency: class bases are not resolved
        namespace = {}
    return private_xdsl_uses((ROOT / path).read_text(), namespace)


@pytest.mark.parametrize("path", [p for p in SOURCES if p not in HOOK_MODULES])
def test_no_private_xdsl_name_outside_the_hook_modules(path: str) -> None:
    uses = _uses(path)
    assert not uses, f"{path} uses xDSL beyond its public names (move it to {HOOK_MODULES}): " + (
        "; ".join(map(str, uses))
    )


def _listed() -> Iterator[str]:
    yield from (name for _, name, _ in FUNCTIONS)
    yield from (name for _, name in ATTRIBUTES)


def test_the_lists_name_what_the_hook_module_uses() -> None:
    used = {use.name.rpartition(".")[2] for path in HOOK_MODULES for use in _uses(path)}
    used.discard("setattr")  # of `DenseIntOrFPElementsAttr`'s methods, listed one by one
    listed = set(_listed())
    assert used - listed == set(), "used by the hook modules but not listed here"
    private_listed = {name for name in listed if _is_private(name)}
    assert private_listed - used == set(), "listed here but not used by the hook modules"


# Each way of reaching into xDSL, and what must not be mistaken for one.
SNIPPETS = {
    "from xdsl.utils.arg_spec import _convert_arg_to_type": ["_convert_arg_to_type"],
    "from xdsl.utils import arg_spec\narg_spec.ArgSpec._spec_parameter_type_str(1)": [
        "_spec_parameter_type_str"
    ],
    "from xdsl.ir import Block\ndef f(block: Block) -> None:\n    block._args = ()": ["_args"],
    # (Inside functions: the snippets are executed, and must not patch xDSL for real.)
    "from xdsl.traits import SymbolTable\ndef f():\n    SymbolTable.lookup_symbol = print": [
        "lookup_symbol"
    ],
    "from xdsl.printer import Printer\ndef f():\n    setattr(Printer, 'print_float', print)": [
        "setattr"
    ],
    (
        "from xdsl.parser import Parser\n"
        "class P(Parser):\n"
        "    def _get_op_by_name(self, name):\n"
        "        return super()._get_op_by_name(name)\n"
        "    def at(self):\n"
        "        return self._current_token, self._table\n"
        "    def __init__(self):\n"
        "        self._table = {}\n"
    ): ["_get_op_by_name", "_get_op_by_name", "_current_token"],
    (
        "from xdsl.parser import Parser\n"
        "def at(parser: Parser):\n"
        "    return parser._resume_from(0), getattr(parser, '_parser_state')\n"
    ): ["_resume_from", "_parser_state"],
    # Not uses: the module's own private names, on its own classes and on others.
    (
        "from xdsl.printer import Printer\n"
        "class Own:\n"
        "    def __init__(self):\n"
        "        self._blocks = []\n"
        "class Mine(Printer):\n"
        "    _renames = None\n"
        "    def renames(self):\n"
        "        return self._renames, Own()._blocks\n"
    ): [],
    # A local name that hides an imported module is not that module.
    ("from xdsl.dialects import func\ndef f(func):\n    func.sym_visibility = None\n"): [],
}


@pytest.mark.parametrize(("source", "expected"), SNIPPETS.items())
def test_the_check_finds_each_kind_of_use(source: str, expected: list[str]) -> None:
    namespace: dict[str, Any] = {}
    patched = (SymbolTable.lookup_symbol, Printer.print_float)
    exec(compile(source, "<snippet>", "exec"), namespace)
    assert (SymbolTable.lookup_symbol, Printer.print_float) == patched, "a snippet patched xDSL"
    assert [use.name.rpartition(".")[2] for use in private_xdsl_uses(source, namespace)] == (
        expected
    )
