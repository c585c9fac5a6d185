"""The luck audit against laws worked out by hand, and against direct enumeration."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.campaign.actions import enter_roster, new_campaign, record_battle
from fracas.campaign.journal import Event, make_event
from fracas.campaign.luck import audit, mid_p, percentile_law, render_luck, sum_law
from fracas.campaign.store import Store

# Two battles of force A against B. Battle 1: A's score is −1, 0 or +1 with 1/4, 1/2, 1/4,
# and A got +1. Battle 2: 0 or 2, even chances, and A got 0.
LAW_1 = [[-1, 0.25], [0, 0.5], [1, 0.25]]
LAW_2 = [[0, 0.5], [2, 0.5]]


def battle(seq: int, number: int, law: list[list[float]], score: float, prev: str) -> Event:
    mirrored = sorted([[-v, p] for v, p in law])
    body: dict[str, Any] = {
        "battle": number,
        "scores": {"A": score, "B": -score},
        "summary": {"winner": "A"},
        "odds": {
            "method": "exact",
            "runs": 0,
            "scores": {"A": law, "B": mirrored},
            "winner": {"A": 0.5, "B": 0.5},
        },
    }
    return make_event(seq, "battle_resolved", body, prev)


def journal() -> list[Event]:
    first = make_event(1, "campaign_created", {"name": "W", "ruleset": "d100"}, "")
    one = battle(2, 1, LAW_1, 1, first.hash)
    return [first, one, battle(3, 2, LAW_2, 0, one.hash)]


def test_one_battles_percentile_is_its_mid_p() -> None:
    # Battle 1, A got +1: P(S < 1) + ½ P(S = 1) = 3/4 + 1/8 = 7/8.
    # Battle 2, A got 0: 0 + ½ · 1/2 = 1/4.
    a, _ = sorted(audit(journal()), key=lambda luck: luck.force)
    assert [row.percentile for row in a.battles] == [0.875, 0.25]
    # Expected scores: 0 and 1; B's percentiles mirror A's (1 − 7/8, 1 − 1/4).
    assert [row.expected for row in a.battles] == [0.0, 1.0]


def test_the_campaign_headline_against_direct_enumeration() -> None:
    # By hand: battle 1's percentile is 1/8, 1/2 or 7/8 (chances 1/4, 1/2, 1/4); battle 2's
    # 1/4 or 3/4 (1/2 each). A's sum is 7/8 + 1/4 = 9/8. Sums below 9/8: 3/8 (1/8),
    # 7/8 (1/8), 3/4 (1/4) = 1/2; equal to it: 9/8 (1/8). Headline 1/2 + 1/16 = 9/16.
    a, b = sorted(audit(journal()), key=lambda luck: luck.force)
    assert a.headline == pytest.approx(9 / 16)
    laws = [percentile_law([(v, p) for v, p in law]) for law in (LAW_1, LAW_2)]
    below = equal = 0.0
    for (u1, p1), (u2, p2) in itertools.product(*laws):
        if abs(u1 + u2 - 9 / 8) < 1e-12:
            equal += p1 * p2
        elif u1 + u2 < 9 / 8:
            below += p1 * p2
    assert a.headline == pytest.approx(below + equal / 2)
    assert a.cumulative[0] == pytest.approx(0.875)
    # Mid-p is symmetric: what was luck for A was bad luck for B.
    assert b.headline == pytest.approx(1 - a.headline)


laws = st.lists(
    st.tuples(st.integers(-5, 5), st.integers(1, 9)),
    min_size=1,
    max_size=6,
    unique_by=lambda x: x[0],
)


@given(laws, st.data())
def test_mid_p_of_the_two_sides_add_up_to_one(pairs: list[tuple[int, int]], data: Any) -> None:
    total = sum(w for _, w in pairs)
    law = sorted((float(v), w / total) for v, w in pairs)
    value = data.draw(st.sampled_from([v for v, _ in law]))
    mirrored = sorted((-v, p) for v, p in law)
    assert mid_p(law, value) + mid_p(mirrored, -value) == pytest.approx(1)
    # With fair dice the percentile averages one half.
    assert sum(u * p for u, p in percentile_law(law)) == pytest.approx(0.5)


def test_sum_law_convolves() -> None:
    law, binned = sum_law([[(0.25, 0.5), (0.75, 0.5)], [(0.25, 0.5), (0.75, 0.5)]])
    assert (law, binned) == ({0.5: 0.25, 1.0: 0.5, 1.5: 0.25}, False)


def test_the_audit_renders_and_escapes_every_format() -> None:
    first = make_event(1, "campaign_created", {"name": "W", "ruleset": "d100"}, "")
    body = json.loads(json.dumps(journal()[1].body).replace('"A"', '"[b]A*"'))
    lucks = audit([first, make_event(2, "battle_resolved", body, first.hash)])
    assert "[b]A*" in render_luck(lucks, "text", campaign="W")
    assert "\\[b\\]A\\*" in render_luck(lucks, "markdown", campaign="W")
    assert "[b][b]A*" not in render_luck(lucks, "bbcode", campaign="W")
    document = json.loads(render_luck(lucks, "json", campaign="W"))
    assert document["forces"][0]["battles"][0]["percentile"] == 0.875


def test_a_recorded_battle_stores_a_law_whose_percentiles_mirror() -> None:
    store = Store.open("sqlite://")
    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "A", {"units": [{"name": "Scouts", "pax": 2, "offense": 1}]})
    enter_roster(store, "War", "B", {"units": [{"name": "Guards", "pax": 2}]})
    event = record_battle(store, "War", "A", "B", seed=1).event
    odds = event.body["odds"]
    assert sum(p for _, p in odds["scores"]["A"]) == pytest.approx(1)
    a, b = audit(store.events("War"))
    assert a.battles[0].percentile + b.battles[0].percentile == pytest.approx(1)


def test_the_luck_chart_marks_each_battle_and_fits_every_name() -> None:
    # One battle alone was a polyline of one point (nothing drawn), and a name longer than
    # five characters ran past the chart's right edge.
    import re

    from fracas.campaign.luck import ForceLuck, luck_svg

    lucks = [
        ForceLuck("Red Fang", (), 0.77, (0.77,)),
        ForceLuck("The Thornwall Garrison", (), 0.23, (0.23,)),
    ]
    svg = luck_svg(lucks, campaign="War")
    width = int(re.search(r'width="(\d+)"', svg).group(1))  # type: ignore[union-attr]
    # 40 of margin + 560 of plot + 7 pixels a character of the longest name + 12.
    assert width == 40 + 560 + 7 * len("The Thornwall Garrison") + 12
    assert svg.count("<circle") == 2
    for x, name in re.findall(r'<text x="([\d.]+)" y="[\d.]+" fill="#\w+">([^<]+)</text>', svg):
        assert float(x) + 7 * len(name) <= width
