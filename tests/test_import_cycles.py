"""No import cycles in the package, counting the imports inside functions: a cycle hidden
behind a deferred import is still two modules that cannot be understood one without the
other. Imports for type checking only (``if TYPE_CHECKING:``) never run and do not count."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "fracas"


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every import that runs, at any depth."""
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def dependencies(module: str) -> set[str]:
    """The package's modules ``module`` imports when it runs."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    targets: set[str] = set()
    for imported, names in _imports(tree):
        if not imported.startswith("fracas"):
            continue
        for name in names or [""]:
            submodule = f"{imported}.{name}"
            targets.add(submodule if submodule in MODULES else imported)
    return {target for target in targets if target in MODULES and target != module}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return groups


def package_graph() -> dict[str, set[str]]:
    # A package's __init__ re-exports its modules lazily (module __getattr__); its imports of
    # them are the package's own business, not a dependency of the modules it names.
    return {module: dependencies(module) for module in MODULES}


def test_no_module_imports_itself_back() -> None:
    assert cycles(package_graph()) == []


def test_the_finder_sees_a_cycle_behind_an_import_inside_a_function() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    source = "def late():\n    from fracas.core import dice\n"
    assert _imports(ast.parse(source)) == [("fracas.core", ["dice"])]
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import fracas.cli\n"
    assert [name for name, _ in _imports(ast.parse(guarded))] == ["typing"]
