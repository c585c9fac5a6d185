"""The page in a real browser: Playwright driving Debian's Chromium against ``fracas serve``.

The server runs as a separate process on a free loopback port, started the way a user
starts it. Each step leaves a screenshot in ``$FRACAS_SCREENSHOTS`` (by default
``fracas-screenshots`` in the system's temporary folder) for a person to look at.
Without Chromium (``make chromium`` installs it, as root) the tests skip and say so.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(
    os.environ.get("FRACAS_SCREENSHOTS", Path(tempfile.gettempdir()) / "fracas-screenshots")
)
TIMEOUT_MS = 60_000  # generous: the machine may be busy; nothing here measures speed

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"Chromium is not installed at {CHROMIUM}: `make chromium` installs Debian's "
    "package (it needs root); the browser tests cannot run without it",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def get_json(url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "fracas", "serve", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "/api/rulesets", timeout=2).close()
                break
            except OSError:
                if process.poll() is not None:
                    output = process.stdout.read().decode() if process.stdout else ""
                    pytest.fail(f"fracas serve stopped: {output}")
                time.sleep(0.1)
        else:
            pytest.fail("fracas serve did not answer within 30 s")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    opened.on(
        "console",
        lambda message: (
            problems.append(f"console: {message.text}")
            # A 4xx answer is the API saying what is wrong; Chromium logs each one too.
            if message.type == "error" and "with a status of 4" not in message.text
            else None
        ),
    )
    # Everything the page loads comes from the fracas server itself (it works offline).
    foreign: list[str] = []
    context.on(
        "request",
        lambda request: (
            foreign.append(request.url)
            if urlsplit(request.url).scheme in ("http", "https")
            and not request.url.startswith(server)
            else None
        ),
    )
    yield opened
    context.close()
    assert foreign == []
    assert problems == []


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def wait_for(page: Page, expression: str, arg: Any = None) -> None:
    """Wait until ``expression`` (or the function it is, of ``arg``) is true in the page.

    Asked from here again and again: Playwright's own ``wait_for_function`` evaluates its
    predicate as a string inside the page, which the page's content policy (no eval)
    forbids, as it should."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {TIMEOUT_MS / 1000:g} s: {expression}")
        time.sleep(0.05)


def wait_for_answer(page: Page, contains: str) -> None:
    wait_for(
        page, "text => document.querySelector('#footer').textContent.includes(text)", arg=contains
    )


def pick(page: Page, example: str) -> None:
    """Choose a bundled example and wait for its answer (the command names its file)."""
    page.select_option("#example", example)
    wait_for(
        page,
        "name => document.querySelector('#command').textContent.includes(name)",
        arg=example.split("/")[-1],
    )


