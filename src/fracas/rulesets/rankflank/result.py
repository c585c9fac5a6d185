"""The combat result: every bonus of each side as a row of a :class:`Breakdown`.

:func:`combat_result` takes the wounds directly (as :class:`WoundCredit` values), so it
serves the played round and a hand-made tally alike. It reads the combat *after* the
round's casualties: ranks, disruption and Unit Strength are counted on what is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from fracas.core.record import Explained, KeepingRecorder, Recorder
from fracas.rulesets.rankflank.formation import (
    State,
    UnitStatus,
    characters_alive,
    charging,
    disrupting_enemy,
    in_combat,
    rank_and_file,
    rank_bonus,
    rank_rule,
    unit_strength,
)
from fracas.rulesets.rankflank.scenario import FLANKS, MASSED_INFANTRY, Combat, Unit

ARC_NAMES = {"front": "front", "left": "left flank", "right": "right flank", "rear": "rear"}


@dataclass(frozen=True, slots=True)
class WoundCredit:
    """``wounds`` unsaved wounds that ``source`` (a unit, or another cause) of ``side``
    inflicted on unit ``target``."""

    side: str
    source: str
    target: str
    wounds: int


@dataclass(frozen=True, slots=True)
class OverkillCredit:
    """A challenge won by ``character`` of ``side`` with ``excess`` wounds to spare."""

    side: str
    character: str
    excess: int


@dataclass(frozen=True, slots=True)
class CombatResult:
    """Both sides' scores, the winner (``None`` on a draw) and the gap between them."""

    #: Each side's score: a full breakdown when a keeping recorder built it, else its sum.
    scores: Mapping[str, Explained]
    winner: str | None
    difference: int
    wiped_out: tuple[str, ...]

    def score(self, side: str) -> int:
        """The side's combat result as a whole number."""
        return int(self.scores[side])

    @property
    def loser(self) -> str | None:
        """The side that lost the round, if any."""
        if self.winner is None:
            return None
        return next(side for side in self.scores if side != self.winner)


def battle_standard_carried(unit: Unit, status: UnitStatus) -> bool:
    """True while the unit includes its battle standard: its bearer still stands.

    A named character carries it until slain; a bearer in the rank and file, while any
    rank and file are left.
    """
    if not unit.battle_standard:
        return False
    if unit.battle_standard_bearer is None:
        return rank_and_file(unit, status) > 0
    return any(c.name == unit.battle_standard_bearer for c in characters_alive(unit, status))


def standing_units(combat: Combat, state: State, side: str) -> tuple[Unit, ...]:
    """Units of ``side`` still in the combat: with models left, not fled."""
    return tuple(u for u in combat.side_units(side) if in_combat(u, state[u.name]))


def fighting_units(
    combat: Combat, state: State, side: str, standing: tuple[Unit, ...] | None = None
) -> tuple[Unit, ...]:
    """Units of ``side`` still in the combat and in contact with an enemy that has not fled.

    An enemy slain to the last model still counts as the one the unit fought; a unit whose
    enemies have all fled (or that pursued them) adds nothing to its side's result.
    ``standing`` is :func:`standing_units` of ``side`` when the caller has it.
    """
    if standing is None:
        standing = standing_units(combat, state, side)
    return tuple(
        unit
        for unit in standing
        if any(not state[c.enemy].fled for c in combat.contacts[unit.name])
    )


def _effective_height(unit: Unit, round_number: int) -> int:
    downhill = 1 if unit.charged_downhill and unit.charged and round_number == 1 else 0
    return unit.height + downhill


def _wounds(
    score: Explained, combat: Combat, side: str, credits: Iterable[WoundCredit]
) -> Explained:
    totals: dict[tuple[str, str], int] = {}
    for credit in credits:
        if credit.side == side:
            key = (credit.source, credit.target)
            totals[key] = totals.get(key, 0) + credit.wounds
    for (source, target), wounds in totals.items():
        if combat.unit(target).side == side:
            score = score.plus(
                "Wounds on own models (not counted)",
                0,
                source=f"{source} on {target} ({wounds})",
                rule="wounds",
            )
        else:
            score = score.plus("Wounds", wounds, source=f"{source} on {target}", rule="wounds")
    return score


