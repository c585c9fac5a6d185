"""Every legal attack of a side, and the same list ranked by a documented score.

Score of an attack (higher is better)::

    score = advisor_enemy_weight × enemy soldiers lost − advisor_own_weight × own soldiers lost

Ties go to the attack whose attacker gains more levels, then to the order the units
appear in the scenario (attacker, then target), so the ranking is always the same.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> from fracas.rulesets.hex.document import HexParams
>>> board = Board.from_rows(["...."], [
...     Unit.make("gun", "blue", (0, 0), attack=10, defense=5, range=(2, 3)),
...     Unit.make("inf", "blue", (1, 0), attack=10, defense=10),
...     Unit.make("foe", "red", (2, 0), attack=10, defense=10)])
>>> [(a.attacker, a.target, int(a.score)) for a in advise(board, "blue", HexParams())]
[('gun', 'foe', 61), ('inf', 'foe', 0)]

The gun fires from 2 hexes (no counter) with inf's support: 1000 + 250 against 1000
takes 61; inf's own attack takes 50 and the counter costs it 50 (the gun stands next to
inf, not next to foe, so it supports nobody).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from fracas.core.modifiers import to_fraction
from fracas.rulesets.hex.boards import SideAttacks, SideOutcome, attack_pairs
from fracas.rulesets.hex.document import HexParams
from fracas.rulesets.hex.play import Combat, forecast
from fracas.rulesets.hex.scenario import Board


def attacks(board: Board, side: str) -> list[tuple[str, str]]:
    """Every legal ``(attacker id, target id)`` for ``side``, in scenario order."""
    return attack_pairs(board, side)


@dataclass(frozen=True, slots=True)
class Advice:
    """One legal attack with its score; :attr:`forecast` gives the full combat."""

    attacker: str
    target: str
    score: Fraction
    enemy_lost: int
    own_lost: int
    levels_gained: int
    board: Board = field(repr=False, compare=False)
    params: HexParams = field(repr=False, compare=False)

    @property
    def forecast(self) -> Combat:
        """The combat this attack gives, row by row (computed when asked)."""
        return forecast(self.board, self.attacker, self.target, self.params)


def scores(outcome: SideOutcome, params: HexParams) -> list[Fraction]:
    """The advisor's score of each evaluated attack, exact."""
    enemy_weight = to_fraction(params.advisor_enemy_weight)
    own_weight = to_fraction(params.advisor_own_weight)
    return [
        enemy_weight * enemy - own_weight * own
        for enemy, own in zip(
            outcome.target_losses.tolist(), outcome.attacker_losses.tolist(), strict=True
        )
    ]


def whole_scores(outcome: SideOutcome, params: HexParams) -> list[int]:
    """The scores times the weights' common denominator: whole numbers in the same order
    as :func:`scores`, which sort without a fraction compared.

    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> seen = SimpleNamespace(target_losses=np.array([3, 4]), attacker_losses=np.array([1, 3]))
    >>> whole_scores(seen, HexParams(advisor_own_weight=0.5))  # 2 × (3 − 0.5) and 2 × (4 − 1.5)
    [5, 5]
    """
    enemy_weight = to_fraction(params.advisor_enemy_weight)
    own_weight = to_fraction(params.advisor_own_weight)
    common = enemy_weight.denominator * own_weight.denominator
    enemy, own = int(enemy_weight * common), int(own_weight * common)
    return [
        enemy * e - own * o
        for e, o in zip(
            outcome.target_losses.tolist(), outcome.attacker_losses.tolist(), strict=True
        )
    ]


def ranked_rows(side_attacks: SideAttacks, outcome: SideOutcome) -> list[int]:
    """Rows of ``side_attacks`` best first: score, then levels gained, then scenario order."""
    keyed = sorted(
        (-score, -gained, row)
        for row, (score, gained) in enumerate(
            zip(
                whole_scores(outcome, side_attacks.params),
                outcome.attacker_level_gain.tolist(),
                strict=True,
            )
        )
    )
    return [row for _, _, row in keyed]


def advise(board: Board, side: str, params: HexParams) -> list[Advice]:
    """Every legal attack of ``side``, best first (see the module doc for the score).

    All attacks are evaluated in one batch (:mod:`fracas.rulesets.hex.boards`), with the
    losses :func:`~fracas.rulesets.hex.play.fight` gives.
    """
    side_attacks = SideAttacks.gather(board, side, params)
    outcome = side_attacks.evaluate(side_attacks.start)
    all_scores = scores(outcome, params)
    # Plain ints read once: indexing numpy arrays element by element costs more.
    taken = outcome.target_losses.tolist()
    lost = outcome.attacker_losses.tolist()
    gained = outcome.attacker_level_gain.tolist()
    return [
        Advice(
            *side_attacks.pairs[row],
            all_scores[row],
            taken[row],
            lost[row],
            gained[row],
            board,
            params,
        )
        for row in ranked_rows(side_attacks, outcome)
    ]