def examples(server: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = get_json(server + "/api/examples")
    return found


def first_of_each_ruleset(server: str) -> list[dict[str, Any]]:
    chosen: dict[str, dict[str, Any]] = {}
    for example in examples(server):
        chosen.setdefault(example["ruleset"], example)
    return list(chosen.values())


def test_each_rulesets_example_resolves_with_the_apis_numbers(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    shot(page, "01-first-load")
    rulesets = {r["name"]: r for r in get_json(server + "/api/rulesets")}
    for example in first_of_each_ruleset(server):
        page.select_option("#example", example["id"])
        expected = get_json(
            server + "/api/resolve", {"scenario": example["scenario"], "name": example["name"]}
        )
        wait_for_answer(page, expected["footer"])
        assert page.inner_text("#footer") == expected["footer"]
        assert page.inner_text("#command") == expected["command"]
        assert page.inner_text("#report h2") == expected["title"]
        # The numbers on the page are the API's numbers: same rows in the first table.
        cells = page.locator("#report tbody tr").first.locator("td").all_inner_texts()
        assert cells
        assert "".join(f"{escape(cell)}</td>" for cell in cells) in expected["html"].replace(
            '<td class="num">', "<td>"
        ).replace("<td>", "")
        drawn = rulesets[example["ruleset"]]["capabilities"]["picture"]
        assert page.is_visible("#picture img") is drawn
        shot(page, f"02-resolve-{example['ruleset']}")


def test_roll_again_gives_a_new_seed(page: Page, server: str) -> None:
    page.goto(server + "/")
    dice = next(e for e in examples(server) if e["id"] == "d100/lair_raid.yaml")
    pick(page, dice["id"])
    page.click("#roll-again")
    wait_for(page, "!document.querySelector('#footer').textContent.includes('seed 0 ')")
    seed = page.input_value("#seed")
    wait_for_answer(page, f"seed {seed} ")
    shot(page, "03-roll-again")


def test_odds_show_the_headline_and_the_chart(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "rankflank/flank_charge.yaml")
    page.click(".tabs button[data-op=odds]")
    page.select_option("#method", "mc")
    page.fill("#runs", "2000")
    page.click("#run-odds")
    page.wait_for_selector("#report svg.chart")
    assert (
        page.locator("#headline-chart svg.chart rect.bar").count() == 3
    )  # Elves, Empire, undecided
    headline = page.locator("#report section", has_text="Headline")
    assert "%" in headline.inner_text()
    assert "--method mc" in page.inner_text("#command")
    assert "--runs 2000" in page.inner_text("#command")
    shot(page, "04-odds-chart")


def test_editing_a_number_changes_the_answer(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "hex/encirclement.yaml")
    before = page.inner_text("#report")
    field = page.locator('.fields input[data-path="units[3].strength"]')
    field.fill("40")
    field.dispatch_event("change")
    wait_for_answer(page, "--set units[3].strength=40")
    after = page.inner_text("#report")
    assert after != before
    assert "--set 'units[3].strength=40'" in page.inner_text("#command")
    assert "edited" in (field.get_attribute("class") or "")
    shot(page, "05-edited-value")


def test_a_permalink_opens_the_same_battle(page: Page, server: str, browser: Browser) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "d100/lair_raid.yaml")
    page.fill("#seed", "7")
    page.click("#run-resolve")
    wait_for_answer(page, "seed 7 ")
    wait_for(page, "location.hash.startsWith('#s=')")
    link = page.url
    report = page.inner_text("#report")
    shot(page, "06-permalink-source")
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        other = fresh.new_page()
        other.set_default_timeout(TIMEOUT_MS)
        other.goto(link)
        wait_for_answer(other, "seed 7 ")
        assert other.inner_text("#report") == report
        assert other.input_value("#text") == page.input_value("#text")
        assert other.inner_text("#command") == "fracas resolve lair_raid.yaml --seed 7"
        shot(other, "07-permalink-opened")
    finally:
        fresh.close()


def test_copy_buttons_copy_the_forum_post(page: Page, server: str) -> None:
    page.goto(server + "/")
    pick(page, "d100/lair_raid.yaml")
    dice = next(e for e in examples(server) if e["id"] == "d100/lair_raid.yaml")
    expected = get_json(
        server + "/api/resolve", {"scenario": dice["scenario"], "name": dice["name"]}
    )
    page.click("#copy-bbcode")
    page.wait_for_selector("#copied:has-text('BBCode copied')")
    assert page.evaluate("navigator.clipboard.readText()") == expected["bbcode"]
    page.click("#copy-markdown")
    page.wait_for_selector("#copied:has-text('Markdown copied')")
    assert page.evaluate("navigator.clipboard.readText()") == expected["markdown"]
    # The post options travel with the request and show in the answer as they would on
    # the command line.
    page.select_option("#forum", "vbulletin")
    page.check("#fold")
    wait_for(page, "document.querySelector('#report details.fold') !== null")
    page.click("#copy-bbcode")
    folded = get_json(
        server + "/api/resolve",
        {"scenario": dice["scenario"], "name": dice["name"], "forum": "vbulletin", "fold": True},
    )
    wait_for(
        page,
        "text => navigator.clipboard.readText().then(copied => copied === text)",
        arg=folded["bbcode"],
    )
    assert "[spoiler" in folded["bbcode"]
    shot(page, "11-folded-post")
    with page.expect_download() as download:
        page.click("#download-json")
    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert saved == expected["document"]


def test_a_bad_scenario_shows_its_error_beside_the_field(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "hex/encirclement.yaml")
    text = page.input_value("#text").replace("strength: 100", "strength: -5", 1)
    page.fill("#text", text)
    page.wait_for_selector("#scenario-error:not([hidden])")
    message = page.inner_text("#scenario-error")
    assert message.startswith("encirclement.yaml: units[0].strength: ")
    beside = page.locator('.fields input[data-path="units[0].strength"] + .field-error')
    assert beside.inner_text() in message
    shot(page, "08-bad-scenario")
    page.fill("#text", "fracas: 1\nruleset: hex\nunits: [\n")
    page.wait_for_selector("#scenario-error:has-text('not valid YAML')")
    assert "unicode string" not in page.inner_text("#scenario-error")
    # The answer beside it is the old one, and says so.
    assert page.is_visible("#stale-note")
    shot(page, "09-not-yaml")


def test_forecast_draws_the_attack_on_the_board(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "hex/encirclement.yaml")
    page.click(".tabs button[data-op=forecast]")
    page.select_option("#attacker", "lead")
    page.select_option("#target", "holdout")
    page.click("#run-forecast")
    wait_for(page, "document.querySelector('#command').textContent.includes('--attacker lead')")
    assert page.is_visible("#picture img")
    assert "lead" in page.inner_text("#report h3")
    page.click(".tabs button[data-op=advise]")
    page.select_option("#side", "blue")
    page.click("#run-advise")
    wait_for(page, "document.querySelector('#command').textContent.includes('--side')")
    # Advice has no picture of its own; the tabs a ruleset lacks are not shown at all.
    assert not page.is_visible("#picture img")
    shot(page, "10-advise")
    pick(page, "d100/lair_raid.yaml")
    assert not page.is_visible(".tabs button[data-op=forecast]")


def test_a_quick_second_pick_wins_over_the_first_load(page: Page, server: str) -> None:
    # The page loads its first example on start; choosing another at once must leave the
    # page showing the second one (tabs included), whatever order the answers arrive in.
    page.goto(server + "/")
    pick(page, "hex/encirclement.yaml")
    page.wait_for_selector(".tabs button[data-op=forecast]:not([hidden])")
    assert page.inner_text("#ruleset") == "hex"


def test_odds_offer_the_exact_tolerance_of_the_command_line(
    page: Page, server: str, browser: Browser
) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    lance = next(e for e in examples(server) if e["id"] == "rankflank/lance_charge.yaml")
    pick(page, lance["id"])
    page.click(".tabs button[data-op=odds]")
    field = page.locator("#exact-tolerance")
    # Empty, the field shows the command line's default and sends nothing.
    assert field.is_visible()
    assert field.get_attribute("placeholder") == "1e-10"
    assert "Skip chances below" in page.inner_text("#tolerance-box")
    page.select_option("#method", "exact")
    field.fill("0.0001")
    page.click("#run-odds")
    wait_for(page, "document.querySelector('#command').textContent.includes('--exact-tolerance')")
    expected = get_json(
        server + "/api/odds",
        {**{k: lance[k] for k in ("scenario", "name")}, "method": "exact", "exact_tolerance": 1e-4},
    )
    assert page.inner_text("#command") == expected["command"]
    assert expected["command"].endswith("--method exact --exact-tolerance 0.0001")
    # The report says how much the tolerance left out, as the API's answer does.
    left_out = expected["document"]["result"]["error_bar"]
    assert left_out > 0
    assert "exact to within" in page.inner_text("#report")
    # The method and the headline as the API's answer has them; the rest folded below.
    for title in ("Method", "Headline"):
        assert page.inner_text(f"#report section:has(h3:text-is('{title}'))") == page.evaluate(
            "([html, title]) => { const box = document.createElement('div');"
            " box.innerHTML = html; document.body.append(box);"
            " const section = [...box.querySelectorAll('section')]"
            ".find((s) => s.querySelector('h3').textContent === title);"
            " const text = section.innerText; box.remove(); return text; }",
            [expected["html"], title],
        )
    shot(page, "12-odds-exact-tolerance")

    # A permalink keeps the tolerance.
    wait_for(page, "location.hash.startsWith('#s=')")
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        other = fresh.new_page()
        other.set_default_timeout(TIMEOUT_MS)
        other.goto(page.url)
        wait_for(
            other, "document.querySelector('#command').textContent.includes('--exact-tolerance')"
        )
        assert other.input_value("#exact-tolerance") == "0.0001"
        assert other.inner_text("#command") == expected["command"]
    finally:
        fresh.close()

    # What the command line refuses, the page refuses beside the options, in one line.
    field.fill("1.5")
    page.click("#run-odds")
    page.wait_for_selector("#option-error:not([hidden])")
    # The request's field is named, as for any other option the request gets wrong.
    assert page.inner_text("#option-error") == (
        "request: exact_tolerance: the exact tolerance must be at least 0 and below 1, not 1.5"
    )
    assert page.is_hidden("#scenario-error")
    shot(page, "13-odds-tolerance-refused")

    # Sampling leaves nothing out: the field goes, and the command has no tolerance.
    page.select_option("#method", "mc")
    assert field.is_hidden()
    page.fill("#runs", "500")
    page.click("#run-odds")
    wait_for(page, "document.querySelector('#command').textContent.includes('--runs 500')")
    assert "--exact-tolerance" not in page.inner_text("#command")


# ── a player's walk, at a desk and on a phone ──────────────────────────────────────────

SIZES = {"desk": (1280, 800), "phone": (390, 844)}


@pytest.fixture(params=sorted(SIZES))
def sized(request: pytest.FixtureRequest, page: Page) -> tuple[str, Page]:
    width, height = SIZES[request.param]
    page.set_viewport_size({"width": width, "height": height})
    return request.param, page


def no_sideways_scroll(page: Page) -> None:
    """The page itself is never wider than the window (wide tables scroll in a frame)."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def edit(page: Page, path: str, value: str) -> None:
    field = page.locator(f'.fields [data-path="{path}"]')
    if not field.is_visible():  # a field at its default sits in the folded "more"
        field.locator("xpath=ancestor::details[1]/summary").click()
    field.fill(value)
    field.dispatch_event("change")


def test_a_player_picks_changes_runs_and_compares(
    sized: tuple[str, Page], server: str, browser: Browser
) -> None:
    size, page = sized
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "rankflank/flank_charge.yaml")
    no_sideways_scroll(page)
    # The answer is one tap away: on a phone the jump link brings it into view.
    if size == "phone":
        assert page.is_visible("#jump")
        page.click("#jump")
        wait_for(page, "document.querySelector('#answer-pane').getBoundingClientRect().top < 50")
    shot(page, f"20-{size}-picked")
    # The form speaks the player's words, with the key path beneath.
    knights = page.locator('.fields [data-path="units[2].models"]').locator("xpath=..")
    assert "Rank-and-file models" in knights.inner_text()
    assert "units[Knights].models" in knights.inner_text()  # the key path, by name
    # A change of a field resolves again at once, and the answer says what it is for.
    edit(page, "units[2].models", "8")
    wait_for_answer(page, "--set units[2].models=8")
    assert "Knights: Rank-and-file models = 8" in page.inner_text("#answer-for")
    assert page.is_hidden("#stale-note")

    # Odds: the headline, then one chart with its axes named; the rest folded.
    page.click(".tabs button[data-op=odds]")
    page.select_option("#method", "mc")
    page.fill("#runs", "2000")
    page.click("#run-odds")
    page.wait_for_selector("#headline-chart svg.chart")
    chart = page.locator("#headline-chart svg.chart")
    # The axis is the metric as players read it (the ruleset's label).
    titles = chart.locator(".axis-title").all_text_contents()
    assert titles == ["Winner of the combat", "chance (exactly)"]
    assert page.locator("#all-charts").get_attribute("open") is None
    assert page.locator("#all-tables").get_attribute("open") is None
    # "At least": P(casualties ≥ 0) is 1, the first bar reaches the top of the axis.
    page.select_option("#headline-chart-metric", "casualties.Spearmen")
    page.click("#headline-chart .views button[data-view=at_least]")
    wait_for(
        page,
        "document.querySelector('#headline-chart .chart-title').textContent.includes('at least')",
    )
    first = page.locator("#headline-chart rect.bar").first
    tip = first.locator("title").text_content() or ""
    assert "at least" in tip
    assert tip.endswith("100.0%")
    no_sideways_scroll(page)
    shot(page, f"21-{size}-odds-at-least")

    # An edit makes the odds old: marked, never shown as the new scenario's.
    edit(page, "units[0].models", "30")
    page.wait_for_selector("#stale-note:not([hidden])")
    assert "Old answer" in page.inner_text("#stale-note")
    assert "stale" in (page.get_attribute("#result", "class") or "")
    shot(page, f"22-{size}-odds-stale")
    page.click("#rerun")
    wait_for_answer(page, "--set units[0].models=30")
    assert page.is_hidden("#stale-note")

    # Compare: B is A with one more change; both answers and the difference, one chart.
    page.click(".tabs button[data-op=compare]")
    page.select_option("#changes .change-path", "units[1].models")
    page.fill("#changes .change-value", "25")
    page.locator("#changes .change-value").dispatch_event("change")
    page.click("#run-compare")
    page.wait_for_selector("#compare-chart svg.chart")
    table = page.locator("#report table.compare-table")
    assert table.locator("thead th").all_inner_texts() == ["question", "A", "B", "B − A"]
    rows = table.locator("tbody tr")
    assert rows.count() > 3
    both = [
        cells
        for cells in (row.locator("td").all_inner_texts() for row in rows.all())
        if "%" in cells[1] and "%" in cells[2]
    ]
    cells = both[0]
    # The difference column is B − A of the two columns beside it, in percentage points.
    a, b = (float(cell.rstrip("%")) for cell in cells[1:3])
    shown = float(
        cells[3].removesuffix(" *").removesuffix(" pts").replace("−", "-").replace("±", "")
    )
    assert abs(shown - (b - a)) <= 0.1  # each column is rounded to 0.1 on its own
    assert page.locator("#compare-chart rect.bar.s0").count() > 0
    assert page.locator("#compare-chart rect.bar.s1").count() > 0
    variants = page.inner_text("#report .variants")
    assert "units[1].models=25" in variants
    assert "units[0].models=30" in variants
    no_sideways_scroll(page)
    shot(page, f"23-{size}-compare")

    # The permalink holds both variants: a fresh browser shows the same comparison.
    wait_for(page, "location.hash.startsWith('#s=')")
    table_text = table.inner_text()
    fresh = browser.new_context(viewport=page.viewport_size)
    try:
        other = fresh.new_page()
        other.set_default_timeout(TIMEOUT_MS)
        other.goto(page.url)
        other.wait_for_selector("#compare-chart svg.chart")
        assert other.inner_text("#report table.compare-table") == table_text
        no_sideways_scroll(other)
        shot(other, f"24-{size}-compare-reopened")
    finally:
        fresh.close()


def test_forecast_opens_on_a_legal_attack(sized: tuple[str, Page], server: str) -> None:
    size, page = sized
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "hex/river_crossing.yaml")
    page.click(".tabs button[data-op=forecast]")
    # Only the targets the grenadiers can reach are offered (not the far howitzers).
    assert page.input_value("#attacker") == "grenadiers"
    targets = page.locator("#target option").all_inner_texts()
    assert "howitzers" not in targets
    page.click("#run-forecast")
    wait_for(page, "document.querySelector('#command').textContent.includes('--attacker')")
    assert page.inner_text("#command").endswith("--attacker grenadiers --target assault")
    assert page.is_hidden("#scenario-error")
    assert page.is_hidden("#option-error")
    page.select_option("#attacker", "howitzers")
    assert page.locator("#target option").all_inner_texts() == ["grenadiers", "jaegers"]
    # Another attacker makes the forecast old until it is worked out again.
    assert page.is_visible("#stale-note")
    no_sideways_scroll(page)
    shot(page, f"25-{size}-forecast")


def test_wide_tables_scroll_in_their_frame_with_a_hint(page: Page, server: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    for example in ("hex/river_crossing.yaml", "d100/lair_raid.yaml"):
        pick(page, example)
        wide = page.evaluate(
            "[...document.querySelectorAll('#report .table-frame')]"
            ".filter(f => f.scrollWidth > f.clientWidth)"
            ".map(f => f.previousElementSibling.hidden)"
        )
        assert wide, f"{example}: no table wider than a phone"
        assert not any(wide)  # each wide one has its visible hint
        assert page.is_visible(".scroll-hint")
        no_sideways_scroll(page)
        shot(page, f"26-phone-tables-{example.split('/')[0]}")


def test_user_text_stays_text(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "rankflank/flank_charge.yaml")
    text = page.input_value("#text").replace("Knights", "<img src=x id=pwned>")
    page.fill("#text", text)
    wait_for(page, "document.querySelector('#form').textContent.includes('<img src=x id=pwned>')")
    page.click(".tabs button[data-op=compare]")
    page.click("#run-compare")
    page.wait_for_selector("#compare-chart svg.chart")
    assert page.locator("#pwned").count() == 0
    assert "<img src=x id=pwned>" in page.inner_text("#report")


def test_the_form_changes_weapons_rules_arcs_and_actions(page: Page, server: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "rankflank/flank_charge.yaml")
    # The Knights' weapon is at its default (hand weapon), folded with the other defaults.
    weapon = page.locator('.fields [data-path="units[2].weapon"]')
    assert not weapon.is_visible()
    weapon.locator("xpath=ancestor::details[1]/summary").click()
    assert weapon.input_value() == "hand_weapon"
    weapon.select_option("lance")
    wait_for_answer(page, '--set units[2].weapon="lance"')
    rules = page.locator('.fields [data-path="units[2].rules"]')
    assert rules.input_value() == "swiftstride"
    rules.fill("swiftstride, hatred")
    rules.dispatch_event("change")
    wait_for_answer(page, 'units[2].rules=["swiftstride", "hatred"]')
    arc = page.locator('.fields [data-path="engagements[1].arc"]')
    assert arc.input_value() == "left"
    arc.select_option("rear")
    wait_for_answer(page, '--set engagements[1].arc="rear"')
    charged = page.locator('.fields [data-path="units[2].charged"]')
    assert charged.is_checked()
    charged.uncheck()
    wait_for_answer(page, "--set units[2].charged=false")
    assert 'Knights: The weapon its models fight with = "lance"' in page.inner_text("#answer-for")
    shot(page, "27-desk-form-kinds")
    pick(page, "d100/lair_raid.yaml")
    action = page.locator('.fields [data-path="sides[0].action"]')
    assert action.input_value() == "raid"
    action.select_option("attack")
    wait_for_answer(page, '--set sides[0].action="attack"')
    equipment = page.locator('.fields [data-path="sides[0].units[0].equipment"]')
    assert equipment.input_value() == "melee_weapon, shield, horses, armour_1"
    pax = page.locator('.fields [data-path="sides[0].units[0].pax"]').locator("xpath=..")
    assert "Current PAX" in pax.inner_text()
    shot(page, "28-desk-form-d100")


def test_editing_the_text_marks_the_odds_old(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "rankflank/flank_charge.yaml")
    page.click(".tabs button[data-op=odds]")
    page.select_option("#method", "mc")
    page.fill("#runs", "300")
    page.click("#run-odds")
    page.wait_for_selector("#headline-chart svg.chart")
    assert page.is_hidden("#stale-note")
    before = page.inner_text("#report")
    page.fill("#text", page.input_value("#text").replace("models: 40", "models: 39", 1))
    page.wait_for_selector("#stale-note:not([hidden])")
    # The old odds stay, marked, until asked again; then they are the new text's.
    assert page.inner_text("#report") == before
    page.click("#rerun")
    wait_for(page, "document.querySelector('#stale-note').hidden")
    assert page.inner_text("#report") != before
    assert "as written" in page.inner_text("#answer-for")


def cli_json(*arguments: str) -> Any:
    """The command line's JSON answer (the page must show the same numbers)."""
    done = subprocess.run(
        [sys.executable, "-m", "fracas", *arguments, "--format", "json"],
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout)


def first_table(page: Page) -> list[list[str]]:
    """The cells of the report's first table, row by row (the header left out)."""
    rows: list[list[str]] = page.evaluate(
        "() => [...document.querySelector('#report table').querySelectorAll('tbody tr')]"
        ".map(row => [...row.cells].map(cell => cell.textContent.trim()))"
    )
    return rows


def test_threats_and_the_enemy_reply_show_the_command_lines_numbers(
    page: Page, server: str
) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "hex/river_crossing.yaml")
    example = "examples/hex/river_crossing.yaml"

    page.click(".tabs button[data-op=threats]")
    page.select_option("#threats-side", "blue")
    page.click("#run-threats")
    wait_for(page, "document.querySelector('#command').textContent.includes('fracas threats')")
    assert page.inner_text("#command").endswith("--side blue")
    expected = cli_json("threats", example, "--side", "blue")["result"]["threats"]
    shown = first_table(page)
    # Each row: rank, our unit, attacker, side, distance, "lost of strength", their loss.
    assert [row[:3] for row in shown] == [
        [str(t["rank"]), t["target"], t["attacker"]] for t in expected
    ]
    assert [row[5:7] for row in shown] == [
        [f"{t['target_lost']} of {t['target_strength']}", str(t["attacker_lost"])] for t in expected
    ]
    # The picture marks the threatened units.
    assert page.is_visible("#picture img")
    shot(page, "40-threats")

    page.click(".tabs button[data-op=reply]")
    page.select_option("#reply-side", "blue")
    page.click("#run-reply")
    wait_for(page, "document.querySelector('#command').textContent.includes('--reply')")
    expected = cli_json("advise", example, "--side", "blue", "--reply")["result"]["replies"]
    shown = first_table(page)
    # Each row: rank, our attack, its value, their reply, its value, the net.
    assert [[row[0], row[2], row[4], row[5]] for row in shown] == [
        [str(r["rank"]), str(r["value"]), str(r["reply_value"]), str(r["net"])] for r in expected
    ]
    assert [row[1].split(" (")[0] for row in shown] == [
        f"{r['attacks'][0]['attacker']} → {r['attacks'][0]['target']}" for r in expected
    ]
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"41-reply-{width}")

    # The planned turn and its reply: the same as the command line's --plan --reply.
    page.check("#reply-plan")
    page.click("#run-reply")
    wait_for(page, "document.querySelector('#command').textContent.includes('--plan')")
    planned = cli_json("advise", example, "--side", "blue", "--plan", "--reply")["result"]
    (row,) = first_table(page)
    (best,) = planned["replies"]
    assert [row[2], row[4], row[5]] == [
        str(best["value"]),
        str(best["reply_value"]),
        str(best["net"]),
    ]
    assert "to the planned turn" in page.inner_text("#answer-for")
    # A ruleset without these actions does not offer them.
    pick(page, "d100/lair_raid.yaml")
    assert not page.is_visible(".tabs button[data-op=threats]")
    assert not page.is_visible(".tabs button[data-op=reply]")


