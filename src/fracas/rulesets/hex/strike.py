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

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, Protocol, TypeVar

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


#: A rule number (a float, int or text from the parameters) read as a fraction. Every
#: strike reads the same few, and reading a float by its decimal form is slow; ``typed``
#: keeps 0.5 and Fraction(1, 2) apart, as equal numbers of two types may read differently.
rule_number = functools.lru_cache(maxsize=1024, typed=True)(to_fraction)


def encirclement_factor(enemies: int, params: HexParams) -> Fraction:
    """Factor for a unit with ``enemies`` adjacent enemies (the table has entries 0 to 6).

    >>> encirclement_factor(1, HexParams()), encirclement_factor(3, HexParams())
    (Fraction(1, 1), Fraction(4, 5))
    """
    table = params.encirclement
    return rule_number(table[min(enemies, len(table) - 1)])


def _side(
    board: Board,
    unit: Unit,
    printed: Fraction,
    struck: Unit,
    attacking: bool,
    params: HexParams,
    support_around: Unit,
    rings: dict[str, tuple[str, ...]] | None = None,
) -> SideInputs:
    encirclers = rings.get(unit.id) if rings is not None else None
    if encirclers is None:
        encirclers = tuple(enemy.id for enemy in board.adjacent_enemies(unit))
        if rings is not None:
            rings[unit.id] = encirclers
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


@dataclass(slots=True)
class SideMemo:
    """Sides already gathered on one board, by (unit, striking, domain struck, centre), and
    each unit's ring of adjacent enemies: a caller gathering many strikes on one unchanged
    board may pass one to :func:`gather_strike`, since a side depends on nothing else."""

    sides: dict[tuple[str, bool, str, str], SideInputs] = field(default_factory=dict)
    rings: dict[str, tuple[str, ...]] = field(default_factory=dict)


def gather_strike(
    board: Board,
    striker_id: str,
    target_id: str,
    params: HexParams,
    *,
    support_around: str | None = None,
    memo: SideMemo | None = None,
) -> StrikeInputs:
    """Phase 1: read the board and freeze the inputs of ``striker_id`` striking ``target_id``.

    Both sides' supporters are their allies next to ``support_around``: the defending unit
    of the combat, which is ``target_id`` (the default) for an attack and ``striker_id``
    for a counter (see :func:`fracas.rulesets.hex.play.fight`). ``memo`` (see
    :data:`SideMemo`) keeps the sides for later strikes on the same board and parameters.
    """
    striker = board.unit(striker_id)
    target = board.unit(target_id)
    centre = target if support_around is None else board.unit(support_around)

    def side(unit: Unit, printed: Fraction, attacking: bool) -> SideInputs:
        if memo is None:
            return _side(board, unit, printed, target, attacking, params, centre)
        key = (unit.id, attacking, target.domain if attacking else "", centre.id)
        found = memo.sides.get(key)
        if found is None:
            found = memo.sides[key] = _side(
                board, unit, printed, target, attacking, params, centre, memo.rings
            )
        return found

    return StrikeInputs(
        attacker=side(striker, striker.attack_vs(target.domain), True),
        defender=side(target, target.defense, False),
        target_domain=target.domain,
        distance=striker.hex.distance(target.hex),
        pierce=striker.pierce,
        level_percent=rule_number(params.level_percent),
        support_share=rule_number(params.support_share),
        defense_support_cap=rule_number(params.defense_support_cap),
        loss_exponent=rule_number(params.loss_exponent),
    )


def _names(pairs: tuple[tuple[str, Fraction], ...], op: str, neutral: Fraction) -> str:
    shown = [f"{name} {op}{fmt(value, 4)}" for name, value in pairs if value != neutral]
    return ", ".join(shown) or "none"


def _product(values: tuple[tuple[str, Fraction], ...]) -> Fraction:
    return math.prod((value for _, value in values), start=Fraction(1))


# The formula, once, for any number type ------------------------------------------------
#
# Phase 2 is written against two small protocols so that one definition serves every
# number type: exact fractions with a row per modifier (the reports), and numpy arrays of
# floats, one element per strike (``fracas.rulesets.hex.batch``). ``+``, ``−``, ``×`` and
# ``/`` come from the number type; the few steps it cannot spell (clamps, the cap, the
# power of the loss curve, the rounding) are asked of a :class:`Fold` or an
# :class:`Arithmetic`.


class Scalar(Protocol):
    """What the formula asks of a number type: the four operations, either way round."""

    def __add__(self, other: Any, /) -> Any: ...
    def __radd__(self, other: Any, /) -> Any: ...
    def __sub__(self, other: Any, /) -> Any: ...
    def __rsub__(self, other: Any, /) -> Any: ...
    def __mul__(self, other: Any, /) -> Any: ...
    def __rmul__(self, other: Any, /) -> Any: ...
    def __truediv__(self, other: Any, /) -> Any: ...
    def __rtruediv__(self, other: Any, /) -> Any: ...


