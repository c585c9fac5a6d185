"""The server's bounds, in process: lanes and queues, errors as JSON, headers, hosts."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from fracas.cli import app as cli
from fracas.web import Limits, create_app, operations
from fracas.web.app import CHART_STYLE, CONTENT_POLICY, style_hash
from fracas.web.jobs import CHEAP_WORK, Job, work_estimate
from fracas.web.operations import OddsOptions, ScenarioInput
from fracas.web.pool import Busy, Lane, Stopping, TimedOut

from .conftest import body

ROOT = Path(__file__).resolve().parents[2]
RING = ROOT / "examples" / "hex" / "encirclement.yaml"
LAIR = ROOT / "examples" / "d100" / "lair_raid.yaml"


# ── a hex battle has no dice to sample ─────────────────────────────────────────────────


def test_monte_carlo_of_a_ruleset_without_dice_is_one_play(client: TestClient) -> None:
    # Odds play a ruleset without dice once, whatever the method: never 200,000 replays
    # of the same battle.
    started = time.monotonic()
    response = client.post("/api/odds", json=body(RING, method="mc", runs=200_000))
    assert response.status_code == 200
    result = response.json()["document"]["result"]
    assert (result["method"], result["work"]["amount"]) == ("exact", 1)
    assert time.monotonic() - started < 10  # one load of the scenario, never 200,000 plays
    # Exact odds play it once.
    exact = client.post("/api/odds", json=body(RING, method="auto"))
    assert exact.status_code == 200
    assert exact.json()["method"] == "exact"


# ── the confidence a float can hold ────────────────────────────────────────────────────


def test_a_confidence_too_near_one_is_422_and_one_line_exit_2(client: TestClient) -> None:
    # (1 + c) / 2 is 1.0 in a float for the largest float below 1: no quantile exists.
    near = 0.9999999999999999
    assert (1 + near) / 2 == 1.0
    response = client.post("/api/odds", json=body(LAIR, confidence=near))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["path"] == "confidence"
    assert "at most 0.9999999999999998" in error["message"]
    ran = CliRunner().invoke(cli, ["odds", str(LAIR), "--confidence", repr(near)])
    assert ran.exit_code == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("fracas: error: ")
    assert f"{LAIR}: --confidence must be at most 0.9999999999999998" in lines[0]
    # The largest level that works still works.
    fine = client.post(
        "/api/odds", json=body(LAIR, method="mc", runs=50, confidence=0.9999999999999998)
    )
    assert fine.status_code == 200, fine.text


# ── every error is the JSON object, a bug's too ────────────────────────────────────────


def test_a_bug_is_a_500_in_the_documented_json() -> None:
    app = create_app()

    @app.get("/api/boom")
    async def boom() -> None:
        raise RuntimeError("a bug")

    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        response = client.get("/api/boom")
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["message"].startswith("internal error")
    assert response.headers["content-security-policy"] == CONTENT_POLICY


def test_a_bug_in_a_worker_is_a_500_in_the_documented_json() -> None:
    # An operation that fails for a reason no input check foresaw, run as the server runs it.
    from fracas.web.jobs import run

    status, answer = run(Job("resolve", {"given": None, "seed": 0}))
    assert status == 500
    assert json.loads(answer)["error"]["message"].startswith("internal error")


def test_an_answer_over_the_limit_is_refused() -> None:
    with TestClient(create_app(Limits(answer_bytes=10_000)), base_url="http://127.0.0.1") as small:
        response = small.post("/api/resolve", json=body(LAIR))
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "over this server's limit of 10,000 (fracas serve --max-answer)" in message


# ── headers and hosts ──────────────────────────────────────────────────────────────────


def test_every_answer_has_the_security_headers(client: TestClient) -> None:
    for response in (
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/api/rulesets"),
        client.get("/api/nothing"),
        client.post("/api/resolve", json={"scenario": "- a list"}),
    ):
        headers = response.headers
        assert headers["content-security-policy"] == CONTENT_POLICY
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in CONTENT_POLICY
    assert "script-src 'self';" in CONTENT_POLICY  # no inline script, no eval


def test_the_one_inline_style_allowed_is_the_charts(client: TestClient) -> None:
    # The odds chart carries one <style> element; the policy allows exactly its hash, so
    # a change to the chart's style must change the policy too.
    answer = client.post("/api/odds", json=body(LAIR, method="mc", runs=50)).json()
    styles = answer["chart"].split("<style>")[1:]
    assert [style.split("</style>")[0] for style in styles] == [CHART_STYLE]
    assert style_hash(CHART_STYLE) in CONTENT_POLICY
    assert "'unsafe-inline'" not in CONTENT_POLICY


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("localhost:8000", True),
        ("LOCALHOST", True),
        ("[::1]:8000", True),
        ("attacker.example", False),
        ("127.0.0.1.attacker.example", False),
        ("", False),
        # Read before as localhost, ::1, localhost: no host a browser sends.
        ("localhost:80@evil.com", False),
        ("[::1]evil", False),
        ("localhost:abc", False),
    ],
)
def test_the_host_header_must_name_this_server(
    client: TestClient, host: str, allowed: bool
) -> None:
    response = client.get("/api/rulesets", headers={"host": host})
    assert (response.status_code == 200) is allowed
    if not allowed:
        assert response.status_code == 400
        assert "--allowed-host" in response.json()["error"]["message"]


def test_a_server_on_every_address_answers_to_addresses_but_not_names() -> None:
    app = create_app(host="0.0.0.0")
    with TestClient(app, base_url="http://192.0.2.7") as client:
        assert client.get("/api/rulesets").status_code == 200
        assert client.get("/api/rulesets", headers={"host": "rebind.example"}).status_code == 400


def test_the_examples_are_read_once(client: TestClient) -> None:
    first = client.get("/api/examples").content
    operations.examples.cache_clear()
    second = client.get("/api/examples").content
    assert first == second
    # The app kept its bytes: the examples were not read again.
    assert operations.examples.cache_info().currsize == 0


# ── lanes ──────────────────────────────────────────────────────────────────────────────


def test_questions_are_sorted_by_the_work_they_may_ask_for() -> None:
    small = ScenarioInput(LAIR.read_text(encoding="utf-8"))
    limits = Limits()

    def estimate(operation: str, **arguments: Any) -> float:
        return work_estimate(operation, {"given": small, **arguments}, limits)

    assert estimate("resolve") <= CHEAP_WORK
    assert estimate("validate") <= CHEAP_WORK
    # 200 runs at 500 dice rolls each: 100,000 ≤ 250,000.
    assert estimate("odds", options=OddsOptions(method="mc", runs=200)) <= CHEAP_WORK
    # 10,000 runs: 5,000,000 rolls (the server's sample budget).
    assert estimate("odds", options=OddsOptions(method="mc")) == 5_000_000
    # auto: 500,000 exact steps, then 5,000,000 rolls.
    assert estimate("odds", options=OddsOptions()) == 5_500_000
    assert estimate("odds", options=OddsOptions(method="exact", exact_budget=10_000)) == 10_000
    assert estimate("advise", side="x") > CHEAP_WORK
    huge = ScenarioInput("x" * 20_000)
    assert work_estimate("resolve", {"given": huge}, limits) > CHEAP_WORK


class Blocked:
    """A backend whose jobs wait for ``release``, or for their time limit."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Semaphore(0)

    def run(self, job: Job, seconds: float) -> tuple[int, bytes]:
        self.started.release()
        if not self.release.wait(seconds):
            raise TimedOut
        return 200, b"{}"

    def stop(self) -> None:
        self.release.set()

    def pid(self) -> int | None:
        return None


