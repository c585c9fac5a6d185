"""The battle log: steps that are skipped say so, every roll line adds up."""

from __future__ import annotations

import re
from collections.abc import Callable

from fracas.core.dice import ScriptedDice
from fracas.core.report import Report, Table, Text
from fracas.rulesets.d100 import Battle, D100Ruleset

Factory = Callable[..., Battle]
RULESET = D100Ruleset()


def report_of(battle: Battle, faces: list[int]) -> Report:
    return RULESET.report(battle, RULESET.play(battle, ScriptedDice(faces)))


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
    assert (
        "Attack 178 = 98+40 (d100) + 20 (Offense 2 × 10) + 10 (Melee weapon) + 10 (Mounted)" in text
    )


def test_a_player_can_check_every_number(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10, "offense": 2, "strength": 1}],
        [
            {
                "name": "B",
                "pax": 7,
                "defense": 3,
                "melee_attacks": 0,
                "recruitment_cost": 100,
                "upkeep_cost": 20,
            },
            {"name": "C", "pax": 10, "melee_attacks": 0},
        ],
        parameters={"round_limit": 2, "overwhelm_bonus": 0},
    )
    # Round 1: target die 1 of 2 → B. Attack 80 + 2 × 10 = 100 vs defence 20 + 3 × 10 × 7/10
    # = 41 → hit; damage 70 + 10 = 80 vs 10 → wounds; morale 30: −2 PAX (5 left).
    # Round 2: die 1 → B. Defence 20 + 3 × 10 × 5/10 = 35; morale 80 − 2 × 4 = 72: −1 PAX.
    faces = [*(1, 80, 20, 70, 10, 30), *(1, 80, 20, 70, 10, 80)]
    report = report_of(battle, faces)
    first = section_text(report, "Step 6 — Melee round 1")
    second = section_text(report, "Step 6 — Melee round 2")
    assert "A (speed 0) → B (random target: d2 = 1 of B, C)" in first
    assert "Attack 100 = 80 (d100) + 20 (Offense 2 × 10)" in first
    assert "Defence 41 = 20 (d100) + 21 (Defense 3 × 10 × 7/10)" in first
    assert "Defence 35 = 20 (d100) + 15 (Defense 3 × 10 × 5/10)" in second
    assert "Morale 72 = 80 (d100) − 8 (PAX lost 2 × 4) → loses 1 PAX" in second


def test_loot_line_names_the_table_row(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [{"name": "B", "pax": 2, "melee_attacks": 0, "recruitment_cost": 100, "upkeep_cost": 20}],
    )
    # B loses 2 PAX (morale 30) and is completely killed: goods 120. Loot d100 80 → row
    # 71–90: 50 % gold (60), 25 % resources (30), 25 % items (30).
    report = report_of(battle, [80, 20, 70, 10, 30, 80])
    text = section_text(report, "Step 7 — Winner and loot")
    assert (
        "Loot: d100 80 → loot table 71–90 (gold 50 %, resources 25 %, items 25 %) → "
        "gold 60, resources 30, items worth 30." in text
    )


def test_withdrawal_headline_reads_well(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10, "melee_attacks": 0}],
        [{"name": "B", "pax": 10, "melee_attacks": 0}],
        parameters={"round_limit": 1},
    )
    text = section_text(report_of(battle, []), "Step 7 — Winner and loot")
    assert "After 1 melee round Raiders withdraws: no one wins." in text


def test_step_three_tallies_every_standing_bonus(battle_of: Factory) -> None:
    battle = battle_of(
        [
            {
                "name": "Riders",
                "pax": 10,
                "offense": 2,
                "strength": 1,
                "equipment": ["melee_weapon", "horses", "armour_1"],
            }
        ],
        [
            {
                "name": "Guards",
                "pax": 5,
                "defense": 3,
                "equipment": ["shield", "armour_2"],
                "melee_attacks": 0,
            }
        ],
        defender_side={"lair": {"structures": ["defensive_structure"], "morale_bonus": 7}},
        parameters={"round_limit": 1},
    )
    report = report_of(battle, [10, 90])
    [section] = [s for s in report.sections if s.title == "Step 3 — Total all bonuses"]
    [table] = [b for b in section.blocks if isinstance(b, Table)]
    rows = {row[0]: row[1:] for row in table.rows}
    # Riders: attack 2 × 10 + 10 (weapon) + 10 (Mounted) = 40; defence 0; damage 1 × 10 +
    # 10 = 20; reduction 5 (armour 1); morale 0. 1 v 1: no Overwhelm.
    assert rows["Riders"] == ("+40", "—", "+0", "+20", "+5", "+0")
    # Guards at 5/10: defence 3 × 10 × 5/10 = 15, + 10 (shield) + 5 (armour 2) + 10
    # (structure) = 40; reduction 10 (armour 2); morale 7 (Throne Room).
    assert rows["Guards"] == ("+0", "—", "+40", "+0", "+10", "+7")


