"""Many strikes at once: the strike formula on numpy arrays, one element per strike.

For AI players and balance scripts that ask the rules millions of times. The arithmetic
is :func:`fracas.rulesets.hex.strike.strike_totals` — the very function the exact,
row-by-row path runs on fractions — evaluated here on arrays of floats. Losses come back
exactly as the exact path gives them: the float evaluation carries a bound on its own
rounding error, and every strike whose ``floor(x + 0.5)`` that bound cannot decide (an
exact half such as 50 % of 99 soldiers, or a value within the bound of one) is evaluated
again in fractions, by the same formula. Effective values and fractions are floats.

>>> import numpy as np
>>> result = strikes(
...     attacker_strength=[100, 100, 99], attack=[10, 20, 10],
...     target_strength=[100, 100, 99], defense=[10, 10, 10])
>>> result.losses.tolist()        # even: 50; double: 80; even with 99 soldiers: 49.5 → 50
[50, 80, 50]
>>> result.fraction.tolist()
[0.5, 0.8, 0.5]
>>> result.decided_exactly        # 49.5 is an exact half: decided in fractions
1

Every input may be a scalar (the same for every strike) or a 1-D array; arrays must have
one length. Bad input raises :class:`~fracas.core.errors.ScenarioError` (a ``ValueError``)
naming the field and the first bad index:

>>> strikes(attacker_strength=[100, -5], attack=10, target_strength=100, defense=10)
Traceback (most recent call last):
...
fracas.core.errors.ScenarioError: attacker_strength[1]: -5.0 is negative (strengths are ...)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fracas.core.errors import ScenarioError
from fracas.core.modifiers import to_fraction
from fracas.rulesets.hex.document import LARGEST, SMALLEST
from fracas.rulesets.hex.strike import (
    EXACT,
    ROW_STRENGTH,
    SideNumbers,
    StrikeNumbers,
    strike_totals,
)

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]

#: Strikes evaluated together; small enough that every temporary array stays in cache.
CHUNK = 16384
#: Unit roundoff of float64.
_U = 2.0**-53
#: Level cap of the rules: no level above it is valid input.
LEVEL_CAP = 99
#: Error of an Effective value, in units of its magnitude (see :class:`ArrayFold`).
_SLACK = 64 * _U
#: A fractional loss exponent is a float in the exact path too (logarithms); this is the
#: relative error allowed between the two evaluations of ``r^k`` in that case.
_FRACTIONAL_POWER_SLACK = 2.0**-36


@dataclass(frozen=True, slots=True)
class StrikeArrays:
    """The inputs of many strikes, one element each, checked and as float arrays.

    The fields are the numbers phase 1 gathers for one strike (see
    :class:`~fracas.rulesets.hex.strike.SideNumbers`): for the striker and the target,
    strength, printed attack (striker) or defence (target), level, encirclement factor,
    terrain factor (attack factor of the striker's hex, defence factor of the target's),
    product of status multipliers, support (sum over the supporters of
    ``support_share × strength × printed``, before the defence cap), sum of status
    additions; then the striker's pierce and the rule numbers.
    """

    attacker_strength: Floats
    attack: Floats
    attacker_level: Floats
    attacker_encirclement: Floats
    attacker_terrain: Floats
    attacker_status_mul: Floats
    attack_support: Floats
    attacker_status_add: Floats
    target_strength: Floats
    defense: Floats
    target_level: Floats
    target_encirclement: Floats
    target_terrain: Floats
    target_status_mul: Floats
    defense_support: Floats
    target_status_add: Floats
    pierce: Floats
    loss_exponent: Floats
    level_percent: Floats
    defense_support_cap: Floats
    size: int

    def __len__(self) -> int:
        return self.size

    def part(self, start: int, stop: int) -> StrikeArrays:
        """Strikes ``start`` to ``stop`` (views, no copies)."""
        parts: dict[str, Any] = {}
        for name in FIELDS:
            values = getattr(self, name)
            parts[name] = values[start:stop] if values.ndim else values
        return StrikeArrays(**parts, size=len(range(start, min(stop, self.size))))

    def numbers(self) -> StrikeNumbers[Floats]:
        """The same inputs in the shape the strike formula takes."""
        return StrikeNumbers(
            attacker=SideNumbers(
                self.attacker_strength,
                self.attack,
                self.attacker_level,
                self.attacker_encirclement,
                self.attacker_terrain,
                self.attacker_status_mul,
                self.attack_support,
                self.attacker_status_add,
            ),
            defender=SideNumbers(
                self.target_strength,
                self.defense,
                self.target_level,
                self.target_encirclement,
                self.target_terrain,
                self.target_status_mul,
                self.defense_support,
                self.target_status_add,
            ),
            pierce=self.pierce,
            level_percent=self.level_percent,
            defense_support_cap=self.defense_support_cap,
            loss_exponent=self.loss_exponent,
        )

    def exact_fields(self, indices: NDArray[np.intp]) -> dict[str, list[Fraction]]:
        """Strikes ``indices`` in fractions, each float read by its shortest decimal form."""
        fractions: dict[str, list[Fraction]] = {}
        for name in FIELDS:
            values = getattr(self, name)
            picked = values[indices] if values.ndim else np.broadcast_to(values, indices.shape)
            # Few distinct values repeat across strikes: read each once.
            distinct, where = np.unique(picked, return_inverse=True)
            read = [to_fraction(float(v)) for v in distinct]
            fractions[name] = [read[i] for i in where.tolist()]
        return fractions


#: The input fields, in order.
FIELDS: tuple[str, ...] = tuple(f.name for f in fields(StrikeArrays) if f.name != "size")

#: Defaults of the optional fields: a strike with nothing but strengths and printed numbers.
DEFAULTS: Mapping[str, float] = {
    "attacker_level": 0,
    "attacker_encirclement": 1,
    "attacker_terrain": 1,
    "attacker_status_mul": 1,
    "attack_support": 0,
    "attacker_status_add": 0,
    "target_level": 0,
    "target_encirclement": 1,
    "target_terrain": 1,
    "target_status_mul": 1,
    "defense_support": 0,
    "target_status_add": 0,
    "pierce": 0,
    "loss_exponent": 2,
    "level_percent": 1,
    "defense_support_cap": 2,
}

_NON_NEGATIVE = (
    "attack",
    "attacker_encirclement",
    "attacker_terrain",
    "attacker_status_mul",
    "attack_support",
    "defense",
    "target_encirclement",
    "target_terrain",
    "target_status_mul",
    "defense_support",
    "level_percent",
    "defense_support_cap",
)


def _fail(name: str, index: int, value: float, problem: str) -> ScenarioError:
    return ScenarioError(f"{value!r} {problem}", path=(name, index))


def _first(mask: NDArray[np.bool_]) -> int | None:
    bad = np.flatnonzero(mask)
    return int(bad[0]) if bad.size else None


def _check(name: str, values: Floats) -> None:
    """Raise for the first value of ``name`` that the rules cannot take."""
    size = np.abs(values)
    problems: list[tuple[NDArray[np.bool_], str]] = [
        (~np.isfinite(values), "is not a finite number"),
        # Inside this range no product of the formula can underflow or overflow, which the
        # error bound relies on.
        (
            (values != 0) & ((size < SMALLEST) | (size > LARGEST)),
            f"is outside the range the batch takes (0, or {SMALLEST:g} to {LARGEST:g} in size)",
        ),
    ]
    if name.endswith("_strength"):
        problems += [
            (values < 0, "is negative (strengths are whole numbers ≥ 0)"),
            (values != np.floor(values), "is not a whole number of soldiers"),
        ]
    elif name.endswith("_level"):
        problems += [
            (values < 0, "is negative (levels are whole numbers from 0 to 99)"),
            (values > LEVEL_CAP, f"is above the level cap {LEVEL_CAP}"),
            (values != np.floor(values), "is not a whole level"),
        ]
    elif name == "pierce":
        problems.append(((values < 0) | (values >= 1), "is outside 0 ≤ pierce < 1"))
    elif name == "loss_exponent":
        problems.append(((values <= 0) | (values > 16), "is outside 0 < loss_exponent ≤ 16"))
    elif name in _NON_NEGATIVE:
        problems.append((values < 0, "is negative"))
    for mask, problem in problems:
        index = _first(mask)
        if index is not None:
            raise _fail(name, index, float(values[index]), problem)


def strike_arrays(**inputs: ArrayLike) -> StrikeArrays:
    """Check the inputs of many strikes and pack them as :class:`StrikeArrays`.

    Required: ``attacker_strength``, ``attack``, ``target_strength``, ``defense``; the
    other fields default to :data:`DEFAULTS`. Scalars are repeated for every strike.
    """
    names = list(FIELDS)
    unknown = sorted(set(inputs) - set(names))
    if unknown:
        raise ScenarioError(f"unknown field (fields: {', '.join(names)})", path=(unknown[0],))
    arrays: dict[str, Floats] = {}
    length: tuple[str, int] | None = None
    for name in names:
        if name not in inputs and name not in DEFAULTS:
            raise ScenarioError("is required", path=(name,))
        raw = inputs.get(name, DEFAULTS.get(name))
        try:
            values = np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ScenarioError(f"is not numbers: {error}", path=(name,)) from None
        if values.ndim > 1:
            raise ScenarioError(f"must be a scalar or 1-D, not shape {values.shape}", path=(name,))
        if values.ndim == 1:
            if length is None:
                length = (name, len(values))
            elif len(values) != length[1]:
                raise ScenarioError(
                    f"has {len(values)} elements, but {length[0]} has {length[1]}", path=(name,)
                )
        arrays[name] = values
    for name, values in arrays.items():
        _check(name, values)
    # A scalar stays a 0-d array: numpy then reads it once, not once per strike.
    return StrikeArrays(**arrays, size=length[1] if length else 1)


@dataclass(frozen=True, slots=True)
class StrikeResults:
    """What many strikes give: floats for the Effective values and fractions, exact losses.

    ``decided_exactly`` counts the strikes whose rounding was decided in fractions.
    """

    effective_attack: Floats
    effective_defense: Floats
    fraction: Floats
    losses: Ints
    decided_exactly: int


class FloatArithmetic:
    """:class:`~fracas.rulesets.hex.strike.Arithmetic` on float arrays."""

    def ratio(self, numerator: Floats, denominator: Floats) -> Floats:
        # x / inf is 0: cheaper than a masked division.
        return numerator / np.where(denominator > 0, denominator, np.inf)

    def power(self, base: Floats, exponent: Floats) -> Floats:
        return np.power(base, exponent)

    def where_positive(self, test: Floats, then: Floats, otherwise: Floats) -> Floats:
        return np.where(test > 0, then, otherwise)

    def round_half_up(self, value: Floats) -> Floats:
        return np.floor(value + 0.5)

    def clamp(self, value: Floats, low: Floats, high: Floats) -> Floats:
        return np.minimum(np.maximum(value, low), high)


FLOATS = FloatArithmetic()


@dataclass(frozen=True, slots=True)
class ArrayFold:
    """:class:`~fracas.rulesets.hex.strike.Fold` on arrays that also bounds its error.

    ``magnitude`` is the sum of the absolute values of everything added so far, scaled by
    every factor since: the float error of ``total`` is a small multiple of
    ``magnitude × 2⁻⁵³`` (every factor is ≥ 0, so products do not cancel). While nothing
    negative has been added, it is the total itself, kept as ``None`` to save the work.

    After its first row a fold owns its arrays and every later row works on them in place
    (no new array per row: that is most of the speed of a batch). So a fold is used once:
    after ``fold.times(…)`` only the fold it returns holds the right numbers.
    """

    total: Floats
    scale: Floats | None = None
    #: ``total`` is this fold's own array (not a caller's input) and may be overwritten.
    owned: bool = False

    @property
    def magnitude(self) -> Floats:
        """The size the error bound scales with."""
        return self.total if self.scale is None else self.scale

    def _into(self) -> Floats | None:
        # An input array, or a 0-d total (a row may be 1-D), gets a new array.
        return self.total if self.owned and self.total.ndim == 1 else None

    def times(self, row: str, value: Floats) -> ArrayFold:
        scale = self.scale
        if scale is not None:
            scale = np.multiply(scale, value, out=scale if scale.ndim == 1 else None)
        return ArrayFold(np.multiply(self.total, value, out=self._into()), scale, True)

    def plus(self, row: str, value: Floats) -> ArrayFold:
        if self.scale is None and value.min(initial=0.0) >= 0:
            return ArrayFold(np.add(self.total, value, out=self._into()), None, True)
        scale = np.abs(value)
        scale = np.add(scale, self.magnitude, out=scale if scale.ndim == 1 else None)
        return ArrayFold(np.add(self.total, value, out=self._into()), scale, True)

    def plus_at_most(self, row: str, value: Floats, cap: Floats) -> ArrayFold:
        return self.plus(row, np.minimum(value, cap))

    def floor_at_zero(self) -> ArrayFold:
        if self.scale is None:
            return self  # nothing negative was added: the total is ≥ 0 already
        # Below −(its error bound) the exact value is negative too, so the floor is an
        # exact 0 with no error left.
        total, scale = self.total, self.scale
        surely_negative = total < -_SLACK * scale
        if surely_negative.any():
            scale = np.where(surely_negative, 0.0, scale)
        return ArrayFold(np.maximum(total, 0.0, out=self._into()), scale, True)


def _begin(row: str, value: Floats) -> ArrayFold:
    assert row == ROW_STRENGTH
    return ArrayFold(value)


@dataclass(frozen=True, slots=True)
class ValueFold:
    """:class:`~fracas.rulesets.hex.strike.Fold` on single fractions, without rows."""

    total: Fraction

    def times(self, row: str, value: Fraction) -> ValueFold:
        return ValueFold(self.total * value)

    def plus(self, row: str, value: Fraction) -> ValueFold:
        return ValueFold(self.total + value)

    def plus_at_most(self, row: str, value: Fraction, cap: Fraction) -> ValueFold:
        return ValueFold(self.total + min(value, cap))

    def floor_at_zero(self) -> ValueFold:
        return ValueFold(max(self.total, Fraction(0)))


def _begin_value(row: str, value: Fraction) -> ValueFold:
    return ValueFold(value)


def exact_losses(numbers: StrikeNumbers[Fraction]) -> tuple[int, Fraction]:
    """Losses and fraction of one strike in fractions: the formula the reports use."""
    totals = strike_totals(EXACT, numbers, _begin_value, _begin_value)
    return int(totals.losses), totals.fraction


Objects = NDArray[np.object_]


class Rationals:
    """Exact rationals in arrays: numerators and positive denominators as Python integers.

    The number type of the exact decisions: the strike formula runs on it unchanged.
    Fractions are never reduced (a gcd per operation would cost more than it saves over
    the twenty-odd operations of a strike).
    """

    __slots__ = ("den", "num")

    def __init__(self, num: Objects, den: Objects) -> None:
        self.num = num
        self.den = den

    @staticmethod
    def of(values: list[Fraction]) -> Rationals:
        """An array of the given fractions."""
        num = np.empty(len(values), dtype=object)
        den = np.empty(len(values), dtype=object)
        num[:] = [v.numerator for v in values]
        den[:] = [v.denominator for v in values]
        return Rationals(num, den)

    @staticmethod
    def _of(other: Any) -> Rationals:
        if isinstance(other, Rationals):
            return other
        value = to_fraction(other)
        return Rationals(np.asarray(value.numerator, object), np.asarray(value.denominator, object))

    def __add__(self, other: Any) -> Rationals:
        o = Rationals._of(other)
        return Rationals(self.num * o.den + o.num * self.den, self.den * o.den)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Rationals:
        o = Rationals._of(other)
        return Rationals(self.num * o.den - o.num * self.den, self.den * o.den)

    def __rsub__(self, other: Any) -> Rationals:
        return Rationals._of(other) - self

    def __mul__(self, other: Any) -> Rationals:
        o = Rationals._of(other)
        return Rationals(self.num * o.num, self.den * o.den)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Rationals:
        o = Rationals._of(other)
        sign = np.where(o.num < 0, -1, 1)
        return Rationals(self.num * o.den * sign, self.den * o.num * sign)

    def __rtruediv__(self, other: Any) -> Rationals:
        return Rationals._of(other) / self

    def positive(self) -> NDArray[np.bool_]:
        """Where the value is above 0."""
        return np.asarray(self.num > 0, dtype=np.bool_)

    def below(self, other: Rationals) -> NDArray[np.bool_]:
        """Where this value is below ``other``."""
        return np.asarray(self.num * other.den < other.num * self.den, dtype=np.bool_)

    def fractions(self) -> list[Fraction]:
        """The values as fractions."""
        return [Fraction(n, d) for n, d in zip(self.num.tolist(), self.den.tolist(), strict=True)]


def _choose(test: NDArray[np.bool_], then: Rationals, otherwise: Rationals) -> Rationals:
    return Rationals(
        np.where(test, then.num, otherwise.num), np.where(test, then.den, otherwise.den)
    )


def _minimum(a: Rationals, b: Rationals) -> Rationals:
    return _choose(a.below(b), a, b)


def _maximum(a: Rationals, b: Rationals) -> Rationals:
    return _choose(a.below(b), b, a)


class RationalArithmetic:
    """:class:`~fracas.rulesets.hex.strike.Arithmetic` on :class:`Rationals`.

    Exact for a whole loss exponent (a fractional one is left to :func:`exact_losses`).
    """

    def ratio(self, numerator: Rationals, denominator: Rationals) -> Rationals:
        positive = denominator.positive()
        zero = Rationals._of(0)
        safe = _choose(positive, denominator, Rationals._of(1))
        return _choose(positive, numerator / safe, zero * numerator)

    def power(self, base: Rationals, exponent: Rationals) -> Rationals:
        return Rationals(base.num**exponent.num, base.den**exponent.num)

    def where_positive(self, test: Rationals, then: Rationals, otherwise: Rationals) -> Rationals:
        return _choose(test.positive(), then, otherwise)

    def round_half_up(self, value: Rationals) -> Rationals:
        whole = (2 * value.num + value.den) // (2 * value.den)
        return Rationals(whole, np.ones_like(whole))

    def clamp(self, value: Rationals, low: Rationals, high: Rationals) -> Rationals:
        return _minimum(_maximum(value, low), high)


RATIONALS = RationalArithmetic()


@dataclass(frozen=True, slots=True)
class RationalFold:
    """:class:`~fracas.rulesets.hex.strike.Fold` on :class:`Rationals`, without rows."""

    total: Rationals

    def times(self, row: str, value: Rationals) -> RationalFold:
        return RationalFold(self.total * value)

    def plus(self, row: str, value: Rationals) -> RationalFold:
        return RationalFold(self.total + value)

    def plus_at_most(self, row: str, value: Rationals, cap: Rationals) -> RationalFold:
        return RationalFold(self.total + _minimum(value, cap))

    def floor_at_zero(self) -> RationalFold:
        return RationalFold(_maximum(self.total, Rationals._of(0) * self.total))


def _begin_rational(row: str, value: Rationals) -> RationalFold:
    return RationalFold(value)


_SIDE_FIELDS = (
    "strength",
    "printed",
    "level",
    "encirclement",
    "terrain",
    "status_mul",
    "support",
    "status_add",
)


def numbers_from_fields(
    fields_: Mapping[str, Any], convert: Callable[[Any], Any] = lambda v: v
) -> StrikeNumbers[Any]:
    """:class:`StrikeNumbers` from a mapping keyed by :data:`FIELDS`."""

    def side(prefix: str, printed: str, support: str) -> SideNumbers[Any]:
        names = {"printed": printed, "support": support}
        return SideNumbers(
            *(convert(fields_[names.get(key, f"{prefix}_{key}")]) for key in _SIDE_FIELDS)
        )

    return StrikeNumbers(
        attacker=side("attacker", "attack", "attack_support"),
        defender=side("target", "defense", "defense_support"),
        pierce=convert(fields_["pierce"]),
        level_percent=convert(fields_["level_percent"]),
        defense_support_cap=convert(fields_["defense_support_cap"]),
        loss_exponent=convert(fields_["loss_exponent"]),
    )


#: Reads strikes (by index) as fractions, field by field: the exact inputs of a batch.
ExactReader = Callable[[NDArray[np.intp]], Mapping[str, list[Fraction]]]


def decide_exactly(fractions: Mapping[str, list[Fraction]]) -> tuple[list[int], list[Fraction]]:
    """Losses and fractions of strikes given in fractions, by the formula on exact numbers."""
    size = len(fractions["pierce"])
    losses: list[int] = [0] * size
    shares: list[Fraction] = [Fraction(0)] * size
    whole = [i for i, k in enumerate(fractions["loss_exponent"]) if k.denominator == 1]
    if whole:
        picked = {name: [values[i] for i in whole] for name, values in fractions.items()}
        totals = strike_totals(
            RATIONALS,
            numbers_from_fields(picked, Rationals.of),
            _begin_rational,
            _begin_rational,
        )
        assert isinstance(totals.losses, Rationals)
        assert isinstance(totals.fraction, Rationals)
        for i, n, f in zip(
            whole, totals.losses.num.tolist(), totals.fraction.fractions(), strict=True
        ):
            losses[i], shares[i] = int(n), f
    for i in sorted(set(range(size)) - set(whole)):
        one = numbers_from_fields({name: values[i] for name, values in fractions.items()})
        losses[i], shares[i] = exact_losses(one)
    return losses, shares


#: The smallest normal float: what a total is floored at before dividing by it.
TINY = float(np.finfo(np.float64).tiny)
N = TypeVar("N")


def chunk_errors(arrays: StrikeArrays) -> tuple[float, float]:
    """The relative error every strike of ``arrays`` shares, and half the loss exponent.

    Pierce's ``1 − p`` adds ``4 u / (1 − p)`` relative, a whole power ``r^k`` 4 u (a
    fractional one the slack between its two evaluations). Pierce and the exponent enter
    at their largest in the chunk: still a bound, and scalars cost nothing per strike.
    """
    exponent = arrays.loss_exponent
    whole = bool(np.all(exponent % 1 == 0))
    fixed = 4 * _U / (1.0 - float(np.max(arrays.pierce, initial=0.0))) + (
        4 * _U if whole else _FRACTIONAL_POWER_SLACK
    )
    return fixed, float(np.max(exponent, initial=0.0)) * 0.5


def rounding_bound(
    maximum: Callable[[N, float], N],
    folds: Sequence[tuple[N, N | None]],
    strength: N,
    fixed: N | float,
    half_k: N | float,
) -> tuple[N, N]:
    """The relative error of a strike's Effective values and the bound on the error of
    ``fraction × strength``, written once: evaluated over arrays by :func:`_undecided`,
    traced into the compiled kernel by :mod:`fracas.rulesets.hex.fast`.

    ``folds`` are the Effective values' ``(total, magnitude)``; a magnitude of ``None``
    (nothing negative was added) is the total itself, a spread of 1. With ``f (1 − f) ≤
    1/4`` and ``x ≤ strength`` the bound needs no per-strike fraction (see
    :func:`_undecided` for the derivation).

    >>> relative, bound = rounding_bound(max, [(4.0, None), (2.0, 3.0)], 10.0, 0.0, 1.0)
    >>> relative == _SLACK * (1 + 3 / 2) and bound == 10 * (relative + 24 * _U) + 8 * _U
    True
    """
    spread: Any = 0.0
    for total, scale in folds:
        part: Any = 1.0 if scale is None else scale
        spread = spread + (part if scale is None else part / maximum(total, TINY))
    relative: Any = _SLACK * spread + fixed
    bound: Any = strength * (half_k * relative + 24 * _U) + 8 * _U
    return relative, bound


def _undecided(
    attack: ArrayFold, defense: ArrayFold, arrays: StrikeArrays, fraction: Floats
) -> NDArray[np.bool_]:
    """Strikes whose rounding the float evaluation cannot vouch for.

    A first-order bound with generous constants. Each Effective value is off by at most
    ``64 u × its magnitude`` (u = 2⁻⁵³; the formula has fewer than 20 operations per side,
    every factor is ≥ 0, and every input is within u of the decimal it stands for), and
    Pierce's ``1 − p`` adds ``4 u / (1 − p)`` relative. ``f = 1 / (1 + (d/a)^k)`` then
    moves by at most ``f (1 − f) k (δa/a + δd/d)`` plus a few u, and
    ``x = f × strength`` by ``strength`` times that; the bound is doubled, and taken at
    its largest over ``f`` (``f (1 − f) ≤ 1/4``). A strike is
    undecided when ``x + 1/2`` lies within the bound of a whole number, or when the
    relative error is too large for a first-order bound (1e-3, which also catches an
    Effective value that cannot be told from 0).
    """
    fraction = np.atleast_1d(fraction)  # in-place work below needs an array
    fixed, half_k = chunk_errors(arrays)
    folds = [(fold.total, fold.scale) for fold in (attack, defense)]
    relative, bound = rounding_bound(np.maximum, folds, arrays.target_strength, fixed, half_k)
    too_rough = relative >= 1e-3 if np.max(relative, initial=0.0) >= 1e-3 else None
    shifted = np.multiply(fraction, arrays.target_strength)
    shifted += 0.5
    shifted -= np.rint(shifted)
    distance = np.abs(shifted, out=shifted)
    # Written so that a NaN distance counts as undecided.
    undecided: NDArray[np.bool_] = np.logical_not(distance > bound)
    if too_rough is not None:
        undecided |= too_rough
    return undecided


def _evaluate_part(
    arrays: StrikeArrays,
    exact: ExactReader,
    offset: int,
    out: tuple[Floats, Floats, Floats, Ints],
) -> int:
    numbers = arrays.numbers()
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        totals = strike_totals(FLOATS, numbers, _begin, _begin)
        attack, defense = totals.attack, totals.defense
        assert isinstance(attack, ArrayFold)
        assert isinstance(defense, ArrayFold)
        undecided = np.flatnonzero(_undecided(attack, defense, arrays, totals.fraction))
    stop = offset + len(arrays)
    out[0][offset:stop] = attack.total
    out[1][offset:stop] = defense.total
    out[2][offset:stop] = totals.fraction
    out[3][offset:stop] = totals.losses
    if undecided.size:
        losses, fractions = decide_exactly(exact(undecided + offset))
        out[3][undecided + offset] = losses
        out[2][undecided + offset] = [float(f) for f in fractions]
    return int(undecided.size)


def evaluate(
    arrays: StrikeArrays,
    *,
    exact: ExactReader | None = None,
    chunk: int = CHUNK,
    workers: int = 1,
) -> StrikeResults:
    """Evaluate checked :class:`StrikeArrays`; see :func:`strikes`.

    ``exact(indices)`` gives those strikes in fractions, for the few whose rounding the
    floats cannot vouch for; by default each float is read by its shortest decimal form.
    ``workers`` threads share the chunks (numpy lets go of the interpreter lock inside its
    loops, so two cores can both work); the results do not depend on it.
    """
    if chunk < 1 or workers < 1:
        raise ValueError(f"chunk and workers must be at least 1, not {chunk} and {workers}")
    size = len(arrays)
    decide = exact if exact is not None else arrays.exact_fields
    out = (
        np.empty(size, np.float64),
        np.empty(size, np.float64),
        np.empty(size, np.float64),
        np.empty(size, np.int64),
    )

    def run(start: int) -> int:
        return _evaluate_part(arrays.part(start, start + chunk), decide, start, out)

    starts = range(0, size, chunk)
    if workers == 1 or len(starts) == 1:
        decided = sum(run(start) for start in starts)
    else:
        # Imported here: threads (and the logging they bring) pay off only on big boards.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            decided = sum(pool.map(run, starts))
    return StrikeResults(*out, decided_exactly=decided)


def strikes(**inputs: ArrayLike) -> StrikeResults:
    """Evaluate many strikes from arrays (fields: :class:`StrikeArrays`, :data:`DEFAULTS`).

    Losses equal the exact path's (:func:`~fracas.rulesets.hex.strike.compute_strike`) for
    the same numbers, floats read by their shortest decimal form.
    """
    return evaluate(strike_arrays(**inputs))


@dataclass(frozen=True, slots=True)
class CombatResults:
    """Many combats: the attack and, where there is one, the counter.

    ``target_losses`` come from the attack, ``attacker_losses`` from the counter (0 where
    there is none); ``counter_fraction`` is 0 where there is no counter.
    """

    target_losses: Ints
    attacker_losses: Ints
    fraction: Floats
    counter_fraction: Floats
    decided_exactly: int


def combats(
    attack: StrikeArrays,
    counter: StrikeArrays,
    countered: ArrayLike,
    *,
    exact_attack: ExactReader | None = None,
    exact_counter: ExactReader | None = None,
) -> CombatResults:
    """Evaluate many combats: ``attack[i]``, and ``counter[i]`` where ``countered[i]``.

    Both strikes of a combat use the numbers from before it (the seed's simultaneous
    strikes), so they are two independent batches.
    """
    mask = np.asarray(countered, dtype=bool)
    if mask.shape != (len(attack),) or len(counter) != len(attack):
        raise ScenarioError(
            f"attack has {len(attack)} strikes, counter {len(counter)}, countered "
            f"{mask.shape[0] if mask.ndim == 1 else mask.shape}",
            path=("countered",),
        )
    forward = evaluate(attack, exact=exact_attack)
    back = evaluate(counter, exact=exact_counter)
    return CombatResults(
        target_losses=forward.losses,
        attacker_losses=np.where(mask, back.losses, 0),
        fraction=forward.fraction,
        counter_fraction=np.where(mask, back.fraction, 0.0),
        decided_exactly=forward.decided_exactly + back.decided_exactly,
    )


def as_arrays(numbers: list[StrikeNumbers[Fraction]]) -> StrikeArrays:
    """Pack gathered strikes (exact numbers) as float arrays, each value correctly rounded."""

    def column(pick: Callable[[StrikeNumbers[Fraction]], Fraction]) -> Floats:
        return np.fromiter((float(pick(n)) for n in numbers), np.float64, len(numbers))

    def side(which: str) -> dict[str, Floats]:
        prefix = "attacker" if which == "attacker" else "target"
        printed, support = (
            ("attack", "attack_support")
            if prefix == "attacker"
            else (
                "defense",
                "defense_support",
            )
        )
        get: Callable[[StrikeNumbers[Fraction]], SideNumbers[Fraction]] = (
            (lambda n: n.attacker) if prefix == "attacker" else (lambda n: n.defender)
        )
        return {
            f"{prefix}_strength": column(lambda n: get(n).strength),
            printed: column(lambda n: get(n).printed),
            f"{prefix}_level": column(lambda n: get(n).level),
            f"{prefix}_encirclement": column(lambda n: get(n).encirclement),
            f"{prefix}_terrain": column(lambda n: get(n).terrain),
            f"{prefix}_status_mul": column(lambda n: get(n).status_mul),
            support: column(lambda n: get(n).support),
            f"{prefix}_status_add": column(lambda n: get(n).status_add),
        }

    values: dict[str, Any] = {
        **side("attacker"),
        **side("target"),
        "pierce": column(lambda n: n.pierce),
        "loss_exponent": column(lambda n: n.loss_exponent),
        "level_percent": column(lambda n: n.level_percent),
        "defense_support_cap": column(lambda n: n.defense_support_cap),
    }
    return StrikeArrays(**values, size=len(numbers))
