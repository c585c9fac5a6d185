"""How many models a unit has left, how they stand in ranks, and what they add up to.

The state of a combat is a mapping from unit name to :class:`UnitStatus`; every function
here reads a unit together with its status and changes nothing.

>>> rows_of(files=5, models=22)
(5, 5, 5, 5, 2)
>>> extra_ranks(rows_of(files=5, models=22), rank_width=5)
3
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from fracas.rulesets.rankflank.scenario import TROOP_RANKS, Character, Combat, Options, Unit


class UnitStatus(NamedTuple):
    """What is left of a unit: the rank-and-file's wound pool and each character's wounds.

    A tuple, so that states of the combat hash and compare fast when exact odds merge them.
    """

    rank_and_file_wounds: int
    character_wounds: tuple[int, ...]
    fled: bool = False
    #: A round after the first in which the unit counts as charging (it caught a unit
    #: that Fell Back in Good Order the round before); 0 when there is none.
    charging_round: int = 0
    #: The round after the unit followed up a unit that Gave Ground (Frenzy's extra
    #: attack, ``frenzy_attacks: charging``); 0 when there is none. Set for frenzied
    #: units only, so that other fights stay equal and merge.
    followed_up_round: int = 0


State = Mapping[str, UnitStatus]


def initial_state(combat: Combat) -> dict[str, UnitStatus]:
    """Every unit as the scenario sets it up.

    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> orcs = initial_state(RankflankRuleset().load(EXAMPLE).combat)["Orcs"]
    >>> orcs.rank_and_file_wounds, orcs.character_wounds, orcs.fled, orcs.charging_round
    (20, (), False, 0)
    """
    return {
        unit.name: UnitStatus(
            rank_and_file_wounds=unit.models * unit.profile.W - unit.wounds_taken,
            character_wounds=tuple(c.profile.W - c.wounds_taken for c in unit.characters),
        )
        for unit in combat.units
    }


def rank_and_file(unit: Unit, status: UnitStatus) -> int:
    """Rank-and-file models still standing (a wounded model still stands)."""
    return -(-status.rank_and_file_wounds // unit.profile.W)


def characters_alive(unit: Unit, status: UnitStatus) -> tuple[Character, ...]:
    """The unit's characters with wounds left."""
    if not unit.characters:
        return ()
    return tuple(c for c, w in zip(unit.characters, status.character_wounds, strict=True) if w)


def fighting_characters(unit: Unit, status: UnitStatus) -> tuple[Character, ...]:
    """The unit's standing characters who fight: all but one who refused a challenge,
    unless he has become the unit's last model (then there is nobody to retire behind).

    He still stands in the unit: its models, ranks and Unit Strength count him.

    >>> from dataclasses import replace
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> captain = {"name": "Captain", "profile": "5 5 4 4 4 2 5 3 8"}
    >>> units = [{**EXAMPLE["units"][0], "characters": [captain]}, EXAMPLE["units"][1]]
    >>> combat = RankflankRuleset().load({**EXAMPLE, "units": units}).combat
    >>> spearmen = combat.unit("Spearmen")
    >>> status = initial_state(combat)["Spearmen"]
    >>> [c.name for c in fighting_characters(spearmen, status)]
    ['Captain']
    >>> [c.name for c in fighting_characters(replace(spearmen, retired="Captain"), status)]
    []
    >>> alone = status._replace(rank_and_file_wounds=0)
    >>> [c.name for c in fighting_characters(replace(spearmen, retired="Captain"), alone)]
    ['Captain']
    """
    standing = characters_alive(unit, status)
    retired = unit.retired
    if retired is None or (len(standing) == 1 and not status.rank_and_file_wounds):
        return standing
    return tuple(c for c in standing if c.name != retired)


