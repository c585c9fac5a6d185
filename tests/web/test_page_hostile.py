"""The page against what a scenario or a link may hold: bidi controls in names, one very
long word, a permalink damaged or written by hand, a new scenario pasted over the last.

The same real Chromium and ``fracas serve`` as ``test_browser.py`` (its fixtures, helpers
and skip mark); nothing here waits a fixed time: every wait is for the page to show a state.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import pytest
from playwright.sync_api import Page

from fracas.io.html import REPORT_CSS

from . import test_browser as browser_tests
from .test_browser import (
    ROOT,
    SIZES,
    examples,
    no_sideways_scroll,
    pick,
    shot,
    wait_for,
    wait_for_answer,
)

pytestmark = browser_tests.pytestmark
server = browser_tests.server
browser = browser_tests.browser
page = browser_tests.page
sized = browser_tests.sized

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: everything after it is drawn right to left
RAID = (ROOT / "examples" / "d100" / "lair_raid.yaml").read_text(encoding="utf-8")
CROSSING = (ROOT / "examples" / "hex" / "river_crossing.yaml").read_text(encoding="utf-8")
LONG_NAME = "Wolf" + "R" * 120

# Explicit bidi formatting characters (embeddings, overrides, isolates).
RAW_BIDI = "/[\\u202a-\\u202e\\u2066-\\u2069]/"


def hostile_raid() -> str:
    """The lair raid with a bidi override in its title, in both sides' names and a unit's."""
    return (
        RAID.replace("Raid on the Thornwall lair", f"Raid {RLO}on the lair")
        .replace("name: Red Fang", f"name: Red {RLO}Fang")
        .replace("name: Thornwall", f"name: Thorn{RLO}wall")
        .replace("Wolf Riders", f"Wolf {RLO}Riders")
    )


def paste(page: Page, text: str) -> None:
    page.fill("#text", text)


def reads_forward(page: Page, selector: str, word: str) -> list[bool]:
    """For each place the page's own ``word`` stands under ``selector``: whether it is drawn
    left to right (its first letter left of its last). A name's override turns it around."""
    found: list[bool] = page.evaluate(
        """([selector, word]) => {
          const found = [];
          for (const root of document.querySelectorAll(selector)) {
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const at = node.data.indexOf(word);
              if (at < 0) continue;
              const box = (index) => {
                const range = document.createRange();
                range.setStart(node, index);
                range.setEnd(node, index + 1);
                return range.getBoundingClientRect();
              };
              found.push(box(at).left < box(at + word.length - 1).left);
            }
          }
          return found;
        }""",
        [selector, word],
    )
    assert found, f"{word!r} is not under {selector}"
    return found


def raw_bidi_on_page(page: Page) -> list[str]:
    """Every text the page shows (text, options, SVG labels, tooltips) that holds a raw bidi
    control. The text box is the user's own and is left out."""
    found: list[str] = page.evaluate(
        f"""() => {{
          const raw = {RAW_BIDI};
          const found = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {{
            const own = node.parentElement.closest("textarea");
            if (raw.test(node.data) && !own) found.push(node.data);
          }}
          for (const element of document.querySelectorAll("[title]")) {{
            if (raw.test(element.title)) found.push(element.title);
          }}
          return found;
        }}"""
    )
    return found


def options(page: Page, selector: str) -> list[tuple[str, str]]:
    shown: list[tuple[str, str]] = [
        (value, text)
        for value, text in page.eval_on_selector_all(
            f"{selector} option", "options => options.map(o => [o.value, o.text])"
        )
    ]
    return shown


def small_odds(page: Page) -> None:
    """Monte Carlo with few runs: comparisons here are about the page, not the numbers."""
    page.click(".tabs button[data-op=odds]")
    page.select_option("#method", "mc")
    page.fill("#runs", "200")


def compare(page: Page) -> None:
    page.click(".tabs button[data-op=compare]")
    page.click("#run-compare")
    wait_for(page, "document.querySelector('#status').textContent.startsWith('Comparison')")


# ── 1. bidi controls in names ───────────────────────────────────────────────────────────


def test_names_with_bidi_overrides_cannot_turn_the_pages_words_around(
    page: Page, server: str
) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    page.fill("#name", f"my{RLO}raid.yaml")
    paste(page, hostile_raid())
    wait_for(page, "document.querySelector('#answer-for').textContent.includes('raid.yaml')")
    shot(page, "hostile-01-bidi-resolve")
    # Before: "Raid s 80.0 ni derewsna — rial eht no", and so on.
    assert all(reads_forward(page, "#status", "answered"))
    assert all(reads_forward(page, "#answer-for", "written"))
    # A group's key path stands after its name, in each heading.
    assert all(reads_forward(page, "#form .group h3", "sides"))
    assert all(reads_forward(page, "#form .field .path", "action"))
    # The names are shown with their override spelled out, as the report spells it.
    assert "Raid \\u202eon the lair" in page.inner_text("#status")
    assert "Raid \\u202eon the lair" in page.inner_text("#report h2")
    # A list cannot isolate its options: the override is spelled out there, and the value
    # sent is still the name itself.
    assert ("Thorn\u202ewall", "Thorn\\u202ewall") in options(page, "#side")

    small_odds(page)
    compare(page)
    shot(page, "hostile-02-bidi-compare")
    assert page.is_hidden("#option-error")
    # B's change is to a field of the first side, whose name holds the override.
    assert all(reads_forward(page, "#report .variants dd", "loyalty"))
    assert all(reads_forward(page, "#answer-for", "method"))
    assert raw_bidi_on_page(page) == []


