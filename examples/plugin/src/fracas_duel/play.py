"""Playing a duel: each exchange, both fighters roll; the higher total wounds the other.

The bout is written once, as a process over small hashable states (exchanges fought,
wounds taken, who fell). fracas derives everything else from it: seeded play with its
log (the rolls go to the recorder), exact odds over merged states (two bouts that reach
the same wounds after the same exchanges go on as one), and Monte Carlo.

>>> from fracas.core.dice import SeededDice
>>> from fracas.core.process import run
>>> from fracas.core.record import KeepingRecorder
>>> from fracas_duel.document import DuelParams, Fighter
>>> duel = Duel((Fighter(name="A", skill=1), Fighter(name="B")), DuelParams(), "t")
>>> recorder = KeepingRecorder()
>>> end = run(BoutProcess(duel, recorder), SeededDice(2))
>>> end.exchanges == len(recorder.notes) and sum(end.wounds) <= end.exchanges
True
"""

from __future__ import annotations

from dataclasses import dataclass

from fracas.core.dice import Dice, die
from fracas.core.record import Explained, Recorder
from fracas_duel.scenario import Duel


@dataclass(frozen=True, slots=True)
class Exchange:
    """One exchange: both rolls as breakdowns, and who was wounded (``None``: a tie)."""

    rolls: tuple[Explained, Explained]
    wounded: int | None


@dataclass(frozen=True, slots=True)
class BoutState:
    """Where a bout stands: exchanges fought, wounds each fighter took, who fell."""

    exchanges: int
    wounds: tuple[int, int]
    fallen: int | None


@dataclass(frozen=True, slots=True)
class Bout:
    """Every exchange fought, the wounds each fighter took, and who fell first."""

    exchanges: tuple[Exchange, ...]
    wounds: tuple[int, int]
    fallen: int | None


class BoutProcess:
    """A bout as steps: one exchange a step, until a fighter has taken its health in
    wounds or the exchanges run out."""

    def __init__(self, duel: Duel, recorder: Recorder) -> None:
        self.duel = duel
        self.recorder = recorder
        self.node = die(duel.params.die)

    def start(self) -> BoutState:
        """No exchange fought yet."""
        return BoutState(0, (0, 0), None)

    def finished(self, state: BoutState) -> bool:
        """A fighter fell, or the last exchange was fought."""
        return state.fallen is not None or state.exchanges >= self.duel.params.max_exchanges

    def step(self, state: BoutState, dice: Dice) -> BoutState:
        """One exchange: both roll the die and add their skill; the lower total is wounded."""
        node, record = self.node, self.recorder
        first, second = (
            record.start(f.name, node.label, dice.roll(node)).plus("skill", f.skill, source=f.name)
            for f in self.duel.fighters
        )
        wounded = None if first.total == second.total else (1 if first.total > second.total else 0)
        record.note(Exchange((first, second), wounded))
        wounds, fallen = list(state.wounds), None
        if wounded is not None:
            wounds[wounded] += 1
            if wounds[wounded] >= self.duel.fighters[wounded].health:
                fallen = wounded
        return BoutState(state.exchanges + 1, (wounds[0], wounds[1]), fallen)


def bout_of(state: BoutState, notes: tuple[object, ...]) -> Bout:
    """The bout a play kept: its exchanges (the recorder's notes) and its end."""
    exchanges = tuple(note for note in notes if isinstance(note, Exchange))
    return Bout(exchanges, state.wounds, state.fallen)


def winner_name(duel: Duel, fallen: int | None) -> str:
    """The fighter still standing when the other fell, or ``"none"``."""
    return "none" if fallen is None else duel.fighters[1 - fallen].name
