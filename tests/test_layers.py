"""Which parts of the project may import which (docs/design.md, "Layers").

From the bottom up: the core (`errors`, `identity`, `model`, `dtypes`, `attribute_names`,
`codecs`, `text`, `calling.mismatch`, `calling.leaf_values`, `calling.marshal`,
`calling.dims`) imports no xDSL; `xdsl_boundary`
(what the project does with xDSL beyond its public API), `ir` (what passes and the
pipeline share about IR objects) and the dialects build on xDSL; passes use those; `text_to_ir` (carried text and
the IR) sits below `pipeline` (a run of passes over text) and the frontends; `signatures`
and `calling` use the pipeline; `generation` (the generation loop of a loaded language model) uses `calling`;
`serve` (a compiled module behind HTTP) uses `calling`'s public API and `generation`;
the command lines (`commands`) sit on top. No layer
imports one above it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Source folder -> its package name once installed.
FOLDERS = {
    ROOT / "abi_compiler": "abi_compiler",
    ROOT / "dialects": "abi_compiler.dialects",
    ROOT / "passes": "abi_compiler.passes",
}


def _module_name(path: Path) -> str:
    for folder, package in FOLDERS.items():
        if path.is_relative_to(folder):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join((package, *parts))
    raise AssertionError(path)


MODULES = sorted((_module_name(path), path) for folder in FOLDERS for path in folder.rglob("*.py"))

#: Packages, lowest layer first; a module may import its own layer and the ones before it.
#: A module belongs to the longest package named here that holds it (`abi_compiler.text` is
#: the core; `abi_compiler.text_to_ir`, which builds IR from it, a layer of its own).
LAYERS: list[tuple[str, ...]] = [
    (
        "abi_compiler.errors",
        "abi_compiler.child",
        "abi_compiler.identity",
        "abi_compiler.model",
        "abi_compiler.call_model",
        "abi_compiler.dtypes",
        "abi_compiler.attribute_names",
        "abi_compiler.versions",
        "abi_compiler.progress",
        "abi_compiler.codecs",
        "abi_compiler.devices",
        "abi_compiler.text",
        "abi_compiler.calling.mismatch",
        "abi_compiler.calling.leaf_values",
        "abi_compiler.calling.marshal",
        "abi_compiler.calling.dims",
        "abi_compiler.runtime",
        "abi_compiler.calling.original_call",
    ),
    ("abi_compiler.xdsl_boundary", "abi_compiler.ir", "abi_compiler.dialects"),
    ("abi_compiler.passes",),
    ("abi_compiler.text_to_ir",),
    ("abi_compiler.pipeline", "abi_compiler.frontends"),
    ("abi_compiler.signatures", "abi_compiler.calling", "abi_compiler.iree"),
    ("abi_compiler.generation",),
    ("abi_compiler.serve",),
    ("abi_compiler.commands",),
]

#: The one way down the layers go up: a loaded module's and a session's `generate` (the
#: methods a user calls) hand the call to the generation package above them, imported
#: when called (docs/design.md, "Layers").
DELEGATIONS = {
    ("abi_compiler.calling.sessions", "abi_compiler.generation"),
}


def _layer(module: str) -> int | None:
    found = [
        (len(p), index)
        for index, packages in enumerate(LAYERS)
        for p in packages
        if module == p or module.startswith(p + ".")
    ]
    return max(found)[1] if found else None


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports (at any depth: lazy imports count too)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def _private_uses(path: Path) -> list[str]:
    """The private names (``_name``, not dunders) ``path`` takes from another module of the
    project: ``from abi_compiler.x import _name``, and ``x._name`` where ``x`` is a module
    of the project it imported."""
    tree = ast.parse(path.read_text(), str(path))
    modules: set[str] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            if node.module.split(".")[0] != "abi_compiler":
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{node.module}.{alias.name}")
                elif f"{node.module}.{alias.name}" in PROJECT_MODULES:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in PROJECT_MODULES and alias.asname:
                    modules.add(alias.asname)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _is_private(node.attr)
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


PROJECT_MODULES = {m for m, _ in MODULES}


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_no_private_name_of_another_module(module: str, path: Path) -> None:
    """What modules share is public (docs/design.md, "Modules"); a ``_name`` stays in the
    module that defines it."""
    assert _private_uses(path) == []


def test_private_uses_are_found(tmp_path: Path) -> None:
    source = tmp_path / "example.py"
    source.write_text(
        "from abi_compiler.calling.vm import Marshal, _hidden\n"
        "from abi_compiler.calling import vm\n"
        "import abi_compiler.calling.marshal as marshal\n"
        "vm._other, marshal.__doc__, marshal._plans\n"
    )
    assert _private_uses(source) == [
        "abi_compiler.calling.vm._hidden",
        "vm._other",
        "marshal._plans",
    ]


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_only_lower_layers(module: str, path: Path) -> None:
    own = _layer(module)
    if own is None:
        return
    for imported in _imports(path):
        layer = _layer(imported)
        if any(
            module == m and (imported == g or imported.startswith(g + ".")) for m, g in DELEGATIONS
        ):
            continue
        if layer is not None:
            assert layer <= own, f"{module} (layer {own}) imports {imported} (layer {layer})"


def test_passes_do_not_load_the_pipeline() -> None:
    passes = sorted(m for m, _ in MODULES if m.startswith("abi_compiler.passes."))
    code = (
        f"import sys, {', '.join(passes)}; "
        "print(sorted(m for m in sys.modules if m.startswith(('abi_compiler.pipeline', "
        "'abi_compiler.commands'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, text=True)
    assert ast.literal_eval(done.stdout) == []


@pytest.mark.parametrize(
    "module",
    [
        "abi_compiler.dtypes",
        "abi_compiler.attribute_names",
        "abi_compiler.runtime",
        "abi_compiler.signatures.module_signatures",
    ],
)
def test_facts_load_no_framework(module: str) -> None:
    """The homes of the element type table and of the attribute names are imported by the
    runtime side too: neither they nor the runtime side load xDSL, numpy or IREE."""
    code = (
        f"import sys, {module}; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'xdsl', 'numpy', 'iree'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, text=True)
    assert ast.literal_eval(done.stdout) == []


def _import_graph() -> dict[str, set[str]]:
    """Each module of the project → the modules of the project it imports by name (lazy
    imports count too; ``from package import module`` names the module, not the
    package)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES:
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
                named = {f"{node.module}.{alias.name}" for alias in node.names}
                modules = named & PROJECT_MODULES
                found |= modules or {node.module}
                if modules != named:  # (names the package itself defines, too)
                    found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        graph[module] = (found & PROJECT_MODULES) - {module}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_circles() -> None:
    """No module imports, through others, a module that imports it: each can be read and
    changed from the bottom up. (The generation loop takes a target and is told whether it
    is a session; it imports nothing of `calling.sessions`, which hands it the call.)"""
    assert _circles(_import_graph()) == []


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _circles(graph) == [["a", "b", "c"]]
