"""The layers depend one way: core ← rulesets ← analysis ← io / cli. Nothing imports cli."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "fracas"

# What each layer must never import.
FORBIDDEN = {
    "core": ("fracas.rulesets", "fracas.analysis", "fracas.io", "fracas.cli", "fracas.web"),
    "rulesets": ("fracas.analysis", "fracas.io", "fracas.cli", "fracas.web"),
    "analysis": ("fracas.io", "fracas.cli", "fracas.web"),
    "io": ("fracas.cli", "fracas.web"),
}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def violations() -> list[str]:
    found = []
    for layer, forbidden in FORBIDDEN.items():
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for name in imported_modules(path):
                if name.startswith(forbidden):
                    found.append(f"{path.relative_to(PACKAGE)} imports {name}")
    for path in sorted(PACKAGE.rglob("*.py")):
        inside_cli = path.parent.name == "cli" or path.name == "__main__.py"
        for name in imported_modules(path):
            if name.startswith("fracas.cli") and not inside_cli:
                found.append(f"{path.relative_to(PACKAGE)} imports {name}")
    return found


def test_layers_import_downwards_only() -> None:
    assert violations() == []


def test_core_names_no_ruleset() -> None:
    names = {"hex", "d100", "rankflank"}
    for path in (PACKAGE / "core").rglob("*.py"):
        for module in imported_modules(path):
            assert not names & set(module.split(".")), f"{path} imports {module}"


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("from fracas.cli import app\nimport fracas.io.render\n")
    assert imported_modules(sample) == {"fracas.cli", "fracas.io.render"}
