"""The battle log: steps that are skipped say so, every roll line adds up."""

from __future__ import annotations

import re
from collections.abc import Callable

from fracas.core.dice import ScriptedDice
from fracas.core.report import Report, Text
from fracas.rulesets.d100 import Battle, D100Ruleset, play_battle

Factory = Callable[..., Battle]
RULESET = D100Ruleset()


def report_of(battle: Battle, faces: list[int]) -> Report:
    return RULESET.report(battle, play_battle(battle, ScriptedDice(faces)))


def section_text(report: Report, title: str) -> str:
    [section] = [s for s in report.sections if s.title == title]
    return "\n".join(b.text for b in section.blocks if isinstance(b, Text))


def test_skipped_steps_say_where_the_battle_goes(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [{"name": "B", "pax": 10, "melee_attacks": 0}],
        parameters={"round_limit": 1},
    )
    report = report_of(battle, [10, 90])
    assert "on to ranged combat" in section_text(report, "Step 4 — Begin combat")
    assert "on to melee" in section_text(report, "Step 5 — Ranged combat")
    assert "no one wins" in section_text(report, "Step 7 — Winner and loot")


def test_no_melee_when_one_side_has_left(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10, "dangerous_missions": 6}], [{"name": "B", "pax": 10}]
    )
    # 10 − 25 = −15 < 75: bottles out; loyalty 60 ≥ 50: stays loyal but leaves.
    report = report_of(battle, [10, 60])
    assert "no melee" in section_text(report, "Step 6 — Melee combat")
    assert "stays loyal but leaves" in section_text(report, "Step 1 — Morale assessment")


def test_every_roll_line_adds_up(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10, "offense": 2, "equipment": ["melee_weapon", "horses"]}],
        [{"name": "B", "pax": 10, "defense": 1, "equipment": ["armour_2"]}],
        parameters={"round_limit": 1},
    )
    report = report_of(battle, [98, 40, 20, 60, 30, 55, 10, 90])
    text = section_text(report, "Step 6 — Melee round 1")
    lines = re.findall(r"^\s+([A-Z][a-z ]+) (-?\d+) = (.+?)(?: →.*)?$", text, flags=re.M)
    assert len(lines) >= 4
    for _, total, parts in lines:
        dice, *rows = re.split(r" (?=[+−] )", parts)
        value = sum(int(face) for face in dice.split(" ")[0].split("+"))
        for row in rows:
            sign, amount = row.split(" ")[:2]
            value += int(amount) if sign == "+" else -int(amount)
        assert value == int(total)
    # The first attack: 98 + 40 (open-ended) + 20 (offense) + 10 (weapon) + 10 (Mounted) = 178.
    assert "Attack 178 = 98+40 (d100) + 20 (Offense) + 10 (Melee weapon) + 10 (Mounted)" in text