def test_a_full_lane_says_when_to_try_again() -> None:
    backend = Blocked()
    lane = Lane("cheap", [backend], waiting=1)
    far = time.monotonic() + 60
    running = lane.submit(Job("resolve"), far)
    assert backend.started.acquire(timeout=10)
    waiting = lane.submit(Job("resolve"), far)
    with pytest.raises(Busy) as busy:
        lane.submit(Job("resolve"), far)
    # Two jobs ahead of it at the lane's pace so far (1 s each, nothing measured yet).
    assert busy.value.retry_after == 2
    assert "1 cheap questions are being worked out and 1 more wait" in str(busy.value)
    backend.release.set()
    assert running.result(timeout=10) == (200, b"{}")
    assert waiting.result(timeout=10) == (200, b"{}")
    lane.stop()
    with pytest.raises(Stopping):
        lane.submit(Job("resolve"), far)


def test_a_job_past_its_deadline_times_out_and_frees_its_slot() -> None:
    backend = Blocked()
    lane = Lane("expensive", [backend], waiting=0)
    late = lane.submit(Job("odds"), time.monotonic() + 0.2)
    with pytest.raises(TimedOut):
        late.result(timeout=10)
    backend.release.set()
    assert lane.submit(Job("odds"), time.monotonic() + 10).result(timeout=10) == (200, b"{}")
    lane.stop()


