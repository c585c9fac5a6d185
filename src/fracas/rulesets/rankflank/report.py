"""The report of a played combat: tables for people, a JSON-ready mapping for programs.

Everything is computed from the :class:`~.play.CombatOutcome` alone, so playing stays
fast when the odds analysis plays thousands of combats and never asks for a report.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any

from fracas.core.modifiers import Breakdown, Op
from fracas.core.record import Explained
from fracas.core.report import (
    Block,
    Report,
    Section,
    Table,
    Text,
    breakdown_data,
    breakdown_table,
    fmt,
)
from fracas.rulesets.rankflank.breaktest import OUTCOME_NAMES, BreakTest, OutcomeTest
from fracas.rulesets.rankflank.fight import CombatOutcome, Round, fighting_pairs
from fracas.rulesets.rankflank.formation import models_alive
from fracas.rulesets.rankflank.scenario import EDITIONS, NEWER_OPTIONS, Combat, Options
from fracas.rulesets.rankflank.strikes import IMPACT_STEP, StrikeRoll


def faces_summary(faces: tuple[int, ...]) -> str:
    """Faces as counts, highest first: ``6×2 4×1``; ``-`` when nothing was rolled.

    >>> faces_summary((4, 6, 6, 1))
    '6×2 4×1 1×1'
    """
    if not faces:
        return "-"
    counts = Counter(faces)
    return " ".join(f"{face}×{counts[face]}" for face in sorted(counts, reverse=True))


def _target(value: int | None) -> str:
    return "-" if value is None else f"{value}+"


def unit_status(combat: Combat, outcome: CombatOutcome, name: str) -> str:
    """``destroyed``, ``fled`` or ``fighting`` at the end of the combat; with three-outcome
    break tests also ``fell back`` (in good order, and got away) or ``gave ground`` (and was
    not followed up): the two ways of leaving the fight without breaking."""
    unit = combat.unit(name)
    status = outcome.final[name]
    if not models_alive(unit, status):
        return "destroyed"
    end = outcome.end
    if end is not None and name in end.withdrawn:
        # The last outcome is the one it left by (it may have been caught before).
        last = [t.outcome for r in outcome.rounds for t in r.outcome_tests if t.unit == name]
        return "fell back" if last and last[-1] == "fall_back" else "gave ground"
    if status.fled:
        return "fled"
    return "fighting"


def shown_options(options: Options) -> dict[str, Any]:
    """The options a report lists: all of them with the oldworld preset; with another,
    those the oldworld preset brought only when set away from that preset's value (so that
    the reports of the older presets keep their shape).

    >>> "musician_tie" in shown_options(Options()), "musician_tie" in shown_options(
    ...     Options.for_edition("oldworld"))
    (False, True)
    """
    values = asdict(options)
    if options.edition == "oldworld":
        return values
    preset = {**asdict(Options()), **EDITIONS[options.edition]}
    return {
        key: value
        for key, value in values.items()
        if key not in NEWER_OPTIONS or value != preset[key]
    }


def _move_text(faces: tuple[int, ...], distance: int) -> str:
    """A move's dice and distance, ``3+4 = 7``; what a rule took off shown too (``3+4-1 =
    6``, Resolute).

    >>> _move_text((3, 4), 7), _move_text((3, 4), 6)
    ('3+4 = 7', '3+4-1 = 6')
    """
    less = sum(faces) - distance
    return "+".join(map(str, faces)) + (f"-{less}" if less else "") + f" = {distance}"


def _outcome_rows(tests: tuple[OutcomeTest, ...]) -> tuple[tuple[str, ...], ...]:
    """The rows of the three-outcome break tests: the odds of each outcome out of 36 as
    the unit stood, what it rolled and what came of it."""
    rows: list[tuple[str, ...]] = []
    for test in tests:
        why = [
            word
            for word, flag in (
                ("overwhelmed", test.overwhelmed),
                ("unbreakable", test.unbreakable),
                (f"disrupted by {test.disrupted_by}", test.disrupted_by is not None),
                ("shieldwall", test.shieldwall),
            )
            if flag
        ]
        why.extend(test.leadership_notes)
        if test.stubborn:
            why.append("stubborn: used" if test.stubborn_used else "stubborn: not used")
        if test.rerolled:
            why.append(
                "battle standard re-rolls " + " or ".join(OUTCOME_NAMES[o] for o in test.rerolled)
            )
        odds = "/".join(str(n) for n in test.counts)
        roll = "+".join(map(str, test.faces)) if test.faces else "-"
        if test.first_faces:
            roll = "+".join(map(str, test.first_faces)) + ", re-rolled " + roll
        rows.append(
            (
                test.unit,
                str(test.leadership),
                str(test.difference),
                ", ".join(why) or "-",
                odds,
                roll,
                OUTCOME_NAMES[test.outcome],
            )
        )
    return tuple(rows)


def casualties(combat: Combat, outcome: CombatOutcome, name: str) -> int:
    """Models the unit lost over the whole combat (characters included)."""
    unit = combat.unit(name)
    return models_alive(unit, outcome.initial[name]) - models_alive(unit, outcome.final[name])


def _striker(roll: StrikeRoll) -> str:
    record = roll.record
    return record.striker if record.kind == "blows" else f"{record.striker} ({record.kind})"


def explanation_text(item: Breakdown | str) -> str:
    """One line of a strike's "Weapons and special rules": a rule, or a number's breakdown.

    A number with bonuses reads as its sum, one replaced as its new value and why:

    >>> from fracas.core.modifiers import Modifier, Op
    >>> s = Breakdown.start("S", "S", 3).plus("great weapon", 2)
    >>> explanation_text(s), explanation_text("multiple wounds (D3)")
    ('S 5 = 3 + 2 (great weapon)', 'multiple wounds (D3)')
    >>> explanation_text(Breakdown.start("WS", "WS", 4).then(Modifier("afraid", Op.BASE, 1)))
    'WS 1 (afraid)'
    """
    if isinstance(item, str):
        return item
    base, *rows = item.rows
    total = fmt(item.total)
    if rows and rows[-1].op is Op.BASE:
        return f"{item.label} {total} ({rows[-1].label})"
    parts = " + ".join(f"{fmt(row.value)} ({row.label})" for row in rows)
    return f"{item.label} {total} = {fmt(base.value)} + {parts}"


def _kept(score: Explained) -> Breakdown:
    """A score of a played round: play keeps every row, so it is a full breakdown."""
    assert isinstance(score, Breakdown), "a played round's scores keep their rows"
    return score


def _step(initiative: int) -> str:
    return "impact" if initiative == IMPACT_STEP else str(initiative)


def _strike_row(roll: StrikeRoll) -> tuple[str, ...]:
    record = roll.record
    target = record.target_unit
    if record.target_character:
        target += f" ({record.target_character})"
    save = _target(record.blow.armour)
    if record.blow.ward is not None:
        save += f" / {record.blow.ward}+"
    attacks = str(record.attacks)
    if record.auto_hits is not None:
        attacks = f"{roll.faces.hits} ({record.attacks}×{record.auto_hits})"
    return (
        _step(record.initiative),
        _striker(roll),
        target,
        attacks,
        "auto" if record.blow.to_hit is None else _target(record.blow.to_hit),
        str(roll.faces.hits),
        _target(record.blow.to_wound),
        str(roll.faces.wounds),
        save,
        str(roll.faces.unsaved),
    )


def _with_rerolls(faces: tuple[int, ...], rerolls: tuple[int, ...]) -> str:
    shown = faces_summary(faces)
    return f"{shown}, re-rolled: {faces_summary(rerolls)}" if rerolls else shown


def _faces_row(roll: StrikeRoll) -> tuple[str, ...]:
    saves = " / ".join(
        _with_rerolls(f, again)
        for f, again in (
            (roll.faces.armour_faces, roll.faces.armour_rerolls),
            (roll.faces.ward_faces, roll.faces.ward_rerolls),
        )
        if f
    )
    hits = _with_rerolls(roll.faces.hit_faces, roll.faces.hit_rerolls)
    if roll.faces.count_faces:
        hits = f"hits {'+'.join(map(str, roll.faces.count_faces))}"
    wounds = _with_rerolls(roll.faces.wound_faces, roll.faces.wound_rerolls)
    if roll.faces.multiple_faces:
        saves = f"{saves or '-'}; multiple wounds {'+'.join(map(str, roll.faces.multiple_faces))}"
    return (_striker(roll), hits, wounds, saves or "-")


STRIKE_COLUMNS = (
    "I",
    "striker",
    "target",
    "attacks",
    "to hit",
    "hits",
    "to wound",
    "wounds",
    "save / ward",
    "unsaved",
)
FACES_COLUMNS = ("striker", "to-hit faces", "to-wound faces", "save faces")


def _headline(combat: Combat, fought: Round) -> str:
    result = fought.result
    scores = ", ".join(f"{side} {result.score(side)}" for side in combat.sides)
    if result.winner is None:
        return f"Round {fought.number}: a draw, {scores}."
    if result.wiped_out:
        return f"Round {fought.number}: {result.winner} win, the enemy is wiped out ({scores})."
    return f"Round {fought.number}: {result.winner} win by {result.difference} ({scores})."


def _round_sections(combat: Combat, fought: Round) -> list[Section]:
    strikes = Table(
        STRIKE_COLUMNS,
        tuple(_strike_row(roll) for step in fought.steps for roll in step.rolls),
    )
    faces = Table(
        FACES_COLUMNS,
        tuple(_faces_row(roll) for step in fought.steps for roll in step.rolls),
        title="Dice (face×count)",
    )
    blocks: list[Block] = [strikes, faces] if fought.steps else [Text("Nobody strikes.")]
    rules = tuple(
        (_striker(roll), note)
        for step in fought.steps
        for roll in step.rolls
        for note in map(explanation_text, roll.record.explained)
    )
    if rules:
        blocks.append(Table(("striker", "rule"), rules, title="Weapons and special rules"))
    if fought.fear_tests:
        fear_rows = tuple(
            (
                test.unit,
                str(test.leadership),
                "+".join(map(str, test.faces)) or "-",
                "passed" if test.passed else "failed: WS 1 this round",
            )
            for test in fought.fear_tests
        )
        blocks.insert(0, Table(("unit", "Ld", "roll", "result"), fear_rows, title="Fear tests"))
    sections = [Section(f"Round {fought.number}: blows", tuple(blocks))]
    tables: list[Block] = [
        breakdown_table(_kept(fought.result.scores[side]), title=side) for side in combat.sides
    ]
    tables.append(Text(_headline(combat, fought), strong=True))
    sections.append(Section(f"Round {fought.number}: combat result", tuple(tables)))
    after: list[Block] = []
    if fought.outcome_tests:
        after.append(
            Table(
                ("unit", "Ld", "lost by", "rules", "of 36: B/FB/GG", "roll", "result"),
                _outcome_rows(fought.outcome_tests),
                title="Break tests (Break, Fall Back in Good Order, Give Ground)",
            )
        )
    if fought.break_tests:
        rows: list[tuple[str, ...]] = []
        for test in fought.break_tests:
            why = ", ".join(
                word
                for word, flag in (
                    ("steadfast", test.steadfast),
                    ("stubborn", test.stubborn),
                    ("unbreakable", test.unbreakable),
                    (f"disrupted by {test.disrupted_by}", test.disrupted_by is not None),
                )
                if flag
            )
            roll = "+".join(map(str, test.faces)) if test.faces else "-"
            rows.append(
                (
                    test.unit,
                    str(test.leadership),
                    str(test.difference),
                    why or "-",
                    str(test.target),
                    roll,
                    "passed" if test.passed else "failed",
                )
            )
        after.append(
            Table(
                ("unit", "Ld", "lost by", "rules", "needs ≤", "roll", "result"),
                tuple(rows),
                title="Break tests",
            )
        )
    if fought.pursuits:
        pursuit_rows: list[tuple[str, ...]] = []
        for pursuit in fought.pursuits:
            flee = _move_text(pursuit.faces, pursuit.distance)
            if not pursuit.pursuers:
                pursuit_rows.append((pursuit.unit, flee, "-", "-", "-", "escapes"))
            for chaser in pursuit.pursuers:
                restrain = "+".join(map(str, chaser.restrain_faces)) or "-"
                if chaser.restrained:
                    chase, verdict = "-", "restrained"
                else:
                    chase = _move_text(chaser.faces, chaser.distance)
                    verdict = "caught" if chaser.caught else "escapes"
                pursuit_rows.append((pursuit.unit, flee, chaser.unit, restrain, chase, verdict))
        after.append(
            Table(
                ("flees", "flee roll", "pursuer", "restrain roll", "pursuit roll", "result"),
                tuple(pursuit_rows),
                title="Flight and pursuit",
            )
        )
    after.extend(Text(line) for line in fought.aftermath)
    sections.append(Section(f"Round {fought.number}: aftermath", tuple(after)))
    return sections


def _roll_data(roll: StrikeRoll) -> dict[str, Any]:
    record = asdict(roll.record)
    del record["explained"], record["_hash"]
    if record["rider"] is None:  # written only for a character's own mount
        del record["rider"]
    # The blow's targets and rules sit beside the record's other numbers, as players
    # read them ("multiple_wounds" names the blow's ``multiple``).
    blow = {
        ("multiple_wounds" if key == "multiple" else key): value
        for key, value in record.pop("blow").items()
    }
    if not blow["armour_bane"]:  # written only where a blow has it (the oldworld preset)
        del blow["armour_bane"]
    return {
        **record,
        "notes": [explanation_text(item) for item in roll.record.explained],
        **blow,
        "count_faces": list(roll.faces.count_faces),
        "hit_rerolls": list(roll.faces.hit_rerolls),
        "wound_rerolls": list(roll.faces.wound_rerolls),
        "armour_rerolls": list(roll.faces.armour_rerolls),
        "ward_rerolls": list(roll.faces.ward_rerolls),
        "multiple_faces": list(roll.faces.multiple_faces),
        "slain": roll.faces.slain,
        "hit_faces": list(roll.faces.hit_faces),
        "wound_faces": list(roll.faces.wound_faces),
        "armour_faces": list(roll.faces.armour_faces),
        "ward_faces": list(roll.faces.ward_faces),
        "hits": roll.faces.hits,
        "wounds": roll.faces.wounds,
        "unsaved": roll.faces.unsaved,
    }


def _test_data(test: BreakTest | OutcomeTest) -> dict[str, Any]:
    data = {**asdict(test), "faces": list(test.faces)}
    if isinstance(test, OutcomeTest):
        data["counts"] = list(test.counts)
        data["leadership_notes"] = list(test.leadership_notes)
        data["rerolled"] = list(test.rerolled)
        data["first_faces"] = list(test.first_faces)
    return data


def _round_data(fought: Round) -> dict[str, Any]:
    result = fought.result
    return {
        "round": fought.number,
        "steps": [
            {"initiative": step.initiative, "strikes": [_roll_data(r) for r in step.rolls]}
            for step in fought.steps
        ],
        "combat_result": {
            side: breakdown_data(_kept(score)) for side, score in result.scores.items()
        },
        "winner": result.winner or "draw",
        "difference": result.difference,
        "wiped_out": list(result.wiped_out),
        "fear_tests": [{**asdict(test), "faces": list(test.faces)} for test in fought.fear_tests],
        # One kind or the other, as the preset tests: pass or flee, or three outcomes.
        "break_tests": [_test_data(test) for test in fought.break_tests]
        + [_test_data(test) for test in fought.outcome_tests],
        "pursuits": [
            {
                "unit": p.unit,
                "faces": list(p.faces),
                "distance": p.distance,
                "pursuers": [
                    {
                        "unit": c.unit,
                        "restrain_faces": list(c.restrain_faces),
                        "restrained": c.restrained,
                        "faces": list(c.faces),
                        "distance": c.distance,
                        "caught": c.caught,
                    }
                    for c in p.pursuers
                ],
                "caught": p.caught,
                "fate": p.fate,
            }
            for p in fought.pursuits
        ],
        "aftermath": list(fought.aftermath),
    }


def refusal_sentence(challenger: str, opponent: str) -> str:
    """What the report says of a refused challenge.

    >>> refusal_sentence("Grukk", "Kurtz").split(":")[0]
    'Kurtz refused the challenge of Grukk and retires'
    """
    return (
        f"{opponent} refused the challenge of {challenger} and retires: no attacks, no blows "
        "taken, neither Leadership nor rules lent to the unit."
    )


def build_report(combat: Combat, outcome: CombatOutcome, title: str) -> Report:
    """The full report of a played combat."""
    units_rows = tuple(
        (
            unit.name,
            unit.side,
            str(models_alive(unit, outcome.initial[unit.name])),
            str(models_alive(unit, outcome.final[unit.name])),
            str(casualties(combat, outcome, unit.name)),
            unit_status(combat, outcome, unit.name),
        )
        for unit in combat.units
    )
    summary: list[Block] = [
        Text(_headline(combat, r), strong=r.number == 1) for r in outcome.rounds
    ]
    if fighting_pairs(combat, outcome.final):
        summary.append(
            Text(f"The round limit ({combat.options.max_rounds}) is reached; the combat goes on.")
        )
    if combat.refused is not None:
        challenger, opponent = combat.refused
        summary.append(Text(refusal_sentence(challenger, opponent)))
    summary.append(Table(("unit", "side", "models", "left", "casualties", "status"), units_rows))
    sections = [Section("Outcome", tuple(summary))]
    for fought in outcome.rounds:
        sections.extend(_round_sections(combat, fought))
    first = outcome.rounds[0].result if outcome.rounds else None
    data: dict[str, Any] = {
        "edition": combat.options.edition,
        "options": shown_options(combat.options),
        "sides": list(combat.sides),
        "winner": (first.winner or "draw") if first else "draw",
        "rounds_fought": len(outcome.rounds),
        "units": [
            {
                "name": name,
                "side": side,
                "models": int(models),
                "models_left": int(left),
                "casualties": int(lost),
                "status": status,
            }
            for name, side, models, left, lost, status in units_rows
        ],
        "rounds": [_round_data(fought) for fought in outcome.rounds],
    }
    if combat.refused is not None:
        challenger, opponent = combat.refused
        data["refused_challenge"] = {"challenger": challenger, "opponent": opponent}
    return Report("rankflank", title, tuple(sections), data)
