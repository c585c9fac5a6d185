"""Counter-based random streams: the dice of sampled runs, one stream per run.

Run *r* of a Monte Carlo question seeded with *s* has its own stream: a 64-bit key worked
out from (*s*, *r*) alone, and its *c*-th uniform number is a hash of (key, *c*) (the
SplitMix64 mixer). Nothing else is shared between runs, so a run is the same whatever
runs are played beside it, in which order, in which process, or many at once with arrays
(:func:`uniforms`). :class:`StreamDice` plays one run with the same numbers, so any
sampled run can be replayed on its own from the question's seed and its number.

Each random event takes one number of the stream: a die's face is read from it by its
weights, and a whole :class:`~fracas.core.dice.DiceGroup` (ten blows and their saves)
is decided at once by its closed form, the cumulative law of its keys (:func:`law_table`).

>>> from fracas.core.dice import D6
>>> key = run_key(7, 3)
>>> first = StreamDice(key)
>>> again = StreamDice(key)
>>> [first.roll(D6) for _ in range(5)] == [again.roll(D6) for _ in range(5)]
True
>>> first.used
5
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Hashable
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple

from fracas.core.dice import ChanceNode, DiceGroup
from fracas.core.distribution import EnumerationBudgetError

if TYPE_CHECKING:  # numpy loads only where arrays of runs are played
    import numpy as np
    import numpy.typing as npt

_MASK = (1 << 64) - 1
#: The odd constant SplitMix64 steps its state by (2^64 over the golden ratio).
_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
#: 2^-53: a 53-bit integer times this is a float in [0, 1), exactly.
_UNIT = 1.0 / (1 << 53)


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return z ^ (z >> 31)


def question_key(seed: int) -> int:
    """The 64-bit root of every run's key for a question seeded with ``seed`` (any integer).

    >>> question_key(0) == question_key(0) != question_key(1)
    True
    """
    digest = hashlib.sha256(f"fracas-runs:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def run_key(seed: int, run: int) -> int:
    """The key of run ``run`` (from 0) of a question seeded with ``seed``.

    >>> run_key(0, 0) == run_key(0, 0) != run_key(0, 1)
    True
    """
    return _mix((question_key(seed) + (run + 1) * _GAMMA) & _MASK)


def uniform(key: int, counter: int) -> float:
    """Number ``counter`` (from 0) of the stream of ``key``: a float in [0, 1).

    >>> 0.0 <= uniform(run_key(1, 2), 0) < 1.0
    True
    """
    return (_mix((key + (counter + 1) * _GAMMA) & _MASK) >> 11) * _UNIT


def run_keys(seed: int, start: int, stop: int) -> npt.NDArray[np.uint64]:
    """The keys of runs ``start`` … ``stop − 1``, as :func:`run_key` gives them.

    >>> [int(k) for k in run_keys(4, 2, 4)] == [run_key(4, 2), run_key(4, 3)]
    True
    """
    import numpy as np

    runs = np.arange(start + 1, stop + 1, dtype=np.uint64)
    return _mix_array(np.uint64(question_key(seed)) + runs * np.uint64(_GAMMA))


def uniforms(
    keys: npt.NDArray[np.uint64], counters: npt.NDArray[np.uint64]
) -> npt.NDArray[np.float64]:
    """Number ``counters[i]`` of the stream of ``keys[i]``, for every ``i`` at once: the
    very floats :func:`uniform` gives.

    >>> import numpy as np
    >>> keys = run_keys(9, 0, 3)
    >>> got = uniforms(keys, np.array([0, 5, 2], dtype=np.uint64))
    >>> [float(u) for u in got] == [uniform(int(k), c) for k, c in zip(keys, [0, 5, 2])]
    True
    """
    mixed: npt.NDArray[np.float64] = uniform_bits(keys, counters).astype(float) * _UNIT
    return mixed


def uniform_bits(
    keys: npt.NDArray[np.uint64], counters: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
    """The numbers of :func:`uniforms` as the 53-bit integers they are made of: number
    ``counters[i]`` of the stream of ``keys[i]`` is ``uniform_bits(...)[i] * 2**-53``, so
    comparing the integers with :attr:`LawTable.bounds` decides as the floats do.

    >>> import numpy as np
    >>> keys, counters = run_keys(2, 0, 4), np.arange(4, dtype=np.uint64)
    >>> bits = uniform_bits(keys, counters)
    >>> bool((bits < 2**53).all()), [float(b) * 2**-53 for b in bits] == [
    ...     float(u) for u in uniforms(keys, counters)]
    (True, True)
    """
    import numpy as np

    z = _mix_array(keys + (counters + np.uint64(1)) * np.uint64(_GAMMA))
    bits: npt.NDArray[np.uint64] = z >> np.uint64(11)
    return bits


def _mix_array(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    import numpy as np

    # Unsigned arrays wrap around silently, as the masks do above.
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    mixed: npt.NDArray[np.uint64] = z ^ (z >> np.uint64(31))
    return mixed


def face_index(node: ChanceNode, u: float) -> int:
    """The index in ``node.outcomes`` that the uniform ``u`` lands on, by the weights."""
    total = node.total_weight
    pick = int(u * total)
    return bisect_right(node.cumulative, min(pick, total - 1))


class LawTable(NamedTuple):
    """A group's keys (those of positive probability) and their cumulative probabilities:
    a uniform ``u`` decides key ``keys[i]`` for the first ``i`` with ``u < cumulative[i]``
    (the last key takes what rounding leaves above the last sum)."""

    keys: tuple[Hashable, ...]
    cumulative: tuple[float, ...]
    #: Each cumulative probability ``c`` as the least 53-bit integer ``b`` with
    #: ``b * 2**-53 >= c`` (exact: ``c * 2**53`` is a float with no rounding), so that
    #: ``u < c`` exactly when ``bits < b`` for ``u = bits * 2**-53`` (:func:`uniform_bits`).
    bounds: Any = None

    def key_at(self, u: float) -> Hashable:
        """The key ``u`` decides.

        >>> table = LawTable(("miss", "hit"), (0.25, 1.0), None)
        >>> table.key_at(0.2), table.key_at(0.25), table.key_at(0.9)
        ('miss', 'hit', 'hit')
        """
        index = bisect_right(self.cumulative, u)
        keys = self.keys
        return keys[index if index < len(keys) else -1]


@lru_cache(maxsize=4096)
def law_table(group: DiceGroup[Hashable, object]) -> LawTable | None:
    """The :class:`LawTable` of ``group``'s float law, worked out once per group; ``None``
    for a group too wide to combine (its law overflows floats, or has more keys than any
    budget allows) or one whose law does not pay (:meth:`DiceGroup.law_pays`): it is
    rolled die by die.
    """
    import numpy as np

    if not group.law_pays():
        return None
    try:
        law = [(key, p) for key, p in group.float_law() if p]
    except (OverflowError, EnumerationBudgetError):
        return None
    cumulative = tuple(accumulate(p for _, p in law))
    bounds = np.ceil(np.array(cumulative) * float(1 << 53)).astype(np.uint64)
    return LawTable(tuple(key for key, _ in law), cumulative, bounds)


class StreamDice:
    """The dice of one sampled run: each die or dice group takes the next number of the
    run's stream (``key``), from number ``used`` on; past ``limit`` numbers the next event
    raises :class:`~fracas.core.distribution.EnumerationBudgetError`.

    >>> from fracas.core.dice import DiceGroup, Fraction, draw
    >>> class Coin(DiceGroup[str, None]):
    ...     def roll(self, dice): return "tails", None
    ...     def law(self): return (("heads", Fraction(1, 2)), ("tails", Fraction(1, 2)))
    >>> dice = StreamDice(run_key(3, 0))
    >>> draw(dice, Coin())[0] in ("heads", "tails"), dice.used
    (True, 1)
    """

    __slots__ = ("key", "limit", "used")

    def __init__(self, key: int, used: int = 0, limit: float = float("inf")) -> None:
        self.key = key
        self.used = used
        self.limit = limit

    def number(self) -> float:
        """The next number of the stream, in [0, 1)."""
        used = self.used
        if used >= self.limit:
            raise EnumerationBudgetError(f"more than {self.limit:,} dice rolls")
        self.used = used + 1
        return (_mix((self.key + (used + 1) * _GAMMA) & _MASK) >> 11) * _UNIT

    def roll(self, node: ChanceNode) -> int:
        return node.outcomes[face_index(node, self.number())][0]

    def draw_group(self, group: DiceGroup[Hashable, object]) -> Hashable:
        table = law_table(group)
        if table is None:
            key: Hashable = group.roll(self)[0]
            return key
        return table.key_at(self.number())
