"""An optional compiled kernel for very large batches (the ``fast`` extra: numba).

The kernel is not written by hand: :func:`~fracas.rulesets.hex.strike.strike_totals`, the
one definition of the strike formula, is run once on *traced* numbers that write down each
operation instead of doing it. That gives straight-line code for one strike, which numba
compiles into a loop over the strikes, shared by every core. Losses are exact as in
:mod:`fracas.rulesets.hex.batch`: the kernel carries the same error bound, and the strikes
it cannot vouch for are decided in fractions by the same exact path.

Compiling takes a second or two, once per process and per set of fields given as arrays;
below about a million strikes the numpy batch is the better choice.

>>> from fracas.rulesets.hex import fast
>>> result = fast.strikes(
...     attacker_strength=[100, 100, 99], attack=[10, 20, 10],
...     target_strength=[100, 100, 99], defense=[10, 10, 10])
>>> result.losses.tolist(), result.decided_exactly   # 49.5 is decided in fractions
([50, 80, 50], 1)
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from fracas.rulesets.hex.batch import (
    _SLACK,
    FIELDS,
    ExactReader,
    StrikeArrays,
    StrikeResults,
    chunk_errors,
    decide_exactly,
    numbers_from_fields,
    rounding_bound,
    strike_arrays,
)
from fracas.rulesets.hex.strike import strike_totals

#: What the kernel writes for each strike, in order.
OUTPUTS = ("attack", "defense", "fraction", "losses", "undecided")


def available() -> bool:
    """True when numba can be imported (``pip install 'fracas[fast]'``)."""
    try:
        importlib.import_module("numba")
    except ImportError:
        return False
    return True


# Tracing ---------------------------------------------------------------------------------


@dataclass
class Tape:
    """Straight-line code being written: one assignment a line."""

    lines: list[str] = field(default_factory=list)

    def emit(self, expression: str) -> Term:
        name = f"t{len(self.lines)}"
        self.lines.append(f"{name} = {expression}")
        return Term(self, name)


def _text(value: Any) -> str:
    return value.name if isinstance(value, Term) else repr(float(value))


@dataclass(frozen=True)
class Term:
    """A traced number: the name of a local of the generated code."""

    tape: Tape
    name: str

    def _op(self, symbol: str, other: Any, swap: bool = False) -> Term:
        left, right = (_text(other), self.name) if swap else (self.name, _text(other))
        return self.tape.emit(f"{left} {symbol} {right}")

    def __add__(self, other: Any) -> Term:
        return self._op("+", other)

    def __radd__(self, other: Any) -> Term:
        return self._op("+", other, swap=True)

    def __sub__(self, other: Any) -> Term:
        return self._op("-", other)

    def __rsub__(self, other: Any) -> Term:
        return self._op("-", other, swap=True)

    def __mul__(self, other: Any) -> Term:
        return self._op("*", other)

    def __rmul__(self, other: Any) -> Term:
        return self._op("*", other, swap=True)

    def __truediv__(self, other: Any) -> Term:
        return self._op("/", other)

    def __rtruediv__(self, other: Any) -> Term:
        return self._op("/", other, swap=True)


#: Whole loss exponents worked out by multiplying, not by ``pow``: a few multiplications
#: are several times faster, and err by at most 3 units of roundoff, inside the 4 the
#: error bound allows a whole power.
MULTIPLIED_POWERS = (1, 2, 3, 4)


@dataclass(frozen=True)
class TracedArithmetic:
    """:class:`~fracas.rulesets.hex.strike.Arithmetic` that writes code for one strike.

    ``exponent`` is the loss exponent when it is the same whole number for every strike
    (one of :data:`MULTIPLIED_POWERS`), else ``None``.
    """

    exponent: int | None = None

    def ratio(self, numerator: Term, denominator: Term) -> Term:
        return numerator.tape.emit(
            f"({numerator.name} / {denominator.name}) if {denominator.name} > 0.0 else 0.0"
        )

    def power(self, base: Term, exponent: Term) -> Term:
        if self.exponent is None:
            return base.tape.emit(f"{base.name} ** {exponent.name}")
        return base.tape.emit(" * ".join([base.name] * self.exponent))

    def where_positive(self, test: Term, then: Term, otherwise: Term) -> Term:
        return test.tape.emit(f"{then.name} if {test.name} > 0.0 else {otherwise.name}")

    def round_half_up(self, value: Term) -> Term:
        return value.tape.emit(f"np.floor({value.name} + 0.5)")

    def clamp(self, value: Term, low: Term, high: Term) -> Term:
        return value.tape.emit(f"min(max({value.name}, {low.name}), {high.name})")


@dataclass(frozen=True)
class TracedFold:
    """:class:`~fracas.rulesets.hex.strike.Fold` that writes code, bounding its error.

    ``scale`` follows the same rule as :class:`~fracas.rulesets.hex.batch.ArrayFold`'s
    magnitude (everything added, in absolute value, scaled by every factor since), always
    kept: while nothing negative is added it equals the total, bit for bit.
    """

    total: Term
    scale: Term

    def times(self, row: str, value: Term) -> TracedFold:
        return TracedFold(self.total * value, self.scale * value)

    def plus(self, row: str, value: Term) -> TracedFold:
        size = value.tape.emit(f"abs({value.name})")
        return TracedFold(self.total + value, self.scale + size)

    def plus_at_most(self, row: str, value: Term, cap: Term) -> TracedFold:
        return self.plus(row, value.tape.emit(f"min({value.name}, {cap.name})"))

    def floor_at_zero(self) -> TracedFold:
        tape, total, scale = self.total.tape, self.total.name, self.scale.name
        # Below −(its error bound) the exact value is negative too: an exact 0, no error.
        return TracedFold(
            tape.emit(f"max({total}, 0.0)"),
            tape.emit(f"0.0 if {total} < -{_SLACK!r} * {scale} else {scale}"),
        )


def _traced_maximum(value: Term, floor: float) -> Term:
    return value.tape.emit(f"max({value.name}, {floor!r})")


def _begin(row: str, value: Term) -> TracedFold:
    return TracedFold(value, value)


def kernel_source(arrays: tuple[bool, ...], exponent: int | None = None) -> str:
    """Python source of the kernel, for inputs given as arrays (``True``) or scalars.

    ``exponent``: the loss exponent, when it is one of :data:`MULTIPLIED_POWERS` for all.
    """
    tape = Tape()
    reads = {
        name: tape.emit(f"{name}[i]" if is_array else name)
        for name, is_array in zip(FIELDS, arrays, strict=True)
    }
    totals = strike_totals(TracedArithmetic(exponent), numbers_from_fields(reads), _begin, _begin)
    attack, defense = totals.attack, totals.defense
    assert isinstance(attack, TracedFold)
    assert isinstance(defense, TracedFold)
    assert isinstance(totals.fraction, Term)
    assert isinstance(totals.losses, Term)
    strength = reads["target_strength"].name
    fraction = totals.fraction.name
    # The bound of batch._undecided, traced from the same function, strike by strike.
    fixed, half_k = Term(tape, "fixed"), Term(tape, "half_k")
    folds = [(attack.total, attack.scale), (defense.total, defense.scale)]
    relative, bound = rounding_bound(
        _traced_maximum, folds, reads["target_strength"], fixed, half_k
    )
    decided = [
        f"shifted = {fraction} * {strength} + 0.5",
        "distance = abs(shifted - np.rint(shifted))",
        f"undecided[i] = not (distance > {bound.name}) or {relative.name} >= 1e-3",
    ]
    body = [
        *tape.lines,
        f"out_attack[i] = {attack.total.name}",
        f"out_defense[i] = {defense.total.name}",
        f"out_fraction[i] = {fraction}",
        f"out_losses[i] = {totals.losses.name}",
        *decided,
    ]
    parameters = ", ".join(
        [
            *FIELDS,
            "fixed",
            "half_k",
            "out_attack",
            "out_defense",
            "out_fraction",
            "out_losses",
            "undecided",
            "size",
        ]
    )
    loop = "\n".join(f"        {line}" for line in body)
    return f"def kernel({parameters}):\n    for i in prange(size):\n{loop}\n"


_KERNELS: dict[tuple[tuple[bool, ...], int | None], Callable[..., None]] = {}
#: One kernel runs at a time: it already uses every core, and numba's fallback thread
#: pool (used where neither TBB nor OpenMP is installed) aborts the whole process when two
#: threads launch parallel work at once.
_LAUNCH = threading.Lock()


def _kernel(arrays: tuple[bool, ...], exponent: int | None) -> Callable[..., None]:
    """The compiled kernel for this choice of array and scalar inputs (compiled once)."""
    with _LAUNCH:
        return _compiled(arrays, exponent)


def _compiled(arrays: tuple[bool, ...], exponent: int | None) -> Callable[..., None]:
    key = (arrays, exponent)
    if key not in _KERNELS:
        try:
            numba = importlib.import_module("numba")
        except ImportError:
            raise ImportError(
                "the compiled kernel needs numba: pip install 'fracas[fast]'"
            ) from None
        scope: dict[str, Any] = {
            "np": np,
            "prange": numba.prange,
        }
        exec(kernel_source(arrays, exponent), scope)
        _KERNELS[key] = numba.njit(parallel=True, error_model="numpy")(scope["kernel"])
    return _KERNELS[key]


def evaluate(arrays: StrikeArrays, *, exact: ExactReader | None = None) -> StrikeResults:
    """:func:`fracas.rulesets.hex.batch.evaluate` through the compiled kernel: same results."""
    size = len(arrays)
    values = [getattr(arrays, name) for name in FIELDS]
    exponent = arrays.loss_exponent
    multiplied = float(exponent) if exponent.ndim == 0 else None
    kernel = _kernel(
        tuple(v.ndim == 1 for v in values),
        int(multiplied) if multiplied in MULTIPLIED_POWERS else None,
    )
    fixed, half_k = chunk_errors(arrays)
    out = [np.empty(size, np.float64) for _ in range(3)]
    losses = np.empty(size, np.int64)
    undecided = np.empty(size, np.bool_)
    with _LAUNCH:
        kernel(
            *(v if v.ndim == 1 else float(v) for v in values),
            fixed,
            half_k,
            *out,
            losses,
            undecided,
            size,
        )
    picked = np.flatnonzero(undecided)
    if picked.size:
        decide = exact if exact is not None else arrays.exact_fields
        exact_losses, fractions = decide_exactly(decide(picked))
        losses[picked] = exact_losses
        out[2][picked] = [float(f) for f in fractions]
    return StrikeResults(out[0], out[1], out[2], losses, decided_exactly=int(picked.size))


def strikes(**inputs: ArrayLike) -> StrikeResults:
    """:func:`fracas.rulesets.hex.batch.strikes` through the compiled kernel."""
    return evaluate(strike_arrays(**inputs))