def test_attacker_and_target_lists_spell_a_bidi_override_out(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    paste(page, CROSSING.replace("grenadiers", f"gren{RLO}adiers"))
    page.wait_for_selector(".tabs button[data-op=forecast]:not([hidden])")
    page.click(".tabs button[data-op=forecast]")
    wait_for(page, "document.querySelector('#attacker').value.startsWith('gren')")
    attackers = options(page, "#attacker")
    assert (f"gren{RLO}adiers", "gren\\u202eadiers") in attackers
    assert all(RLO not in text for _, text in attackers)
    page.click("#run-forecast")
    wait_for(page, "document.querySelector('#command').textContent.includes('--attacker')")
    shot(page, "hostile-03-bidi-forecast")
    # The request named the unit itself: the forecast is of the right attack.
    command = page.inner_text("#command")
    assert "--attacker " in command
    assert "gren\\u202eadiers" in command
    assert command.endswith("--target assault")
    assert all(reads_forward(page, "#answer-for", "attacks"))
    assert all(reads_forward(page, "#command", "target"))
    assert raw_bidi_on_page(page) == []


# ── 2. one long word ────────────────────────────────────────────────────────────────────


def test_a_very_long_name_never_makes_the_page_scroll_sideways(
    sized: tuple[str, Page], server: str
) -> None:
    size, page = sized
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    paste(page, RAID.replace("Wolf Riders", LONG_NAME))
    wait_for(
        page, "name => document.querySelector('#report').textContent.includes(name)", LONG_NAME
    )
    shot(page, f"hostile-10-{size}-long-name")
    no_sideways_scroll(page)
    small_odds(page)
    page.click("#run-odds")
    page.wait_for_selector("#headline-chart svg.chart")
    no_sideways_scroll(page)
    compare(page)
    shot(page, f"hostile-11-{size}-long-name-compare")
    no_sideways_scroll(page)


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_reports_own_stylesheet_wraps_a_long_name(page: Page, server: str, size: str) -> None:
    # The report as a notebook or a campaign page shows it: its HTML with REPORT_CSS.
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    answer = browser_tests.get_json(
        server + "/api/resolve",
        {"scenario": RAID.replace("Wolf Riders", LONG_NAME), "name": "lair_raid.yaml"},
    )
    page.set_content(f"<style>{REPORT_CSS}</style>{answer['html']}")
    # Its tables keep their columns (no frame to scroll in there); its text flows.
    wide = page.evaluate(
        """() => [...document.querySelectorAll('.fracas-report :is(h2, h3, p, summary)')]
          .filter(block => block.getBoundingClientRect().right > innerWidth
                           || block.scrollWidth > block.clientWidth)
          .map(block => block.textContent.slice(0, 40))"""
    )
    assert page.evaluate(
        "name => document.querySelector('.fracas-report').textContent.includes(name)", LONG_NAME
    )
    assert wide == []


# ── 3. damaged and hand-made permalinks ─────────────────────────────────────────────────


def link(state: Any) -> str:
    """A permalink fragment as the page writes one: deflate-raw JSON in base64url."""
    packer = zlib.compressobj(wbits=-15)
    packed = packer.compress(json.dumps(state).encode()) + packer.flush()
    return "#s=" + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def saved_state(example: dict[str, Any], **changed: Any) -> dict[str, Any]:
    """What the page keeps in a link to ``example``'s answer, with ``changed`` instead."""
    state = {
        "v": 1,
        "op": "resolve",
        "name": example["name"],
        "format": "",
        "scenario": example["scenario"],
        "overrides": {},
        "options": {"seed": 3},
        "changes": [],
        "view": "exactly",
        "chart": "",
    }
    return {**state, **changed}


def open_link(page: Page, server: str, fragment: str) -> None:
    page.goto("about:blank")  # a new document: only the hash would change otherwise
    page.goto(server + "/" + fragment)


@pytest.mark.parametrize(
    "damage",
    ["null", "a list", "changes not pairs", "overrides a list", "no scenario", "not deflate"],
)
def test_a_damaged_link_says_so_and_the_page_starts_afresh(
    page: Page, server: str, damage: str
) -> None:
    first = examples(server)[0]
    fragment = {
        "null": link(None),
        "a list": link([1, 2]),
        "changes not pairs": link(saved_state(first, op="compare", changes=[5, None, "x"])),
        "overrides a list": link(saved_state(first, overrides=["units[0].pax", 3])),
        "no scenario": link(saved_state(first, scenario=None)),
        "not deflate": "#s=AAAAAAAA",
    }[damage]
    open_link(page, server, fragment)
    page.wait_for_selector("#report .fracas-report")
    shot(page, f"hostile-20-link-{damage.replace(' ', '-')}")
    assert page.inner_text("#link-error") == "This link is damaged; the page starts afresh."
    assert page.input_value("#example") == first["id"]
    assert page.is_hidden("#scenario-error")
    assert "answered in" in page.inner_text("#status")
    # The page works: another example, another answer; the note has done its work.
    pick(page, "hex/encirclement.yaml")
    assert page.is_hidden("#link-error")


def test_a_link_with_options_the_page_does_not_know_falls_back_to_the_defaults(
    page: Page, server: str
) -> None:
    raid = next(e for e in examples(server) if e["id"] == "d100/lair_raid.yaml")
    odd = {
        "forum": "evil",
        "method": "bogus",
        "runs": "many",
        "seed": -3,
        "side": "nobody",
        "fold": "yes",
        "exact_tolerance": "tiny",
    }
    open_link(page, server, link(saved_state(raid, options=odd)))
    page.wait_for_selector("#report .fracas-report")
    wait_for(page, "document.querySelector('#status').textContent.includes('answered in')")
    shot(page, "hostile-21-link-unknown-options")
    assert page.is_hidden("#link-error")
    assert page.is_hidden("#option-error")
    assert page.is_hidden("#scenario-error")
    assert page.input_value("#forum") == "phpbb"
    assert page.input_value("#method") == "auto"
    assert page.input_value("#runs") == ""
    assert page.input_value("#exact-tolerance") == ""
    assert not page.is_checked("#fold")
    assert page.inner_text("#command") == "fracas resolve lair_raid.yaml --seed 0"
    # Every later request still goes through: the dialect is one the server knows.
    page.select_option("#forum", "vbulletin")
    wait_for(page, "document.querySelector('#copy-bbcode').title.includes('--forum vbulletin')")
    assert page.is_hidden("#option-error")


# ── 4. a new scenario pasted after a comparison ─────────────────────────────────────────


def test_pasting_another_scenario_gives_b_a_change_of_that_scenario(
    page: Page, server: str
) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "d100/lair_raid.yaml")
    small_odds(page)
    compare(page)
    assert page.input_value("#changes .change-path").startswith("sides[")

    flank = next(e for e in examples(server) if e["id"] == "rankflank/flank_charge.yaml")
    paste(page, flank["scenario"])
    wait_for(page, "document.querySelector('#ruleset').textContent === 'rankflank'")
    # B starts again with a change of the new scenario, as on entering the tab.
    path = page.input_value("#changes .change-path")
    assert path.startswith("units[")
    page.click("#run-compare")
    wait_for(
        page,
        "!document.querySelector('#option-error').hidden"
        " || (!document.querySelector('#result').classList.contains('stale')"
        "     && document.querySelector('#status').textContent.startsWith('Comparison'))",
    )
    shot(page, "hostile-30-compare-after-paste")
    # Before: "Variant B: lair_raid.yaml: sides: no such key".
    assert page.is_hidden("#option-error"), page.inner_text("#option-error")
    variants = page.inner_text("#report .variants")
    assert path in variants
    assert "sides[" not in variants

    # The same scenario with a number changed is an edit: B keeps its change.
    value = page.input_value("#changes .change-value")
    paste(page, flank["scenario"].replace("models: 40", "models: 39", 1))
    wait_for(
        page, "document.querySelector('.fields [data-path=\"units[0].models\"]').value === '39'"
    )
    assert page.input_value("#changes .change-path") == path
    assert page.input_value("#changes .change-value") == value


def test_pasting_another_scenario_drops_the_form_edits_of_the_last_one(
    page: Page, server: str
) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#report .fracas-report")
    pick(page, "d100/lair_raid.yaml")
    page.locator('.fields [data-path="sides[0].action"]').select_option("attack")
    wait_for(page, "document.querySelector('#footer').textContent.includes('sides[0].action')")
    flank = next(e for e in examples(server) if e["id"] == "rankflank/flank_charge.yaml")
    paste(page, flank["scenario"])
    # The edit was the raid's: the new text is not refused for it, and the form is new.
    wait_for(
        page,
        "!document.querySelector('#scenario-error').hidden"
        " || document.querySelector('#ruleset').textContent === 'rankflank'",
    )
    assert page.is_hidden("#scenario-error"), page.inner_text("#scenario-error")
    wait_for_answer(page, "ruleset rankflank")
    assert "--set" not in page.inner_text("#command")
    assert page.locator(".fields .edited").count() == 0