def test_a_job_that_waits_past_its_deadline_is_told_to_try_again() -> None:
    # No worker was free before its time limit ran out, so none of its work was done:
    # the lane was busy (503 with Retry-After), not the question too large.
    backend = Blocked()
    lane = Lane("expensive", [backend], waiting=1)
    running = lane.submit(Job("odds"), time.monotonic() + 60)
    assert backend.started.acquire(timeout=10)
    waiting = lane.submit(Job("odds"), time.monotonic() + 0.2)
    time.sleep(0.4)
    backend.release.set()  # the running job ends after the waiting one's deadline
    assert running.result(timeout=10) == (200, b"{}")
    with pytest.raises(Busy) as busy:
        waiting.result(timeout=10)
    assert busy.value.retry_after >= 1
    assert "waited for one of the 1 expensive workers until its time limit ran out" in str(
        busy.value
    )
    lane.stop()


def test_a_picture_too_large_for_the_answer_is_left_out_and_said() -> None:
    # A board of 60 × 60 hexes draws to about 1.5 MB; with an answer limit of 1 MB the
    # picture may take half of it: it is left out, the report stays.
    rows = "\n".join(f'    - "{"." * 60}"' for _ in range(60))
    text = (
        "fracas: 1\nruleset: hex\nmap:\n  rows:\n" + rows + "\nunits:\n"
        "  - {id: a, side: blue, hex: [0, 0], strength: 100, attack: {land: 10}, defense: 10}\n"
        "  - {id: b, side: red, hex: [1, 0], strength: 100, attack: {land: 10}, defense: 10}\n"
        "orders:\n  - {attacker: a, target: b}\n"
    )
    limits = Limits(answer_bytes=1_000_000)
    with TestClient(create_app(limits), base_url="http://127.0.0.1") as small:
        answer = small.post("/api/resolve", json={"scenario": text}).json()
    assert answer["picture"] is None
    [note] = answer["limits"]
    assert note.startswith("The picture is left out: ")
    assert "over half of this server's answer limit of 1,000,000 bytes" in note
    assert answer["document"]["result"]  # the battle itself is answered


def test_a_picture_over_its_budget_stops_being_drawn() -> None:
    # The picture is counted as it is drawn: past budget.picture it stops, rather than
    # being drawn whole and then left out. Encirclement's 15 hexes draw to some 10,000
    # characters, so a budget of 2,000 stops it early.
    from fracas.core.limits import BudgetExceededError, limits_in_force
    from fracas.io.scenario import load_scenario

    scenario = load_scenario(RING)
    whole = scenario.ruleset.picture(scenario.model)
    assert len(whole) > 2_000
    with limits_in_force({"budget.picture": 2_000}), pytest.raises(BudgetExceededError) as spent:
        scenario.ruleset.picture(scenario.model)
    assert "the budget budget.picture of 2,000 characters is spent" in str(spent.value)
    # Within the budget it is the same picture, byte for byte.
    with limits_in_force({"budget.picture": len(whole)}):
        assert scenario.ruleset.picture(scenario.model) == whole
    # The server draws within half its answer limit: the note says the drawing stopped.
    given = ScenarioInput(RING.read_text(encoding="utf-8"), RING.name)
    answer = operations.resolve(given, None, picture_bytes=2_000)
    assert answer["picture"] is None
    assert answer["limits"] == [
        "The picture is left out: more than 2,000 characters, over half of this server's "
        "answer limit of 4,000 bytes (fracas serve --max-answer); fracas render draws it."
    ]
    assert answer["document"]["result"]


