"""The battle log: a :class:`~fracas.core.report.Report` that reads well as a forum post.

Sections follow the seed's seven steps. Every roll is one line, ``Attack 95 = d100 57 +
Offense 20 + …``, made from the roll's breakdown so the parts always add up. The ``data``
mapping holds the same log for programs; its key order is documented in
``docs/rules/d100.md`` under "JSON output".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from fracas.core.report import Block, Report, Section, Table, Text, breakdown_data, fmt, json_number
from fracas.rulesets.d100.params import ROLL_LABELS
from fracas.rulesets.d100.play import (
    MELEE,
    RANGED,
    TOTALS,
    AssessmentEvent,
    AttackEvent,
    BattleResult,
    CasualtyEvent,
    Event,
    FleeRollEvent,
    NullifyEvent,
    standing_total,
)
from fracas.rulesets.d100.rolls import Roll
from fracas.rulesets.d100.scenario import Battle, HeldEffect, Side

TALLY_ROLLS = (
    ("attack", "attack"),
    ("ranged_attack", "ranged"),
    ("defense", "defence"),
    ("damage", "damage"),
    ("damage_reduction", "reduction"),
    ("morale", "morale"),
)

_FATE_TEXT = {
    "fought": "still fighting",
    "killed": "completely killed",
    "fled": "fled",
    "bottled_out": "stays loyal but leaves the battle",
    "disbanded": "disbands, leaving its equipment",
    "disbanded_with_equipment": "disbands, taking its equipment",
}


# Short forms for the tables of step 7 (the JSON keeps the fate codes).
_FATE_CELL = {
    "fought": "fought on",
    "killed": "completely killed",
    "fled": "fled",
    "bottled_out": "bottled out, loyal",
    "disbanded": "disbanded, left equipment",
    "disbanded_with_equipment": "disbanded, took equipment",
}


def winner_name(battle: Battle, result: BattleResult) -> str:
    """The winning side's name, or ``draw`` / ``withdraw``."""
    return name_of_winner(battle, result.winner, result.outcome)


def name_of_winner(battle: Battle, winner: int | None, outcome: str) -> str:
    """The name of side ``winner``, or the ``outcome`` (``draw`` / ``withdraw``) if none."""
    return outcome if winner is None else battle.sides[winner].name


def _role_text(side: Side) -> str:
    if side.attacker and side.defender:
        return "attacker and defender"
    return "attacker" if side.attacker else "defender"


def _effect_text(effect: HeldEffect) -> str:
    spec = effect.spec
    scope = {
        "self": "itself",
        "own_side": "its own side",
        "enemy_side": "the enemy side",
        "unit": spec.unit or "",
    }[spec.scope]
    if spec.roll is not None:
        what = f"{spec.bonus:+d} {ROLL_LABELS[spec.roll].lower()}"
    elif spec.flee_below is not None:
        what = f"flee roll below {spec.flee_below}"
    else:
        what = "nullify traits"
    return f"{effect.label} ({effect.origin}): {what} on {scope}"


def _attack_text(event: AttackEvent) -> str:
    head = f"{event.attacker} (speed {event.speed}) → {event.target}"
    if event.target_roll is not None:
        face, among = event.target_roll
        head += f" (random target: d{len(among)} = {face} of {', '.join(among)})"
    lines = [head]
    lines.append(f"  {event.attack.describe()}")
    verdict = "hit" if event.hit else "miss"
    if not event.hit and event.attack.total == event.defence.total:
        verdict = "miss (tie: defender wins)"
    lines.append(f"  {event.defence.describe()} → {verdict}")
    if event.damage is not None and event.reduction is not None:
        lines.append(f"  {event.damage.describe()}")
        outcome = "wounds" if event.wounded else "no damage"
        lines.append(f"  {event.reduction.describe()} → {outcome}")
    if event.morale is not None:
        result = f"loses {event.pax_lost} PAX" if event.pax_lost else "holds"
        if event.flees:
            result += " and flees"
        lines.append(f"  {event.morale.describe()} → {result}")
    return "\n".join(lines)


