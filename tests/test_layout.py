"""The layout of the code (README *Layout*): read from the source, not imported.

- no import cycles among the modules, function-level imports included;
- no private name (``_x``) taken from another module;
- a subpackage of ``search`` is used from outside only through its ``__init__``;
- the subpackages depend one way: infra <- game <- visit <- firstedition, sweep <- tours,
  and ``advisor`` -> ``search``, never back;
- no module is over 600 lines, but the compiled kernels, which say why in their docstring.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("search", "advisor")
MAX_LINES = 600

# what each subpackage of search may import (besides itself)
LAYERS = {
    "infra": set(),
    "game": {"infra"},
    "visit": {"infra", "game"},
    "firstedition": {"infra", "game", "visit"},
    "sweep": {"infra", "game", "visit"},
    "tours": {"infra", "game", "visit", "firstedition"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


SOURCES = _sources()


def _is_package(name: str) -> bool:
    return SOURCES[name].name == "__init__.py"


def _imports(name: str) -> list[tuple[str, str | None, int]]:
    """Every import in module ``name``: (imported module, imported name or None, line)."""
    tree = ast.parse(SOURCES[name].read_text())
    package = name if _is_package(name) else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                if submodule in SOURCES:  # ``from . import kernel``: the module itself
                    found.append((submodule, None, node.lineno))
                else:
                    found.append((module, alias.name, node.lineno))
    return [item for item in found if item[0].split(".")[0] in PACKAGES]


def _subpackage(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "search" and len(parts) > 1 else None


def _graph() -> dict[str, set[str]]:
    """Module -> modules it imports; importing a submodule first imports its packages."""
    graph: dict[str, set[str]] = {name: set() for name in SOURCES}
    for name in SOURCES:
        for module, _, _ in _imports(name):
            if module not in SOURCES:
                continue
            graph[name].add(module)
            parts = module.split(".")
            for k in range(1, len(parts)):
                parent = ".".join(parts[:k])
                if parent in SOURCES and not name.startswith(parent + "."):
                    graph[name].add(parent)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in graph[node]:
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_import_cycles():
    """No module reaches itself through imports, at module or function level."""
    assert _cycles(_graph()) == []


def test_cycle_finder_finds_a_cycle():
    """The check above can fail: a two-module loop is found."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


def test_no_private_names_across_modules():
    """A name starting with ``_`` stays in the module that defines it."""
    offences = []
    for name in SOURCES:
        for module, imported, line in _imports(name):
            if imported is not None and imported.startswith("_") and not imported.startswith("__"):
                offences.append(f"{name}:{line} imports {module}.{imported}")
        tree = ast.parse(SOURCES[name].read_text())
        modules = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if f"{_package_of(name, node)}.{alias.name}" in SOURCES
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                offences.append(f"{name}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert offences == []


def _package_of(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name if _is_package(name) else name.rpartition(".")[0]
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def test_subpackages_are_used_through_their_api():
    """Outside a subpackage of ``search``, only its ``__init__`` is imported."""
    offences = []
    for name in SOURCES:
        for module, _, line in _imports(name):
            target = _subpackage(module)
            if target and module != f"search.{target}" and _subpackage(name) != target:
                offences.append(f"{name}:{line} imports {module}")
    assert offences == []


def test_layers_depend_one_way():
    """search's subpackages import only the layers below them; search never imports advisor."""
    offences = []
    for name in SOURCES:
        mine = _subpackage(name)
        for module, _, line in _imports(name):
            if name.startswith("search") and module.startswith("advisor"):
                offences.append(f"{name}:{line} imports {module}")
            theirs = _subpackage(module)
            if mine and theirs and theirs != mine and theirs not in LAYERS[mine]:
                offences.append(f"{name}:{line} ({mine}) imports {module} ({theirs})")
    assert set(LAYERS) == {_subpackage(n) for n in SOURCES if _subpackage(n)}
    assert offences == []


def test_modules_are_short():
    """No module is over 600 lines, but a kernel whose docstring says why it is one piece."""
    long = []
    for name, path in SOURCES.items():
        lines = len(path.read_text().splitlines())
        docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
        if lines > MAX_LINES and "one piece" not in docstring:
            long.append(f"{name}: {lines} lines")
    assert long == []
