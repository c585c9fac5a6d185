"""What every step of the combat shares: the combat, the recorder, and what is kept.

:class:`Steps` is the base of :class:`~.play.CombatProcess`; each concern of a round is
a class of its own module (:mod:`.striking`, :mod:`.scoring`, :mod:`.fleeing`) built on
it, and :mod:`.play` puts them together into the round loop.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fracas.core.record import Recorder
from fracas.rulesets.rankflank.breaktest import BreakTest, OutcomeTest, Pursuit
from fracas.rulesets.rankflank.fight import Fight, Step, apply_wounds
from fracas.rulesets.rankflank.formation import State, UnitStatus, initial_state
from fracas.rulesets.rankflank.psychology import FearTest, lose_frenzy
from fracas.rulesets.rankflank.result import CombatResult, OverkillCredit, WoundCredit
from fracas.rulesets.rankflank.scenario import Combat, Unit
from fracas.rulesets.rankflank.strikes import StrikeRoll

T = TypeVar("T")
#: Most results :meth:`Steps._once` keeps before it starts afresh.
_KEPT_LIMIT = 400_000


@dataclass
class RoundLog:
    """What play with a keeping recorder gathers of the round being fought, for its
    :class:`~.fight.Round`; with the summing recorder there is none."""

    steps: list[Step] = field(default_factory=list)
    blows: list[StrikeRoll] = field(default_factory=list)
    initiative: int | None = None
    credits: list[WoundCredit] = field(default_factory=list)
    overkill: tuple[OverkillCredit, ...] = ()
    result: CombatResult | None = None
    tests: list[BreakTest] = field(default_factory=list)
    outcome_tests: list[OutcomeTest] = field(default_factory=list)
    fear: list[FearTest] = field(default_factory=list)
    pursuits: list[Pursuit] = field(default_factory=list)
    aftermath: list[str] = field(default_factory=list)
    after_blows: Mapping[str, UnitStatus] = field(default_factory=dict)
    #: The faces of each pursuer's one roll this round, shown again for every unit it chases.
    chase_faces: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)

    def close_step(self) -> None:
        if self.blows and self.initiative is not None:
            self.steps.append(Step(self.initiative, tuple(self.blows)))
        self.blows = []


class Steps:
    """The combat, its recorder and the caches every step reads (see :class:`~.play.CombatProcess`).

    Exact odds and sampling meet the same units in thousands of fights, so what depends
    only on the combat, the units' statuses and the round (who strikes at which
    Initiative, with which records; whether anyone still fights; who may pursue) is
    computed once per such key and kept (:meth:`_once`).
    """

    def __init__(self, combat: Combat, recorder: Recorder) -> None:
        self.combat = combat
        self.names = tuple(unit.name for unit in combat.units)
        self._index = {name: index for index, name in enumerate(self.names)}
        self._initial = self.key(initial_state(combat))
        #: The status every unit shares once its fate is counted apart (fled, no models).
        self._gone = tuple(
            UnitStatus(0, tuple(0 for _ in unit.characters), fled=True) for unit in combat.units
        )
        #: The frenzied units of each side, who lose their frenzy when their side loses.
        self._frenzied = {side: lose_frenzy(combat, side) for side in combat.sides}
        #: States every explained number and event: a keeping recorder gets each round
        #: (:class:`Round`) as a note; the summing one gets nothing built at all.
        self.recorder = recorder
        self.log: RoundLog | None = RoundLog() if recorder.keeps else None
        #: The oldworld preset's break test: Break, Fall Back in Good Order, Give Ground.
        self._three_outcomes = combat.options.break_test == "three_outcomes"
        #: Event metrics (:class:`~fracas.core.process.Eventful`): with three outcomes a
        #: unit may be caught, Fall Back or Give Ground and still fight on, round after
        #: round; remembering which would split every later state eight ways a unit.
        self.events: tuple[str, ...] = (
            tuple(
                f"{metric}.{name}"
                for name in self.names
                for metric in ("falls_back", "gives_ground", "caught")
            )
            if self._three_outcomes
            else ()
        )
        self.event_set = frozenset(self.events)
        #: Fixed for the combat: Unstable losers lose wounds before they test.
        self._unstable = any("unstable" in unit.rules for unit in combat.units)
        #: Fixed for the combat: without a fear-causing model, no round looks for testers.
        self.fear = any(
            "fear" in unit.kit.rules or any("fear" in c.kit.rules for c in unit.characters)
            for unit in combat.units
        )
        self._bonuses: dict[
            tuple[tuple[UnitStatus, ...], bool, tuple[OverkillCredit, ...]],
            tuple[dict[str, int], tuple[str, ...], dict[str, tuple[str, ...]]],
        ] = {}
        self._kept: dict[Hashable, Any] = {}
        #: What a step worked out for the fight seen last, by kind (see :meth:`_of_fight`).
        self._last: dict[str, tuple[Fight, Any]] = {}
        self._wounded: dict[Hashable, tuple[UnitStatus, int]] = {}
        self._credited: dict[Hashable, tuple[tuple[str, int], ...]] = {}

    def _of_fight(self, kind: str, fight: Fight, compute: Callable[[], T]) -> T:
        """``compute()`` for ``fight``, kept for the last fight of each ``kind``: exact odds
        and sampling replay a step once per branch of its dice from the same fight object."""
        last = self._last.get(kind)
        if last is not None and last[0] is fight:
            found: T = last[1]
            return found
        found = compute()
        self._last[kind] = (fight, found)
        return found

    def _once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept under ``key`` (a pure function of the combat and ``key``)."""
        kept = self._kept
        try:
            found: T = kept[key]
        except KeyError:
            if len(kept) >= _KEPT_LIMIT:
                kept.clear()
            found = kept[key] = compute()
        return found

    def key(self, state: State) -> tuple[UnitStatus, ...]:
        return tuple(state[name] for name in self.names)

    def state(self, fight: Fight) -> dict[str, UnitStatus]:
        return dict(zip(self.names, fight.units, strict=True))

    def _wound(
        self, unit: Unit, status: UnitStatus, character: str | None, wounds: int
    ) -> tuple[UnitStatus, int]:
        """:func:`apply_wounds` on one unit's status, kept: fights share their units' states."""
        key = (unit.name, status, character, wounds)
        found = self._wounded.get(key)
        if found is None:
            if len(self._wounded) >= _KEPT_LIMIT:
                self._wounded.clear()
            state, taken = apply_wounds({unit.name: status}, unit, character, wounds)
            found = self._wounded[key] = (state[unit.name], taken)
        return found

    def _ready(self, after: Fight) -> Fight:
        """The fight made ready to wait for its next step (the round loop says how)."""
        raise NotImplementedError

    def _end(self, fight: Fight) -> Fight:
        """The fight once its round is over (the round loop says what follows)."""
        raise NotImplementedError