N = TypeVar("N", bound=Scalar)


class Fold(Protocol[N]):
    """A running value built row by row: a :class:`Breakdown`, or a plain array."""

    @property
    def total(self) -> N:
        """The value after every row so far."""
        ...

    def times(self, row: str, value: N) -> Fold[N]:
        """Multiply by ``value`` (a row of the report)."""
        ...

    def plus(self, row: str, value: N) -> Fold[N]:
        """Add ``value`` (a row of the report)."""
        ...

    def plus_at_most(self, row: str, value: N, cap: N) -> Fold[N]:
        """Add ``value``, but no more than ``cap``."""
        ...

    def floor_at_zero(self) -> Fold[N]:
        """Raise a negative running value to 0."""
        ...


class Arithmetic(Protocol[N]):
    """What a number type needs besides ``+ − × /`` to finish a strike."""

    def ratio(self, numerator: N, denominator: N) -> N:
        """``numerator / denominator`` where the denominator is above 0, else 0."""
        ...

    def power(self, base: N, exponent: N) -> N:
        """``base ** exponent`` for ``base ≥ 0`` and ``exponent > 0``."""
        ...

    def where_positive(self, test: N, then: N, otherwise: N) -> N:
        """``then`` where ``test > 0``, else ``otherwise``."""
        ...

    def round_half_up(self, value: N) -> N:
        """``floor(value + 1/2)``."""
        ...

    def clamp(self, value: N, low: N, high: N) -> N:
        """``value`` limited to ``[low, high]``."""
        ...


@dataclass(frozen=True, slots=True)
class SideNumbers(Generic[N]):
    """One side of a strike as the numbers the formula needs (scalars or arrays).

    ``support`` is the sum over the supporters of ``support_share × strength × printed``,
    before any cap; ``status_mul`` and ``status_add`` are the product and the sum over the
    unit's statuses.
    """

    strength: N
    printed: N
    level: N
    encirclement: N
    terrain: N
    status_mul: N
    support: N
    status_add: N


@dataclass(frozen=True, slots=True)
class StrikeNumbers(Generic[N]):
    """Both sides plus the striker's pierce and the rule numbers in force."""

    attacker: SideNumbers[N]
    defender: SideNumbers[N]
    pierce: N
    level_percent: N
    defense_support_cap: N
    loss_exponent: N


@dataclass(frozen=True, slots=True)
class StrikeTotals(Generic[N]):
    """The formula's answer: Effective Atk and Def, the loss fraction and the losses."""

    attack: Fold[N]
    defense: Fold[N]
    fraction: N
    losses: N


def _multiplied(fold: Fold[N], side: SideNumbers[N], printed_row: str, level_percent: N) -> Fold[N]:
    # Seed: "All the multiplying is done first, then the adding."
    return (
        fold.times(printed_row, side.printed)
        .times(ROW_LEVEL, 1 + side.level * (level_percent / 100))
        .times(ROW_ENCIRCLED, side.encirclement)
        .times(ROW_TERRAIN, side.terrain)
        .times(ROW_STATUS_MUL, side.status_mul)
    )


def attack_fold(begin: Callable[[str, N], Fold[N]], numbers: StrikeNumbers[N]) -> Fold[N]:
    """Effective Atk: Strength, the multiplying rows, then Support and Status (+)."""
    side = numbers.attacker
    return (
        _multiplied(begin(ROW_STRENGTH, side.strength), side, ROW_ATTACK, numbers.level_percent)
        .plus(ROW_SUPPORT, side.support)
        .plus(ROW_STATUS_ADD, side.status_add)
        .floor_at_zero()
    )


def defense_fold(begin: Callable[[str, N], Fold[N]], numbers: StrikeNumbers[N]) -> Fold[N]:
    """Effective Def: the multiplying rows, capped Support, Status (+), then Pierce."""
    side = numbers.defender
    base = _multiplied(begin(ROW_STRENGTH, side.strength), side, ROW_DEFENSE, numbers.level_percent)
    return (
        base.plus_at_most(ROW_SUPPORT, side.support, numbers.defense_support_cap * base.total)
        .plus(ROW_STATUS_ADD, side.status_add)
        .floor_at_zero()
        .times(ROW_PIERCE, 1 - numbers.pierce)
    )


def fraction_of(arithmetic: Arithmetic[N], attack: N, defense: N, exponent: N) -> N:
    """``r^k / (1 + r^k)`` with ``r = attack / defense``, as ``1 / (1 + (defense/attack)^k)``.

    An attack of 0 takes nothing; any attack against a defence of 0 takes everything (the
    ratio ``defense / attack`` is then 0).
    """
    inverse = arithmetic.ratio(defense, attack)
    return arithmetic.where_positive(
        attack, 1 / (1 + arithmetic.power(inverse, exponent)), 0 * attack
    )