def test_step_three_tally_leaves_out_the_aura_of_a_unit_that_left(battle_of: Factory) -> None:
    battle = battle_of(
        [
            {"name": "Captain", "pax": 10, "dangerous_missions": 6, "traits": ["banner"]},
            {"name": "Spears", "pax": 10, "melee_attacks": 0},
        ],
        [{"name": "Guards", "pax": 10, "melee_attacks": 0}],
        effects={
            "banner": {
                "trigger": "when_attacking",
                "scope": "own_side",
                "roll": "attack",
                "bonus": 5,
            },
        },
        parameters={"round_limit": 1},
    )
    # Captain: 10 − 25 bottles out, loyalty 60 leaves loyal; the Spears' tally has no
    # Banner: attack +0 (1 v 1, no Overwhelm).
    report = report_of(battle, [10, 60])
    [section] = [s for s in report.sections if s.title == "Step 3 — Total all bonuses"]
    [table] = [b for b in section.blocks if isinstance(b, Table)]
    assert [row[:2] for row in table.rows] == [("Spears", "+0"), ("Guards", "+0")]


def test_step_two_lists_only_effects_of_units_still_there(battle_of: Factory) -> None:
    battle = battle_of(
        [
            {"name": "Captain", "pax": 10, "dangerous_missions": 6, "traits": ["banner"]},
            {"name": "Riders", "pax": 10, "melee_attacks": 0, "equipment": ["horses"]},
        ],
        [{"name": "Guards", "pax": 10, "melee_attacks": 0}],
        effects={
            "banner": {
                "label": "Banner",
                "trigger": "when_attacking",
                "scope": "own_side",
                "roll": "attack",
                "bonus": 5,
            },
        },
        parameters={"round_limit": 1},
    )
    # The Captain bottles out in step 1 (10 − 25; loyalty 60): his Banner is not switched
    # on in step 2; the Riders' horses are.
    text = section_text(report_of(battle, [10, 60]), "Step 2 — Attackers and defenders")
    assert "Mounted (Riders, Horses): +10 attack on itself" in text
    assert "Banner" not in text


def test_outcome_comes_first_with_winner_losses_and_loot() -> None:
    from pathlib import Path

    from fracas.io.scenario import load_scenario

    example = Path(__file__).parents[2] / "examples" / "d100" / "lair_raid.yaml"
    report = load_scenario(example).resolve(seed=0)
    outcome = report.sections[0]
    assert outcome.title == "Outcome"
    assert not outcome.fold
    assert all(section.fold for section in report.sections if section.title.startswith("Step"))
    lines = "\n".join(b.text for b in outcome.blocks if isinstance(b, Text)).splitlines()
    # Seed 0: Wall Guard 6 → 2 PAX and flees (6 − 2 = 4), Tower Archers 4 → 0, killed; goods:
    # the archers' 100 in full plus the guards' 130 × 2/10 = 26 → 126, the loot die splits it.
    assert lines == [
        "Red Fang wins: Thornwall has no unit left.",
        "Red Fang losses: none",
        "Thornwall losses: Wall Guard −4 PAX (fled), Tower Archers −4 PAX (completely killed)",
        "Red Fang takes goods worth 126; loot: gold 126, resources 0, items worth 0.",
    ]
    units = {row[0]: row for row in report.sections[-1].blocks[1].rows}  # type: ignore[union-attr]
    assert units["Wall Guard"][2:] == ("6/10", "2/10", "fled")
    assert units["Tower Archers"][2:] == ("4/10", "0/10", "completely killed")


def test_open_ended_rolls_are_explained_once(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}], [{"name": "B", "pax": 10}], parameters={"round_limit": 1}
    )
    # A attacks: 98 rolls again (+54) = 152; B defends 10; damage 99+3; reduction 40;
    # morale 97+5 = 102 holds. B's own attack follows with plain faces.
    report = report_of(battle, [98, 54, 10, 99, 3, 40, 97, 5, *([50] * 12)])
    text = section_text(report, "Step 6 — Melee round 1")
    assert "  Attack 152 = 98+54 (d100)\n  (98+54: 96–100 rolls again and adds)\n" in text
    full = "\n".join(b.text for s in report.sections for b in s.blocks if isinstance(b, Text))
    assert full.count("rolls again and adds") == 1
    assert "99+3 (d100)" in full


def test_names_with_markup_stay_text_in_forum_posts(battle_of: Factory) -> None:
    from fracas.io.render import render_bbcode, render_markdown

    battle = battle_of(
        [{"name": "[url=http://x]A[/url]", "pax": 10}],
        [{"name": "**B** <img src=x>", "pax": 10}],
        parameters={"round_limit": 1},
        title="[size=200]Raid[/size]",
    )
    report = report_of(battle, [50] * 40)
    bbcode = render_bbcode(report, fold=True)
    # Boards show [code] blocks as they are; outside them no user tag may survive.
    outside = re.sub(r"\[code\].*?\[/code\]", "", bbcode, flags=re.DOTALL)
    assert "[url=" not in outside
    assert "[size=200]" not in outside
    assert "[[i][/i]url=http://x]A[[i][/i]/url]" in bbcode
    assert bbcode.count("[spoiler]") == bbcode.count("[/spoiler]") >= 7
    markdown = render_markdown(report, fold=True)
    assert "**B**" not in markdown
    assert re.search(r"(?<!\\)<img", markdown) is None  # only the escaped \<img
    assert "\\*\\*B\\*\\* \\<img src=x\\>" in markdown
    assert markdown.count("<details>") == markdown.count("</details>") >= 7
