"""The documents stay true: every test a rules document cites exists, every parameter is
documented, and the README opens with the two commands."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from fracas.rulesets import AnyRuleset, available_rulesets

ROOT = Path(__file__).resolve().parents[1]
RULESETS = [cls for cls in available_rulesets() if cls.__module__.startswith("fracas.")]


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("name", [cls.name for cls in RULESETS])
def test_every_cited_test_exists(name: str) -> None:
    doc = (ROOT / "docs" / "rules" / f"{name}.md").read_text(encoding="utf-8")
    # Citations read `short::test_name`: tests/<ruleset>/test_<short>.py, unless the
    # document maps the short name to a file ("`break` is `test_break_test.py`").
    files = dict(re.findall(r"`(\w+)` is `(test_\w+\.py)`", doc))
    cited = set(re.findall(r"\b(\w+)::(test_\w+)", doc))
    assert len(cited) >= 20, "a rules document cites the tests that prove it"
    missing = []
    for short, test in sorted(cited):
        path = ROOT / "tests" / name / files.get(short, f"test_{short}.py")
        if not path.exists() or test not in defined_tests(path):
            missing.append(f"{short}::{test}")
    assert missing == []


@pytest.mark.parametrize("cls", RULESETS, ids=lambda cls: cls.name)
def test_every_parameter_is_documented(cls: type[AnyRuleset]) -> None:
    doc = (ROOT / "docs" / "rules" / f"{cls.name}.md").read_text(encoding="utf-8")
    undocumented = [name for name, _, _ in cls.parameters() if f"`{name}`" not in doc]
    assert undocumented == []


def test_readme_opens_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```")[1]
    assert "make demo" in first_block
    assert "make test" in first_block


def test_ci_runs_make_test_only() -> None:
    lines = [
        line
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith(("#", "set ", "cd "))
    ]
    assert lines == ["make test"]