def _best_assignment(groups: list[list[str]], bonus: Mapping[str, int]) -> tuple[str | None, ...]:
    """The unit whose ranks count in each arc group (``None``: nobody), each unit once.

    The placement with the highest total wins, whatever the order of the file. Units are
    placed best bonus first (file order on a tie, ``bonus`` being in file order); a unit
    whose arcs are all taken may move an earlier one to another of that one's arcs. That
    greedy choice is optimal here, because a unit's bonus is the same in every arc it
    fights (the sets of units that can be placed together form a transversal matroid).

    >>> _best_assignment([["Big", "Small"], ["Big"]], {"Big": 3, "Small": 2})
    ('Small', 'Big')
    >>> _best_assignment([["Three", "Four"]], {"Three": 2, "Four": 3})
    ('Four',)
    """
    if all(len(members) == 1 for members in groups) and len(groups) == len(
        {members[0] for members in groups}
    ):
        return tuple(members[0] for members in groups)  # one unit an arc, each in one arc
    arcs_of: dict[str, list[int]] = {name: [] for name in bonus}
    for index, members in enumerate(groups):
        for name in members:
            arcs_of[name].append(index)
    holder: list[str | None] = [None] * len(groups)

    def place(name: str, tried: set[int]) -> bool:
        for index in arcs_of[name]:
            if index in tried:
                continue
            tried.add(index)
            current = holder[index]
            if current is None or place(current, tried):
                holder[index] = name
                return True
        return False

    for name in sorted(bonus, key=lambda name: -bonus[name]):
        place(name, set())
    return tuple(holder)


def _ranks(score: Explained, combat: Combat, state: State, units: tuple[Unit, ...]) -> Explained:
    options = combat.options
    groups: dict[tuple[str, str], list[str]] = {}
    for unit in units:
        for contact in combat.contacts[unit.name]:
            foe = combat.unit(contact.enemy)
            if in_combat(foe, state[foe.name]):
                groups.setdefault((contact.enemy, contact.enemy_arc), []).append(unit.name)
    bonus: dict[str, int] = {}
    disrupted: dict[str, str] = {}
    for unit in units:
        disruptor = disrupting_enemy(combat, state, unit)
        bonus[unit.name] = 0 if disruptor else rank_bonus(options, unit, state[unit.name])
        if disruptor:
            disrupted[unit.name] = disruptor
    if options.rank_bonus_per == "side":
        return _side_ranks(score, units, bonus, disrupted)
    chosen = _best_assignment(list(groups.values()), bonus)
    counted = {name for name in chosen if name is not None}
    for ((enemy, arc), members), name in zip(groups.items(), chosen, strict=True):
        where = f"the {ARC_NAMES[arc]} of {enemy}"
        if name is None:
            continue  # every unit of this arc counts in another one
        idle = [m for m in members if m not in counted]
        if name in disrupted:
            source = f"{name} (disrupted by {disrupted[name]}) in {where}"
            score = score.plus("Ranks", 0, source=source, rule="ranks")
        else:
            score = score.plus("Ranks", bonus[name], source=f"{name} in {where}", rule="ranks")
        for other in idle:
            score = score.plus(
                "Ranks (shared arc: the higher counts)",
                0,
                source=f"{other} in {where}",
                rule="ranks",
            )
    return score


def _side_ranks(
    score: Explained,
    units: tuple[Unit, ...],
    bonus: Mapping[str, int],
    disrupted: Mapping[str, str],
) -> Explained:
    """``rank_bonus_per: side``: the one best rank bonus of the side (file order on a tie);
    every other unit is shown at 0, a disrupted one with what disrupts it."""
    if not units:
        return score
    best = max(units, key=lambda unit: bonus[unit.name])
    for unit in units:
        if unit.name in disrupted:
            source = f"{unit.name} (disrupted by {disrupted[unit.name]})"
            score = score.plus("Ranks", 0, source=source, rule="ranks")
        elif unit is best:
            score = score.plus("Ranks", bonus[unit.name], source=unit.name, rule="ranks")
        else:
            source = f"{unit.name} (the side's best counts)"
            score = score.plus("Ranks", 0, source=source, rule="ranks")
    return score


def _combat_order(
    score: Explained, combat: Combat, state: State, units: tuple[Unit, ...]
) -> Explained:
    """+1 for each unit in Combat Order with at least ``combat_order_min_us``; a unit with
    no ranks by its troop type (a swarm, a monster) has no Combat Order. Disruption does
    not take it away."""
    options = combat.options
    for unit in units:
        if rank_rule(options, unit) is None or not unit.close_order:
            continue
        strength = unit_strength(unit, state[unit.name])
        if strength >= options.combat_order_min_us:
            source = f"{unit.name} (US {strength} ≥ {options.combat_order_min_us})"
            score = score.plus("Combat Order", 1, source=source, rule="combat_order")
    return score


def _standards(
    score: Explained, combat: Combat, state: State, units: tuple[Unit, ...]
) -> Explained:
    """+1 for each unit's standard, or once for the side's (``standard_per: side``)."""
    once = combat.options.standard_per == "side"
    for unit in units:
        if unit.standard and rank_and_file(unit, state[unit.name]):
            score = score.plus("Standard", 1, source=unit.name, rule="standard")
            if once:
                break
    return score


