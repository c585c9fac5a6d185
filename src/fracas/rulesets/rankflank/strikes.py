"""The round's strikes in two phases: gather frozen records, then roll dice from them.

Phase one (:func:`initiative_steps`, :func:`strike_records`) reads the combat and its
current state and returns :class:`StrikeRecord` values holding every number the dice need:
how many attacks, and the D6 target of each roll. Phase two rolls from a record alone:
:meth:`StrikeRecord.blows` is its dice as a :class:`~.blows.Blows` group, rolled die by die
in play (:func:`roll_strike`) and read as a closed-form law by the odds.

>>> record = StrikeRecord(round=1, initiative=3, side="a", attacker_unit="u", striker="u",
...     target_unit="v", target_character=None, attacks=10, weapon_skill=3,
...     target_weapon_skill=3, strength=3, toughness=3,
...     blow=Blow(to_hit=4, to_wound=4, armour=5, ward=None))
>>> unsaved_wound_chance(record)
Fraction(1, 6)
>>> from fracas.core.dice import ScriptedDice
>>> roll_strike(record, ScriptedDice([6, 6, 1] + [1] * 7 + [4, 6] + [5, 2])).faces.unsaved
1
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from fracas.core.dice import Dice
from fracas.core.modifiers import Breakdown, Modifier, Op
from fracas.core.record import SUMMING, Explained, KeepingRecorder, Recorder
from fracas.rulesets.rankflank.blows import Blow, Blows, Rolled, unsaved_chance
from fracas.rulesets.rankflank.formation import (
    State,
    characters_alive,
    charging,
    engaged_enemies,
    fighting_characters,
    in_combat,
    rank_and_file,
)
from fracas.rulesets.rankflank.scenario import (
    MASSED_INFANTRY,
    Character,
    Combat,
    Kit,
    Mount,
    Options,
    Unit,
)
from fracas.rulesets.rankflank.specials import (
    MOUNTED,
    OLDWORLD_TWO_HANDED,
    OLDWORLD_WEAPONS,
    TWO_HANDED,
    edition_name,
)
from fracas.rulesets.rankflank.tables import (
    armour_ap_target,
    armour_save_target,
    to_hit_target,
    to_wound_target,
)


@dataclass(frozen=True, slots=True)
class StrikeRecord:
    """Everything the dice of one group of attacks need, frozen before any die is rolled.

    ``striker`` is the attacking unit's name for its rank and file, or a character's name;
    a mount's blows add its name in brackets (``Knights (horses)``, ``Captain (warhorse)``).
    ``target_character`` is set when the blows land on a character (whose wounds are his
    own). ``blow`` holds what every blow's dice need (see :class:`.blows.Blow`).
    """

    round: int
    initiative: int
    side: str
    attacker_unit: str
    striker: str
    target_unit: str
    target_character: str | None
    attacks: int
    weapon_skill: int
    target_weapon_skill: int
    strength: int
    toughness: int
    #: The D6 targets and rules of each blow (to hit, to wound, saves, re-rolls, ...).
    blow: Blow
    #: ``blows``, or ``impact hits`` / ``stomp``: automatic hits, ``auto_hits`` (N, D3, D6)
    #: per model, ``attacks`` counting the models.
    kind: str = "blows"
    auto_hits: str | None = None
    #: Wounds of one model of the target (a multiple-wounds blow never spills over).
    model_wounds: int = 1
    #: The character whose own mount strikes here: its wounds on his challenge opponent
    #: are his in the challenge. ``None`` for every other striker.
    rider: str | None = None
    #: Where the numbers come from, for the report, in the order the rules apply: the
    #: breakdown of each number a rule changed (S, A, WS: its total is the number above)
    #: and the rules that change the dice. Empty unless a keeping recorder gathered it.
    explained: tuple[Breakdown | str, ...] = field(default=(), compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Exact odds hash every fight with its records still to strike, thousands of
        # times a second: who strikes whom, when and how often tells records apart, and
        # is hashed once.
        who = (self.striker, self.target_unit, self.target_character, self.kind)
        object.__setattr__(self, "_hash", hash((self.round, self.initiative, who, self.attacks)))

    def __hash__(self) -> int:
        return self._hash

    def blows(self, *, left: int, duel: bool) -> Blows:
        """This record's dice on a target with ``left`` wounds (:class:`.blows.Blows`)."""
        return Blows.on(
            self.blow,
            self.attacks,
            left=left,
            model_wounds=self.model_wounds,
            auto_hits=self.auto_hits,
            duel=duel,
        )


