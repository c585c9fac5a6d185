"""Limits on input and budgets on work: every one named, with a documented default.

A hostile or mistaken scenario must not hang fracas or eat the machine's memory. Each
bound is a named :class:`Limit` declared where it applies (the scenario reader declares the
file size and nesting depth, a ruleset the counts its document may hold, the commands their
work budgets). ``docs/limits.md`` lists them all; a user raises one explicitly with
``--limit NAME=VALUE`` on the command line, or ``limits={NAME: VALUE}`` in Python.

>>> ATTACKS = declare("demo.attacks", 100, "attacks per unit")
>>> value("demo.attacks")
100
>>> with limits_in_force({"demo.attacks": 500}):
...     value("demo.attacks")
500
>>> try:
...     check("demo.attacks", 1000, path=("units", 0, "attacks"))
... except LimitExceededError as error:
...     print(error.path, error.problem[:40])
('units', 0, 'attacks') 1000 is above the limit demo.attacks = 1

Budgets count work in a ruleset's own steps (dice rolled, combats worked out) while a
command runs; :func:`spend` is called where the work happens:

>>> RESOLVE = declare("demo.budget", 3, "steps of a demo")
>>> try:
...     with budget("demo.budget", "dice rolls"):
...         for _ in range(5):
...             spend()
... except BudgetExceededError as error:
...     print(error.problem[:47], "…", error.problem[-37:])
the budget demo.budget of 3 dice rolls is spent … (raise it with --limit demo.budget=N)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from difflib import get_close_matches
from types import MappingProxyType

from fracas.core.errors import FracasError, ScenarioError


@dataclass(frozen=True, slots=True)
class Limit:
    """A named bound: its default and what it bounds (a phrase for docs and messages)."""

    name: str
    default: int
    description: str


_DECLARED: dict[str, Limit] = {}


def declare(name: str, default: int, description: str) -> Limit:
    """Register the limit ``name`` (once; declaring it again with the same default is a no-op)."""
    known = _DECLARED.get(name)
    if known is not None:
        if known.default != default:
            raise ValueError(f"limit {name} declared twice with different defaults")
        return known
    limit = Limit(name, default, description)
    _DECLARED[name] = limit
    return limit


def declared() -> tuple[Limit, ...]:
    """Every limit declared so far, by name (``fracas.rulesets.declare_ruleset_limits()``
    first to see the rulesets' own)."""
    return tuple(sorted(_DECLARED.values(), key=lambda limit: limit.name))


#: Functions that declare more limits when asked (a ruleset declares its own with its
#: document models, which load with its first scenario).
_DECLARERS: list[Callable[[], None]] = []


def declare_with(declarer: Callable[[], None]) -> None:
    """Have ``declarer`` called when a limit name is not known yet, before it is refused."""
    _DECLARERS.append(declarer)


_NO_OVERRIDES: Mapping[str, int] = MappingProxyType({})
_OVERRIDES: ContextVar[Mapping[str, int]] = ContextVar("fracas_limits", default=_NO_OVERRIDES)


class LimitExceededError(ScenarioError):
    """A scenario holds more than a limit allows (the message says how to raise it)."""


class UnknownLimitError(FracasError, LookupError):
    """``--limit`` names a limit that no part of fracas declares."""


def value(name: str) -> int:
    """The limit ``name`` as now in force: raised by :func:`limits_in_force`, else its default."""
    overrides = _OVERRIDES.get()
    if name in overrides:
        return overrides[name]
    return _DECLARED[name].default


def check_names(overrides: Mapping[str, int]) -> None:
    """Refuse unknown limit names and values below 0."""
    if any(name not in _DECLARED for name in overrides):
        for declarer in _DECLARERS:
            declarer()
    for name, amount in overrides.items():
        if name not in _DECLARED:
            raise UnknownLimitError(f"no limit called {name!r} ({_nearest(name)})")
        if amount < 0:
            raise UnknownLimitError(f"limit {name} must be 0 or more, not {amount}")


def _nearest(name: str) -> str:
    """What an unknown limit name may have meant: the closest name, the names of its
    family (the part before the dot), or the families. All of them would not fit the one
    line an error has.

    >>> _ = declare("demo.lanes", 4, "lanes a demo may open")
    >>> hint = _nearest("demo.lane")
    >>> hint.startswith("did you mean demo.lanes? demo limits: "), "lanes" in hint.split(": ")[1]
    (True, True)
    """
    names = [limit.name for limit in declared()]
    family = name.partition(".")[0]
    kin = [known.partition(".")[2] for known in names if known.partition(".")[0] == family]
    close = get_close_matches(name, names, n=1, cutoff=0.6)
    parts = [f"did you mean {close[0]}?"] if close else []
    if kin:
        parts.append(f"{family} limits: {', '.join(kin)};")
    else:
        families = dict.fromkeys(known.partition(".")[0] for known in names)
        parts.append(f"limits are {', '.join(f'{f}.*' for f in families)};")
    parts.append("docs/limits.md lists all")
    return " ".join(parts)


@contextmanager
def limits_in_force(overrides: Mapping[str, int] | None) -> Iterator[None]:
    """Raise (or lower) the named limits for the work done inside the block."""
    if not overrides:
        yield
        return
    check_names(overrides)
    token = _OVERRIDES.set(MappingProxyType({**_OVERRIDES.get(), **overrides}))
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def current_overrides() -> Mapping[str, int]:
    """The overrides in force right now (to carry them into later work)."""
    return _OVERRIDES.get()


#: Whether the command in force takes ``--limit`` (see :func:`raisable_limits`).
_RAISABLE: ContextVar[bool] = ContextVar("fracas_limits_raisable", default=True)


@contextmanager
def raisable_limits(raisable: bool) -> Iterator[None]:
    """Say inside whether the limits can be raised where the work was asked for: a
    command without ``--limit``, or a web request (the server's limits are its
    operator's), gets errors that do not tell how.

    >>> with raisable_limits(False):
    ...     repr(how_to_raise("input.depth"))
    "''"
    """
    token = _RAISABLE.set(raisable)
    try:
        yield
    finally:
        _RAISABLE.reset(token)


def how_to_raise(name: str) -> str:
    """What a limit error adds to say how to go past the limit ``name``: nothing where the
    limits cannot be raised (:func:`raisable_limits`).

    >>> how_to_raise("input.depth")
    ' (raise it with --limit input.depth=N)'
    """
    return f" (raise it with --limit {name}=N)" if _RAISABLE.get() else ""


def check(
    name: str, amount: int, *, path: Sequence[str | int] = (), shown: str | None = None
) -> None:
    """Raise :class:`LimitExceededError` when ``amount`` is above the limit ``name``; the
    message says how to raise it where the limits can be raised (:func:`raisable_limits`).

    >>> _ = declare("demo.lanes", 4, "lanes a demo may open")
    >>> for raisable in (True, False):
    ...     try:
    ...         with raisable_limits(raisable):
    ...             check("demo.lanes", 5, path=("--lanes",))
    ...     except LimitExceededError as error:
    ...         print(error)
    --lanes: 5 is above the limit demo.lanes = 4 (raise it with --limit demo.lanes=N)
    --lanes: 5 is above the limit demo.lanes = 4
    """
    bound = value(name)
    if amount > bound:
        what = shown if shown is not None else str(amount)
        raise LimitExceededError(
            f"{what} is above the limit {name} = {bound}{how_to_raise(name)}", path=path
        )


class BudgetExceededError(ScenarioError):
    """A command needed more steps than its work budget allows."""

    def __str__(self) -> str:
        # The whole scenario ran out of budget, not one key: no "(document)" to point at.
        return super().__str__() if self.source or self.path else self.problem


class Budget:
    """Steps spent so far against a bound of ``steps`` ``unit``, named ``name`` (a declared
    limit); the step past it raises :meth:`exceeded`. Every counted budget is one of these.

    >>> budget = Budget("runs.steps", "steps", 2)
    >>> budget.spend(2); budget.used
    2
    >>> budget.spend()
    Traceback (most recent call last):
    ...
    fracas.core.limits.BudgetExceededError: the budget runs.steps of 2 steps is spent (...)
    """

    __slots__ = ("name", "steps", "unit", "used")

    def __init__(self, name: str, unit: str, steps: int) -> None:
        self.name = name
        self.unit = unit
        self.steps = steps
        self.used = 0

    def spend(self, steps: int = 1) -> None:
        self.used += steps
        if self.used > self.steps:
            raise self.exceeded()

    def exceeded(self) -> FracasError:
        """The error of a spent budget: the limit, and how to raise it."""
        return BudgetExceededError(
            f"the budget {self.name} of {self.steps:,} {self.unit} is spent"
            f"{how_to_raise(self.name)}"
        )


_BUDGET: ContextVar[Budget | None] = ContextVar("fracas_budget", default=None)


@contextmanager
def budget(name: str, unit: str) -> Iterator[Budget]:
    """Count the work done inside the block against the limit ``name``, in ``unit``."""
    counter = Budget(name, unit, value(name))
    token = _BUDGET.set(counter)
    try:
        yield counter
    finally:
        _BUDGET.reset(token)


def spend(steps: int = 1) -> None:
    """Count ``steps`` against the budget in force (no budget in force: nothing to count)."""
    counter = _BUDGET.get()
    if counter is not None:
        counter.spend(steps)
