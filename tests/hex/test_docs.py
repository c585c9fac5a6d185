"""docs/rules/hex.md follows the seed's headings (citations and parameters: tests/test_docs.py)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "rules" / "hex.md").read_text(encoding="utf-8")


def test_every_seed_heading_has_a_table() -> None:
    for heading in ["Combat", "Resolved Simultaneously", "Lv", "Effective Atk and Def",
                    "Terrain", "Encircled", "Support", "Status Effect", "Pierce",
                    "How Losses Are Decided"]:  # fmt: skip
        assert re.search(rf"^### .*{re.escape(heading)}$", DOC, re.MULTILINE), heading
