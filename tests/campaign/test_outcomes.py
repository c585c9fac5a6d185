"""The outcomes a battle's luck is audited on (winner, each side's losses and breaks), the
odds stored before it and checked again by ``verify``, and the audit reading them as they
are."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fracas.campaign.actions import enter_roster, new_campaign, record_battle, state_of
from fracas.campaign.battle import build_scenario, luck_law
from fracas.campaign.journal import Event, event_hash, make_event
from fracas.campaign.luck import audit, render_luck
from fracas.campaign.store import Store
from fracas.campaign.verify import export_lines, verify_lines

SIDE_A = {"units": [{"name": "Scouts", "pax": 4, "offense": 2, "strength": 2}]}
SIDE_B = {"units": [{"name": "Guards", "pax": 4, "defense": 2}]}
#: Too many casualty patterns for the exact walk's budget: its odds come from plays.
BIG_A = {
    "units": [
        {"name": "Raiders", "pax": 10, "offense": 3, "strength": 3, "speed": 2},
        {"name": "Bows", "pax": 6, "ranged_attacks": 2, "equipment": ["ranged_weapon"]},
    ]
}
BIG_B = {
    "units": [
        {"name": "Guards", "pax": 8, "defense": 3, "equipment": ["shield", "armour_2"]},
        {"name": "Spears", "pax": 8, "offense": 2, "strength": 2},
    ]
}


def war(store: Store, a: dict[str, Any] = SIDE_A, b: dict[str, Any] = SIDE_B) -> None:
    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "A", a)
    enter_roster(store, "War", "B", b)


def lines_of(store: Store) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export_lines(store.events("War")).splitlines()]


def text_of(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def rehash(line: dict[str, Any]) -> None:
    line["hash"] = event_hash(line["seq"], line["kind"], line["body"], line["prev"])


# Odds stored before the battle, checked by verify ----------------------------------------


def test_verify_works_the_odds_out_again_and_names_a_changed_chance(store: Store) -> None:
    war(store)
    record_battle(store, "War", "A", "B", seed=1)
    lines = lines_of(store)
    assert verify_lines(text_of(lines)).ok
    # A forger makes A's win look unlikely (so that winning reads as luck) and fixes the
    # hash: the battle still re-plays, but its odds are not what its scenario gives.
    odds = lines[3]["body"]["odds"]
    odds["winner"]["A"] = odds["winner"]["A"] / 2
    rehash(lines[3])
    verdict = verify_lines(text_of(lines))
    assert verdict.problem is not None
    assert verdict.problem.seq == 4
    assert "its odds are not the ones its scenario gives at winner.A" in str(verdict.problem)
    # Without the odds check the facts alone follow, and the verdict says what it skipped.
    skipped = verify_lines(text_of(lines), odds=False)
    assert skipped.ok
    assert "odds NOT checked" in skipped.lines()[0]


def test_verify_in_two_processes_gives_the_same_verdicts() -> None:
    store = Store.open("sqlite://")
    war(store)
    for seed in (1, 2):
        record_battle(store, "War", "A", "B", seed=seed)
    lines = lines_of(store)
    assert verify_lines(text_of(lines), workers=2).ok
    # Battle 2's odds forged (event 5): both ways name event 5, with 4 events before it.
    forged = json.loads(json.dumps(lines))
    forged[4]["body"]["odds"]["winner"]["B"] = 0.5
    rehash(forged[4])
    one, two = (verify_lines(text_of(forged), workers=n) for n in (1, 2))
    assert one.problem is not None
    assert two.problem is not None
    assert (
        (one.events, str(one.problem))
        == (two.events, str(two.problem))
        == (
            4,
            str(one.problem),
        )
    )
    assert "event 5: battle 2: its odds" in str(two.problem)
    # Battle 1's odds forged and battle 2's result too: the earlier event is named, though
    # the replay found the later one first and the odds came back after.
    forged[3]["body"]["odds"]["winner"]["A"] = 0.5
    rehash(forged[3])
    forged[4]["body"]["summary"]["rounds"] = 99
    rehash(forged[4])
    two = verify_lines(text_of(forged), workers=2)
    assert two.problem is not None
    assert two.problem.seq == 4
    assert (two.events, two.battles) == (3, 0)


def test_the_odds_do_not_depend_on_the_battles_dice() -> None:
    # The same scenario fought with two seeds: two results, one stored law. The law is
    # sampled (the exact walk is over budget) from plays seeded by the scenario's hash.
    events = []
    for seed in (1, 2):
        store = Store.open("sqlite://")
        war(store, BIG_A, BIG_B)
        events.append(record_battle(store, "War", "A", "B", seed=seed).event)
    first, second = (event.body for event in events)
    assert first["odds"]["method"] == "mc"
    assert first["seed"] != second["seed"]
    assert first["summary"] != second["summary"]
    assert first["odds"] == second["odds"]


def test_verify_catches_an_exact_law_relabelled_as_sampled(monkeypatch: pytest.MonkeyPatch) -> None:
    # A forger who swaps a battle's exact law for the scenario's sampled one (its 2,000
    # runs may give nothing to an outcome that happened) must be caught: verify walks
    # the exact odds first whatever the line says, and the walk fits the budget here.
    import fracas.analysis
    from fracas.campaign.battle import odds_law
    from fracas.campaign.carry import adapter_for
    from fracas.core.distribution import EnumerationBudgetError
    from fracas.io.canonical import canonical_document
    from fracas.io.scenario import scenario_from_document

    store = Store.open("sqlite://")
    war(store)
    record_battle(store, "War", "A", "B", seed=1)
    lines = [json.loads(line) for line in export_lines(store.events("War")).splitlines()]
    body = lines[-1]["body"]
    assert body["odds"]["method"] == "exact"
    scenario = scenario_from_document(body["scenario"], source="journal")

    def over_budget(*args: object, **kwargs: object) -> None:
        raise EnumerationBudgetError("more than the budget")

    with monkeypatch.context() as patched:
        patched.setattr(fracas.analysis, "exact_outcomes", over_budget)
        sampled = canonical_document(odds_law(adapter_for("d100"), scenario))
    assert sampled["method"] == "mc"
    assert sampled != body["odds"]
    body["odds"] = sampled
    rehash(lines[-1])
    for workers in (1, 2):
        verdict = verify_lines(text_of(lines), workers=workers)
        assert verdict.problem is not None
        assert "its odds are not the ones its scenario gives" in str(verdict.problem)


def test_verify_starts_no_more_processes_than_battles_to_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fracas.campaign.verify as verify

    started: list[int] = []
    real = verify._OddsChecker.__init__

    def noting(self: Any, workers: int, *rest: Any) -> None:
        started.append(workers)
        real(self, workers, *rest)

    monkeypatch.setattr(verify._OddsChecker, "__init__", noting)
    store = Store.open("sqlite://")
    war(store)
    record_battle(store, "War", "A", "B", seed=1)
    text = export_lines(store.events("War"))
    assert verify_lines(text, workers=4).ok
    record_battle(store, "War", "A", "B", seed=2)
    assert verify_lines(export_lines(store.events("War")), workers=4).ok
    assert started == [1, 2]


def test_verify_tells_its_watch_of_every_event_and_every_battles_odds() -> None:
    from fracas.cli.progress import Tracker

    store = Store.open("sqlite://")
    war(store)
    for seed in (1, 2):
        record_battle(store, "War", "A", "B", seed=seed)
    text = export_lines(store.events("War"))
    events = len(text.splitlines())  # created, two rosters, two battles: 5
    alone, shared = Tracker(show=False), Tracker(show=False)
    assert verify_lines(text, watch=alone).ok
    assert events == 5
    assert alone.done == alone.total == {"events": 5}
    # With workers, the odds come back apart: a count of their own.
    assert verify_lines(text, workers=2, watch=shared).ok
    assert shared.done == shared.total == {"events": 5, "battles": 2}


def test_the_odds_are_asked_before_the_battle_is_played(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fracas.campaign.actions as actions
    from fracas.campaign import battle

    war(store)
    order: list[str] = []

    def noting(what: str, work: Any) -> Any:
        def noted(*args: Any, **kwargs: Any) -> Any:
            order.append(what)
            return work(*args, **kwargs)

        return noted

    monkeypatch.setattr(actions, "luck_law", noting("odds", battle.luck_law))
    monkeypatch.setattr(actions, "fight", noting("battle", battle.fight))
    record_battle(store, "War", "A", "B", seed=1)
    assert order == ["odds", "battle"]


def test_the_audit_reads_the_stored_odds_and_never_works_them_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fracas.analysis
    import fracas.analysis.sample
    import fracas.campaign.battle

    store = Store.open("sqlite://")
    war(store)
    record_battle(store, "War", "A", "B", seed=1)
    events = store.events("War")
    before = render_luck(audit(events), "json", campaign="War")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the luck audit worked the odds out again")

    for module, name in (
        (fracas.campaign.battle, "luck_law"),
        (fracas.analysis, "exact_outcomes"),
        (fracas.analysis.sample, "sampler"),
    ):
        monkeypatch.setattr(module, name, refuse)
    assert render_luck(audit(events), "json", campaign="War") == before


# The outcomes of one battle, by hand ------------------------------------------------------


def battle(prev: str) -> Event:
    body: dict[str, Any] = {
        "battle": 1,
        "scores": {"A": 3, "B": -3},
        "summary": {"winner": "A"},
        "outcomes": {"losses": {"A": 0, "B": 3}, "breaks": {"A": 1, "B": 0}},
        "odds": {
            "method": "exact",
            "runs": 0,
            "winner": {"A": 0.4, "B": 0.6},
            "scores": {"A": [[-3, 0.5], [3, 0.5]], "B": [[-3, 0.5], [3, 0.5]]},
            "losses": {"A": [[0, 0.25], [1, 0.5], [2, 0.25]], "B": [[0, 0.5], [3, 0.5]]},
            "breaks": {"A": [[0, 0.9], [1, 0.1]], "B": [[0, 0.8], [1, 0.2]]},
        },
    }
    return make_event(2, "battle_resolved", body, prev)


def test_each_outcome_at_its_own_percentile_for_each_side() -> None:
    first = make_event(1, "campaign_created", {"name": "W", "ruleset": "d100"}, "")
    a, b = sorted(audit([first, battle(first.hash)]), key=lambda luck: luck.force)
    row = a.battles[0]
    assert row.win is not None
    assert row.losses is not None
    assert row.enemy_losses is not None
    assert row.breaks is not None
    assert row.enemy_breaks is not None
    # Winning at P(win) = 0.4: P(not) + ½ P(win) = 0.6 + 0.2 = 0.8.
    assert row.win.percentile == pytest.approx(0.8)
    # A lost 0 of law {0: 1/4, 1: 1/2, 2: 1/4}; fewer is luckier: P(L > 0) + ½ P(L = 0)
    # = 3/4 + 1/8 = 7/8.
    assert row.losses.percentile == pytest.approx(0.875)
    # B lost 3 of {0: 1/2, 3: 1/2}; for A more is luckier: P(L < 3) + ½ P(L = 3) = 3/4.
    assert row.enemy_losses.percentile == pytest.approx(0.75)
    # One of A's units broke, of {0: 0.9, 1: 0.1}: P(B > 1) + ½ · 0.1 = 0.05.
    assert row.breaks.percentile == pytest.approx(0.05)
    # None of B's broke, of {0: 0.8, 1: 0.2}: for A, P(B < 0) + ½ · 0.8 = 0.4.
    assert row.enemy_breaks.percentile == pytest.approx(0.4)
    # B sees the same battle from the other side: it did not win, at P(B wins) = 0.6:
    # ½ · P(B does not win) = ½ · 0.4 = 0.2; its losses (3 of
    # {0: 1/2, 3: 1/2}) at P(L > 3) + ½ · 1/2 = 1/4, A's losses at P(L < 0) + ½ · 1/4 = 1/8.
    other = b.battles[0]
    assert other.win is not None
    assert other.losses is not None
    assert other.enemy_losses is not None
    assert (other.win.percentile, other.losses.percentile) == pytest.approx((0.2, 0.25))
    assert other.enemy_losses.percentile == pytest.approx(0.125)
    text = render_luck([a], "text", campaign="W")
    assert "broke" in text
    assert "0 (88 %)" in text
    assert "1 (5 %)" in text
    document = json.loads(render_luck([a], "json", campaign="W"))
    assert document["forces"][0]["battles"][0]["enemy_losses"]["percentile"] == 0.75
    assert "lost" in document["columns"]


def test_a_sampled_outcome_carries_its_error_bar() -> None:
    first = make_event(1, "campaign_created", {"name": "W", "ruleset": "d100"}, "")
    event = battle(first.hash)
    body = json.loads(json.dumps(event.body))
    body["odds"].update(method="mc", runs=400)
    lucks = audit([first, make_event(2, "battle_resolved", body, first.hash)])
    row = next(luck for luck in lucks if luck.force == "A").battles[0]
    assert row.losses is not None
    # 1.96 · √(0.875 · 0.125 / 400) = 1.96 · 0.016536 = 0.03241.
    assert row.losses.error == pytest.approx(1.96 * (0.875 * 0.125 / 400) ** 0.5)
    assert "0 (88 ± 3 %)" in render_luck(lucks, "markdown", campaign="W")
    # Winning at a sampled P(win) = 0.4 scores 1 − 0.4/2: its error is half the chance's,
    # 1.96 · ½ · √(0.4 · 0.6 / 400) = 1.96 · ½ · 0.024495 = 0.024005.
    assert row.win is not None
    assert row.win.error == pytest.approx(1.96 * 0.5 * (0.4 * 0.6 / 400) ** 0.5)
    # A chance sampled as 0 leaves no doubt about its percentile.
    body["odds"]["winner"] = {"A": 1.0, "B": 0.0}
    lucks = audit([first, make_event(2, "battle_resolved", body, first.hash)])
    other = next(luck for luck in lucks if luck.force == "B").battles[0]
    assert other.win is not None
    assert (other.win.percentile, other.win.error) == (0.5, 0.0)


# The stored laws against the odds the ruleset gives --------------------------------------


def test_a_battles_stored_laws_are_the_exact_odds_of_the_scenario() -> None:
    from fracas.analysis import odds
    from fracas.rulesets.d100.odds import BOTTLED

    store = Store.open("sqlite://")
    war(store)
    state = state_of(store, "War")
    scenario = build_scenario(state, "A", "B")
    stored = luck_law(state, scenario)
    assert stored["method"] == "exact"
    exact = odds(scenario, method="exact")
    # B fields one unit, Guards, of 4 PAX: B's breaks are P(Guards flees or bottles out).
    fate = exact.metric("fate.Guards")
    broke = sum(fate.probability(f) for f in ("fled", *BOTTLED))
    assert dict(map(tuple, stored["breaks"]["B"]))[1] == pytest.approx(float(broke))
    # Each law is a distribution, and A's losses run from none to all 4 of its PAX.
    assert sum(p for _, p in stored["losses"]["A"]) == pytest.approx(1)
    assert {v for v, _ in stored["losses"]["A"]} <= {0, 1, 2, 3, 4}
    winner = exact.metric("winner")
    assert stored["winner"] == pytest.approx({v.value: float(v.probability) for v in winner.values})


def test_a_luck_law_is_exact_whenever_the_budget_allows_whatever_a_look_ahead_projects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A look ahead that always projects too much (an estimate can) would turn this exact
    # law into a sampled one, and a journal recorded without it would no longer verify.
    from fracas.analysis.exact import ProjectedOverBudget, _Walk

    def too_much(walk: Any, frontier: Any, used: int) -> None:
        raise ProjectedOverBudget(walk.budget, spent=used, projected=10**9)

    monkeypatch.setattr(_Walk, "look_ahead", too_much)
    monkeypatch.setattr("fracas.analysis.exact.LOOK_AHEAD_FROM", 1)
    store = Store.open("sqlite://")
    war(store)
    state = state_of(store, "War")
    assert luck_law(state, build_scenario(state, "A", "B"))["method"] == "exact"


def test_rankflank_battles_have_breaks_and_hex_battles_none() -> None:
    from tests.campaign.test_rankflank_hex import BLUE, GOBLINS, HALBERDIERS, PLACES, RED, RIVER_MAP

    store = Store.open("sqlite://")
    new_campaign(store, "War", "rankflank")
    enter_roster(store, "War", "Empire", {"units": [HALBERDIERS]})
    enter_roster(store, "War", "Greenskins", {"units": [GOBLINS]})
    body = record_battle(store, "War", "Empire", "Greenskins", seed=3).event.body
    # Seed 3: the goblins break (test_rankflank_hex): Greenskins 1 break, Empire none.
    assert body["outcomes"]["breaks"] == {"Empire": 0, "Greenskins": 1}
    assert body["outcomes"]["losses"]["Empire"] == body["summary"]["casualties.Halberdiers"]
    assert sum(p for _, p in body["odds"]["breaks"]["Greenskins"]) == pytest.approx(1)
    assert "broke" in render_luck(audit(store.events("War")), "text", campaign="War")

    store = Store.open("sqlite://")
    new_campaign(store, "War", "hex")
    enter_roster(store, "War", "blue", BLUE)
    enter_roster(store, "War", "red", RED)
    extra = {
        "map": RIVER_MAP,
        "placements": PLACES,
        "orders": [{"attacker": "assault", "target": "grenadiers"}],
    }
    body = record_battle(store, "War", "blue", "red", extra=extra).event.body
    assert "breaks" not in body["odds"]
    assert "breaks" not in body["outcomes"]
    # hex has no dice: each law is its one result, at 50 %.
    lost = body["outcomes"]["losses"]["red"]
    assert body["odds"]["losses"]["red"] == [[lost, 1]]
    text = render_luck(audit(store.events("War")), "text", campaign="War")
    assert "broke" not in text
    assert f"{lost:g} (50 %)" in text
