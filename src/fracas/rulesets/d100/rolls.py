"""Open-ended percentile rolls and the record each roll leaves in the log.

A roll is one or more d100 faces (a face of ``open_ended_from`` or more is rolled again
and added) plus named bonuses. The record keeps the bonuses as plain tuples while the
battle is played, and becomes a :class:`~fracas.core.modifiers.Breakdown` only when a
report asks for it, so playing thousands of battles stays cheap.

>>> from fracas.core.dice import ScriptedDice
>>> open_ended(ScriptedDice([98, 97, 12]), from_face=96)
(98, 97, 12)
>>> Roll("attack", "Wolves", (57,), (Bonus("Offense", 20, "2 × 10"),)).total
77
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple, Protocol, cast

from fracas.core.dice import D100, ChanceNode, Dice
from fracas.core.modifiers import Breakdown
from fracas.core.report import fmt
from fracas.rulesets.d100.params import ROLL_LABELS


def open_ended(dice: Dice, from_face: int, limit: int | None = None) -> tuple[int, ...]:
    """Roll d100; while the last face is ``from_face`` or more, roll again (at most ``limit``
    extra dice when a limit is given). Returns every face rolled."""
    return open_ended_faces(d100_roller(dice), from_face, limit)


def d100_roller(dice: Dice) -> Callable[[], int]:
    """A function rolling one d100 with ``dice`` (see :func:`die_roller`)."""
    return die_roller(dice, D100)


def die_roller(dice: Dice, node: ChanceNode) -> Callable[[], int]:
    """A function rolling ``node`` with ``dice``: the dice's own fast roller if they offer
    one (Monte Carlo's do), else ``dice.roll(node)`` each time. Either way the faces are
    those ``dice.roll`` gives, in the same order."""
    roller = getattr(dice, "roller", None)
    if roller is not None:
        fast: Callable[[], int] = roller(node)
        return fast
    return partial(dice.roll, node)


def open_ended_faces(d100: Callable[[], int], from_face: int, limit: int | None) -> tuple[int, ...]:
    """:func:`open_ended` with ``d100`` rolling each die: every face rolled."""
    first = d100()
    if first < from_face:  # most rolls: one die
        return (first,)
    return _rolled_again(d100, first, from_face, limit)


def open_ended_total(
    d100: Callable[[], int], from_face: int, limit: int | None
) -> Callable[[int], int]:
    """A function rolling :func:`open_ended` with ``d100`` and returning only the sum of the
    faces plus the ``bonus`` it is given, for plays that keep no log.

    >>> from fracas.core.dice import ScriptedDice
    >>> total = open_ended_total(d100_roller(ScriptedDice([98, 97, 12, 40])), 96, None)
    >>> total(0), total(5)
    (207, 45)
    """

    def total(bonus: int) -> int:
        first = d100()
        if first < from_face:
            return first + bonus
        return sum(_rolled_again(d100, first, from_face, limit)) + bonus

    return total


class _DrawingDice(Protocol):
    """Dice a play may draw from itself (see ``SamplingDice.draws`` in ``fracas.core.sampling``),
    counting for them."""

    used: int


class SampledRolls(NamedTuple):
    """How a play that keeps no log rolls: totals only, and the rolls it made itself."""

    #: One open-ended roll plus the bonus it is given: the total.
    total: Callable[[int], int]
    #: Whether an open-ended roll plus the first bonus beats the next one plus the second
    #: (a tie does not): one call for the two rolls of a contest.
    beats: Callable[[int, int], bool]
    #: Hands the dice the count of the d100s rolled without them (see
    #: :func:`sampled_rolls`); called once the play is over.
    settle: Callable[[], None]


def sampled_rolls(dice: Dice, from_face: int, limit: int | None) -> SampledRolls:
    """Open-ended rolls with ``dice`` for plays that keep no log, as cheap as they go.

    Dice that let a play draw a d100 itself (Monte Carlo's sampling dice, through their
    ``draws``) are read without a function call per die, and ``settle`` adds those rolls
    to the dice's count at the end. Other dice roll through :func:`d100_roller`. Either way
    the faces and their order are those of :func:`open_ended`.

    >>> from fracas.core.dice import ScriptedDice
    >>> rolls = sampled_rolls(ScriptedDice([98, 97, 12, 60, 40, 50, 50]), 96, None)
    >>> rolls.total(0), rolls.beats(5, 0), rolls.beats(0, 0)
    (207, True, False)
    """
    draws = getattr(dice, "draws", None)
    source = cast(
        "tuple[Callable[[], int], tuple[int, ...]] | None",
        draws(D100) if draws is not None else None,
    )
    if source is None:
        total = open_ended_total(d100_roller(dice), from_face, limit)

        def beats_by_total(first: int, second: int) -> bool:
            return total(first) > total(second)

        return SampledRolls(total, beats_by_total, lambda: None)
    counted: _DrawingDice = dice  # type: ignore[assignment]  # it has draws: it counts
    draw, faces = source
    made = 0

    # Each function below rolls its d100s inline: ``faces[draw()]`` until it is
    # not 0 (see the dice's ``draws``). Almost every roll is one die below ``from_face``;
    # the rest go on through _rolled_again, as :func:`open_ended` does.
    def d100() -> int:
        nonlocal made
        made += 1
        face = faces[draw()]
        while not face:
            face = faces[draw()]
        return face

    def sampled_total(bonus: int) -> int:
        nonlocal made
        made += 1
        face = faces[draw()]
        while not face:
            face = faces[draw()]
        if face < from_face:
            return face + bonus
        return sum(_rolled_again(d100, face, from_face, limit)) + bonus

    def beats(first: int, second: int) -> bool:
        nonlocal made
        made += 2
        face = faces[draw()]
        while not face:
            face = faces[draw()]
        if face >= from_face:
            face = sum(_rolled_again(d100, face, from_face, limit))
        other = faces[draw()]
        while not other:
            other = faces[draw()]
        if other >= from_face:
            other = sum(_rolled_again(d100, other, from_face, limit))
        return face + first > other + second

    def settle() -> None:
        nonlocal made
        counted.used += made
        made = 0

    return SampledRolls(sampled_total, beats, settle)


def _rolled_again(
    d100: Callable[[], int], first: int, from_face: int, limit: int | None
) -> tuple[int, ...]:
    faces = [first]
    while faces[-1] >= from_face and (limit is None or len(faces) <= limit):
        faces.append(d100())
    return tuple(faces)


class Bonus(NamedTuple):
    """A named bonus (or penalty, when negative) added to a roll.

    ``detail`` is the arithmetic behind the value (``2 × 10 × 7/10``), printed beside the
    label in a battle log so a player can check a bonus that changes during the battle.
    """

    label: str
    value: int
    source: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll of one unit: its faces, its named bonuses and the total."""

    name: str
    unit: str
    faces: tuple[int, ...]
    bonuses: tuple[Bonus, ...]

    @property
    def total(self) -> int:
        """Every face plus every bonus."""
        return sum(self.faces) + sum(bonus.value for bonus in self.bonuses)

    @property
    def label(self) -> str:
        """The roll's name as a battle log prints it (``Damage reduction``)."""
        return ROLL_LABELS.get(self.name, self.name)

    def breakdown(self) -> Breakdown:
        """The roll as breakdown rows: the dice first, then each bonus in order."""
        breakdown = Breakdown.start(
            self.label, "d100", sum(self.faces), source="+".join(map(str, self.faces))
        )
        for bonus in self.bonuses:
            breakdown = breakdown.plus(bonus.label, bonus.value, source=bonus.source)
        return breakdown

    def describe(self) -> str:
        """One log line: ``Attack 85 = 57 (d100) + 20 (Offense 2 × 10) + 8 (Overwhelm)``.

        >>> Roll("morale", "Wolves", (98, 3), (Bonus("PAX lost", -8, "", "2 × 4"),)).describe()
        'Morale 93 = 98+3 (d100) − 8 (PAX lost 2 × 4)'
        """
        breakdown = self.breakdown()
        dice = "+".join(map(str, self.faces))
        parts = [f"{self.label} {fmt(breakdown.total)} = {dice} (d100)"]
        for row, bonus in zip(breakdown.rows[1:], self.bonuses, strict=True):
            sign = "−" if row.value < 0 else "+"
            name = f"{row.label} {bonus.detail}" if bonus.detail else row.label
            parts.append(f"{sign} {fmt(abs(row.value))} ({name})")
        return " ".join(parts)