def test_army_lists_build_a_battle_on_the_page(sized: tuple[str, Page], server: str) -> None:
    size, page = sized
    page.goto(server + "/")
    page.click("#armies-box summary")
    armies = ROOT / "examples" / "armies"
    page.set_input_files("#versus-file", str(armies / "wood_elves.json"))
    wait_for(page, "() => !document.querySelector('#army-error').hidden")  # now your list
    page.set_input_files("#army-file", str(armies / "empire.ros"))
    wait_for(page, "() => !document.querySelector('#fight-row').hidden")
    units = page.eval_on_selector_all("#army-unit option", "options => options.map(o => o.value)")
    assert units == ["Halberdiers", "Empire Knights"]
    page.select_option("#army-unit", "Empire Knights")
    page.select_option("#charger", "first")
    page.select_option("#arc", "left")
    page.click("#build-battle")
    wait_for_answer(page, "ruleset rankflank")
    text = page.input_value("#text")
    assert 'unit: "Empire Knights"' in text
    assert 'arc: "left"' in text
    assert page.input_value("#name") == "battle.yaml"
    notes = page.inner_text("#army-notes")
    assert "not modelled: Dryads: Forest Stalkers: not a rule fracas plays" in notes
    # The answer is for what the page shows (the seed it chose is filled in, not a change).
    assert page.is_hidden("#stale-note")
    no_sideways_scroll(page)
    shot(page, f"army-lists-{size}")
