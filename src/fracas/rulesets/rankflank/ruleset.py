"""The ``rankflank`` ruleset class: load, play, report and summarize a combat."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fracas.core.process import Played
from fracas.core.record import Recorder
from fracas.core.report import Report
from fracas.rulesets.base import ArmyImport, Ruleset, Summary, deferred
from fracas.rulesets.rankflank.odds import HEADLINES

if TYPE_CHECKING:  # the rules load with the first combat: listing rulesets needs none
    from fracas.rulesets.campaign import CampaignRules
    from fracas.rulesets.rankflank.document import RankflankDocument
    from fracas.rulesets.rankflank.fight import Fight
    from fracas.rulesets.rankflank.formation import UnitStatus
    from fracas.rulesets.rankflank.play import CombatProcess
    from fracas.rulesets.rankflank.scenario import Combat


@dataclass(frozen=True, slots=True)
class RankflankScenario:
    """A built combat with the title to put on its report."""

    combat: Combat
    title: str


class RankflankRuleset(Ruleset["RankflankDocument", RankflankScenario, "Fight"]):
    """Close combat of rank-and-flank fantasy regiments: blows, combat result, break test.

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> ruleset = RankflankRuleset()
    >>> scenario = ruleset.load({**EXAMPLE, "parameters": {"max_rounds": 1}})
    >>> summary = ruleset.summarize(scenario, ruleset.play(scenario, SeededDice(5)))
    >>> sorted(summary)[:3]
    ['breaks.Orcs', 'breaks.Spearmen', 'casualties.Orcs']
    """

    name = "rankflank"
    aliases = ("rank-and-flank", "fantasy")
    title = "Rank-and-flank close combat"
    summary = "fantasy regiments: blows, combat result, break test, pursuit"
    deterministic = False
    headlines = HEADLINES
    metric_labels = (
        ("winner", "Winner of the combat"),
        ("round_winner", "Winner of round 1"),
        ("cr.difference", "Round 1's combat result gap"),
        ("cr.*", "{name}'s combat result in round 1"),
        ("breaks.*", "{name} break"),
        ("falls_back.*", "{name} fall back in good order"),
        ("gives_ground.*", "{name} give ground"),
        ("caught.*", "{name} caught fleeing"),
        ("destroyed.*", "{name} destroyed"),
        ("casualties.*", "{name}'s casualties"),
        ("rounds", "Rounds fought"),
    )
    document_model = deferred("fracas.rulesets.rankflank.document", "RankflankDocument")
    params_model = deferred("fracas.rulesets.rankflank.document", "RankflankParams")

    @classmethod
    def result_schema(cls, command: str) -> dict[str, Any] | None:
        """The JSON Schema of a report's ``result`` (see its ``output_schema`` module)."""
        from fracas.rulesets.rankflank.output_schema import RESULTS

        return RESULTS.get(command)

    def build(self, document: RankflankDocument) -> RankflankScenario:
        """Check the units, engagements and challenge, and freeze the combat."""
        from fracas.rulesets.rankflank.scenario import build_combat

        combat = build_combat(document)
        title = document.title or " vs ".join(combat.sides)
        return RankflankScenario(combat, title)

    def process(self, scenario: RankflankScenario, recorder: Recorder) -> CombatProcess:
        """The combat as steps over :class:`Fight` values, stating what it explains through
        ``recorder``: a keeping one is handed every round, with every face, for the report;
        the summing one of exact odds and sampling builds nothing."""
        from fracas.rulesets.rankflank.play import CombatProcess

        return CombatProcess(scenario.combat, recorder)

    def report(self, scenario: RankflankScenario, played: Played[Fight]) -> Report:
        """Blows, combat-result tables, break tests and pursuit of every round."""
        from fracas.rulesets.rankflank.fight import CombatOutcome, Round
        from fracas.rulesets.rankflank.formation import initial_state
        from fracas.rulesets.rankflank.report import build_report

        combat, end = scenario.combat, played.state
        names = (unit.name for unit in combat.units)
        final = dict(zip(names, end.units, strict=True))
        rounds = tuple(note for note in played.notes if isinstance(note, Round))
        outcome = CombatOutcome(rounds, initial_state(combat), final, end)
        return build_report(combat, outcome, scenario.title)

    def import_army(
        self,
        path: Path,
        *,
        catalogues: Sequence[Path] = (),
        joins: Sequence[str] = (),
        side: str | None = None,
    ) -> ArmyImport:
        """A New Recruit, BattleScribe or Old World Builder list of The Old World as units
        (:mod:`fracas.rulesets.rankflank.armylists`)."""
        from fracas.rulesets.rankflank.armylists import import_army

        return import_army(path, catalogues=catalogues, joins=joins, side=side)

    def import_battle(
        self,
        first: Path,
        second: Path,
        fight: tuple[str, str],
        *,
        charger: str = "first",
        arc: str = "front",
        catalogues: Sequence[Path] = (),
        joins: Sequence[str] = (),
    ) -> ArmyImport:
        """An oldworld combat of one unit of each list (:func:`.armylists.import_battle`);
        each ``Character=Unit`` of ``joins`` goes to the list that has the character."""
        from fracas.rulesets.rankflank.armylists import import_battle, join, read_units

        armies = [read_units(path, catalogues, (), None) for path in (first, second)]
        for text in joins:
            who = text.partition("=")[0].strip()
            army = next((a for a in armies if any(u.name == who for u in a.units)), armies[0])
            army.units = join(army.units, [text], army.file)
        return import_battle(armies[0], armies[1], fight, charger=charger, arc=arc)

    def campaign_rules(self) -> CampaignRules:
        from fracas.rulesets.rankflank.campaign import RankflankCampaign

        return RankflankCampaign()

    def metrics(self, scenario: RankflankScenario, state: Fight) -> Summary:
        """Who won the combat and round 1, and what became of every unit.

        ``winner`` is the side still in the fight when the combat ends ("draw" when
        neither is, "undecided" when both are after the last round); ``round_winner`` and
        ``cr.*`` are round 1's. Per unit: ``breaks``, ``caught``, ``destroyed`` and
        ``casualties`` (models lost, characters included), and with three-outcome break
        tests (the oldworld preset) ``falls_back`` and ``gives_ground`` (at any time in the
        combat) after ``breaks``; ``rounds`` fought. A unit that Fell Back in Good Order and
        got away, or Gave Ground and was not followed up, is out of the fight for
        ``winner`` without having broken.
        """
        from fracas.rulesets.rankflank.formation import initial_state

        combat = scenario.combat
        winner, fates = _ending(combat, initial_state(combat), state)
        return {"winner": winner, **_round_one(combat, state), **fates}