def _flank_and_rear(
    score: Explained, combat: Combat, units: tuple[Unit, ...], enemy_units: tuple[Unit, ...]
) -> Explained:
    per_unit = combat.options.flank_and_rear_per == "unit"
    for enemy in enemy_units:
        arcs: dict[str, list[str]] = {}
        for unit in units:
            if unit.formation == "skirmish" and not combat.options.skirmisher_arc_bonus:
                continue
            for contact in combat.contacts[unit.name]:
                if contact.enemy == enemy.name:
                    arcs.setdefault(contact.enemy_arc, []).append(unit.name)
        if per_unit:
            score = _per_unit_flank_and_rear(score, enemy, arcs)
            continue
        flanks = [arc for arc in FLANKS if arc in arcs]
        if flanks:
            who = ", ".join(f"{'/'.join(arcs[a])} on its {a} flank" for a in flanks)
            label = "Flank (both flanks)" if len(flanks) == 2 else "Flank"
            score = score.plus(label, len(flanks), source=f"{enemy.name}: {who}", rule="flank")
        if "rear" in arcs:
            who = "/".join(arcs["rear"])
            score = score.plus("Rear", 2, source=f"{enemy.name}: {who} in its rear", rule="rear")
    return score


def _per_unit_flank_and_rear(
    score: Explained, enemy: Unit, arcs: dict[str, list[str]]
) -> Explained:
    """``flank_and_rear_per: unit``: every unit in a flank of ``enemy`` adds +1, in its rear +2."""
    for arc in (*FLANKS, "rear"):
        for name in arcs.get(arc, ()):
            if arc == "rear":
                where, label, bonus, rule = "in its rear", "Rear", 2, "rear"
            else:
                where, label, bonus, rule = f"on its {arc} flank", "Flank", 1, "flank"
            score = score.plus(label, bonus, source=f"{enemy.name}: {name} {where}", rule=rule)
    return score


def _strengths(state: State, units: tuple[Unit, ...]) -> str:
    """``Guard 28``, or ``Clanrats 3 + Stormvermin 20 = 23`` for several units."""
    parts = [(u.name, unit_strength(u, state[u.name])) for u in units]
    text = " + ".join(f"{name} {value}" for name, value in parts)
    if len(parts) != 1:
        text += f" = {sum(value for _, value in parts)}"
    return text


def side_score(
    combat: Combat,
    state: State,
    side: str,
    credits: Iterable[WoundCredit],
    *,
    round_number: int = 1,
    overkill: Iterable[OverkillCredit] = (),
    fighting: Mapping[str, tuple[Unit, ...]] | None = None,
    record: Recorder | None = None,
) -> Explained:
    """One side's combat result, row by row, on the state after the round's casualties.

    ``fighting`` holds :func:`fighting_units` of both sides when the caller has them.
    ``record`` builds the score (default: a keeping recorder, every row kept).

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> score = side_score(combat, initial_state(combat), "Greenskins",
    ...                    [WoundCredit("Greenskins", "Orcs", "Spearmen", 4)])
    >>> [(row.label, int(row.value)) for row in score.rows], int(score)
    ([('Start', 0), ('Wounds', 4), ('Charge', 1), ('Ranks', 3)], 8)
    """
    options = combat.options
    enemy = combat.enemy_of(side)
    if fighting is None:
        fighting = {s: fighting_units(combat, state, s) for s in (side, enemy)}
    units, enemy_units = fighting[side], fighting[enemy]
    score = (record or KeepingRecorder()).start(f"Combat result of {side}", "Start", 0)
    score = _wounds(score, combat, side, credits)
    if options.charge_bonus:
        for unit in units:
            if charging(unit, state[unit.name], round_number):
                score = score.plus("Charge", 1, source=unit.name, rule="charge")
    score = _ranks(score, combat, state, units)
    if options.combat_order:
        score = _combat_order(score, combat, state, units)
    if options.outnumber_bonus or options.massed_infantry:
        ours = sum(unit_strength(u, state[u.name]) for u in units)
        theirs = sum(unit_strength(u, state[u.name]) for u in enemy_units)
        if ours > theirs:
            source = f"{_strengths(state, units)} vs {_strengths(state, enemy_units)}"
            if options.outnumber_bonus:
                score = score.plus("Higher Unit Strength", 1, source=source, rule="outnumber")
            # Massed Infantry replaces the plain outnumber bonus in the oldworld preset.
            if options.massed_infantry and any(u.troop in MASSED_INFANTRY for u in units):
                score = score.plus("Massed Infantry", 1, source=source, rule="massed_infantry")
    score = _standards(score, combat, state, units)
    for unit in units:
        if battle_standard_carried(unit, state[unit.name]):
            source = unit.battle_standard_bearer or unit.name
            score = score.plus("Battle standard", 1, source=source, rule="battle_standard")
    score = _flank_and_rear(score, combat, units, enemy_units)
    if units and enemy_units:
        ours_up = max(units, key=lambda u: _effective_height(u, round_number))
        theirs_up = max(_effective_height(u, round_number) for u in enemy_units)
        if _effective_height(ours_up, round_number) > theirs_up:
            score = score.plus("High ground", 1, source=ours_up.name, rule="high_ground")
    for credit in overkill:
        if credit.side == side and credit.excess > 0:
            bonus = min(credit.excess, options.overkill_max)
            score = score.plus(
                "Overkill",
                bonus,
                source=f"{credit.character}: {credit.excess} excess, max {options.overkill_max}",
                rule="overkill",
            )
    return score