@dataclass(frozen=True, slots=True)
class StrikeRoll:
    """One record's blows as play rolled them: the record, and every face
    (:class:`.blows.Rolled`)."""

    record: StrikeRecord
    faces: Rolled


def unsaved_wound_chance(record: StrikeRecord) -> Fraction:
    """Chance that one attack of ``record`` gets through every save (a wound or more)."""
    return unsaved_chance(record.blow)


def roll_strike(record: StrikeRecord, dice: Dice) -> StrikeRoll:
    """Roll every die of ``record``'s blows, stage by stage (the faces do not depend on
    the wounds the target has left, only what they remove does)."""
    _, faces = record.blows(left=1, duel=False).roll(dice)
    return StrikeRoll(record, faces)


@dataclass(frozen=True, slots=True)
class _Striker:
    unit: Unit
    character: Character | None
    initiative: int
    kind: str = "blows"
    #: The mount that strikes: the rank and file's (``character`` is ``None``), or the
    #: character's own; ``None`` for the riders' (or anyone's) own blows.
    mount: Mount | None = None


#: The step of impact hits: before any blow of any Initiative.
IMPACT_STEP = 100


def effective_initiative(combat: Combat, unit: Unit, base: int, charges: bool) -> int:
    """Initiative in this round: a unit that ``charges`` adds the edition's bonus (by the
    inches it charged, with ``charge_initiative: distance``, to 10 at most)."""
    options = combat.options
    if not charges:
        return base
    if options.charge_initiative != "distance":
        return base + options.charger_initiative_bonus
    flank = any(c.enemy_arc in ("left", "right", "rear") for c in combat.contacts[unit.name])
    most = options.charger_initiative_bonus_flank if flank else options.charger_initiative_bonus
    bonus = most if unit.charge_distance is None else min(unit.charge_distance, most)
    return max(base, min(10, base + bonus))


def strike_step(combat: Combat, unit: Unit, kit: Kit, base: int, charges: bool) -> int:
    """The step a model's blows fall at: always strikes first / last, else its Initiative.

    A great weapon makes its wielder strike last; strikes first and last together cancel.
    With ``strike_first_last: initiative`` (The Old World) the rules set the Initiative to
    10 / 1 instead, and a charger's bonus comes on top of it.
    """
    first = "always_strikes_first" in kit.rules
    last = "always_strikes_last" in kit.rules or kit.weapon == "great_weapon"
    if combat.options.strike_first_last == "initiative":
        if first != last:
            base = 10 if first else 1
        return effective_initiative(combat, unit, base, charges)
    if first and not last:
        return combat.options.strikes_first_step
    if last and not first:
        return combat.options.strikes_last_step
    return effective_initiative(combat, unit, base, charges)


