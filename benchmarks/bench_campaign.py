"""Benchmark: a campaign's costs beside the battle's own, every number measured in this run.

1. Recording a d100 battle (build from the rosters, the odds of its outcomes, play, one
   transaction in an SQLite file) against resolving the same scenario alone, and against
   resolving it and working out its odds (what the luck audit needs stored): the
   difference from the second is what the journal itself adds.
2. A journal of 1,000 battles (2,000 forces, each battle between two of them, written with
   one stored law so that writing it takes minutes, not hours): deriving the rosters, the
   luck audit, and ``verify --no-odds`` (every battle re-played, every roster re-derived).
3. ``verify`` with the odds worked out again, on battles recorded for real, per battle.

Run: ``.venv/bin/python benchmarks/bench_campaign.py`` (or ``make bench``). The targets of
the campaign feature are printed beside each number; timing depends on the machine and its
load, so nothing here is asserted by the tests.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fracas.campaign.actions import enter_roster, new_campaign, record_battle, state_of
from fracas.campaign.battle import LUCK_RUNS, battle_body, build_scenario, fight, luck_law
from fracas.campaign.journal import make_event
from fracas.campaign.luck import audit
from fracas.campaign.rosters import apply, derive
from fracas.campaign.store import Store
from fracas.campaign.verify import export_lines, verify_lines

BATTLES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
A = {
    "units": [
        {"name": "Raiders", "pax": 10, "offense": 3, "strength": 3, "speed": 2},
        {"name": "Bows", "pax": 6, "ranged_attacks": 2, "equipment": ["ranged_weapon"]},
    ]
}
B = {
    "units": [
        {"name": "Guards", "pax": 8, "defense": 3, "equipment": ["shield", "armour_2"]},
        {"name": "Spears", "pax": 8, "offense": 2, "strength": 2},
    ]
}


def timed(work: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def recording(folder: Path) -> None:
    store = Store.open(str(folder / "one.db"))
    new_campaign(store, "War", "d100")
    for index in range(16):
        enter_roster(store, "War", f"A{index}", A)
        enter_roster(store, "War", f"B{index}", B)
    state = state_of(store, "War")
    scenario = build_scenario(state, "A0", "B0")
    alone = timed(lambda: scenario.resolve(seed=1))
    law = timed(lambda: luck_law(state, scenario), repeat=3)
    pairs = iter(range(16))

    def record() -> None:
        index = next(pairs)
        record_battle(store, "War", f"A{index}", f"B{index}", seed=index)

    whole = timed(record, repeat=6)
    # Part 3: verify with the odds worked out again, on the battles just recorded (before any
    # odds below are stood in).
    text = export_lines(store.events("War"))
    start = time.perf_counter()
    verdict = verify_lines(text)
    with_odds = time.perf_counter() - start
    start = time.perf_counter()
    assert verify_lines(text, workers=2).ok
    two = time.perf_counter() - start
    start = time.perf_counter()
    assert verify_lines(text, odds=False).ok
    without = time.perf_counter() - start
    assert verdict.ok, verdict.lines()
    battles = verdict.battles
    print(
        f"3. verify of {battles} recorded battles: {with_odds:.1f} s with their odds worked "
        f"out again ({with_odds / battles:.2f} s a battle: {1000 * with_odds / battles:.0f} s "
        f"for 1,000, target ≤ 60 s); with --workers 2 {two:.1f} s "
        f"({1000 * two / battles:.0f} s for 1,000); {without:.2f} s with --no-odds"
    )
    # The same recording with the odds already at hand (the law of A0 v B0 stands in for
    # each pair's: the same rosters): what the journal adds beside the battle and its odds.
    import fracas.campaign.actions as actions

    at_hand = luck_law(state, scenario)
    setattr(actions, "luck_law", lambda *args: at_hand)  # noqa: B010 (a stand-in, on purpose)
    journal = timed(record, repeat=3)
    print(
        f"1. resolve alone {alone * 1000:.1f} ms; its odds (the luck law, {LUCK_RUNS:,} "
        f"plays after an exact walk over budget) {law * 1000:.0f} ms; recording it "
        f"{whole * 1000:.0f} ms: +{(whole - alone) * 1000:.0f} ms over resolving "
        f"({(whole / alone):.0f}x); with the odds at hand {journal * 1000:.1f} ms: "
        f"+{(journal - alone) * 1000:.1f} ms over resolving (target ≤ 50 ms)"
    )
    setattr(actions, "luck_law", luck_law)  # noqa: B010


def thousand(folder: Path) -> None:
    store = Store.open(str(folder / "war.db"))
    new_campaign(store, "War", "d100")
    events = store.events("War")
    for index in range(BATTLES):
        for side, roster in (("A", A), ("B", B)):
            body = {"force": f"{side}{index}", "roster": roster, "treasury": {}}
            events.append(make_event(len(events) + 1, "roster_entered", body, events[-1].hash))
    state = derive(events)
    law = luck_law(state, build_scenario(state, "A0", "B0"))
    start = time.perf_counter()
    for index in range(BATTLES):
        scenario = build_scenario(state, f"A{index}", f"B{index}")
        fought = fight(state, scenario, seed=index)
        names = (f"A{index}", f"B{index}")
        shown = {
            key: dict(zip(names, value.values(), strict=True))
            if key in ("scores", "losses", "breaks")
            else value
            for key, value in law.items()
        }
        body = battle_body(
            state,
            f"A{index}",
            f"B{index}",
            fought,
            shown,
            options={"extra": {}, "overrides": [], "only": []},
        )
        event = make_event(len(events) + 1, "battle_resolved", body, events[-1].hash)
        events.append(event)
        apply(state, event)
        state.last = event
    written = time.perf_counter() - start
    derived = timed(lambda: derive(events), repeat=3)
    lucks = timed(lambda: audit(events), repeat=3)
    text = export_lines(events)
    start = time.perf_counter()
    # One law stands for every battle's here (its forces renamed), so only the facts are
    # verified: part 3 times the odds check on battles recorded for real.
    verdict = verify_lines(text, odds=False)
    checked = time.perf_counter() - start
    assert verdict.ok, verdict.lines()
    print(
        f"2. {BATTLES:,} battles ({len(events):,} events; written in {written:.0f} s): "
        f"rosters derived in {derived:.2f} s (target ≤ 1 s), luck audit {lucks:.2f} s "
        f"(target ≤ 5 s), verify --no-odds {checked:.0f} s (target ≤ 60 s)"
    )
    del store


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        recording(Path(folder))
        thousand(Path(folder))
