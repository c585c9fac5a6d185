"""Export a journal as canonical JSON Lines, and check one end to end.

``verify`` replays the whole war from the first line: every event must carry the next
sequence number and the hash of the line before it; every roster must fit the ruleset's
schema; every battle is built again from the rosters the journal had made by then, played
again from its seed (or its fair dice: secret, scenario and nonces), and must give the
summary, the scores, the luck audit's outcomes and the carried changes the line records;
its odds (asked of the scenario before the battle, and read as they are by the luck audit)
are worked out again and must be the ones it records; and every line must hash to what it
says. The first line that does not follow is named, with why.

Working out the odds again costs what recording them did (up to a second a battle);
``odds=False`` skips that check alone, and says so.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from fracas.campaign.battle import build_scenario, fight
from fracas.campaign.journal import Event, event_hash, parse_line
from fracas.campaign.rosters import CampaignState, JournalError, apply, derive
from fracas.core.errors import FracasError, ScenarioError
from fracas.io.canonical import canonical_document
from fracas.io.scenario import set_path


class Watch(Protocol):
    """What ``verify`` tells of its progress (``fracas.cli.progress.Tracker`` draws it):
    the events checked, and with several workers the battles whose odds came back."""

    def start(self, total: int, unit: str, label: str) -> None: ...

    def advance(self, done: int, unit: str = ..., *, at_once: bool = ...) -> None: ...


def export_lines(events: Iterable[Event]) -> str:
    """The journal as JSON Lines: one canonical line per event, in order."""
    return "".join(event.line() + "\n" for event in events)


@dataclass(frozen=True)
class Verdict:
    """What ``verify`` found: how many events and battles held, and the first that did not."""

    events: int
    battles: int
    problem: JournalError | None
    #: Whether each battle's stored odds were worked out again and compared.
    odds: bool = True
    #: Battles recorded before a battle stored its outcomes: their replays are checked,
    #: their odds (asked another way then) are not worked out again.
    earlier: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None

    def lines(self) -> list[str]:
        if self.problem is None:
            odds = "their odds worked out again" if self.odds else "their odds NOT checked"
            if self.odds and self.earlier:
                odds += (
                    f"; {self.earlier} recorded before battles stored their outcomes: "
                    "re-played, their odds not checked"
                )
            return [
                f"verified: {self.events} events, {self.battles} battles re-played ({odds}), "
                "every roster re-derived"
            ]
        return [
            f"NOT VERIFIED: {self.problem}",
            f"({self.events} events before it follow)",
        ]


def verify_lines(
    text: str,
    *,
    source: str = "journal",
    odds: bool = True,
    workers: int = 1,
    watch: Watch | None = None,
) -> Verdict:
    """Check an exported journal (see the module's text)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        # Nothing to follow or not follow: not a journal, as a line of no JSON is not one.
        raise ScenarioError("no events: an exported journal has one event a line", source=source)
    events = [parse_line(line, number=n, source=source) for n, line in enumerate(lines, 1)]
    return verify_events(events, odds=odds, workers=workers, watch=watch)


def verify_events(
    events: Sequence[Event],
    *,
    odds: bool = True,
    workers: int = 1,
    watch: Watch | None = None,
) -> Verdict:
    """Check events in order (see the module's text).

    With ``workers`` above 1 the battles' odds are worked out again in that many
    processes, beside the replay (each battle's odds depend on its scenario alone); the
    verdict is the same: the first event that does not follow. ``watch`` is told of each
    event checked, and of each battle whose odds came back from a worker.
    """
    # More processes than battles to check would only cost their start.
    checking = sum(1 for e in events if e.kind == "battle_resolved" and not _earlier(e))
    checker = _OddsChecker(max(1, min(workers, checking)), watch) if odds else None
    if watch is not None:
        watch.start(len(events), "events", "verifying")
        if checker is not None and checker.pool is not None:
            watch.start(checking, "battles", "odds of")
    try:
        found = _verify(events, checker, watch)
        late = checker.first_problem() if checker is not None else None
    finally:
        if checker is not None:
            checker.close()
    # The same event can fail both ways: its odds are named first, as with one worker.
    if late is not None and (found.problem is None or late[0] <= found.events):
        index, battles, problem = late
        return Verdict(index, battles, problem)
    earlier = sum(1 for event in events[: found.events] if _earlier(event))
    return replace(found, odds=odds, earlier=earlier if odds else 0)


def _earlier(event: Event) -> bool:
    """A battle recorded before a battle event held its outcomes (and the odds of each):
    its odds were asked in another way, so only its replay can be checked."""
    return event.kind == "battle_resolved" and "outcomes" not in event.body


class _OddsChecker:
    """Works each battle's odds out again and compares them with the stored ones: at once
    with one worker, in a pool of processes with more."""

    def __init__(self, workers: int, watch: Watch | None = None) -> None:
        from concurrent.futures import Future, ProcessPoolExecutor

        self.watch = watch
        self.pool = ProcessPoolExecutor(workers) if workers > 1 else None
        self.pending: list[tuple[int, int, int, Any, Future[dict[str, Any]]]] = []

    def check(self, index: int, battles: int, event: Event, ruleset: str, document: Any) -> None:
        """Check the odds of battle ``event`` (the ``index``-th event, after ``battles``
        battles); with one worker a mismatch is raised at once."""
        if self.pool is None:
            _compare(event, _odds_again(ruleset, document))
            return
        future = self.pool.submit(_odds_again, ruleset, document)
        self.pending.append((index, battles, event.seq, event, future))

    def first_problem(self) -> tuple[int, int, JournalError] | None:
        """The first battle, in journal order, whose stored odds are not its scenario's."""
        for index, battles, _, event, future in self.pending:
            try:
                _compare(event, future.result())
            except JournalError as exc:
                return index, battles, exc
            if self.watch is not None:
                self.watch.advance(1, "battles")
        return None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


def _odds_again(ruleset: str, document: Any) -> dict[str, Any]:
    """A battle's odds worked out again from its scenario document (in a worker, too)."""
    from fracas.campaign.battle import odds_law
    from fracas.campaign.carry import adapter_for
    from fracas.io.scenario import scenario_from_document

    scenario = scenario_from_document(document, source="journal")
    law: dict[str, Any] = canonical_document(odds_law(adapter_for(ruleset), scenario))
    return law


def _compare(event: Event, law: dict[str, Any]) -> None:
    body = event.body
    if law != body.get("odds"):
        differing = _first_key(law, body.get("odds"))
        raise JournalError(
            event.seq,
            f"battle {body.get('battle')}: its odds are not the ones its scenario gives"
            f"{differing} (the odds stored before the battle were changed)",
        )


def _verify(
    events: Sequence[Event], checker: _OddsChecker | None, watch: Watch | None = None
) -> Verdict:
    state: CampaignState | None = None
    previous = ""
    battles = 0
    for index, event in enumerate(events):
        try:
            if event.seq != index + 1:
                missing = "missing" if event.seq > index + 1 else "out of order"
                raise JournalError(
                    event.seq, f"comes where event {index + 1} should be (events {missing})"
                )
            if event.prev != previous:
                raise JournalError(
                    event.seq, "does not chain to the event before it (an event removed or edited)"
                )
            if state is None:
                state = derive([event])
            else:
                _check(state, event)
                if checker is not None and event.kind == "battle_resolved" and not _earlier(event):
                    checker.check(index, battles, event, state.ruleset, event.body["scenario"])
                apply(state, event)
                state.last = event
            if event_hash(event.seq, event.kind, event.body, event.prev) != event.hash:
                raise JournalError(event.seq, "its content does not match its hash: it was edited")
        except JournalError as exc:
            return Verdict(index, battles, exc)
        except (FracasError, AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            problem = JournalError(event.seq, f"{event.kind} does not apply ({exc})")
            return Verdict(index, battles, problem)
        battles += event.kind == "battle_resolved"
        previous = event.hash
        if watch is not None:
            watch.advance(1, "events")
    if state is None:
        return Verdict(0, 0, JournalError(1, "the journal is empty"))
    return Verdict(len(events), battles, None)


def _check(state: CampaignState, event: Event) -> None:
    body, seq = event.body, event.seq
    adapter = state.adapter
    if event.kind == "roster_entered":
        adapter.check(str(body["force"]), body["roster"], source=f"event {seq}")
    elif event.kind == "roster_edited":
        force = state.forces[str(body["force"])]
        document = {"roster": copy.deepcopy(force.roster), "treasury": dict(force.treasury)}
        for change in body["set"]:
            path = str(change["path"])
            where = path if path.startswith("treasury.") else f"roster.{path}"
            document = set_path(document, where, change["value"])
        if canonical_document(document["roster"]) != body["roster"]:
            raise JournalError(seq, "its roster is not the one its --set values give")
        adapter.check(str(body["force"]), body["roster"], source=f"event {seq}")
    elif event.kind == "replacements_bought":
        unit = state.forces[str(body["force"])].unit(adapter, str(body["unit"]))
        if unit is None or int(unit[adapter.size_key]) + int(body["count"]) != body["size"]:
            raise JournalError(seq, "its new size is not the old size plus the count")
    elif event.kind == "battle_resolved":
        _check_battle(state, event)


def _check_battle(state: CampaignState, event: Event) -> None:
    from fracas.io.fair import derive_seed

    body, seq = event.body, event.seq
    if body.get("battle") != state.battles + 1:
        raise JournalError(
            seq, f"is battle {body.get('battle')!r}, but it is battle {state.battles + 1}"
        )
    seed = body.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise JournalError(seq, f"battle {body['battle']}: its seed {seed!r} is not a whole number")
    options = body["options"]
    scenario = build_scenario(
        state,
        str(body["attacker"]),
        str(body["defender"]),
        extra=options.get("extra", {}),
        overrides=[(str(path), value) for path, value in options.get("overrides", [])],
        only=[str(name) for name in options.get("only", [])],
    )
    if scenario.canonical_sha256 == body["scenario_sha256"] and scenario.document != body.get(
        "scenario"
    ):
        raise JournalError(
            seq,
            f"battle {body.get('battle')}: the scenario it stores is not the one the rosters "
            f"make{_first_key(scenario.document, body.get('scenario'))}",
        )
    if scenario.canonical_sha256 != body["scenario_sha256"]:
        raise JournalError(
            seq,
            f"battle {body.get('battle')}: the rosters the journal made give scenario "
            f"sha256:{scenario.sha256}, not the one it records "
            f"(sha256:{str(body['scenario_sha256'])[:16]})",
        )
    fair = body.get("fair")
    if fair:
        seed = derive_seed(str(fair["secret"]), scenario.canonical_sha256, fair["nonces"])
        if seed != body["seed"]:
            raise JournalError(
                seq,
                f"battle {body.get('battle')}: its fair dice give seed {seed}, not {body['seed']}",
            )
        fought = fight(state, scenario, secret=str(fair["secret"]), nonces=fair["nonces"])
    else:
        fought = fight(state, scenario, seed=seed)
    again = {
        "summary": canonical_document(fought.summary),
        "changes": canonical_document(fought.changes),
        "scores": canonical_document(
            {f: state.adapter.score(scenario, fought.summary, f) for f in body["scores"]}
        ),
        "outcomes": canonical_document(state.adapter.outcomes(scenario, fought.summary)),
    }
    if "outcomes" not in body:  # recorded before battles stored them (see _earlier)
        del again["outcomes"]
    for key, value in again.items():
        if value != body.get(key):
            differing = _first_key(value, body.get(key))
            raise JournalError(
                seq,
                f"battle {body.get('battle')}: re-played from seed {body['seed']}, its {key} "
                f"differs{differing} (a roll or a result was changed)",
            )


def _first_key(mine: object, theirs: object, path: str = "") -> str:
    """Where two documents first differ (the deepest key both have), and the two values."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                return _first_key(mine.get(key), theirs.get(key), f"{path}.{key}" if path else key)
    if not path:
        return ""
    return f" at {path}: re-play {_short(mine)}, journal {_short(theirs)}"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