def _metric_names(combat: Combat) -> tuple[str, ...]:
    """Every metric of a summary, in the order :meth:`RankflankRuleset.metrics`
    gives them."""
    from fracas.rulesets.rankflank.fight import round_one_metrics, unit_fate
    from fracas.rulesets.rankflank.formation import initial_state

    start = initial_state(combat)
    first = round_one_metrics(combat, ("draw", tuple(0 for _ in combat.sides), 0))
    three = (False, False) if combat.options.break_test == "three_outcomes" else None
    fates = (
        unit_fate(unit, start[unit.name], start[unit.name], False, three) for unit in combat.units
    )
    return ("winner", *first, *(name for fate in fates for name in fate), "rounds")


def _round_one(combat: Combat, state: Fight) -> Mapping[str, Hashable]:
    """Round 1's winner and scores, unless exact odds handed them over on the way
    (:meth:`~fracas.rulesets.rankflank.play.CombatProcess.settle`)."""
    from fracas.rulesets.rankflank.fight import round_one_metrics

    if state.first == ():
        return {}
    return round_one_metrics(combat, state.first or ("draw", (0, 0), 0))


def _ending(
    combat: Combat, start: Mapping[str, UnitStatus], state: Fight
) -> tuple[str, dict[str, Any]]:
    """The combat's winner, what became of every unit since ``start`` (but those whose
    fates exact odds handed over on the way), and the rounds."""
    from fracas.rulesets.rankflank.fight import unit_fate

    final = dict(zip((unit.name for unit in combat.units), state.units, strict=True))
    three = combat.options.break_test == "three_outcomes"
    fates: dict[str, Any] = {}
    for unit in combat.units:
        if unit.name not in state.gone:
            caught = unit.name in state.caught
            outcomes = (unit.name in state.fell_back, unit.name in state.gave_ground)
            fates.update(
                unit_fate(
                    unit,
                    start[unit.name],
                    final[unit.name],
                    caught,
                    outcomes if three else None,
                    unit.name in state.withdrawn,
                )
            )
    fates["rounds"] = state.round
    return combat_winner(combat, final), fates


def combat_winner(combat: Combat, final: dict[str, Any]) -> str:
    """The side still in the fight when the other has broken or been destroyed.

    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> combat_winner(combat, initial_state(combat))
    'undecided'
    """
    from fracas.rulesets.rankflank.formation import in_combat

    standing = [
        side
        for side in combat.sides
        if any(in_combat(unit, final[unit.name]) for unit in combat.side_units(side))
    ]
    if len(standing) == 1:
        return standing[0]
    return "draw" if not standing else "undecided"
