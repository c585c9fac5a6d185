"""One strike, in two phases: gather the inputs from the board, then compute.

Phase 1, :func:`gather_strike`, reads the board and freezes everything a strike needs
into a :class:`StrikeInputs` record: plain numbers plus the names of their sources (which
ally, which status, which hex). Phase 2, :func:`compute_strike`, is a pure function of
that record alone: it builds the Effective Atk and Effective Def as
:class:`~fracas.core.modifiers.Breakdown` rows (so the report's rows add up to the
Effective values by construction), then the ratio, the loss fraction and the losses.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> from fracas.rulesets.hex.document import HexParams
>>> board = Board.from_rows(["..."], [Unit.make("a", "blue", (0, 0), attack=10, defense=10),
...                                   Unit.make("b", "red", (1, 0), attack=10, defense=10)])
>>> strike = compute_strike(gather_strike(board, "a", "b", HexParams()))
>>> strike.effective_attack.total, strike.effective_defense.total, strike.fraction
(Fraction(1000, 1), Fraction(1000, 1), Fraction(1, 2))
>>> strike.losses  # floor(0.5 × 100 + 0.5)
50
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from fracas.core.modifiers import Breakdown, to_fraction
from fracas.core.report import fmt
from fracas.rulesets.hex.document import HexParams
from fracas.rulesets.hex.scenario import Board, Unit

#: Row labels in the order the seed lists the modifiers (the report keeps it).
ROW_STRENGTH = "Strength"
ROW_ATTACK = "Attack"
ROW_DEFENSE = "Defense"
ROW_LEVEL = "Lv"
ROW_ENCIRCLED = "Encircled"
ROW_TERRAIN = "Terrain"
ROW_STATUS_MUL = "Status (×)"
ROW_SUPPORT = "Support"
ROW_STATUS_ADD = "Status (+)"
ROW_FLOOR = "Floor at 0"
ROW_PIERCE = "Pierce"
ROW_ORDER = (
    ROW_STRENGTH,
    f"{ROW_ATTACK}/{ROW_DEFENSE}",
    ROW_LEVEL,
    ROW_ENCIRCLED,
    ROW_TERRAIN,
    ROW_STATUS_MUL,
    ROW_SUPPORT,
    ROW_STATUS_ADD,
    ROW_FLOOR,
    ROW_PIERCE,
)


@dataclass(frozen=True, slots=True)
class Supporter:
    """An adjacent ally: its id, soldiers and the printed number it lends a share of."""

    unit: str
    strength: int
    printed: Fraction


@dataclass(frozen=True, slots=True)
class SideInputs:
    """One side of a strike, gathered from the board: numbers and where they come from.

    For the striker ``printed`` is its attack against the target's domain; for the target
    it is its defence.
    """

    unit: str
    strength: int
    printed: Fraction
    level: int
    encirclers: tuple[str, ...]
    encirclement: Fraction
    terrain: str
    terrain_factor: Fraction
    status_mul: tuple[tuple[str, Fraction], ...]
    supporters: tuple[Supporter, ...]
    status_add: tuple[tuple[str, Fraction], ...]


@dataclass(frozen=True, slots=True)
class StrikeInputs:
    """Everything phase 2 needs, frozen: both sides plus the rule numbers in force."""

    attacker: SideInputs
    defender: SideInputs
    target_domain: str
    distance: int
    pierce: Fraction
    level_percent: Fraction
    support_share: Fraction
    defense_support_cap: Fraction
    loss_exponent: Fraction


@dataclass(frozen=True, slots=True)
class StrikeOutcome:
    """The result of phase 2: both breakdowns, the ratio, the fraction and the losses.

    ``ratio`` is ``None`` when Effective Def is 0 (no finite ratio).
    """

    inputs: StrikeInputs
    effective_attack: Breakdown
    effective_defense: Breakdown
    ratio: Fraction | None
    fraction: Fraction
    losses: int

    @property
    def striker(self) -> str:
        """Id of the unit that strikes."""
        return self.inputs.attacker.unit

    @property
    def target(self) -> str:
        """Id of the unit struck."""
        return self.inputs.defender.unit

    @property
    def target_strength(self) -> int:
        """Soldiers of the unit struck before the fight (the losses are a share of them)."""
        return self.inputs.defender.strength


def encirclement_factor(enemies: int, params: HexParams) -> Fraction:
    """Factor for a unit with ``enemies`` adjacent enemies (the table has entries 0 to 6).

    >>> encirclement_factor(1, HexParams()), encirclement_factor(3, HexParams())
    (Fraction(1, 1), Fraction(4, 5))
    """
    table = params.encirclement
    return to_fraction(table[min(enemies, len(table) - 1)])


def _side(
    board: Board,
    unit: Unit,
    printed: Fraction,
    struck: Unit,
    attacking: bool,
    params: HexParams,
    support_around: Unit,
) -> SideInputs:
    encirclers = tuple(enemy.id for enemy in board.adjacent_enemies(unit))
    terrain = board.terrain_at(unit.hex)
    # Supporters are the allies standing next to the combat's defending unit, in its attack
    # and in its counter alike (seed 000, "Support: … Either way, the allies who count…").
    supporters = tuple(
        Supporter(
            ally.id,
            ally.strength,
            ally.attack_vs(struck.domain) if attacking else ally.defense,
        )
        for ally in board.adjacent_units(support_around.hex)
        if ally.side == unit.side and ally.id != unit.id
    )
    return SideInputs(
        unit=unit.id,
        strength=unit.strength,
        printed=printed,
        level=unit.level,
        encirclers=encirclers,
        encirclement=encirclement_factor(len(encirclers), params),
        terrain=f"{terrain.name} {unit.hex}",
        terrain_factor=terrain.attack if attacking else terrain.defense,
        status_mul=tuple((s.name, s.atk_mul if attacking else s.def_mul) for s in unit.statuses),
        supporters=supporters,
        status_add=tuple((s.name, s.atk_add if attacking else s.def_add) for s in unit.statuses),
    )


def gather_strike(
    board: Board,
    striker_id: str,
    target_id: str,
    params: HexParams,
    *,
    support_around: str | None = None,
) -> StrikeInputs:
    """Phase 1: read the board and freeze the inputs of ``striker_id`` striking ``target_id``.

    Both sides' supporters are their allies next to ``support_around``: the defending unit
    of the combat, which is ``target_id`` (the default) for an attack and ``striker_id``
    for a counter (see :func:`fracas.rulesets.hex.play.fight`).
    """
    striker = board.unit(striker_id)
    target = board.unit(target_id)
    centre = target if support_around is None else board.unit(support_around)
    return StrikeInputs(
        attacker=_side(
            board, striker, striker.attack_vs(target.domain), target, True, params, centre
        ),
        defender=_side(board, target, target.defense, target, False, params, centre),
        target_domain=target.domain,
        distance=striker.hex.distance(target.hex),
        pierce=striker.pierce,
        level_percent=to_fraction(params.level_percent),
        support_share=to_fraction(params.support_share),
        defense_support_cap=to_fraction(params.defense_support_cap),
        loss_exponent=to_fraction(params.loss_exponent),
    )


def _names(pairs: tuple[tuple[str, Fraction], ...], op: str, neutral: Fraction) -> str:
    shown = [f"{name} {op}{fmt(value, 4)}" for name, value in pairs if value != neutral]
    return ", ".join(shown) or "none"


def _product(values: tuple[tuple[str, Fraction], ...]) -> Fraction:
    return math.prod((value for _, value in values), start=Fraction(1))


def _base(side: SideInputs, label: str, inputs: StrikeInputs, rule: str) -> Breakdown:
    """Rows Strength to Status (×): the part that every multiplier scales."""
    printed_label = ROW_ATTACK if rule == "attack" else ROW_DEFENSE
    printed_source = (
        f"{side.unit} vs {inputs.target_domain}" if rule == "attack" else f"{side.unit} printed"
    )
    if side.encirclers:
        encircled = f"{len(side.encirclers)} adjacent: {', '.join(side.encirclers)}"
    else:
        encircled = "no adjacent enemy"
    return (
        Breakdown.start(label, ROW_STRENGTH, side.strength, source=side.unit, rule="strength")
        .times(printed_label, side.printed, source=printed_source, rule=rule)
        .times(
            ROW_LEVEL,
            1 + side.level * inputs.level_percent / 100,
            source=f"{side.unit} Lv {side.level}",
            rule="level_percent",
        )
        .times(ROW_ENCIRCLED, side.encirclement, source=encircled, rule="encirclement")
        .times(ROW_TERRAIN, side.terrain_factor, source=side.terrain, rule="terrain")
        .times(
            ROW_STATUS_MUL,
            _product(side.status_mul),
            source=_names(side.status_mul, "×", Fraction(1)),
            rule="statuses",
        )
    )


def _support_total(side: SideInputs, share: Fraction) -> tuple[Fraction, str]:
    parts = []
    total = Fraction(0)
    for ally in side.supporters:
        value = share * ally.strength * ally.printed
        total += value
        parts.append(f"{ally.unit} {fmt(value)}")
    return total, " + ".join(parts) or "none"


def _floor(breakdown: Breakdown) -> Breakdown:
    """Negative additions cannot push an Effective value below 0: a visible row says so."""
    total = breakdown.total
    if total >= 0:
        return breakdown
    return breakdown.plus(ROW_FLOOR, -total, source="no negative strength", rule="floor")


def effective_attack(inputs: StrikeInputs) -> Breakdown:
    """Effective Atk: the multiplying rows, then Support and Status (+)."""
    side = inputs.attacker
    support, support_source = _support_total(side, inputs.support_share)
    breakdown = (
        _base(side, "Effective Atk", inputs, "attack")
        .plus(ROW_SUPPORT, support, source=support_source, rule="support_share")
        .plus(
            ROW_STATUS_ADD,
            sum((v for _, v in side.status_add), Fraction(0)),
            source=_names(side.status_add, "+", Fraction(0)),
            rule="statuses",
        )
    )
    return _floor(breakdown)


def effective_defense(inputs: StrikeInputs) -> Breakdown:
    """Effective Def: the multiplying rows, capped Support, Status (+), then Pierce."""
    side = inputs.defender
    base = _base(side, "Effective Def", inputs, "defense")
    cap = inputs.defense_support_cap * base.total
    support, support_source = _support_total(side, inputs.support_share)
    if support > cap:
        support_source += f" = {fmt(support)}, capped at {fmt(inputs.defense_support_cap)} × "
        support_source += f"{fmt(base.total)}"
        support = cap
    breakdown = base.plus(
        ROW_SUPPORT, support, source=support_source, rule="support_share, defense_support_cap"
    ).plus(
        ROW_STATUS_ADD,
        sum((v for _, v in side.status_add), Fraction(0)),
        source=_names(side.status_add, "+", Fraction(0)),
        rule="statuses",
    )
    pierce_source = (
        f"{inputs.attacker.unit} ignores {fmt(inputs.pierce * 100)} %"
        if inputs.pierce
        else "no pierce"
    )
    return _floor(breakdown).times(
        ROW_PIERCE, 1 - inputs.pierce, source=pierce_source, rule="pierce"
    )


def loss_fraction(attack: Fraction, defense: Fraction, exponent: Fraction) -> Fraction:
    """Share of the target's soldiers lost: ``r^k / (1 + r^k)`` with ``r = attack / defense``.

    An attack of 0 takes nothing; any attack against a defence of 0 takes everything.

    >>> even, double, half = [(1, 1), (2, 1), (1, 2)]
    >>> [str(loss_fraction(Fraction(a), Fraction(d), Fraction(2))) for a, d in (even, double, half)]
    ['1/2', '4/5', '1/5']
    """
    if attack <= 0:
        return Fraction(0)
    if defense <= 0:
        return Fraction(1)
    ratio = attack / defense
    if exponent.denominator == 1:
        powered = ratio**exponent.numerator
        return powered / (1 + powered)
    # A fractional exponent leaves the rationals: r^k / (1 + r^k) = 1 / (1 + e^(−k ln r)),
    # in logarithms so that no ratio is too large for a float; the float is read exactly.
    log_ratio = math.log(ratio.numerator) - math.log(ratio.denominator)
    exponent_term = -float(exponent) * log_ratio
    if exponent_term > 700:
        return Fraction(0)
    return Fraction(1 / (1 + math.exp(exponent_term)))


def losses_from(fraction: Fraction, strength: int) -> int:
    """``floor(fraction × strength + 0.5)``, clamped to ``[0, strength]``.

    >>> losses_from(Fraction(1, 2), 99), losses_from(Fraction(1, 5), 7)
    (50, 1)
    """
    return max(0, min(strength, math.floor(fraction * strength + Fraction(1, 2))))


def compute_strike(inputs: StrikeInputs) -> StrikeOutcome:
    """Phase 2: a pure function of the record; no board, no parameters object."""
    attack = effective_attack(inputs)
    defense = effective_defense(inputs)
    eff_atk, eff_def = attack.total, defense.total
    ratio = eff_atk / eff_def if eff_def > 0 else None
    fraction = loss_fraction(eff_atk, eff_def, inputs.loss_exponent)
    return StrikeOutcome(
        inputs=inputs,
        effective_attack=attack,
        effective_defense=defense,
        ratio=ratio,
        fraction=fraction,
        losses=losses_from(fraction, inputs.defender.strength),
    )


def strike(
    board: Board,
    striker_id: str,
    target_id: str,
    params: HexParams,
    *,
    support_around: str | None = None,
) -> StrikeOutcome:
    """Both phases at once."""
    return compute_strike(
        gather_strike(board, striker_id, target_id, params, support_around=support_around)
    )
