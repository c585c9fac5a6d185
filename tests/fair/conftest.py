"""Shared pieces of the fair-dice tests: example scenarios and sealed posts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fracas.io.fair import SEAL_BEGIN, SEAL_END, fair_resolve, post, read_seal, seal_text
from fracas.io.render import PostStyle
from fracas.io.scenario import Scenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]
LAIR_RAID = ROOT / "examples" / "d100" / "lair_raid.yaml"
SECRET = "3c9e1f0a7b52d8e4f6a1c0b9d2e7f3a85b4c6d1e0f9a2b7c8d3e4f5a6b7c8d9e"
NONCES = ("owlbear at dawn", "1729")


def dice_examples() -> list[Path]:
    """Every example scenario whose ruleset has dice (the protocol is for all of them)."""
    paths = sorted((ROOT / "examples").glob("*/*.yaml"))
    return [path for path in paths if not load_scenario(path).ruleset.deterministic]


def make_post(
    scenario: Scenario | None = None,
    fmt: str = "bbcode",
    style: PostStyle | None = None,
    nonces: tuple[str, ...] = NONCES,
) -> str:
    scenario = scenario or load_scenario(LAIR_RAID)
    return post(scenario, fair_resolve(scenario, SECRET, nonces), fmt, style)


def reseal(text: str, change: Any) -> str:
    """The post with its seal's record changed by ``change(payload)`` and packed again."""
    payload = read_seal(text)
    change(payload)
    pattern = re.escape(SEAL_BEGIN) + ".*?" + re.escape(SEAL_END)
    return re.sub(pattern, lambda _: seal_text(payload), text, flags=re.DOTALL)