def _casualty_text(events: list[CasualtyEvent]) -> str:
    parts = []
    for event in events:
        text = f"{event.unit} −{event.pax_lost} PAX ({event.pax} left)"
        if event.fate == "killed":
            text += ", completely killed"
        elif event.fate == "fled":
            text += ", flees"
        parts.append(text)
    return "Casualties: " + "; ".join(parts)


def _flee_text(event: FleeRollEvent) -> str:
    verdict = "flees" if event.fled else "stays"
    return (
        f"{event.effect} ({event.origin}) on {event.unit}: {event.roll.describe()} "
        f"vs {event.threshold} → {verdict}"
    )


def _exchange_blocks(events: Sequence[Event]) -> list[Block]:
    blocks: list[Block] = []
    speed: int | None = None
    casualties: list[CasualtyEvent] = []
    for event in events:
        if isinstance(event, CasualtyEvent):
            casualties.append(event)
            continue
        if casualties:
            blocks.append(Text(_casualty_text(casualties)))
            casualties = []
        if isinstance(event, FleeRollEvent):
            blocks.append(Text(_flee_text(event)))
        elif isinstance(event, AttackEvent):
            if event.speed != speed:
                speed = event.speed
                blocks.append(Text(f"Speed {speed}:", strong=True))
            blocks.append(Text(_attack_text(event)))
    if casualties:
        blocks.append(Text(_casualty_text(casualties)))
    return blocks


def _forces(battle: Battle) -> Section:
    blocks: list[Block] = []
    for side in battle.sides:
        rows = []
        for unit in side.units:
            traits = [e.label for e in battle.effects if e.unit == unit.index]
            rows.append(
                (
                    unit.name,
                    unit.race,
                    f"{unit.pax}/{unit.max_pax}",
                    str(unit.speed),
                    f"{unit.offense}/{unit.defense}/{unit.strength}",
                    ", ".join(battle.equipment[key].label or key for key in unit.equipment) or "—",
                    ", ".join(traits) or "—",
                    str(unit.unit_value),
                )
            )
        place = "in its lair" if side.location == "lair" else "in the open"
        blocks.append(
            Table(
                ("unit", "race", "PAX", "speed", "off/def/str", "equipment", "traits", "value"),
                tuple(rows),
                title=f"{side.name}: {side.action}, {place}",
            )
        )
    return Section("Forces", tuple(blocks))


def _assessment(battle: Battle, events: list[AssessmentEvent]) -> Section:
    params = battle.params
    if not events:
        return Section(
            "Step 1 — Morale assessment",
            (
                Text(
                    f"No unit has more than {params.assessment_threshold} Dangerous Mission "
                    "Penalties: nobody is assessed."
                ),
            ),
        )
    blocks: list[Block] = []
    for event in events:
        if event.exempt or event.roll is None:
            unit = battle.unit(event.unit)
            blocks.append(
                Text(
                    f"{event.unit} ({unit.dangerous_missions} Dangerous Mission Penalties): "
                    f"{unit.race} — Orcs never check."
                )
            )
            continue
        unit = battle.unit(event.unit)
        passed = event.roll.total >= params.assessment_pass
        verdict = "holds" if passed else "bottles out"
        lines = [f"{event.unit} ({unit.dangerous_missions} Dangerous Mission Penalties):"]
        lines.append(f"  {event.roll.describe()} → {verdict}")
        if event.loyalty is not None:
            lines.append(f"  {event.loyalty.describe()} → {_FATE_TEXT[event.fate or 'fought']}")
        blocks.append(Text("\n".join(lines)))
    return Section("Step 1 — Morale assessment", tuple(blocks))