@pytest.mark.parametrize(
    ("operation", "arguments", "name"),
    [
        ("forecast", {"attacker": "lead", "target": "holdout"}, "budget.forecast"),
        ("advise", {"side": "blue"}, "budget.advise"),
        ("threats", {"side": "blue"}, "budget.advise"),
        ("reply", {"side": "blue"}, "budget.advise"),
    ],
)
def test_every_question_is_counted_by_the_command_lines_budget(
    operation: str, arguments: dict[str, Any], name: str
) -> None:
    # The web asks the ruleset within the same work budget as the command of that name:
    # with the budget at 0 steps the first combat (or pair examined) is one too many.
    from fracas.core.limits import BudgetExceededError, limits_in_force

    given = ScenarioInput(RING.read_text(encoding="utf-8"), RING.name)
    getattr(operations, operation)(given, **arguments)  # within the default budget
    with limits_in_force({name: 0}), pytest.raises(BudgetExceededError) as spent:
        getattr(operations, operation)(given, **arguments)
    assert str(spent.value).startswith(f"{RING.name}: the budget {name} of 0 steps is spent")


def test_a_failed_accept_is_logged_once_a_minute_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # asyncio reports every accept that finds no descriptor, with a traceback: thousands
    # a second. The server's handler says it once a minute; other errors go on as before.
    import logging

    from fracas.web.server import OUT_OF_RESOURCE, quiet_about_descriptors

    class Loop:
        def __init__(self) -> None:
            self.passed: list[dict[str, Any]] = []

        def default_exception_handler(self, context: dict[str, Any]) -> None:
            self.passed.append(context)

    loop, log = Loop(), logging.getLogger("fracas.test.accept")
    handle = quiet_about_descriptors(log)
    failed = {"message": OUT_OF_RESOURCE, "exception": OSError(24, "Too many open files")}
    with caplog.at_level(logging.ERROR, logger=log.name):
        for _ in range(1000):
            handle(loop, failed)
        handle(loop, {"message": "something else"})
    assert [record.getMessage() for record in caplog.records] == [
        "cannot accept connections: [Errno 24] Too many open files (ulimit -n, or lower "
        "--connections); said at most once a minute"
    ]
    assert loop.passed == [{"message": "something else"}]


def test_a_full_lane_is_a_503_with_retry_after_and_its_reason_in_the_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = create_app()

    def full(job: Job, estimate: float) -> Any:
        raise Busy("cheap", 7, "the server is busy: 2 cheap questions are being worked out")

    monkeypatch.setattr(app.state.pool, "submit", full)
    with TestClient(app, base_url="http://127.0.0.1") as busy:
        response = busy.post("/api/resolve", json=body(LAIR))
    assert response.status_code == 503
    assert response.headers["retry-after"] == "7"
    error = response.json()["error"]
    assert (error["reason"], error["retry_after"]) == ("busy", 7)
    assert error["message"].startswith("the server is busy: ")


def test_two_host_headers_are_refused_whichever_comes_first(client: TestClient) -> None:
    # The last one was taken: "evil.com" then "localhost" was answered.
    for hosts in (["evil.com", "localhost"], ["localhost", "evil.com"]):
        headers = [("host", host) for host in hosts]
        response = client.request("GET", "/api/rulesets", headers=headers)
        assert response.status_code == 400, hosts