def strike_totals(
    arithmetic: Arithmetic[N],
    numbers: StrikeNumbers[N],
    begin_attack: Callable[[str, N], Fold[N]],
    begin_defense: Callable[[str, N], Fold[N]],
) -> StrikeTotals[N]:
    """The whole of phase 2 for any number type: Effective values, fraction, losses.

    ``begin_attack`` and ``begin_defense`` start each :class:`Fold` at its first row.
    """
    attack = attack_fold(begin_attack, numbers)
    defense = defense_fold(begin_defense, numbers)
    fraction = fraction_of(arithmetic, attack.total, defense.total, numbers.loss_exponent)
    strength = numbers.defender.strength
    # Seed: "How many soldiers are lost comes from the ratio…"; halves round up.
    losses = arithmetic.clamp(arithmetic.round_half_up(fraction * strength), 0 * strength, strength)
    return StrikeTotals(attack, defense, fraction, losses)


# Exact fractions, with the rows the report shows ------------------------------------------


class ExactArithmetic:
    """:class:`Arithmetic` on :class:`~fractions.Fraction`: exact, except a fractional power."""

    def ratio(self, numerator: Fraction, denominator: Fraction) -> Fraction:
        return numerator / denominator if denominator > 0 else Fraction(0)

    def power(self, base: Fraction, exponent: Fraction) -> Fraction:
        if exponent.denominator == 1:
            return base**exponent.numerator
        if base == 0:
            return Fraction(0)
        # A fractional exponent leaves the rationals: e^(k ln b), in logarithms so that no
        # base is too large for a float; the float is then read exactly. Past e^709 the
        # loss fraction is below 1e-307 either way, so the power stops there.
        log_base = math.log(base.numerator) - math.log(base.denominator)
        return Fraction(math.exp(min(float(exponent) * log_base, 709.0)))

    def where_positive(self, test: Fraction, then: Fraction, otherwise: Fraction) -> Fraction:
        return then if test > 0 else otherwise

    def round_half_up(self, value: Fraction) -> Fraction:
        return Fraction(math.floor(value + Fraction(1, 2)))

    def clamp(self, value: Fraction, low: Fraction, high: Fraction) -> Fraction:
        return max(low, min(high, value))


EXACT = ExactArithmetic()


@dataclass(frozen=True, slots=True)
class RowFold:
    """:class:`Fold` that keeps every row: a :class:`Breakdown` plus each row's source."""

    breakdown: Breakdown
    sources: Mapping[str, tuple[str, str]]

    @property
    def total(self) -> Fraction:
        return self.breakdown.total

    def times(self, row: str, value: Fraction) -> RowFold:
        source, rule = self.sources[row]
        return RowFold(self.breakdown.times(row, value, source=source, rule=rule), self.sources)

    def plus(self, row: str, value: Fraction) -> RowFold:
        source, rule = self.sources[row]
        return RowFold(self.breakdown.plus(row, value, source=source, rule=rule), self.sources)

    def plus_at_most(self, row: str, value: Fraction, cap: Fraction) -> RowFold:
        source, rule = self.sources[row]
        if value > cap:
            source += f" = {fmt(value)}, capped at {fmt(cap)}"
            value = cap
        return RowFold(self.breakdown.plus(row, value, source=source, rule=rule), self.sources)

    def floor_at_zero(self) -> RowFold:
        # A visible row says that negative additions stopped at 0.
        total = self.total
        if total >= 0:
            return self
        floored = self.breakdown.plus(
            ROW_FLOOR, -total, source="no negative strength", rule="floor"
        )
        return RowFold(floored, self.sources)


def _support_total(side: SideInputs, share: Fraction) -> tuple[Fraction, str]:
    parts = []
    total = Fraction(0)
    for ally in side.supporters:
        value = share * ally.strength * ally.printed
        total += value
        parts.append(f"{ally.unit} {fmt(value)}")
    return total, " + ".join(parts) or "none"


def _side_numbers(side: SideInputs, share: Fraction) -> SideNumbers[Fraction]:
    return SideNumbers(
        strength=Fraction(side.strength),
        printed=side.printed,
        level=Fraction(side.level),
        encirclement=side.encirclement,
        terrain=side.terrain_factor,
        status_mul=_product(side.status_mul),
        support=_support_total(side, share)[0],
        status_add=sum((v for _, v in side.status_add), Fraction(0)),
    )