def _roles(battle: Battle, assessed: Sequence[AssessmentEvent]) -> Section:
    # A unit that left in step 1 switches nothing on.
    gone = {battle.unit(event.unit).index for event in assessed if event.fate}
    blocks: list[Block] = []
    for side in battle.sides:
        switched = [
            _effect_text(effect)
            for effect in battle.effects
            if effect.side == side.index
            and effect.unit not in gone
            and (
                (effect.spec.trigger == "when_attacking" and side.attacker)
                or (effect.spec.trigger == "when_defending" and side.defender)
            )
            and not (effect.lair_only and side.location != "lair")
        ]
        lines = [f"{side.name} ({side.action}): {_role_text(side)}."]
        lines += [f"  on: {text}" for text in switched]
        if side.location != "lair" and any(
            e.lair_only and e.side == side.index for e in battle.effects
        ):
            lines.append("  its lair's structures do not count away from the lair")
        blocks.append(Text("\n".join(lines)))
    return Section("Step 2 — Attackers and defenders", tuple(blocks))


def _totals(battle: Battle, result: BattleResult, events: Sequence[Event]) -> Section:
    blocks: list[Block] = []
    for event in events:
        if isinstance(event, NullifyEvent):
            blocks.append(Text(f"{event.effect} ({event.origin}) nullifies {event.unit}'s traits."))
        elif isinstance(event, FleeRollEvent):
            blocks.append(Text(_flee_text(event)))
    first, second = battle.sides
    count_text = f"Units present: {first.name} {result.counts[0]}, {second.name} {result.counts[1]}"
    if result.overwhelm_side is not None:
        bigger = battle.sides[result.overwhelm_side].name
        difference = abs(result.counts[0] - result.counts[1])
        count_text += (
            f" → Overwhelm: {bigger} +{battle.params.overwhelm_bonus} × {difference} = "
            f"+{result.overwhelm} on every combat roll."
        )
    else:
        count_text += " → no Overwhelm bonus."
    blocks.append(Text(count_text))
    rows = []
    for unit in battle.units:
        if result.fates[unit.index] != "fought" and _left_before_combat(result, unit.name):
            continue
        cells = [unit.name]
        for roll, _ in TALLY_ROLLS:
            if roll == "ranged_attack" and not unit.ranged:
                cells.append("—")
                continue
            cells.append(f"{standing_total(battle, result, unit, roll):+d}")
        rows.append(tuple(cells))
    if rows:
        blocks.append(
            Table(
                ("unit", *(name for _, name in TALLY_ROLLS)),
                tuple(rows),
                title="Standing bonuses at starting PAX (dice not included)",
            )
        )
    return Section("Step 3 — Total all bonuses", tuple(blocks))


def _left_before_combat(result: BattleResult, name: str) -> bool:
    for event in result.events:
        if isinstance(event, AssessmentEvent) and event.unit == name and event.fate:
            return True
        if (
            isinstance(event, FleeRollEvent)
            and event.stage == TOTALS
            and event.unit == name
            and event.fled
        ):
            return True
    return False


def _begin(battle: Battle, events: Sequence[Event]) -> Section:
    lasting = [e for e in battle.effects if e.spec.trigger in ("start_of_combat", "per_round")]
    if not lasting:
        return Section(
            "Step 4 — Begin combat",
            (Text("No start-of-combat or per-round effects: on to ranged combat."),),
        )
    lines = []
    for effect in lasting:
        when = (
            "from the start of combat"
            if effect.spec.trigger == "start_of_combat"
            else ("at the start of every melee round")
        )
        lines.append(f"{_effect_text(effect)}, {when}")
    blocks: list[Block] = [Text("\n".join(lines))]
    blocks += [Text(_flee_text(e)) for e in events if isinstance(e, FleeRollEvent)]
    return Section("Step 4 — Begin combat", tuple(blocks))


def _ranged(battle: Battle, events: Sequence[Event]) -> Section:
    title = "Step 5 — Ranged combat"
    if not any(unit.ranged for unit in battle.units):
        return Section(title, (Text("No unit has a ranged weapon: on to melee."),))
    if not events:
        return Section(title, (Text("No ranged combatant is left facing an enemy: on to melee."),))
    return Section(title, tuple(_exchange_blocks(events)))


def _headline(battle: Battle, result: BattleResult) -> str:
    limit = battle.params.round_limit
    if result.winner is not None:
        loser = battle.sides[1 - result.winner].name
        return f"{battle.sides[result.winner].name} wins: {loser} has no unit left."
    if result.outcome == "draw":
        return "Draw: neither side has a unit left."
    attackers = [s.name for s in battle.sides if s.attacker]
    verb = "withdraws" if len(attackers) == 1 else "withdraw"
    rounds = f"{limit} melee round" + ("s" if limit != 1 else "")
    return f"After {rounds} {' and '.join(attackers)} {verb}: no one wins."


