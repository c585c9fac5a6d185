"""Seeded dice for sampling: the faces :class:`~fracas.core.dice.SeededDice` gives, faster.

Monte Carlo plays a question thousands of times, and most of a play's time would go to
drawing dice. :class:`SamplingDice` draws exactly what ``random.Random(seed)`` would draw
for :class:`~fracas.core.dice.SeededDice` (every sampled run replays with ``fracas resolve
--seed``), reading the generator's words a block at a time, and counts the rolls against a
limit of its own. :class:`~fracas.core.dice.SeededDice` stays the plain reference: it
counts each die against the work budget in force, which seeded play needs, and the tests
hold the two to the same faces.
"""

from __future__ import annotations

import _random
import math
import random
import sys
import weakref
from collections.abc import Callable, Iterator
from functools import cache, partial
from itertools import chain

from fracas.core.dice import ChanceNode
from fracas.core.distribution import EnumerationBudgetError


class SamplingDice:
    """The faces :class:`~fracas.core.dice.SeededDice` gives for the same seed, faster, counted.

    It draws exactly what ``random.Random(seed).randrange(total_weight)`` draws, so every
    repetition still replays with ``fracas resolve --seed``. The generator's 32-bit words
    are fetched a block at a time (one ``getrandbits`` call) and a fair die numbered from 1
    is read straight from them. ``used`` counts the rolls; the roll after ``limit`` raises
    :class:`~fracas.core.distribution.EnumerationBudgetError` (a :meth:`roller` checks the
    limit when it fetches a block, so its caller checks ``used`` once a play is over).

    The words are read whole, or — for a play whose first request is :meth:`draws`, one
    that rolls small dice only — by their top byte: a die of up to 255 faces needs no more
    of a word, and a byte is read through a table, with no arithmetic. Dice larger than
    that are still read from the whole word, in either way.

    ``rng`` lends a generator to reseed, cheaper than a new one per play; one generator
    serves every play of a chunk (see :func:`_blocks`).

    >>> from fracas.core.dice import D6, D100, SeededDice
    >>> fast, plain = SamplingDice(3), SeededDice(3)
    >>> [fast.roll(D100) for _ in range(4)] == [plain.roll(D100) for _ in range(4)]
    True
    >>> d6 = fast.roller(D6)
    >>> [d6(), d6()] == [plain.roll(D6), plain.roll(D6)]
    True
    >>> fast.used
    6
    """

    __slots__ = ("__weakref__", "_block", "_byte", "_rng", "_word", "limit", "seed", "used")

    def __init__(
        self, seed: int, limit: float = math.inf, *, rng: random.Random | None = None
    ) -> None:
        self.seed = seed
        self.used = 0
        self.limit = limit
        self._rng = rng
        #: The next whole word, once the words are read whole.
        self._word: Callable[[], int] | None = None
        #: The top byte of the next word, once the words are read by their top byte.
        self._byte: Callable[[], int] | None = None
        #: Read by byte: the current block's bytes and the iterator over its top bytes.
        self._block: tuple[bytes, Iterator[int]] | None = None

    def _open(self, by_byte: bool) -> None:
        """Start reading the generator's words: whole, or by their top byte."""
        # The blocks know the dice only weakly: a cycle would leave every play's dice to
        # the garbage collector.
        blocks = _blocks(weakref.ref(self), self.seed, self._rng, by_byte)
        self._rng = None
        if by_byte:
            self._byte = chain.from_iterable(blocks).__next__
        else:
            self._word = chain.from_iterable(blocks).__next__

    def _next_word(self) -> int:
        """The next 32-bit word of the generator, whichever way the words are read."""
        if self._byte is None:
            if self._word is None:
                self._open(by_byte=False)
            assert self._word is not None
            return self._word()
        self._byte()  # the word's top byte; the word itself is read from the block
        assert self._block is not None
        data, tops = self._block
        at = 4 * (len(data) // 4 - tops.__length_hint__() - 1)  # type: ignore[attr-defined]
        return int.from_bytes(data[at : at + 4], sys.byteorder)

    def _bits(self, bits: int) -> int:
        """``getrandbits(bits)`` of the generator: the top bits of a word, or whole words
        from the lowest up and the top bits of the last one."""
        if bits <= 32:
            return self._next_word() >> (32 - bits)
        number, shift = 0, 0
        while bits > 0:
            word = self._next_word()
            if bits < 32:
                word >>= 32 - bits
            number |= word << shift
            shift += 32
            bits -= 32
        return number

    @property
    def overspent(self) -> bool:
        """More rolls made than the limit allows (a roller finds out only between blocks)."""
        return self.used > self.limit

    def exceeded(self) -> EnumerationBudgetError:
        """The error of spent dice, in the words of every odds budget."""
        return EnumerationBudgetError(f"more than {self.limit:,} dice rolls")

    def roll(self, node: ChanceNode) -> int:
        self.used += 1
        if self.used > self.limit:
            raise self.exceeded()
        last = _LAST  # the die rolled last time: most rolls repeat it, so no look-up
        if last[0] is node:
            _, total, bits, cumulative = last
        else:
            total, bits, cumulative = _shape(node)
        # random.Random.randrange(n): draw n.bit_length() bits until the number is below n.
        byte = self._byte
        if byte is not None and bits <= 8:
            shift = 8 - bits
            pick = byte() >> shift
            while pick >= total:
                pick = byte() >> shift
        else:
            pick = self._bits(bits)
            while pick >= total:
                pick = self._bits(bits)
        if cumulative is None:
            return pick + 1
        low, high = 0, len(cumulative)
        while low < high:  # the first outcome whose cumulative weight exceeds the pick
            middle = (low + high) // 2
            if cumulative[middle] > pick:
                high = middle
            else:
                low = middle + 1
        return node.outcomes[low][0]

    def roller(self, node: ChanceNode) -> Callable[[], int]:
        """A function rolling ``node`` again and again, for a play that rolls it often."""
        if self._word is None and self._byte is None:
            self._open(by_byte=False)
        total, bits, cumulative = _shape(node)
        byte = self._byte
        if cumulative is None and byte is not None and bits <= 8:
            faces = _face_table(total, bits, 8)

            def roll_by_byte() -> int:
                self.used += 1
                face = faces[byte()]
                while not face:
                    face = faces[byte()]
                return face

            return roll_by_byte
        word = self._word
        if cumulative is not None or bits > 32 or word is None:
            return partial(self.roll, node)
        shift = 32 - bits

        def roll() -> int:
            self.used += 1
            pick = word() >> shift
            while pick >= total:
                pick = word() >> shift
            return pick + 1

        return roll

    def draws(self, node: ChanceNode) -> tuple[Callable[[], int], tuple[int, ...]] | None:
        """What a play needs to roll ``node`` inside its own loop, without a call per die.

        ``(byte, faces)``: a roll is ``faces[byte()]``, drawn again while it is 0 (a number
        ``randrange`` turns down), so the faces are those :meth:`roll` gives. The play adds
        the rolls it made this way to :attr:`used`; the limit is checked, as for a
        :meth:`roller`, when the dice fetch more words. ``None``: the words are read whole
        already (the dice rolled before, other than through this method), or ``node`` is
        not a die numbered 1, 2, 3, … with equal weights and at most 255 faces.

        >>> from fracas.core.dice import D100, SeededDice
        >>> byte, faces = SamplingDice(3).draws(D100)
        >>> plain, rolled = SeededDice(3), []
        >>> while len(rolled) < 4:
        ...     face = faces[byte()]
        ...     if face:
        ...         rolled.append(face)
        >>> rolled == [plain.roll(D100) for _ in range(4)]
        True
        """
        if self._word is None and self._byte is None:
            self._open(by_byte=True)
        total, bits, cumulative = _shape(node)
        if self._byte is None or cumulative is not None or bits > 8:
            return None
        return self._byte, _face_table(total, bits, 8)


@cache
def _face_table(sides: int, bits: int, width: int) -> tuple[int, ...]:
    """The face of a fair die numbered 1..``sides`` for each number of ``width`` bits whose
    top ``bits`` bits are the draw: 0 for the draws ``randrange`` turns down."""
    shift = width - bits
    return tuple(
        (number >> shift) + 1 if number >> shift < sides else 0 for number in range(1 << width)
    )


#: ``random.Random.seed`` for an integer, without the checks of other types around it.
_seed = _random.Random.seed
#: 32-bit words fetched by a play's first block, then by its second (then twice as many
#: each time): a lair raid needs 127 on average, 190 at the 90th percentile, at most 253.
FIRST_BLOCK = 128
NEXT_BLOCK = 64
#: How many times a lent generator was reseeded, here (see :func:`_blocks`).
_LENDINGS = [0]
#: Where the top byte of a 32-bit word lies in its bytes.
_TOP = 3 if sys.byteorder == "little" else 0


def _blocks(
    dice: Callable[[], SamplingDice | None],
    seed: int,
    rng: random.Random | None,
    by_byte: bool,
) -> Iterator[Iterator[int]]:
    """The words of ``random.Random(seed)``, a block at a time, for ``dice``: whole, or by
    their top byte (the dice then learn each block, to read a whole word from it).

    ``rng`` is a generator lent to reseed: the blocks go on with it as long as no dice
    have reseeded a lent generator since, else with a generator of their own, at the same
    place in the same sequence.
    """
    if rng is None:
        rng = random.Random(seed)
        lent = 0
    else:
        _seed(rng, seed)
        _LENDINGS[0] += 1
        lent = _LENDINGS[0]
    size = FIRST_BLOCK
    fetched = 0
    while True:
        if fetched:
            if lent and _LENDINGS[0] != lent:
                rng = random.Random(seed)
                rng.getrandbits(32 * fetched)
                lent = 0
            owner = dice()
            if owner is not None and owner.overspent:
                raise owner.exceeded()
            size = NEXT_BLOCK if fetched == FIRST_BLOCK else min(2 * size, 1 << 14)
        data = rng.getrandbits(32 * size).to_bytes(4 * size, sys.byteorder)
        fetched += size
        if not by_byte:
            yield iter(memoryview(data).cast("I"))
            continue
        tops = iter(data[_TOP::4])
        owner = dice()
        if owner is not None:
            owner._block = (data, tops)
        yield tops


_SHAPES: dict[int, tuple[ChanceNode, int, int, tuple[int, ...] | None]] = {}
#: The entry of the node looked up last; one tuple, replaced whole, so threads may share it.
_LAST: tuple[ChanceNode | None, int, int, tuple[int, ...] | None] = (None, 1, 1, None)


def _shape(node: ChanceNode) -> tuple[int, int, tuple[int, ...] | None]:
    """Total weight, bits per draw, and cumulative weights (``None`` for a fair 1..n die)."""
    # Keyed by identity: hashing a 100-face node per roll would cost more than the roll.
    # The node is kept in the entry so that its id cannot be reused by another node.
    entry = _SHAPES.get(id(node))
    if entry is None or entry[0] is not node:
        if len(_SHAPES) > 4096:
            _SHAPES.clear()
        total = node.total_weight
        fair = all(outcome == (face, 1) for face, outcome in enumerate(node.outcomes, 1))
        cumulative: tuple[int, ...] | None = None
        if not fair:
            running_total, sums = 0, []
            for _, weight in node.outcomes:
                running_total += weight
                sums.append(running_total)
            cumulative = tuple(sums)
        entry = (node, total, total.bit_length(), cumulative)
        _SHAPES[id(node)] = entry
    global _LAST
    _LAST = entry
    return entry[1], entry[2], entry[3]
