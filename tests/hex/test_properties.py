"""Invariants over random boards (hypothesis): bounds, monotonicity, sums, no side effects."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from fracas.core.modifiers import to_fraction
from fracas.core.report import fmt
from fracas.rulesets.hex import Board, Hex, HexParams, Status, Unit, fight, forecast
from fracas.rulesets.hex.report import strike_table
from fracas.rulesets.hex.scenario import default_terrain
from fracas.rulesets.hex.strike import StrikeOutcome, strike

PARAMS = HexParams()
TERRAIN = default_terrain()
RADIUS = 2
HEXES = sorted(
    Hex(q, r)
    for q in range(-RADIUS, RADIUS + 1)
    for r in range(-RADIUS, RADIUS + 1)
    if Hex(0, 0).distance(Hex(q, r)) <= RADIUS
)
ATTACKER_HEX, TARGET_HEX = Hex(0, 0), Hex(1, 0)

quarters = st.integers(min_value=0, max_value=200).map(lambda n: Fraction(n, 4))
statuses = st.builds(
    Status,
    name=st.sampled_from(["Rally", "Shaken", "Dug in"]),
    kind=st.sampled_from(["buff", "debuff"]),
    atk_mul=st.integers(0, 20).map(lambda n: Fraction(n, 10)),
    def_mul=st.integers(0, 20).map(lambda n: Fraction(n, 10)),
    atk_add=st.integers(-300, 300).map(Fraction),
    def_add=st.integers(-300, 300).map(Fraction),
)


@st.composite
def units(draw: st.DrawFn, unit_id: str, side: str, place: Hex, min_strength: int = 0) -> Unit:
    return Unit.make(
        unit_id,
        side,
        place,
        strength=draw(st.integers(min_strength, 300)),
        attack={
            "land": draw(quarters.filter(bool)),
            "air": draw(quarters),
            "sea": draw(quarters),
        },
        defense=draw(quarters),
        domain=draw(st.sampled_from(["land", "air", "sea"])),
        level=draw(st.integers(0, 99)),
        pierce=draw(st.integers(0, 95).map(lambda n: Fraction(n, 100))),
        statuses=draw(st.lists(statuses, max_size=2)),
    )


@st.composite
def boards(draw: st.DrawFn) -> Board:
    """An attacker a (blue) next to a land target t (red), and up to five other units."""
    terrain = {h: TERRAIN[draw(st.sampled_from(sorted(TERRAIN)))] for h in HEXES}
    attacker = draw(units("a", "blue", ATTACKER_HEX, min_strength=1))
    target = replace(draw(units("t", "red", TARGET_HEX, min_strength=1)), domain="land")
    free = [h for h in HEXES if h not in (ATTACKER_HEX, TARGET_HEX)]
    places = draw(st.lists(st.sampled_from(free), unique=True, max_size=5))
    others = [
        draw(units(f"u{i}", draw(st.sampled_from(["blue", "red"])), place))
        for i, place in enumerate(places)
    ]
    return Board(MappingProxyType(terrain), (attacker, target, *others))


def oracle(board: Board, striker_id: str, target_id: str) -> tuple[Fraction, Fraction]:
    """Effective Atk and Def written straight from the rules text, independently of strike.py."""
    s, t = board.unit(striker_id), board.unit(target_id)

    def encircled(u: Unit) -> Fraction:
        enemies = sum(
            1
            for n in u.hex.neighbours()
            if (o := board.unit_at(n)) and o.side != u.side and o.strength > 0
        )
        return to_fraction(PARAMS.encirclement[min(enemies, 6)])

    def allies_next_to_t(side: str, exclude: str) -> list[Unit]:
        found = [board.unit_at(n) for n in t.hex.neighbours()]
        return [u for u in found if u is not None and u.side == side and u.id != exclude]

    atk = (
        s.strength * s.attack_vs(t.domain) * (1 + Fraction(s.level, 100)) * encircled(s)
        * board.terrain_at(s.hex).attack * math.prod(x.atk_mul for x in s.statuses)
        + sum(Fraction(1, 4) * a.strength * a.attack_vs(t.domain)
              for a in allies_next_to_t(s.side, s.id))
        + sum(x.atk_add for x in s.statuses)
    )  # fmt: skip
    base = (
        t.strength * t.defense * (1 + Fraction(t.level, 100)) * encircled(t)
        * board.terrain_at(t.hex).defense * math.prod(x.def_mul for x in t.statuses)
    )  # fmt: skip
    support = min(
        sum((Fraction(1, 4) * a.strength * a.defense for a in allies_next_to_t(t.side, t.id)),
            Fraction(0)),
        2 * base,
    )  # fmt: skip
    dfn = max(Fraction(0), base + support + sum(x.def_add for x in t.statuses)) * (1 - s.pierce)
    return max(Fraction(0), atk), dfn


def with_attack(board: Board, extra: Fraction) -> Board:
    a = board.unit("a")
    return board.updated({"a": replace(a, attack={**a.attack, "land": a.attack["land"] + extra})})


def with_defense(board: Board, extra: Fraction) -> Board:
    t = board.unit("t")
    return board.updated({"t": replace(t, defense=t.defense + extra)})


@given(boards())
def test_losses_stay_within_strength(board: Board) -> None:
    combat = fight(board, "a", "t", PARAMS)
    for unit_id, lost in combat.losses.items():
        assert 0 <= lost <= board.unit(unit_id).strength


@given(boards(), quarters)
def test_more_attack_never_lowers_the_defenders_losses(board: Board, extra: Fraction) -> None:
    before = strike(board, "a", "t", PARAMS).losses
    assert strike(with_attack(board, extra), "a", "t", PARAMS).losses >= before


@given(boards(), quarters)
def test_more_defence_never_raises_the_losses(board: Board, extra: Fraction) -> None:
    before = strike(board, "a", "t", PARAMS).losses
    assert strike(with_defense(board, extra), "a", "t", PARAMS).losses <= before


def effective_cells(outcome: StrikeOutcome) -> tuple[str, str]:
    last = strike_table(outcome, "").rows[-1]
    return last[1], last[3]


@given(boards())
def test_rows_add_up_to_the_effective_values_and_match_the_rules(board: Board) -> None:
    outcome = strike(board, "a", "t", PARAMS)
    for breakdown in (outcome.effective_attack, outcome.effective_defense):
        *_, last = breakdown.steps()
        assert last.running == breakdown.total
        # Every row says where it comes from: nothing is lost to an unexplained number.
        assert all(row.source for row in breakdown.rows)
    assert (outcome.effective_attack.total, outcome.effective_defense.total) == oracle(
        board, "a", "t"
    )
    # The table prints the same totals the rows produce.
    assert effective_cells(outcome) == (
        fmt(outcome.effective_attack.total),
        fmt(outcome.effective_defense.total),
    )


@given(boards())
def test_forecast_never_changes_the_board(board: Board) -> None:
    snapshot = (board.units, dict(board.hexes))
    combat = forecast(board, "a", "t", PARAMS)
    assert (board.units, dict(board.hexes)) == snapshot
    assert combat.before is board