def _outcome(battle: Battle, result: BattleResult) -> Section:
    """The result in three lines, for the top of a post: winner, losses, goods and loot."""
    lines = []
    for side in battle.sides:
        losses = []
        for unit in side.units:
            lost = unit.pax - result.pax[unit.index]
            fate = result.fates[unit.index]
            if not lost and fate == "fought":
                continue
            text = f"{unit.name} −{lost} PAX" if lost else unit.name
            if fate != "fought":
                text += f" ({_FATE_CELL[fate]})"
            losses.append(text)
        lines.append(f"{side.name} losses: " + (", ".join(losses) if losses else "none"))
    blocks: list[Block] = [Text(_headline(battle, result), strong=True), Text("\n".join(lines))]
    if result.winner is None or not result.goods:
        blocks.append(Text("No goods are taken."))
    else:
        goods = f"{battle.sides[result.winner].name} takes goods worth {fmt(result.goods_value)}"
        if result.loot is not None:
            loot = result.loot
            goods += (
                f"; loot: gold {fmt(loot.gold)}, resources {loot.resources}, "
                f"items worth {loot.items}"
            )
        blocks.append(Text(goods + "."))
    return Section("Outcome", tuple(blocks))


def _explain_open_ended(sections: list[Section], from_face: int) -> list[Section]:
    """Add, under the first open-ended roll of the log, how such a roll works (once)."""
    pattern = re.compile(r"\b(\d+(?:\+\d+)+) \(d100\)")
    for index, section in enumerate(sections):
        for position, block in enumerate(section.blocks):
            if not isinstance(block, Text):
                continue
            lines = block.text.split("\n")
            for number, line in enumerate(lines):
                match = pattern.search(line)
                if match is None:
                    continue
                indent = line[: len(line) - len(line.lstrip())]
                note = f"{indent}({match.group(1)}: {from_face}–100 rolls again and adds)"
                if from_face == 100:
                    note = f"{indent}({match.group(1)}: 100 rolls again and adds)"
                lines.insert(number + 1, note)
                blocks = list(section.blocks)
                blocks[position] = replace(block, text="\n".join(lines))
                sections[index] = replace(section, blocks=tuple(blocks))
                return sections
    return sections


def _winner(battle: Battle, result: BattleResult) -> Section:
    blocks: list[Block] = []
    blocks.append(Text(_headline(battle, result), strong=True))
    rows = tuple(
        (
            unit.name,
            battle.sides[unit.side].name,
            f"{unit.pax}/{unit.max_pax}",
            f"{result.pax[unit.index]}/{unit.max_pax}",
            _FATE_CELL[result.fates[unit.index]],
        )
        for unit in battle.units
    )
    blocks.append(Table(("unit", "side", "PAX before", "PAX after", "fate"), rows, title="Units"))
    if result.winner is None:
        blocks.append(Text("No winner, so no goods are taken."))
        return Section("Step 7 — Winner and loot", tuple(blocks), fold=True)
    if not result.goods:
        blocks.append(Text("No enemy unit was defeated: no goods."))
        return Section("Step 7 — Winner and loot", tuple(blocks), fold=True)
    goods_rows = [
        (
            share.unit,
            _FATE_CELL[share.fate],
            str(share.unit_value),
            "100 %" if share.fate == "killed" else f"{fmt(share.share * 100)} % (PAX left)",
            fmt(share.value),
        )
        for share in result.goods
    ]
    goods_rows.append(("Total value of goods", "", "", "", fmt(result.goods_value)))
    blocks.append(
        Table(
            ("unit", "fate", "unit value", "share", "goods"),
            tuple(goods_rows),
            title="Value of goods (Unit Value = recruitment + upkeep)",
            total_rows=1,
        )
    )
    if result.loot is not None:
        loot = result.loot
        lows = (1, *(row.up_to + 1 for row in battle.params.loot_table))
        low, row = next(
            (low, row)
            for low, row in zip(lows, battle.params.loot_table, strict=False)
            if loot.face <= row.up_to
        )
        blocks.append(
            Text(
                f"Loot: d100 {loot.face} → loot table {low}–{row.up_to} (gold {row.gold} %, "
                f"resources {row.resources} %, items {row.items} %) → gold {fmt(loot.gold)}, "
                f"resources {loot.resources}, items worth {loot.items}."
            )
        )
    return Section("Step 7 — Winner and loot", tuple(blocks), fold=True)


