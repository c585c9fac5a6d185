"""docs/rules/hex.md stays true: every test it names exists, every parameter is listed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from fracas.rulesets.hex import HexParams

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "rules" / "hex.md").read_text(encoding="utf-8")
SHORT = {
    "strike": "test_strike.py",
    "combat": "test_combat.py",
    "cli": "test_cli.py",
    "examples": "test_examples.py",
    "properties": "test_properties.py",
    "ruleset": "test_ruleset.py",
    "svg": "test_svg.py",
}


def defined_tests(filename: str) -> set[str]:
    tree = ast.parse((ROOT / "tests" / "hex" / filename).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_cited_test_exists() -> None:
    cited = re.findall(r"\b(\w+)::(test_\w+)", DOC)
    assert len(cited) > 40
    missing = [f"{s}::{t}" for s, t in cited if t not in defined_tests(SHORT[s])]
    assert missing == []


def test_every_parameter_is_documented() -> None:
    for name in HexParams.model_fields:
        assert f"`{name}`" in DOC, name


def test_every_seed_heading_has_a_table() -> None:
    for heading in ["Combat", "Resolved Simultaneously", "Lv", "Effective Atk and Def",
                    "Terrain", "Encircled", "Support", "Status Effect", "Pierce",
                    "How Losses Are Decided"]:  # fmt: skip
        assert re.search(rf"^### .*{re.escape(heading)}$", DOC, re.MULTILINE), heading