def strike_numbers(inputs: StrikeInputs) -> StrikeNumbers[Fraction]:
    """The plain numbers of a gathered strike (sources dropped): what a batch row holds."""
    return StrikeNumbers(
        attacker=_side_numbers(inputs.attacker, inputs.support_share),
        defender=_side_numbers(inputs.defender, inputs.support_share),
        pierce=inputs.pierce,
        level_percent=inputs.level_percent,
        defense_support_cap=inputs.defense_support_cap,
        loss_exponent=inputs.loss_exponent,
    )


def _sources(side: SideInputs, inputs: StrikeInputs, attacking: bool) -> dict[str, tuple[str, str]]:
    """Where each row of one side comes from, and the rule (or parameter) behind it."""
    if side.encirclers:
        encircled = f"{len(side.encirclers)} adjacent: {', '.join(side.encirclers)}"
    else:
        encircled = "no adjacent enemy"
    support_source = _support_total(side, inputs.support_share)[1]
    if attacking:
        printed = (ROW_ATTACK, f"{side.unit} vs {inputs.target_domain}", "attack")
        support_rule = "support_share"
    else:
        printed = (ROW_DEFENSE, f"{side.unit} printed", "defense")
        support_rule = "support_share, defense_support_cap"
    pierce_source = (
        f"{inputs.attacker.unit} ignores {fmt(inputs.pierce * 100)} %"
        if inputs.pierce
        else "no pierce"
    )
    return {
        ROW_STRENGTH: (side.unit, "strength"),
        printed[0]: (printed[1], printed[2]),
        ROW_LEVEL: (f"{side.unit} Lv {side.level}", "level_percent"),
        ROW_ENCIRCLED: (encircled, "encirclement"),
        ROW_TERRAIN: (side.terrain, "terrain"),
        ROW_STATUS_MUL: (_names(side.status_mul, "×", Fraction(1)), "statuses"),
        ROW_SUPPORT: (support_source, support_rule),
        ROW_STATUS_ADD: (_names(side.status_add, "+", Fraction(0)), "statuses"),
        ROW_PIERCE: (pierce_source, "pierce"),
    }


def _beginning(
    label: str, sources: Mapping[str, tuple[str, str]]
) -> Callable[[str, Fraction], RowFold]:
    def begin(row: str, value: Fraction) -> RowFold:
        source, rule = sources[row]
        return RowFold(Breakdown.start(label, row, value, source=source, rule=rule), sources)

    return begin


def _exact_totals(inputs: StrikeInputs) -> StrikeTotals[Fraction]:
    return strike_totals(
        EXACT,
        strike_numbers(inputs),
        _beginning("Effective Atk", _sources(inputs.attacker, inputs, attacking=True)),
        _beginning("Effective Def", _sources(inputs.defender, inputs, attacking=False)),
    )


def effective_attack(inputs: StrikeInputs) -> Breakdown:
    """Effective Atk: the multiplying rows, then Support and Status (+)."""
    return _breakdown(_exact_totals(inputs).attack)


def effective_defense(inputs: StrikeInputs) -> Breakdown:
    """Effective Def: the multiplying rows, capped Support, Status (+), then Pierce."""
    return _breakdown(_exact_totals(inputs).defense)


def _breakdown(fold: Fold[Fraction]) -> Breakdown:
    assert isinstance(fold, RowFold)
    return fold.breakdown


def loss_fraction(attack: Fraction, defense: Fraction, exponent: Fraction) -> Fraction:
    """Share of the target's soldiers lost: ``r^k / (1 + r^k)`` with ``r = attack / defense``.

    An attack of 0 takes nothing; any attack against a defence of 0 takes everything.

    >>> even, double, half = [(1, 1), (2, 1), (1, 2)]
    >>> [str(loss_fraction(Fraction(a), Fraction(d), Fraction(2))) for a, d in (even, double, half)]
    ['1/2', '4/5', '1/5']
    """
    return fraction_of(EXACT, attack, defense, exponent)


def losses_from(fraction: Fraction, strength: int) -> int:
    """``floor(fraction × strength + 0.5)``, clamped to ``[0, strength]``.

    >>> losses_from(Fraction(1, 2), 99), losses_from(Fraction(1, 5), 7)
    (50, 1)
    """
    whole = Fraction(strength)
    return int(EXACT.clamp(EXACT.round_half_up(fraction * whole), Fraction(0), whole))


def compute_strike(inputs: StrikeInputs) -> StrikeOutcome:
    """Phase 2: a pure function of the record; no board, no parameters object."""
    totals = _exact_totals(inputs)
    attack, defense = _breakdown(totals.attack), _breakdown(totals.defense)
    eff_def = defense.total
    return StrikeOutcome(
        inputs=inputs,
        effective_attack=attack,
        effective_defense=defense,
        ratio=attack.total / eff_def if eff_def > 0 else None,
        fraction=totals.fraction,
        losses=int(totals.losses),
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
