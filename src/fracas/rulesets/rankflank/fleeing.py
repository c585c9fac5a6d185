"""The steps after a lost round: break tests, then each broken unit's flight and pursuit
(and, with three-outcome tests, each Fall Back in Good Order and its pursuit)."""

from __future__ import annotations

from typing import Any

from fracas.core.dice import Dice, draw
from fracas.rulesets.rankflank.breaktest import (
    BreakTest,
    BreakTests,
    ChaseRoll,
    OutcomeTest,
    OutcomeTests,
    Pursuit,
    PursuitRoll,
    Reach,
    break_stance,
    move_roll,
    outcome_stance,
)
from fracas.rulesets.rankflank.fight import Fight, apply_wounds, moved
from fracas.rulesets.rankflank.formation import (
    State,
    UnitStatus,
    engaged_enemies,
    in_combat,
    leadership,
    models_alive,
    unit_strength,
)
from fracas.rulesets.rankflank.scenario import Unit
from fracas.rulesets.rankflank.steps import Steps


class Fleeing(Steps):
    """Break tests, flight and pursuit: who breaks, who flees, who is caught."""

    def _break(self, fight: Fight, dice: Dice) -> Fight:
        group = self._break_group(fight)
        key: Any
        tests: tuple[BreakTest | OutcomeTest, ...] | None
        key, tests = draw(dice, group)
        if self.log is not None and tests is not None:
            for test in tests:
                if isinstance(test, OutcomeTest):
                    self.log.outcome_tests.append(test)
                else:
                    self.log.tests.append(test)
        return self._tested(fight, group, key)

    def _break_group(self, fight: Fight) -> BreakTests | OutcomeTests:
        """The losers' tests, pass-or-flee or of three outcomes as the preset says."""
        if self._three_outcomes:
            return self._outcome_tests(fight)
        return self._break_tests(fight)

    def _tested(self, fight: Fight, group: BreakTests | OutcomeTests, key: Any) -> Fight:
        """The fight once the tests of ``group`` came out as ``key`` says."""
        if isinstance(group, OutcomeTests):
            return self._outcomes(fight, group.units, key)
        return self._broken(fight, self._failed(group, key))

    def _outcome_tests(self, fight: Fight) -> OutcomeTests:
        """The losers' three-outcome tests but their rolls (kept: the state decides them)."""
        combat = self.combat
        return self._once(
            ("outcomes", fight.units, fight.testers, fight.difference, fight.round),
            lambda: OutcomeTests.of(
                tuple(
                    outcome_stance(combat, self.state(fight), combat.unit(name), fight.round)
                    for name in fight.testers
                ),
                fight.difference,
                combat.options.stubborn,
                combat.options.battle_standard_reroll,
            ),
        )

    def _outcomes(self, fight: Fight, units: tuple[str, ...], outcomes: tuple[str, ...]) -> Fight:
        """Units that Break flee and those that Fall Back in Good Order fall back, in the
        tests' order, each pursued; the winners follow up those that Give Ground
        (``follow_up``), or these break away and leave the combat."""
        fell_back = {u for u, o in zip(units, outcomes, strict=True) if o == "fall_back"}
        gave = {u for u, o in zip(units, outcomes, strict=True) if o == "give_ground"}
        # Worked out once for every outcome of the tests from this fight.
        fight = self._of_fight("tested", fight, lambda: self._charges_spent(fight))
        if fell_back or gave:
            fight = moved(
                fight, fell_back=fight.fell_back | fell_back, gave_ground=fight.gave_ground | gave
            )
        if gave:
            fight = self._given_ground(fight, gave)
        moving = tuple(u for u, o in zip(units, outcomes, strict=True) if o != "give_ground")
        return self._broken(fight, tuple(u for u in moving if u not in fell_back), moving)

    @staticmethod
    def _charges_spent(fight: Fight) -> Fight:
        """``fight`` with no unit counted as charging or following up: that mattered up to
        the break tests (Shieldwall); kept, it would split fights that are otherwise equal."""
        if not any(status.charging_round or status.followed_up_round for status in fight.units):
            return fight
        return moved(
            fight,
            units=tuple(s._replace(charging_round=0, followed_up_round=0) for s in fight.units),
        )

    def _given_ground(self, fight: Fight, gave: set[str]) -> Fight:
        """The fight once the units in ``gave`` have Given Ground and the winners chose."""
        options = self.combat.options
        units = list(fight.units)
        if not options.follow_up:
            for name in sorted(gave, key=self._index.__getitem__):
                index = self._index[name]
                units[index] = units[index]._replace(fled=True)
            return moved(
                fight,
                units=tuple(units),
                withdrawn=fight.withdrawn | gave,
                leaving=(*fight.leaving, *sorted(gave, key=self._index.__getitem__)),
            )
        followers = self._followers(fight, gave)
        if options.follow_up_charging:
            for name in followers:
                index = self._index[name]
                units[index] = units[index]._replace(charging_round=fight.round + 1)
            return moved(fight, units=tuple(units))
        frenzied = [n for n in followers if "frenzy" in self.combat.unit(n).kit.rules]
        if frenzied and options.frenzy_attacks == "charging":
            # Frenzy's extra attack is kept for the turn after a follow up too.
            for name in frenzied:
                index = self._index[name]
                units[index] = units[index]._replace(followed_up_round=fight.round + 1)
            return moved(fight, units=tuple(units))
        return fight

    def _followers(self, fight: Fight, gave: set[str]) -> list[str]:
        """The winning units in contact with a unit that Gave Ground: they follow it up."""
        combat, state = self.combat, self.state(fight)
        return [
            unit.name
            for unit in combat.units
            if unit.side == fight.winner
            and in_combat(unit, state[unit.name])
            and any(c.enemy in gave for c in combat.contacts[unit.name])
        ]

    @staticmethod
    def _failed(tests: BreakTests, held: tuple[bool, ...]) -> tuple[str, ...]:
        return tuple(unit for unit, ok in zip(tests.units, held, strict=True) if not ok)

    def _break_tests(self, fight: Fight) -> BreakTests:
        """The losers' break tests but their rolls (kept: they depend on the state alone)."""
        combat = self.combat
        difference = fight.difference
        return self._once(
            ("break", fight.units, fight.testers, difference),
            lambda: BreakTests.of(
                tuple(
                    self._once(
                        ("stance", fight.units, name),
                        lambda name=name: break_stance(  # type: ignore[misc]
                            combat, self.state(fight), combat.unit(name)
                        ),
                    )
                    for name in fight.testers
                ),
                difference,
            ),
        )

    def _broken(
        self, fight: Fight, fleeing: tuple[str, ...], moving: tuple[str, ...] | None = None
    ) -> Fight:
        """The fight once the units in ``fleeing`` have failed their break tests; every unit
        of ``moving`` (those, by default, and any that Fall Back in Good Order) then moves
        away in turn, pursued."""
        moving = fleeing if moving is None else moving
        if not moving:
            return self._end(fight)
        units = list(fight.units)
        for name in fleeing:
            index = self._index[name]
            units[index] = units[index]._replace(fled=True)
        # The difference has done its work: fights that differ only by it merge.
        return moved(
            fight, units=tuple(units), phase="flee", difference=0, testers=(), fleeing=moving
        )

    def _flee(self, fight: Fight, dice: Dice) -> Fight:
        """The first broken unit flees; each winning unit rolls once a round, whoever it chases."""
        chase = self._chase_for(fight)
        key, rolled = draw(dice, chase[3])
        return self._chased(fight, chase, key, rolled)

    def _chase_for(self, fight: Fight) -> tuple[Any, ...]:
        """The flight of the first broken unit: its pursuers (all, those rolling now, those
        that rolled earlier this round) and the chase's dice."""
        return self._of_fight("chase", fight, lambda: self._ready_chase(fight, self.state(fight)))

    def _ready_chase(self, fight: Fight, state: State) -> tuple[Any, ...]:
        combat = self.combat
        options = combat.options
        fleeing = combat.unit(fight.fleeing[0])
        winner = fight.winner
        assert winner is not None
        rolled_before = {name for name, _, _ in fight.chases}
        pursuers = self._once(
            ("pursuers", fleeing.name, winner, fight.units, fight.fleeing, fight.calmed),
            lambda: self._pursuers(fleeing, winner, state, fight.fleeing, fight.calmed),
        )
        later = {c.enemy for name in fight.fleeing[1:] for c in combat.contacts[name]}
        fresh = [p for p in pursuers if p.name not in rolled_before]
        known = [p for p in pursuers if p.name in rolled_before]
        falling_back = not state[fleeing.name].fled
        chase = ChaseRoll(
            move_roll(
                options,
                "swiftstride" in fleeing.rules,
                falling_back=falling_back,
                resolute="resolute" in fleeing.rules,
            ),
            tuple(
                (
                    self._restrain(p, state, fight.calmed),
                    move_roll(options, "swiftstride" in p.rules, resolute="resolute" in p.rules),
                )
                for p in fresh
            ),
            keep=tuple(p.name in later for p in fresh),
            known=tuple((r, d) for p in known for name, r, d in fight.chases if name == p.name),
        )
        # What the dice do not change, worked out once for every way the chase can end:
        # whose answers the key lists, in its order, and whose reaches it keeps.
        answering = tuple(p.name for p in fresh + known)
        keeping = tuple(p.name for p, keep in zip(fresh, chase.keep, strict=True) if keep)
        chases = {name: (r, d) for name, r, d in fight.chases}
        # Where in the key each pursuer's answer is; and the units once the catchers named
        # have caught the unit, kept for the keys that name the same catchers.
        slots = tuple(answering.index(p.name) for p in pursuers)
        caught_by: dict[tuple[str, ...], tuple[UnitStatus, ...]] = {}
        return pursuers, fresh, known, chase, answering, keeping, chases, slots, caught_by

    def _chased(self, fight: Fight, prepared: tuple[Any, ...], key: Any, rolled: Any) -> Fight:
        """The fight once the chase's dice have said who catches the fleeing unit."""
        fleeing = self.combat.units[self._index[fight.fleeing[0]]]
        pursuers, _, _, _, answering, keeping, chases, slots, caught_by = prepared
        caught, kept = key
        rolls = fight.chases
        if kept:
            chases = {**chases, **dict(zip(keeping, kept, strict=True))}
            rolls = tuple((name, r, d) for name, (r, d) in chases.items())
        catchers = [p for p, slot in zip(pursuers, slots, strict=True) if caught[slot]]
        units, wounds = fight.units, None
        index = self._index[fleeing.name]
        # A unit Falling Back in Good Order has not fled: caught, it is fought again
        # (``caught_fbigo``); not caught, it gets away and leaves the combat.
        engaged_again = (
            catchers and not units[index].fled and self.combat.options.caught_fbigo != "destroyed"
        )
        withdrawn = fight.withdrawn
        if catchers:
            names = tuple(p.name for p in catchers)
            found = caught_by.get(names)
            if found is None:
                found = caught_by[names] = self._caught(fight, fleeing, catchers)
            units, wounds = found
        elif not units[index].fled:
            units = (*units[:index], units[index]._replace(fled=True), *units[index + 1 :])
            withdrawn = withdrawn | {fleeing.name}
        if self.log is not None:
            hits = dict(zip(answering, caught, strict=True))
            self._log_pursuit(fight, prepared, hits, chases, rolled, catchers, units, wounds)
        rest = fight.fleeing[1:]
        fight = moved(
            fight,
            units=units,
            fleeing=rest,
            chases=rolls,
            caught=fight.caught | {fleeing.name} if catchers else fight.caught,
            leaving=fight.leaving if engaged_again else (*fight.leaving, fleeing.name),
            withdrawn=withdrawn,
        )
        return fight if rest else self._end(fight)

    def _caught(
        self, fight: Fight, fleeing: Unit, catchers: list[Unit]
    ) -> tuple[tuple[UnitStatus, ...], int | None]:
        """The units once ``catchers`` have caught ``fleeing``, and the wounds dealt: the
        unit destroyed (``None``), or wounds without saves for each point of the catchers'
        Unit Strength, as the edition says."""
        options = self.combat.options
        state = self.state(fight)
        if not state[fleeing.name].fled and options.caught_fbigo != "destroyed":
            # Caught as it Falls Back in Good Order: fought again, its catchers charging.
            if options.caught_fbigo == "combat_continues_charging":
                for catcher in catchers:
                    state[catcher.name] = state[catcher.name]._replace(
                        charging_round=fight.round + 1
                    )
            return self.key(state), None
        if options.caught == "destroyed":
            state[fleeing.name] = state[fleeing.name]._replace(
                rank_and_file_wounds=0,
                character_wounds=tuple(0 for _ in fleeing.characters),
            )
            return self.key(state), None
        strength = sum(unit_strength(p, state[p.name]) for p in catchers)
        wounds = remaining = options.caught_wounds_per_unit_strength * strength
        while remaining and models_alive(fleeing, state[fleeing.name]):
            state, taken = apply_wounds(state, fleeing, None, remaining)
            remaining -= taken
        return self.key(state), wounds

    def _log_pursuit(
        self,
        fight: Fight,
        prepared: tuple[Any, ...],
        hits: dict[str, bool],
        chases: dict[str, Reach],
        rolled: Any,
        catchers: list[Unit],
        after: tuple[UnitStatus, ...],
        wounds: int | None,
    ) -> None:
        """The report's record of one flight and its pursuit, every face shown."""
        log = self.log
        assert log is not None
        fleeing = self.combat.unit(fight.fleeing[0])
        pursuers, fresh, known = prepared[:3]
        distance, flee_faces = (rolled[0], rolled[1]) if rolled is not None else (0, ())
        rolls: dict[str, PursuitRoll] = {}
        for index, pursuer in enumerate(fresh):
            if rolled is None:
                rolls[pursuer.name] = PursuitRoll(
                    pursuer.name, (), False, (), 0, hits[pursuer.name]
                )
                continue
            restrain_faces, restrained, faces, reach = rolled[2][index]
            log.chase_faces[pursuer.name] = (restrain_faces, faces)
            rolls[pursuer.name] = PursuitRoll(
                pursuer.name, restrain_faces, restrained, faces, reach, hits[pursuer.name]
            )
        for pursuer in known:
            restrained, reach = chases[pursuer.name]
            restrain_faces, faces = log.chase_faces[pursuer.name]
            rolls[pursuer.name] = PursuitRoll(
                pursuer.name, restrain_faces, restrained, faces, reach, hits[pursuer.name]
            )
        ordered = tuple(rolls[p.name] for p in pursuers)
        falling_back = not fight.units[self._index[fleeing.name]].fled
        fate = "gets away" if falling_back else "flees"
        if catchers and falling_back and self.combat.options.caught_fbigo != "destroyed":
            fate = "is caught: the combat goes on"
            if self.combat.options.caught_fbigo == "combat_continues_charging":
                fate += ", " + " and ".join(p.name for p in catchers) + " charging"
        elif catchers:
            if wounds is None:
                fate = "is caught and destroyed"
            else:
                fate = f"is caught: {wounds} wounds without saves"
                if not models_alive(fleeing, after[self._index[fleeing.name]]):
                    fate += ", destroyed"
        log.pursuits.append(
            Pursuit(fleeing.name, flee_faces, distance, ordered, bool(catchers), fate)
        )

    def _pursuers(
        self,
        fleeing: Unit,
        winner: str,
        state: State,
        moving: tuple[str, ...],
        calmed: frozenset[str],
    ) -> list[Unit]:
        """Winning units in contact with ``fleeing`` that are free to pursue it: not held
        by an enemy that stays (every unit of ``moving`` moves away this round), and not
        restraining without a test (``restraint_test: false``)."""
        combat = self.combat
        options = combat.options
        away = dict(state)
        for name in moving:
            away[name] = away[name]._replace(fled=True)
        pursuers = []
        for contact in combat.contacts[fleeing.name]:
            pursuer = combat.unit(contact.enemy)
            if pursuer.side != winner or not in_combat(pursuer, state[pursuer.name]):
                continue
            if engaged_enemies(combat, away, pursuer):
                continue  # still held in combat by another enemy
            free = pursuer.restrain and not options.restraint_test
            if free and not self._must_pursue(pursuer, calmed):
                continue
            pursuers.append(pursuer)
        return pursuers

    @staticmethod
    def _must_pursue(pursuer: Unit, calmed: frozenset[str]) -> bool:
        return "frenzy" in pursuer.kit.rules and pursuer.name not in calmed

    def _restrain(self, pursuer: Unit, state: State, calmed: frozenset[str]) -> int | None:
        if self._must_pursue(pursuer, calmed):
            return None  # a frenzied unit must pursue
        return leadership(pursuer, state[pursuer.name]) if pursuer.restrain else None