def build_report(battle: Battle, result: BattleResult, ruleset: str) -> Report:
    """The full battle log of ``result``: the outcome first, then step by step.

    The steps are marked as details (``fold``) so a forum post can fold them under the
    outcome; the first open-ended roll (``98+54``) gets a line saying how such rolls work.

    >>> from fracas.core.dice import ScriptedDice
    >>> from fracas.rulesets.d100 import D100Ruleset, play_battle
    >>> battle = D100Ruleset().load({"fracas": 1, "ruleset": "d100", "sides": [
    ...     {"name": "A", "action": "raid",
    ...      "units": [{"name": "Scouts", "pax": 10, "dangerous_missions": 6}]},
    ...     {"name": "B", "action": "defend", "units": [{"name": "Guards", "pax": 10}]}]})
    >>> report = build_report(battle, play_battle(battle, ScriptedDice([90, 30])), "d100")
    >>> print(report.sections[0].blocks[0].text)
    B wins: A has no unit left.
    >>> print(report.sections[2].blocks[0].text)  # doctest: +NORMALIZE_WHITESPACE
    Scouts (6 Dangerous Mission Penalties):
      Morale assessment 65 = 90 (d100) − 25 (Dangerous missions) → bottles out
      Loyalty 30 = 30 (d100) → disbands, leaving its equipment
    """
    assessment = [e for e in result.events if isinstance(e, AssessmentEvent)]
    totals = [
        e
        for e in result.events
        if isinstance(e, NullifyEvent | FleeRollEvent)
        and (isinstance(e, NullifyEvent) or e.stage == TOTALS)
    ]
    begin = [e for e in result.events if isinstance(e, FleeRollEvent) and e.stage == RANGED]
    ranged = [
        e
        for e in result.events
        if isinstance(e, AttackEvent | CasualtyEvent) and e.phase == "ranged"
    ]
    sections = [
        _forces(battle),
        _assessment(battle, assessment),
        _roles(battle, assessment),
        _totals(battle, result, totals),
        _begin(battle, begin),
        _ranged(battle, ranged),
    ]
    if result.rounds == 0:
        sections.append(
            Section("Step 6 — Melee combat", (Text("One side has no unit left: no melee."),))
        )
    for round_no in range(1, result.rounds + 1):
        events = [e for e in result.events if _in_round(e, round_no)]
        blocks = _exchange_blocks(events) or [Text("No unit strikes.")]
        sections.append(Section(f"Step 6 — Melee round {round_no}", tuple(blocks)))
    sections.append(_winner(battle, result))
    # The steps are details under the outcome: a forum post may fold them away.
    sections = [sections[0], *(replace(section, fold=True) for section in sections[1:])]
    sections = _explain_open_ended(sections, battle.params.open_ended_from)
    title = battle.title or "d100 battle: " + " v ".join(side.name for side in battle.sides)
    if battle.description:
        sections.insert(0, Section("About", (Text(battle.description),)))
    sections.insert(0, _outcome(battle, result))
    return Report(
        ruleset=ruleset,
        title=title,
        sections=tuple(sections),
        data=report_data(battle, result),
    )


def _in_round(event: Event, round_no: int) -> bool:
    if isinstance(event, AttackEvent | CasualtyEvent):
        return event.phase == "melee" and event.round == round_no
    return isinstance(event, FleeRollEvent) and event.stage == MELEE and event.round == round_no


