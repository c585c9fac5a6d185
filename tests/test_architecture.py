"""The layers depend one way: core ← rulesets ← analysis ← io ← campaign ← cli / web.
Nothing imports cli."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "fracas"

# What each layer must never import.
FORBIDDEN = {
    "core": (
        "fracas.rulesets",
        "fracas.analysis",
        "fracas.io",
        "fracas.campaign",
        "fracas.cli",
        "fracas.web",
    ),
    "rulesets": ("fracas.analysis", "fracas.io", "fracas.campaign", "fracas.cli", "fracas.web"),
    "analysis": ("fracas.io", "fracas.campaign", "fracas.cli", "fracas.web"),
    "io": ("fracas.campaign", "fracas.cli", "fracas.web"),
    "campaign": ("fracas.cli", "fracas.web"),
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


# ── generic code never names a ruleset ─────────────────────────────────────────────────

BUILTIN_NAMES = ("hex", "d100", "rankflank")
#: Generic layers: they ask a ruleset for its capabilities through hooks, never by name.
GENERIC = ("analysis", "io", "campaign", "cli", "web")
#: Being removed: rankflank's rules restated for odds, which give way to the ruleset's own
#: play evaluated by the core. Once they are gone this list and the next one are empty.
NAMING_ALLOWED: set[str] = set()
NAMING_ALLOWED_LINES: set[tuple[str, str]] = set()

_RULESET_MODULE = re.compile(r"fracas\.rulesets\.(" + "|".join(BUILTIN_NAMES) + r")\b")


def _names_a_ruleset(identifier: str) -> bool:
    return any(token in BUILTIN_NAMES for token in identifier.lower().split("_"))


def ruleset_names(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` for every place ``source`` names a built-in ruleset.

    Caught: imports of ``fracas.rulesets.<name>`` (also as ``from fracas.rulesets import
    <name>``), identifiers with the name as a word (``rankflank_headline``, ``D100_FATES``),
    strings that are a name (a look-up key, a comparison) or a ruleset's module path. Not
    caught, on purpose: attributes of other objects (``secrets.token_hex``) and prose
    (``examples/hex/river_crossing.yaml`` in a help text).
    """
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [(line, a.name) for a in node.names if _RULESET_MODULE.match(a.name + ".")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(line, m) for m in modules if _RULESET_MODULE.match(m + ".")]
        elif isinstance(node, ast.Name) and _names_a_ruleset(node.id):
            found.append((line, node.id))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if _names_a_ruleset(node.name):
                found.append((line, node.name))
        elif isinstance(node, ast.arg) and _names_a_ruleset(node.arg):
            found.append((line, node.arg))
        elif isinstance(node, ast.alias) and node.asname and _names_a_ruleset(node.asname):
            found.append((line, node.asname))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip().lower()
            if text in BUILTIN_NAMES or _RULESET_MODULE.search(node.value):
                found.append((line, repr(node.value[:60])))
    return sorted(found)


def test_generic_code_names_no_ruleset() -> None:
    found = []
    for layer in GENERIC:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            relative = path.relative_to(PACKAGE).as_posix()
            if relative in NAMING_ALLOWED:
                continue
            source = path.read_text(encoding="utf-8")
            lines = source.splitlines()
            for line, what in ruleset_names(source):
                if (relative, lines[line - 1].strip()) not in NAMING_ALLOWED_LINES:
                    found.append(f"{relative}:{line} names a ruleset: {what}")
    assert found == []


def test_the_naming_checker_sees_each_kind_of_name() -> None:
    source = (
        "import fracas.rulesets.hex.play\n"
        "from fracas.rulesets import d100\n"
        "from fracas.rulesets.rankflank.formation import initial_state\n"
        "def rankflank_headline(result): ...\n"
        "D100_BOTTLED = ()\n"
        'VIEWS = {"rankflank": 1}\n'
        'if ruleset.name == "Hex": ...\n'
        'TARGET = "fracas.rulesets.d100.play:play_battle"\n'
        "def view(d100_result): ...\n"
    )
    assert [line for line, _ in ruleset_names(source)] == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_the_naming_checker_leaves_prose_and_other_libraries_alone() -> None:
    source = (
        '"""Try fracas resolve examples/hex/river_crossing.yaml, or any d100 battle."""\n'
        "import secrets\n"
        "token = secrets.token_hex(32)\n"
        'digest = "64 hex digits"\n'
    )
    assert ruleset_names(source) == []