def models_alive(unit: Unit, status: UnitStatus) -> int:
    """Rank-and-file plus characters standing."""
    characters = status.character_wounds
    # Counted in C: exact odds ask this of every unit of every fight they meet.
    standing = len(characters) - characters.count(0)
    return -(-status.rank_and_file_wounds // unit.profile.W) + standing


def charging(unit: Unit, status: UnitStatus, round_number: int) -> bool:
    """Whether ``unit`` counts as charging in round ``round_number``: its own charge in
    round 1, or a round it was given by catching a unit that Fell Back in Good Order.

    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> orcs = initial_state(combat)["Orcs"]
    >>> charging(combat.unit("Orcs"), orcs, 1), charging(combat.unit("Orcs"), orcs, 2)
    (True, False)
    >>> charging(combat.unit("Spearmen"), orcs._replace(charging_round=2), 2)
    True
    """
    return (unit.charged and round_number == 1) or status.charging_round == round_number


def in_combat(unit: Unit, status: UnitStatus) -> bool:
    """True while the unit has models and has not fled."""
    return not status.fled and models_alive(unit, status) > 0


def rows_of(*, files: int, models: int) -> tuple[int, ...]:
    """Models in each rank, front first; the last rank may be incomplete.

    >>> rows_of(files=5, models=3), rows_of(files=4, models=8)
    ((3,), (4, 4))
    """
    if models <= 0:
        return ()
    full, rest = divmod(models, files)
    return (files,) * full + ((rest,) if rest else ())


def unit_rows(unit: Unit, status: UnitStatus) -> tuple[int, ...]:
    """The ranks of a unit now (characters stand in the fighting rank)."""
    return rows_of(files=unit.files, models=models_alive(unit, status))


def extra_ranks(rows: tuple[int, ...], *, rank_width: int) -> int:
    """Ranks of ``rank_width`` or more behind the fighting rank; 0 if the unit is narrower.

    >>> extra_ranks((5, 5, 5, 5), rank_width=5), extra_ranks((4, 4, 4), rank_width=5)
    (3, 0)
    """
    if not rows or rows[0] < rank_width:
        return 0
    return sum(1 for row in rows[1:] if row >= rank_width)


def rank_rule(options: Options, unit: Unit) -> tuple[int, int] | None:
    """``(models a rank needs, most ranks that count)`` for ``unit``; ``None``: no rank bonus.

    ``ranks_by: rank_width`` gives every unit ``rank_width`` and ``max_rank_bonus``;
    ``troop_type`` (the oldworld preset) reads :data:`~.scenario.TROOP_RANKS`.

    >>> from fracas.rulesets.rankflank.scenario import Options
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> spearmen = RankflankRuleset().load(EXAMPLE).combat.unit("Spearmen")
    >>> rank_rule(Options(), spearmen), rank_rule(Options.for_edition("oldworld"), spearmen)
    ((5, 3), (5, 2))
    """
    if options.ranks_by == "troop_type":
        return TROOP_RANKS[unit.troop]
    return options.rank_width, options.max_rank_bonus


def rank_bonus(options: Options, unit: Unit, status: UnitStatus) -> int:
    """The unit's rank bonus, capped, before disruption takes it away: none in Skirmish or
    a column, one more at most in a Horde."""
    rule = rank_rule(options, unit)
    if rule is None or not unit.ranked:
        return 0
    width, cap = rule
    if unit.formation == "horde":
        cap += 1
    return min(extra_ranks(unit_rows(unit, status), rank_width=width), cap)


def ranks_of_width(rows: tuple[int, ...], *, rank_width: int) -> int:
    """Ranks of ``rank_width`` or more models, the fighting rank included."""
    if not rows or rows[0] < rank_width:
        return 0
    return sum(1 for row in rows if row >= rank_width)


def unit_strength(unit: Unit, status: UnitStatus) -> int:
    """Unit Strength now: each standing model's US, characters included."""
    return rank_and_file(unit, status) * unit.unit_strength_per_model + sum(
        c.unit_strength for c in characters_alive(unit, status)
    )


def leadership(unit: Unit, status: UnitStatus) -> int:
    """The highest Leadership in the unit, its standing characters included."""
    values = [c.profile.Ld for c in fighting_characters(unit, status)]
    if rank_and_file(unit, status):
        values.append(unit.profile.Ld)
    return max(values, default=unit.profile.Ld)


def engaged_enemies(combat: Combat, state: State, unit: Unit) -> tuple[Unit, ...]:
    """Enemy units in contact with ``unit`` that are still in the combat."""
    found = []
    for contact in combat.contacts[unit.name]:
        enemy = combat.unit(contact.enemy)
        if in_combat(enemy, state[enemy.name]):
            found.append(enemy)
    return tuple(found)


def disrupting_enemy(combat: Combat, state: State, unit: Unit) -> str | None:
    """The first enemy in the unit's flank or rear that disrupts it, if any (``"terrain"``
    for a unit the scenario marks disrupted)."""
    options = combat.options
    if unit.disrupted:
        return "terrain"
    for contact in combat.contacts[unit.name]:
        if contact.own_arc == "front":
            continue
        enemy = combat.unit(contact.enemy)
        status = state[enemy.name]
        if not in_combat(enemy, status):
            continue
        if _disrupts(enemy, status, options, unit):
            return enemy.name
    return None


def _disrupts(enemy: Unit, status: UnitStatus, options: Options, unit: Unit) -> bool:
    if enemy.formation == "skirmish":
        return False
    if options.disrupted_by == "ranks":
        ranks = ranks_of_width(unit_rows(enemy, status), rank_width=options.rank_width)
        return ranks >= options.disrupt_ranks
    needed = options.disrupt_unit_strength
    if options.steady_min_us is not None and unit.troop == "heavy_infantry":
        needed = options.steady_min_us  # Steady in the Ranks
    return unit_strength(enemy, status) >= needed