def fighting_models(
    combat: Combat, state: State, unit: Unit, round_number: int = 1
) -> tuple[int, int]:
    """``(fighting, supporting)`` rank-and-file models of ``unit`` now.

    Engaged in front, its fighting rank fights (characters stand in it first) and the next
    rank supports (infantry with spears: ``spear_extra_ranks`` more ranks, unless they
    charged this round); engaged only in flank or rear, as many models fight as the unit
    has ranks, with no support. With ``press_of_battle`` (the oldworld preset) only regular
    and heavy infantry support (Press of Battle), or a unit with spears (Fight in Extra
    Rank), and nobody in a round it charged. The scenario's ``fighting_models`` /
    ``supporting_models`` replace those counts (never above the models left).
    """
    status = state[unit.name]
    charges = charging(unit, status, round_number)
    rnf = rank_and_file(unit, status)
    characters = len(fighting_characters(unit, status))
    total = rnf + characters
    front = any(
        c.own_arc == "front" and in_combat(combat.unit(c.enemy), state[c.enemy])
        for c in combat.contacts[unit.name]
    )
    if front:
        ranks = 1
        if unit.kit.weapon == "spear" and unit.troop_type not in MOUNTED and not charges:
            ranks += combat.options.spear_extra_ranks
        fighting = max(0, min(unit.files, total) - characters)
        supporting = min(unit.files * ranks, max(0, total - unit.files))
        if combat.options.press_of_battle:
            extra_rank = unit.kit.weapon == "spear"
            in_ranks = unit.troop in MASSED_INFANTRY and unit.ranked
            if charges or not (in_ranks or extra_rank):
                supporting = 0
    else:
        # Fighting to a flank or rear only: a file of as many models as it has ranks, or
        # (The Old World) its largest rank or file; Press of Battle adds the next file.
        ranks = -(-total // unit.files)
        options = combat.options
        fighting = min(
            rnf, max(ranks, unit.files) if options.flank_fighters == "largest" else ranks
        )
        supporting = 0
        pressing = (
            options.press_of_battle
            and options.press_of_battle_arcs == "all"
            and unit.troop in MASSED_INFANTRY
            and unit.ranked
            and not charges
        )
        if pressing:
            supporting = ranks
    if unit.fighting_models is not None:
        fighting = unit.fighting_models
    fighting = min(fighting, rnf)
    if unit.supporting_models is not None:
        supporting = unit.supporting_models
    return fighting, max(0, min(supporting, rnf - fighting))


def _strikers(combat: Combat, state: State, round_number: int) -> Iterator[_Striker]:
    for unit in combat.units:
        status = state[unit.name]
        if not in_combat(unit, status) or not engaged_enemies(combat, state, unit):
            continue
        groups: list[tuple[Character | None, Kit, int]] = []
        if rank_and_file(unit, status):
            groups.append((None, unit.kit, unit.profile.I))
        groups.extend((c, c.kit, c.profile.I) for c in fighting_characters(unit, status))
        charges = charging(unit, status, round_number)
        for character, kit, base in groups:
            if "impact_hits" in kit.rules and _impacts(combat, unit, round_number):
                yield _Striker(unit, character, IMPACT_STEP, "impact hits")
            yield _Striker(unit, character, strike_step(combat, unit, kit, base, charges))
            mount = unit.mount if character is None else character.mount
            if mount is not None:
                step = strike_step(combat, unit, mount.kit, mount.profile.I, charges)
                yield _Striker(unit, character, step, mount=mount)
            if "stomp" in kit.rules:
                yield _Striker(unit, character, combat.options.strikes_last_step, "stomp")


#: The Old World's impact hits need a charge of this many inches or more.
IMPACT_MIN_INCHES = 3
#: The Old World's Armour Piercing of impact hits and stomps, by the striker's troop type.
IMPACT_AND_STOMP_AP = {"impact hits": ("heavy_chariot", 2), "stomp": ("monster", 2)}


def _impacts(combat: Combat, unit: Unit, round_number: int) -> bool:
    """A charger's impact hits land this round (the first of a charge; The Old World's
    need 3" of it, a charge of unknown length counting as enough)."""
    if not unit.charged or round_number != 1:
        return False
    if combat.options.impact_and_stomp != "oldworld" or unit.charge_distance is None:
        return True
    return unit.charge_distance >= IMPACT_MIN_INCHES


def _stomped(options: Options, target_troop: str) -> bool:
    """A stomp reaches a target of ``target_troop``: infantry in the older presets, all but
    monsters in The Old World."""
    if options.impact_and_stomp == "oldworld":
        return target_troop != "monster"
    return target_troop == "infantry"


def initiative_steps(combat: Combat, state: State, round_number: int) -> tuple[int, ...]:
    """The initiative values that strike this round, highest first."""
    steps = {s.initiative for s in _strikers(combat, state, round_number)}
    return tuple(sorted(steps, reverse=True))


def challenge_opponent(combat: Combat, state: State, name: str) -> tuple[Unit, Character] | None:
    """The standing opponent of character ``name`` in the challenge, if any."""
    if combat.challenge is None or name not in combat.challenge:
        return None
    other = combat.challenge[1] if name == combat.challenge[0] else combat.challenge[0]
    unit = combat.character_owner(other)
    if unit is None:
        return None
    for character in characters_alive(unit, state[unit.name]):
        if character.name == other and not state[unit.name].fled:
            mine = combat.character_owner(name)
            if mine is not None and any(
                c.name == name for c in characters_alive(mine, state[mine.name])
            ):
                return unit, character
    return None


def _in_challenge(combat: Combat, state: State, name: str) -> bool:
    return challenge_opponent(combat, state, name) is not None


def target_unit(combat: Combat, state: State, unit: Unit) -> Unit | None:
    """The enemy unit that ``unit`` attacks: its chosen one while it fights, else the first."""
    enemies = engaged_enemies(combat, state, unit)
    for enemy in enemies:
        if enemy.name == unit.attacks_target:
            return enemy
    return enemies[0] if enemies else None


def _target_character(combat: Combat, state: State, enemy: Unit) -> Character | None:
    """The character blows land on once no rank and file are left."""
    standing = fighting_characters(enemy, state[enemy.name])
    free = [c for c in standing if not _in_challenge(combat, state, c.name)]
    chosen = free or list(standing)
    return chosen[0] if chosen else None


@dataclass(frozen=True, slots=True)
class Conditions:
    """What the round's dice have changed so far: who failed a fear test this round, and
    which frenzied units have lost their frenzy."""

    afraid: frozenset[str] = frozenset()
    calmed: frozenset[str] = frozenset()
    #: Rank-and-file models each unit lost earlier this round (``stepping_forward``).
    slain: tuple[tuple[str, int], ...] = ()


def _better(rerolls: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    """The one re-roll a die gets: "failed" includes "ones"; the first source named wins."""
    for which in ("failed", "ones"):
        for found, source in rerolls:
            if found == which:
                return which, source
    return None, None


def _reroll_note(explain: Recorder, roll: str, which: str | None, source: str | None) -> None:
    if which is not None:
        dice = "failed" if which == "failed" else "1s"
        explain.note(f"re-rolled {dice} {roll} ({source})")


def _summed(
    explain: Recorder, name: str, base: int, bonuses: list[tuple[int, str]], rule: str
) -> int:
    """``base`` plus each bonus, as a breakdown the report shows when any bonus applies:
    the number the rules go on with is its total."""
    number: Explained = explain.start(name, name, base, rule="profile")
    for amount, why in bonuses:
        number = number.plus(why, amount, rule=rule)
    if bonuses:
        explain.note(number)
    return int(number)


def _set(explain: Recorder, name: str, base: int, value: int, why: str) -> int:
    """``base`` replaced by ``value`` for the reason ``why``, as a breakdown."""
    number = explain.start(name, name, base, rule="profile").then(
        Modifier(why, Op.BASE, Fraction(value), rule="fear")
    )
    explain.note(number)
    return int(number)


def _from_front(combat: Combat, target: Unit, attacker: Unit) -> bool:
    return any(
        c.enemy == attacker.name and c.own_arc == "front" for c in combat.contacts[target.name]
    )


def _record(
    combat: Combat,
    state: State,
    striker: _Striker,
    round_number: int,
    conditions: Conditions | None,
    record: Recorder,
) -> StrikeRecord | None:
    conditions = conditions or Conditions()
    options = combat.options
    edition = options.edition
    unit, character, kind = striker.unit, striker.character, striker.kind
    profile = unit.profile if character is None else character.profile
    kit = unit.kit if character is None else character.kit
    mount = striker.mount
    if mount is not None:
        profile, kit = mount.profile, mount.kit
    target: Unit | None
    victim: Character | None = None
    duel = challenge_opponent(combat, state, character.name) if character else None
    if duel is not None:
        target, victim = duel
    else:
        target = target_unit(combat, state, unit)
        if target is None:
            return None
        if not rank_and_file(target, state[target.name]):
            victim = _target_character(combat, state, target)
    defence = target.profile if victim is None else victim.profile
    target_kit = target.kit if victim is None else victim.kit
    if kind == "stomp" and not _stomped(options, target_kit.troop_type):
        return None
    charges = charging(unit, state[unit.name], round_number)
    # The record's own recorder: what it keeps explains this record alone.
    keeping = KeepingRecorder() if record.keeps else None
    explain: Recorder = keeping or SUMMING
    models = 1
    if character is None:
        fighting, supporting = fighting_models(combat, state, unit, round_number)
        if mount is not None:
            supporting = 0  # a mount strikes from the fighting rank only
        models = fighting
    strength = profile.S
    #: The weapon's Armour Piercing with where it comes from, and its Armour Bane.
    piercing_parts: list[tuple[int, str]] = []
    bane = 0
    if kind != "blows":
        attacks = models
        explain.note(f"{kind} ({kit.value(kind.replace(' ', '_'))}) per model, at S {strength}")
        troop, piercing_of_troop = IMPACT_AND_STOMP_AP.get(kind, ("", 0))
        striker_troop = unit.troop if character is None else kit.troop_type
        if options.impact_and_stomp == "oldworld" and troop and striker_troop == troop:
            piercing_parts.append((piercing_of_troop, f"{kind} of a {troop.replace('_', ' ')}"))
    else:
        bonuses: list[tuple[int, str]] = []
        weapon = kit.weapon
        if options.weapon_profiles == "oldworld":
            key = "cavalry_spear" if weapon == "spear" and kit.troop_type in MOUNTED else weapon
            rows = OLDWORLD_WEAPONS.get(key)
            if rows is not None:
                bonus, piercing_bonus, bane = rows[1 if charges else 0]
                name = key.replace("_", " ")
                label = f"{name}, on the charge" if charges and rows[0] != rows[1] else name
                if bonus:
                    bonuses.append((bonus, label))
                if piercing_bonus:
                    piercing_parts.append((piercing_bonus, label))
        elif weapon == "great_weapon":
            bonuses.append((2, "great weapon"))
        elif weapon == "halberd":
            bonuses.append((1, "halberd"))
        elif weapon == "flail" and round_number == 1:
            bonuses.append((2, "flail, first round"))
        elif weapon == "lance" and charges:
            bonuses.append((2, "lance, on the charge"))
        elif weapon == "spear" and kit.troop_type in MOUNTED and charges:
            bonuses.append((1, "spear, on the charge"))
        strength = _summed(explain, "S", profile.S, bonuses, "weapon")
        more: list[tuple[int, str]] = []
        if weapon == "paired_weapons":
            more.append((1, edition_name(edition, "paired_weapons")))
        frenzied = (
            options.frenzy_attacks == "always"
            or charges
            or state[unit.name].followed_up_round == round_number
        )
        if "frenzy" in kit.rules and unit.name not in conditions.calmed and frenzied:
            more.append((1, "frenzy"))
        if "devastating_charge" in kit.rules and charges:
            more.append((int(kit.value("devastating_charge") or 1), "devastating charge"))
        if "furious_charge" in kit.rules and charges and options.furious_charge_attacks:
            more.append((options.furious_charge_attacks, "furious charge"))
        if "choppas" in kit.rules and charges and options.choppas_ap:
            piercing_parts.append((options.choppas_ap, "choppas, on the charge"))
        per_model = _summed(explain, "A", profile.A, more, "attacks")
        if character is None:
            # Stepping forward: a model of the fighting rank slain before it strikes costs
            # its attacks; the model that takes its place makes none.
            stepped = 0
            if options.stepping_forward:
                stepped = min(fighting, dict(conditions.slain).get(unit.name, 0))
                if stepped:
                    explain.note(f"{stepped} slain before striking: no attacks (stepping forward)")
            attacks = (fighting - stepped) * per_model + supporting * options.supporting_attacks
            if weapon == "spear" and kit.troop_type not in MOUNTED and supporting > unit.files:
                explain.note(f"{supporting} supporting attacks (spear, an extra rank)")
        else:
            attacks = per_model
    weapon_skill, target_weapon_skill = profile.WS, defence.WS
    if unit.name in conditions.afraid and kind == "blows":
        weapon_skill = _set(
            explain, "WS", weapon_skill, options.fear_weapon_skill, "failed its fear test"
        )
    if target.name in conditions.afraid and kind == "blows":
        target_weapon_skill = _set(
            explain,
            "target WS",
            target_weapon_skill,
            options.fear_weapon_skill,
            "it failed its fear test",
        )
    to_hit: int | None = None
    hit_reroll: str | None = None
    if kind == "blows":
        to_hit = to_hit_target(weapon_skill, target_weapon_skill, options.to_hit_table)
        candidates: list[tuple[str, str]] = []
        own = kit.reroll("to_hit")
        if own is not None:
            candidates.append(own)
        if "hatred" in kit.rules and round_number <= options.hatred_rounds:
            candidates.append(("failed", "hatred, first round"))
        striking_first = (
            "always_strikes_first" in kit.rules
            and "always_strikes_last" not in kit.rules
            and kit.weapon != "great_weapon"
            and profile.I > defence.I
        )
        if striking_first:
            candidates.append(("failed", "always strikes first, higher Initiative"))
        hit_reroll, source = _better(candidates)
        _reroll_note(explain, "to hit", hit_reroll, source)
    to_wound = to_wound_target(strength, defence.T, options.to_wound_table)
    wound_reroll: str | None = None
    poisoned = killing_blow = False
    multiple: str | None = None
    if kind == "blows":
        wound_candidates = [r] if (r := kit.reroll("to_wound")) else []
        if "choppas" in kit.rules and charges and options.choppas_wound_reroll != "none":
            wound_candidates.append((options.choppas_wound_reroll, "choppas, on the charge"))
        wound_reroll, source = _better(wound_candidates)
        _reroll_note(explain, "to wound", wound_reroll, source)
        poisoned = "poisoned_attacks" in kit.rules
        if poisoned:
            explain.note(f"a natural 6 to hit wounds ({edition_name(edition, 'poisoned_attacks')})")
        slays = target_kit.troop_type in ("infantry", "cavalry")
        killing_blow = ("killing_blow" in kit.rules and slays) or (
            "heroic_killing_blow" in kit.rules
        )
        if killing_blow:
            explain.note(f"a natural 6 to wound slays ({edition_name(edition, 'killing_blow')})")
        multiple = kit.value("multiple_wounds")
        if multiple is not None:
            explain.note(f"multiple wounds ({multiple})")
    base_armour = target.armour if victim is None else victim.armour
    save = base_armour
    two_handed = OLDWORLD_TWO_HANDED if options.weapon_profiles == "oldworld" else TWO_HANDED
    if target_kit.shield and target_kit.weapon not in two_handed:
        save = (7 if base_armour is None else base_armour) - 1
        explain.note(f"save {save}+ with the target's shield")
    parrying = (
        options.parry
        and kind == "blows"
        and target_kit.troop_type == "infantry"
        and target_kit.weapon == "hand_weapon"
        and target_kit.shield
        and _from_front(combat, target, unit)
    )
    if parrying and options.parry_as == "armour" and save is not None and save > 3:
        save -= 1
        explain.note(f"save {save}+ with parry (hand weapon and shield, from the front)")
    if options.armour_cap and save is not None:
        best = 2 if target_kit.troop_type in ("infantry", "cavalry") else 3
        if save < best:
            save = best
            explain.note(f"save {best}+ at best ({target_kit.troop_type.replace('_', ' ')})")
    piercing = int(kit.value("armour_piercing") or 0)
    if options.saves_worsened_by == "ap":
        if piercing:
            piercing_parts.append((piercing, edition_name(edition, "armour_piercing")))
        total = sum(amount for amount, _ in piercing_parts)
        armour = armour_ap_target(save, total)
        if save is not None and total:
            why = (
                piercing_parts[0][1]
                if len(piercing_parts) == 1
                else ", ".join(f"{label} -{amount}" for amount, label in piercing_parts)
            )
            explain.note(f"AP -{total} ({why}): " + (f"save {armour}+" if armour else "no save"))
    else:
        armour = armour_save_target(save, strength)
        if armour is not None and piercing:
            explain.note(f"armour piercing ({piercing})")
        # With the oldworld weapons mixed in, their Armour Piercing adds to the rule's.
        weapon_piercing = sum(amount for amount, _ in piercing_parts)
        armour = armour_ap_target(armour, piercing + weapon_piercing)
    bane = max(bane, int(kit.value("armour_bane") or 0))
    if bane and armour is not None:
        explain.note(f"armour bane ({bane}): a natural 6 to wound worsens the save by {bane}")
    armour_reroll, source = _better([r] if (r := target_kit.reroll("armour")) else [])
    _reroll_note(explain, "armour saves", armour_reroll, source)
    wards: list[int] = []
    ward = target.ward if victim is None else victim.ward
    if ward is not None:
        wards.append(ward)
    regeneration = target_kit.value("regeneration")
    if regeneration is not None:
        if "flaming_attacks" in kit.rules:
            explain.note("no regeneration against flaming attacks")
        else:
            wards.append(int(regeneration.rstrip("+")))
    if parrying and options.parry_as == "ward":
        wards.append(6)
        if min(wards) == 6:
            explain.note("6+ parry (hand weapon and shield, from the front)")
    ward_reroll, source = _better([r] if (r := target_kit.reroll("ward")) else [])
    _reroll_note(explain, "ward saves", ward_reroll, source)
    return StrikeRecord(
        round=round_number,
        initiative=striker.initiative,
        side=unit.side,
        attacker_unit=unit.name,
        striker=(unit.name if character is None else character.name)
        + ("" if mount is None else f" ({mount.name})"),
        target_unit=target.name,
        target_character=None if victim is None else victim.name,
        attacks=attacks,
        weapon_skill=weapon_skill,
        target_weapon_skill=target_weapon_skill,
        strength=strength,
        toughness=defence.T,
        blow=Blow(
            to_hit=to_hit,
            to_wound=to_wound,
            armour=armour,
            ward=min(wards) if wards else None,
            hit_reroll=hit_reroll,
            wound_reroll=wound_reroll,
            armour_reroll=armour_reroll,
            ward_reroll=ward_reroll,
            poisoned=poisoned,
            killing_blow=killing_blow,
            multiple=multiple,
            armour_bane=bane if armour is not None and kind == "blows" else 0,
        ),
        kind=kind,
        auto_hits=None if kind == "blows" else kit.value(kind.replace(" ", "_")),
        model_wounds=defence.W,
        rider=character.name if character is not None and mount is not None else None,
        explained=()
        if keeping is None
        else tuple(n for n in keeping.notes if isinstance(n, Breakdown | str)),
    )


def strike_records(
    combat: Combat,
    state: State,
    round_number: int,
    initiative: int | None = None,
    conditions: Conditions | None = None,
    record: Recorder | None = None,
) -> tuple[StrikeRecord, ...]:
    """Records of every group that strikes now (at ``initiative``, or at every step).

    Counts come from ``state``: models slain at an earlier step do not strike. Each record
    explains its numbers (:attr:`StrikeRecord.explained`) unless ``record`` is a summing
    recorder (default: a keeping one).

    >>> from fracas.rulesets.rankflank.formation import initial_state
    >>> from fracas.rulesets.rankflank.document import EXAMPLE
    >>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
    >>> combat = RankflankRuleset().load(EXAMPLE).combat
    >>> [(r.striker, r.initiative, r.attacks, r.blow.to_hit, r.blow.to_wound,
    ...   r.blow.armour) for r in strike_records(combat, initial_state(combat), 1)]
    [('Spearmen', 3, 10, 4, 5, 6), ('Orcs', 3, 10, 4, 4, 5)]
    """
    records = []
    record = record or KeepingRecorder()
    for striker in _strikers(combat, state, round_number):
        if initiative is not None and striker.initiative != initiative:
            continue
        found = _record(combat, state, striker, round_number, conditions, record)
        if found is not None and found.attacks > 0:
            records.append(found)
    return tuple(records)