def roll_data(roll: Roll) -> dict[str, Any]:
    """A roll as JSON: unit, roll name, faces, then the breakdown (label, total, rows)."""
    return {
        "unit": roll.unit,
        "roll": roll.name,
        "faces": list(roll.faces),
        **breakdown_data(roll.breakdown),
    }


def event_data(event: Event) -> dict[str, Any]:
    """One event as JSON; ``kind`` comes first."""
    if isinstance(event, AssessmentEvent):
        return {
            "kind": "assessment",
            "unit": event.unit,
            "exempt": event.exempt,
            "roll": roll_data(event.roll) if event.roll else None,
            "loyalty": roll_data(event.loyalty) if event.loyalty else None,
            "fate": event.fate,
        }
    if isinstance(event, NullifyEvent):
        return {
            "kind": "nullify",
            "effect": event.effect,
            "origin": event.origin,
            "unit": event.unit,
        }
    if isinstance(event, FleeRollEvent):
        return {
            "kind": "flee_roll",
            "round": event.round,
            "effect": event.effect,
            "origin": event.origin,
            "unit": event.unit,
            "roll": roll_data(event.roll),
            "threshold": event.threshold,
            "fled": event.fled,
        }
    if isinstance(event, AttackEvent):
        return {
            "kind": "attack",
            "phase": event.phase,
            "round": event.round,
            "speed": event.speed,
            "attacker": event.attacker,
            "target": event.target,
            "target_roll": None
            if event.target_roll is None
            else {"face": event.target_roll[0], "among": list(event.target_roll[1])},
            "attack": roll_data(event.attack),
            "defence": roll_data(event.defence),
            "hit": event.hit,
            "damage": roll_data(event.damage) if event.damage else None,
            "reduction": roll_data(event.reduction) if event.reduction else None,
            "wounded": event.wounded,
            "morale": roll_data(event.morale) if event.morale else None,
            "pax_lost": event.pax_lost,
            "flees": event.flees,
        }
    return {
        "kind": "casualties",
        "phase": event.phase,
        "round": event.round,
        "unit": event.unit,
        "pax_lost": event.pax_lost,
        "pax": event.pax,
        "fate": event.fate,
    }


def report_data(battle: Battle, result: BattleResult) -> dict[str, Any]:
    """The JSON ``result`` object, keys in the order documented under "JSON output"."""
    steps: dict[str, list[dict[str, Any]]] = {
        "assessment": [],
        "totals": [],
        "begin": [],
        "ranged": [],
        "melee": [],
    }
    for event in result.events:
        if isinstance(event, AssessmentEvent):
            key = "assessment"
        elif isinstance(event, NullifyEvent):
            key = "totals"
        elif isinstance(event, FleeRollEvent):
            key = {TOTALS: "totals", RANGED: "begin"}.get(event.stage, "melee")
        else:
            key = event.phase
        steps[key].append(event_data(event))
    loot = result.loot
    return {
        "winner": winner_name(battle, result),
        "outcome": result.outcome,
        "rounds": result.rounds,
        "sides": [
            {
                "name": side.name,
                "action": side.action,
                "location": side.location,
                "attacker": side.attacker,
                "defender": side.defender,
                "units_present": result.counts[side.index],
                "overwhelm": result.overwhelm if result.overwhelm_side == side.index else 0,
            }
            for side in battle.sides
        ],
        "units": [
            {
                "name": unit.name,
                "side": battle.sides[unit.side].name,
                "race": unit.race,
                "pax_start": unit.pax,
                "pax": result.pax[unit.index],
                "max_pax": unit.max_pax,
                "fate": result.fates[unit.index],
                "nullified": unit.index in result.nullified,
            }
            for unit in battle.units
        ],
        "steps": steps,
        "goods": {
            "value": json_number(result.goods_value),
            "units": [
                {
                    "unit": share.unit,
                    "fate": share.fate,
                    "unit_value": share.unit_value,
                    "share": json_number(share.share),
                    "value": json_number(share.value),
                }
                for share in result.goods
            ],
            "loot": None
            if loot is None
            else {
                "face": loot.face,
                "gold": json_number(loot.gold),
                "resources": loot.resources,
                "items": loot.items,
            },
        },
    }