def combat_result(
    combat: Combat,
    state: State,
    credits: Iterable[WoundCredit],
    *,
    round_number: int = 1,
    overkill: Iterable[OverkillCredit] = (),
    record: Recorder | None = None,
    tie_break: bool = True,
) -> CombatResult:
    """Score both sides and name the winner; a side wiped out loses whatever the scores.

    ``state`` is the combat after the round's casualties; ``credits`` the unsaved wounds
    each side inflicted (wounds on a side's own models are shown but never counted).
    ``record`` builds the scores: every row for a report (the default), or bare sums.
    ``tie_break: False`` leaves out :func:`musician_tie` (for bonuses that wounds are
    added to later).

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> result = combat_result(combat, initial_state(combat),
    ...                        [WoundCredit("Greenskins", "Orcs", "Spearmen", 4)])
    >>> result.score("Greenskins"), result.score("Empire"), result.winner
    (8, 4, 'Greenskins')

    Greenskins: 4 wounds + 1 charge + 3 ranks = 8; Empire: 3 ranks + 1 standard = 4 (equal
    Unit Strength, so nobody outnumbers).
    """
    credits = tuple(credits)
    overkill = tuple(overkill)
    standing = {side: standing_units(combat, state, side) for side in combat.sides}
    fighting = {side: fighting_units(combat, state, side, standing[side]) for side in standing}
    scores = {
        side: side_score(
            combat,
            state,
            side,
            credits,
            round_number=round_number,
            overkill=overkill,
            fighting=fighting,
            record=record,
        )
        for side in combat.sides
    }
    wiped = tuple(side for side in combat.sides if not standing[side])
    totals = {side: int(score) for side, score in scores.items()}
    tie_breaker = musician_tie(combat, state, totals, wiped) if tie_break else None
    if tie_breaker is not None:
        side, musician = tie_breaker
        scores[side] = scores[side].plus(
            "Musician (equal totals)", 1, source=musician, rule="musician"
        )
        totals[side] += 1
    winner, difference = decide(combat, totals, wiped)
    return CombatResult(scores, winner, difference, wiped)


def musician_tie(
    combat: Combat, state: State, totals: Mapping[str, int], wiped: tuple[str, ...]
) -> tuple[str, str] | None:
    """``(side, unit)`` when ``musician_tie`` breaks equal totals: +1 to the one side with
    a musician in a unit still fighting (its rank and file standing); ``None`` when the
    totals differ, a side is wiped out, or both sides or neither have one.

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> document = {**EXAMPLE, "parameters": {"edition": "oldworld"}}
    >>> document["units"] = [{**EXAMPLE["units"][0], "command": {"musician": True}},
    ...                      EXAMPLE["units"][1]]
    >>> combat = RankflankRuleset().load(document).combat
    >>> musician_tie(combat, initial_state(combat), {"Empire": 4, "Greenskins": 4}, ())
    ('Empire', 'Spearmen')
    """
    if not combat.options.musician_tie or wiped:
        return None
    first, second = combat.sides
    if totals[first] != totals[second]:
        return None
    found: dict[str, str] = {}
    for side in combat.sides:
        for unit in fighting_units(combat, state, side):
            if unit.musician and rank_and_file(unit, state[unit.name]):
                found[side] = unit.name
                break
    if len(found) != 1:
        return None
    return next(iter(found.items()))


def decide(
    combat: Combat, totals: Mapping[str, int], wiped: tuple[str, ...]
) -> tuple[str | None, int]:
    """The winner (``None`` on a draw) and the difference of two combat results.

    A side wiped out loses whatever the scores; both wiped out, or equal scores, is a draw.

    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> decide(RankflankRuleset().load(EXAMPLE).combat, {"Empire": 5, "Greenskins": 8}, ())
    ('Greenskins', 3)
    """
    first, second = combat.sides
    difference = abs(totals[first] - totals[second])
    if len(wiped) == 1:
        return combat.enemy_of(wiped[0]), difference
    if wiped or totals[first] == totals[second]:
        return None, difference
    return (first if totals[first] > totals[second] else second), difference
