"""The JSON API through the ASGI test client: answers match the library, bad input is a 4xx."""

from __future__ import annotations

import base64
import inspect
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import yaml
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import fracas
from fracas.analysis import odds
from fracas.cli import app
from fracas.cli.odds import odds_command
from fracas.core.budgets import EXACT_TOLERANCE
from fracas.io.html import render_html
from fracas.io.render import render_bbcode, render_markdown
from fracas.web import Limits, create_app

from .conftest import body

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*/*.yaml"))
ENCIRCLEMENT = ROOT / "examples" / "hex" / "encirclement.yaml"
LAIR_RAID = ROOT / "examples" / "d100" / "lair_raid.yaml"
FLANK = ROOT / "examples" / "rankflank" / "flank_charge.yaml"
RIVER = ROOT / "examples" / "hex" / "river_crossing.yaml"


def error_of(response: Any) -> dict[str, Any]:
    detail: dict[str, Any] = response.json()["error"]
    assert detail["message"]
    return detail


# ── what the page lists ────────────────────────────────────────────────────────────────


def test_rulesets_say_what_each_can_do(client: TestClient) -> None:
    answer = client.get("/api/rulesets").json()
    assert [r["name"] for r in answer] == [cls.name for cls in fracas.available_rulesets()]
    for entry in answer:
        cls = fracas.find_ruleset(entry["name"])
        caps = entry["capabilities"]
        assert caps["seed"] is (not cls.deterministic)
        # A capability is there exactly when the ruleset overrides the hook.
        assert caps["forecast"] is (type(cls).forecast is not fracas.Ruleset.forecast)
        assert caps["picture"] is (type(cls).picture is not fracas.Ruleset.picture)
        assert caps["odds"] is (type(cls).metrics is not fracas.Ruleset.metrics)
        assert caps["plan"] is (type(cls).plan is not fracas.Ruleset.plan)
        assert [p["name"] for p in entry["parameters"]] == [p[0] for p in cls.parameters()]


def test_examples_are_the_bundled_files(client: TestClient) -> None:
    answer = client.get("/api/examples").json()
    assert {example["id"] for example in answer} == {
        f"{path.parent.name}/{path.name}" for path in EXAMPLES
    }
    for example in answer:
        text = (ROOT / "examples" / example["id"]).read_text(encoding="utf-8")
        assert example["scenario"] == text


# ── answers are the library's answers ──────────────────────────────────────────────────


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_resolve_of_every_example_is_the_library_report(client: TestClient, path: Path) -> None:
    answer = client.post("/api/resolve", json=body(path, seed=5)).json()
    scenario = fracas.load_scenario(path)
    report = scenario.resolve(seed=5)
    # The file name in the footer is the base name, as the page sends it.
    assert answer["html"] == render_html(report)
    assert answer["bbcode"] == render_bbcode(report)
    assert answer["markdown"] == render_markdown(report)
    assert answer["footer"] == report.footer()
    assert answer["document"]["result"] == report.data


def test_markdown_and_bbcode_are_the_command_lines_bytes_control_characters_spelled_out(
    client: TestClient, tmp_path: Path
) -> None:
    # A title with a terminal escape and a right-to-left override: the command line spells
    # both out; the page's Markdown and BBCode kept them raw.
    text = LAIR_RAID.read_text(encoding="utf-8")
    title = "Raid \x1b[31mred\x1b[0m \u202eleft"
    line = f"title: {json.dumps(title)}"
    scenario = re.sub(r"^title: .*$", lambda _: line, text, count=1, flags=re.M)
    answer = client.post("/api/resolve", json={"scenario": scenario, "seed": 7}).json()
    path = tmp_path / "raid.yaml"
    path.write_text(scenario, encoding="utf-8")
    for fmt in ("markdown", "bbcode"):
        printed = CliRunner().invoke(app, ["resolve", str(path), "--seed", "7", "-f", fmt]).stdout
        assert "\x1b" not in answer[fmt]
        assert "\u202e" not in answer[fmt]
        assert "\\x1b" in answer[fmt]
        assert "\\u202e" in answer[fmt]
        # The same report as the command line's, but for the footer's file name.
        assert answer[fmt].split("\n")[:3] == printed.split("\n")[:3]


def test_a_client_that_takes_gzip_gets_the_same_answer_compressed(client: TestClient) -> None:
    scenario = {"scenario": LAIR_RAID.read_text(encoding="utf-8"), "seed": 4}
    plain = client.post("/api/resolve", json=scenario, headers={"Accept-Encoding": "identity"})
    packed = client.post("/api/resolve", json=scenario, headers={"Accept-Encoding": "gzip"})
    refused = client.post("/api/resolve", json=scenario, headers={"Accept-Encoding": "gzip;q=0, *"})
    assert plain.status_code == packed.status_code == refused.status_code == 200
    assert "content-encoding" not in plain.headers
    assert "content-encoding" not in refused.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert {r.headers["vary"] for r in (plain, packed, refused)} == {"accept-encoding"}
    assert packed.json() == plain.json()
    # About 100 kB of JSON, four renderings of one battle: gzip takes it below a quarter.
    assert int(packed.headers["content-length"]) * 4 < len(plain.content)


def test_json_and_toml_scenarios_give_the_same_answer(client: TestClient) -> None:
    document = yaml.safe_load(ENCIRCLEMENT.read_text(encoding="utf-8"))
    expected = client.post("/api/resolve", json=body(ENCIRCLEMENT)).json()["document"]["result"]
    as_json = {"scenario": json.dumps(document), "name": "ring.json"}
    assert client.post("/api/resolve", json=as_json).json()["document"]["result"] == expected
    toml = 'fracas = 1\nruleset = "hex"\nunits = []\n[map]\nrows = [". ."]\n'
    answer = client.post("/api/validate", json={"scenario": toml, "format": "toml"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["ruleset"] == "hex"


def test_the_hash_is_the_command_lines(client: TestClient) -> None:
    answer = client.post("/api/resolve", json=body(LAIR_RAID)).json()
    digest = fracas.load_scenario(LAIR_RAID).sha256
    assert f"scenario sha256:{digest}" in answer["footer"]


def test_seed_defaults_to_the_scenarios_and_the_command_reproduces_it(client: TestClient) -> None:
    answer = client.post("/api/resolve", json=body(LAIR_RAID)).json()
    assert answer["seed"] == 0  # lair_raid.yaml says `seed: 0`
    assert answer["command"] == "fracas resolve lair_raid.yaml --seed 0"
    again = client.post("/api/resolve", json=body(LAIR_RAID, seed=7)).json()
    assert again["seed"] == 7
    assert again["command"] == "fracas resolve lair_raid.yaml --seed 7"
    assert again["html"] == client.post("/api/resolve", json=body(LAIR_RAID, seed=7)).json()["html"]


def test_overrides_are_the_command_lines_set(client: TestClient) -> None:
    answer = client.post(
        "/api/resolve", json=body(ENCIRCLEMENT, overrides={"units[3].strength": 50})
    ).json()
    expected = fracas.load_scenario(ENCIRCLEMENT, overrides=[("units[3].strength", 50)]).resolve()
    assert answer["document"]["result"] == expected.data
    assert "--set units[3].strength=50" in answer["footer"]
    assert answer["command"] == "fracas resolve encirclement.yaml --set 'units[3].strength=50'"
    plain = client.post("/api/resolve", json=body(ENCIRCLEMENT)).json()
    assert plain["document"]["result"] != answer["document"]["result"]


def test_forum_post_options_are_the_command_lines(client: TestClient) -> None:
    scenario = fracas.load_scenario(LAIR_RAID)
    report = scenario.resolve()
    answer = client.post(
        "/api/resolve", json=body(LAIR_RAID, forum="plain", ascii_only=True, fold=True)
    ).json()
    assert answer["bbcode"] == render_bbcode(report, forum="plain", ascii_only=True, fold=True)
    assert answer["markdown"] == render_markdown(report, ascii_only=True, fold=True)
    assert answer["post_options"] == ["--forum", "plain", "--ascii", "--fold"]
    assert "<details" in answer["html"]


def test_a_picture_comes_with_the_rulesets_that_draw(client: TestClient) -> None:
    drawn = client.post("/api/resolve", json=body(ENCIRCLEMENT)).json()
    assert drawn["picture"].startswith("data:image/svg+xml")
    undrawn = client.post("/api/resolve", json=body(LAIR_RAID)).json()
    assert undrawn["picture"] is None


def test_forecast_and_advise(client: TestClient) -> None:
    scenario = fracas.load_scenario(ENCIRCLEMENT)
    forecast = client.post(
        "/api/forecast", json=body(ENCIRCLEMENT, attacker="lead", target="holdout")
    ).json()
    expected = scenario.stamp(scenario.ruleset.forecast(scenario.model, "lead", "holdout"))
    assert forecast["document"]["result"] == expected.data
    assert forecast["command"] == (
        "fracas forecast encirclement.yaml --attacker lead --target holdout"
    )
    advice = client.post("/api/advise", json=body(ENCIRCLEMENT, side="blue")).json()
    assert advice["document"]["result"] == scenario.ruleset.advise(scenario.model, "blue").data


def test_odds_are_the_librarys_with_a_chart(client: TestClient) -> None:
    answer = client.post("/api/odds", json=body(FLANK, method="mc", runs=500, seed=3)).json()
    result = odds(fracas.load_scenario(FLANK), method="mc", runs=500, seed=3)
    assert answer["document"]["result"]["metrics"][0]["values"][0]["probability"] == float(
        result.metrics[0].values[0].probability
    )
    assert [row["label"] for row in answer["headline"]] == [
        row.label for row in fracas.analysis.headline(result)
    ]
    # The charts name each metric as the ruleset does for players.
    labels = {d["metric"]: d["label"] for d in answer["distributions"]}
    assert labels["winner"] == "Winner of the combat"
    assert labels["breaks.Spearmen"] == "Spearmen break"
    assert answer["chart"].startswith("<svg")
    assert answer["chart"] in answer["html"]
    # This server samples at most 5,000,000 dice rolls a request (Limits), the command line
    # 20,000,000: the command names the budget the answer was worked out with.
    assert answer["command"] == (
        "fracas odds flank_charge.yaml --method mc --seed 3 --runs 500 --sample-budget 5000000"
    )


def test_the_command_shown_for_odds_gives_the_pages_answer(
    client: TestClient, tmp_path: Path
) -> None:
    # Unasked, the page spends the command line's auto budget (500,000 step plays):
    # flank_charge needs about 262,000, so both answer exactly, and the same.
    answer = client.post("/api/odds", json=body(FLANK, runs=200, seed=1)).json()
    assert answer["method"] == "exact"
    assert answer["command"].startswith("fracas odds flank_charge.yaml --runs 200")
    (tmp_path / FLANK.name).write_text(FLANK.read_text(encoding="utf-8"), encoding="utf-8")
    words = answer["command"].split()[3:]
    out = tmp_path / "odds.json"
    ran = CliRunner().invoke(
        app, ["odds", str(tmp_path / FLANK.name), *words, "-f", "json", "-o", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    assert json.loads(out.read_text(encoding="utf-8"))["result"] == answer["document"]["result"]
    # Asked for exactly, the answer and the command are exact odds with the full budget.
    exact = client.post("/api/odds", json=body(FLANK, method="exact", exact_budget=300_000))
    assert exact.json()["command"] == (
        "fracas odds flank_charge.yaml --method exact --exact-budget 300000"
    )


def test_odds_say_when_a_budget_cut_the_work_short(client: TestClient) -> None:
    answer = client.post("/api/odds", json=body(FLANK, exact_budget=10, runs=200)).json()
    assert answer["method"] == "monte-carlo"
    assert any("more than 10 steps of work" in note for note in answer["limits"])
    cut = client.post("/api/odds", json=body(FLANK, method="mc", sample_budget=300)).json()
    assert cut["limits"] == ["Stopped early by the work budget (300 dice rolls)."]


def test_validate_offers_the_numbers_of_each_unit(client: TestClient) -> None:
    answer = client.post("/api/validate", json=body(ENCIRCLEMENT)).json()
    assert answer["ruleset"] == "hex"
    assert answer["ok"]
    lead = answer["fields"][0]
    assert lead["title"] == "lead"
    # What the scenario writes first, then what it leaves at the schema's defaults.
    assert {f["path"]: f["value"] for f in lead["fields"]} == {
        "units[0].strength": 100,
        "units[0].attack.land": 10,
        "units[0].defense": 10,
        "units[0].domain": "land",
        "units[0].max_strength": None,
        "units[0].level": 0,
        "units[0].pierce": 0,
    }
    labels = {f["path"]: f["label"] for f in lead["fields"]}
    # The key path is shown by the unit's id, which --set takes as well as the index.
    assert {f["path"]: f["shown"] for f in lead["fields"]}["units[0].strength"] == (
        "units[lead].strength"
    )
    assert labels["units[0].strength"] == "Strength"  # "Soldiers…" explains, not names
    assert labels["units[0].defense"] == "Printed defence"
    domain = next(f for f in lead["fields"] if f["path"] == "units[0].domain")
    assert domain["kind"] == "choice"
    assert domain["choices"] == ["land", "air", "sea"]
    assert answer["choices"]["units"][:2] == ["lead", "left"]
    assert answer["choices"]["sides"] == ["blue", "red"]


def test_validate_offers_what_players_change(client: TestClient) -> None:
    flank = client.post("/api/validate", json=body(FLANK)).json()["fields"]
    knights = {f["path"]: f for f in flank[2]["fields"]}
    assert flank[2]["title"] == "Knights"
    assert knights["units[2].rules"]["kind"] == "list"
    assert knights["units[2].rules"]["value"] == ["swiftstride"]
    assert knights["units[2].weapon"]["choices"][:3] == ["hand_weapon", "great_weapon", "halberd"]
    assert knights["units[2].shield"] == {
        **knights["units[2].shield"],
        "kind": "boolean",
        "value": False,
        "default": True,
    }
    assert knights["units[2].charged"]["value"] is True
    assert knights["units[2].armour"]["optional"] is True
    # The engagements have no names: their title joins the two units, and the arc is a choice.
    arc = next(g for g in flank if g["path"] == "engagements[1]")
    assert arc["title"] == "Knights → Spearmen"
    assert arc["fields"][0]["path"] == "engagements[1].arc"
    assert arc["fields"][0]["value"] == "left"
    raid = client.post(
        "/api/validate", json=body(ROOT / "examples" / "d100" / "lair_raid.yaml")
    ).json()
    side = {f["path"]: f for f in raid["fields"][0]["fields"]}
    assert side["sides[0].action"]["choices"] == ["harass", "raid", "attack", "defend", "challenge"]
    riders = {f["path"]: f for f in raid["fields"][1]["fields"]}
    assert riders["sides[0].units[0].pax"]["label"] == "Current PAX"
    assert riders["sides[0].units[0].equipment"]["kind"] == "list"


def test_validate_offers_only_legal_attacks(client: TestClient) -> None:
    river = body(ROOT / "examples" / "hex" / "river_crossing.yaml")
    attacks = client.post("/api/validate", json=river).json()["choices"]["attacks"]
    # The howitzers (range 2-3) reach the grenadiers; the grenadiers (range 1) are 3 hexes
    # from the howitzers, and no unit attacks its own side.
    assert ["howitzers", "grenadiers"] in attacks
    assert ["grenadiers", "howitzers"] not in attacks
    assert ["assault", "pioneers"] not in attacks
    assert attacks[0] == ["grenadiers", "assault"]
    for attacker, target in attacks:
        answer = client.post(
            "/api/forecast", json={**river, "attacker": attacker, "target": target}
        )
        assert answer.status_code == 200
    # An illegal one is refused in words with no command-line flag, beside the target.
    refused = client.post(
        "/api/forecast", json={**river, "attacker": "grenadiers", "target": "howitzers"}
    ).json()["error"]
    assert refused["path"] == "target"
    assert refused["message"] == (
        "illegal attack: 'howitzers' is 3 hexes away; 'grenadiers' reaches 1 to 1"
    )


def test_a_bad_yaml_message_names_no_placeholder(client: TestClient) -> None:
    bad = {"scenario": "fracas: 1\nruleset: hex\nunits: [\n", "name": "mine.yaml"}
    message = client.post("/api/validate", json=bad).json()["error"]["message"]
    assert message.startswith("mine.yaml: not valid YAML: ")
    assert "unicode string" not in message
    assert "line 4, column 1" in message


# ── bad input: a 4xx with one clear message, never a 500 ───────────────────────────────


BAD_SCENARIO = ENCIRCLEMENT.read_text(encoding="utf-8").replace("strength: 100", "strength: -5", 1)
ACTION = {
    "forecast": {"attacker": "lead", "target": "holdout"},
    **{side_action: {"side": "blue"} for side_action in ("advise", "threats", "reply")},
}


@pytest.mark.parametrize(
    "endpoint", ["validate", "resolve", "odds", "forecast", "advise", "threats", "reply"]
)
def test_a_bad_scenario_names_the_file_and_key_path(client: TestClient, endpoint: str) -> None:
    request = {"scenario": BAD_SCENARIO, "name": "broken.yaml", **ACTION.get(endpoint, {})}
    response = client.post(f"/api/{endpoint}", json=request)
    assert response.status_code == 422
    detail = error_of(response)
    assert detail["source"] == "broken.yaml"
    assert detail["path"] == "units[0].strength"
    assert detail["message"].startswith("broken.yaml: units[0].strength: ")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("fracas: 1\nruleset: hex\nunits: [\n", "not valid YAML"),
        ("- just\n- a list\n", "a scenario must be a mapping"),
        ("fracas: 1\nruleset: chess\n", "no ruleset named 'chess'"),
        ("fracas: 7\nruleset: hex\n", "unsupported schema version 7"),
        ("fracas: 1\nruleset: hex\ntitle: \ud800\n", "half of a character ('\\ud800')"),
        ("fracas: 1\nruleset: hex\nfracas: 1\n", "line 3: the key 'fracas' is given twice"),
    ],
)
def test_malformed_text_is_422(client: TestClient, text: str, problem: str) -> None:
    # Written as ASCII JSON, as a browser may send a lone surrogate half ("\ud800").
    body = json.dumps({"scenario": text, "name": "x.yaml"})
    response = client.post(
        "/api/resolve", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert problem in error_of(response)["message"]


@pytest.mark.parametrize(
    ("endpoint", "extra", "status", "words"),
    [
        ("resolve", {"seed": -1}, 422, "seed"),
        ("resolve", {"format": "xml"}, 422, "format"),
        ("resolve", {"surprise": 1}, 422, "surprise"),
        ("odds", {"runs": 0}, 422, "runs"),
        ("odds", {"confidence": 1.5}, 422, "confidence"),
        ("odds", {"sample_budget": 10**12}, 422, "limit of 5,000,000 (fracas serve --sample"),
        ("odds", {"runs": 10**9}, 422, "limit of 200,000 (the command line has no such"),
        ("odds", {"method": "exact", "exact_budget": 10}, 400, "larger --exact-budget"),
        ("forecast", {"attacker": "lead", "target": "nobody"}, 422, "nobody"),
        ("advise", {"side": "green"}, 422, "green"),
        ("threats", {"side": "green"}, 422, "green"),
        ("reply", {"side": "green"}, 422, "green"),
        ("reply", {"side": "blue", "plan": "maybe"}, 422, "plan"),
    ],
)
def test_bad_options_are_4xx(
    client: TestClient, endpoint: str, extra: dict[str, Any], status: int, words: str
) -> None:
    path = FLANK if endpoint == "odds" else ENCIRCLEMENT
    response = client.post(f"/api/{endpoint}", json=body(path, **extra))
    assert response.status_code == status, response.text
    assert words in error_of(response)["message"]


def test_an_operation_the_ruleset_lacks_is_400(client: TestClient) -> None:
    response = client.post("/api/advise", json=body(LAIR_RAID, side="Thornwall"))
    assert response.status_code == 400
    assert error_of(response)["message"].startswith("ruleset 'd100' has no advisor")
    for endpoint, words in (("threats", "has no threats"), ("reply", "has no reply")):
        response = client.post(f"/api/{endpoint}", json=body(LAIR_RAID, side="Thornwall"))
        assert response.status_code == 400
        assert words in error_of(response)["message"]


def test_threats_and_reply_are_the_librarys(client: TestClient) -> None:
    scenario = fracas.load_scenario(RIVER)
    threats = client.post("/api/threats", json=body(RIVER, side="blue")).json()
    expected = scenario.stamp(scenario.ruleset.threats(scenario.model, "blue"))
    assert threats["document"]["result"] == expected.data
    assert threats["command"] == "fracas threats river_crossing.yaml --side blue"
    # The picture marks the threatened units: grenadiers would take 42 from assault.
    assert threats["picture"].startswith("data:image/svg+xml")
    assert 'data-id="assault"' in (svg := unquote(threats["picture"]))
    assert "⚠42</text>" in svg
    for plan, words in ((False, ""), (True, " --plan")):
        reply = client.post("/api/reply", json=body(RIVER, side="blue", plan=plan)).json()
        expected = scenario.stamp(scenario.ruleset.reply(scenario.model, "blue", plan=plan))
        assert reply["document"]["result"] == expected.data
        assert reply["command"] == f"fracas advise river_crossing.yaml --side blue{words} --reply"
        # The page says which search found each reply (and our turn), as the text does.
        page = " ".join(reply["html"].split())
        assert "Their replies: best of all plans, proven by an exact search" in page
        assert ("Our turn: best of all plans, proven" in page) is plan


def test_not_json_and_wrong_shapes_are_422(client: TestClient) -> None:
    response = client.post(
        "/api/resolve", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert client.post("/api/resolve", json=[1, 2]).status_code == 422
    assert client.post("/api/resolve", json={"scenario": 5}).status_code == 422


def test_unknown_paths_are_404_in_the_same_shape(client: TestClient) -> None:
    response = client.get("/api/nothing")
    assert response.status_code == 404
    assert error_of(response)["message"] == "Not Found"
    assert client.get("/static/../app.py").status_code == 404


def test_a_body_over_the_limit_is_413() -> None:
    small = TestClient(create_app(Limits(body_bytes=1000)), base_url="http://127.0.0.1")
    response = small.post("/api/validate", json={"scenario": "x" * 2000})
    assert response.status_code == 413
    assert "limit of 1,000 bytes" in error_of(response)["message"]
    # A body sent without its length is counted as it arrives.
    chunks = iter([b'{"scenario": "', b"y" * 1500, b'"}'])
    streamed = small.post(
        "/api/validate", content=chunks, headers={"Content-Type": "application/json"}
    )
    assert streamed.status_code == 413


def test_user_text_is_escaped_in_the_html(client: TestClient) -> None:
    text = ENCIRCLEMENT.read_text(encoding="utf-8").replace(
        "title: Closing the ring at Hollow Farm", 'title: "<img src=x onerror=alert(1)>"'
    )
    answer = client.post("/api/resolve", json={"scenario": text, "name": "e.yaml"}).json()
    assert "<img src=x" not in answer["html"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in answer["html"]


def test_the_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert fracas.__version__ in page.text
    for name in ("app.js", "app.css", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200
    # No asset comes from elsewhere: the page works offline.
    assert "http://" not in page.text.replace("http://www.w3.org", "")
    assert "https://" not in page.text


def test_openapi_describes_every_operation(client: TestClient) -> None:
    paths = client.get("/api/openapi.json").json()["paths"]
    assert set(paths) == {
        "/api/rulesets",
        "/api/examples",
        "/api/validate",
        "/api/resolve",
        "/api/forecast",
        "/api/advise",
        "/api/threats",
        "/api/reply",
        "/api/import",
        "/api/odds",
    }


def test_odds_take_the_exact_tolerance_of_the_command_line(client: TestClient) -> None:
    # The lance charge until decided: a tolerance of 0 keeps every branch (error bar 0), a
    # coarse one leaves some out and says how much; the command shown repeats it.
    lance = ROOT / "examples" / "rankflank" / "lance_charge.yaml"
    kept = client.post("/api/odds", json=body(lance, method="exact", exact_tolerance=0)).json()
    coarse = client.post("/api/odds", json=body(lance, method="exact", exact_tolerance=1e-4)).json()
    assert kept["document"]["result"]["error_bar"] == 0
    assert coarse["document"]["result"]["error_bar"] > 0
    assert coarse["command"].endswith("--method exact --exact-tolerance 0.0001")
    refused = client.post("/api/odds", json=body(lance, exact_tolerance=1.5))
    assert refused.status_code == 422
    assert refused.json()["error"]["path"] == "exact_tolerance"


def test_the_page_offers_the_exact_tolerance_at_the_command_lines_default(
    client: TestClient,
) -> None:
    # The field's placeholder is the default the command line and the API use when the
    # field is left empty, read from the one constant (1e-10), never written in the page.
    page = client.get("/").text
    field = re.search(r'<input type="number" id="exact-tolerance"[^>]*>', page)
    assert field is not None
    assert 'placeholder="1e-10"' in field.group()
    assert EXACT_TOLERANCE == 1e-10
    assert inspect.signature(odds_command).parameters["exact_tolerance"].default == EXACT_TOLERANCE
    assert "{{" not in page
    # Left out, the server's default applies: the same odds as the library's default.
    lance = ROOT / "examples" / "rankflank" / "lance_charge.yaml"
    unset = client.post("/api/odds", json=body(lance, method="exact")).json()
    assert "--exact-tolerance" not in unset["command"]
    library = odds(fracas.load_scenario(lance), method="exact")
    assert unset["document"]["result"]["error_bar"] == library.error_bar


@pytest.mark.parametrize("tolerance", [-0.1, 1.0, 1.5])
def test_a_tolerance_the_command_line_refuses_is_refused_in_its_words(
    client: TestClient, tolerance: float
) -> None:
    # The command line takes 0 ≤ P < 1. The API refuses what it refuses, in the same line,
    # before any work, as the request field's problem (no scenario file named), so that
    # the page shows it beside the options.
    cli = CliRunner().invoke(app, ["odds", str(FLANK), "--exact-tolerance", str(tolerance)])
    assert cli.exit_code == 2
    line = f"the exact tolerance must be at least 0 and below 1, not {tolerance}"
    assert line in cli.stderr
    response = client.post("/api/odds", json=body(FLANK, exact_tolerance=tolerance))
    assert response.status_code == 422
    detail = error_of(response)
    assert detail["problem"] == line
    assert detail["path"] == "exact_tolerance"
    assert detail["source"] is None


def test_a_tolerance_of_zero_shows_in_the_command_and_keeps_every_branch(
    client: TestClient,
) -> None:
    lance = ROOT / "examples" / "rankflank" / "lance_charge.yaml"
    kept = client.post("/api/odds", json=body(lance, method="exact", exact_tolerance=0)).json()
    assert kept["command"] == "fracas odds lance_charge.yaml --method exact --exact-tolerance 0.0"
    assert kept["document"]["result"]["error_bar"] == 0


# ── army lists ────────────────────────────────────────────────────────────────────────

ARMIES = ROOT / "examples" / "armies"


def upload(path: Path, name: str | None = None) -> dict[str, str]:
    return {"name": name or path.name, "data": base64.b64encode(path.read_bytes()).decode()}


def test_army_lists_offer_their_units_and_build_the_battle(client: TestClient) -> None:
    lists = {"army": upload(ARMIES / "empire.ros"), "versus": upload(ARMIES / "wood_elves.json")}
    read = client.post("/api/import", json=lists)
    assert read.status_code == 200, read.text
    armies = read.json()["armies"]
    assert armies == [
        {"file": "empire.ros", "units": ["Halberdiers", "Empire Knights"],
         "characters": ["Captain"]},
        {"file": "wood_elves.json", "units": ["Dryads"], "characters": []},
    ]  # fmt: skip
    battle = client.post(
        "/api/import",
        json={
            **lists,
            "fight": "Halberdiers=Dryads",
            "charger": "second",
            "joins": ["Captain=Halberdiers"],
        },
    )
    answer = battle.json()
    assert battle.status_code == 200, battle.text
    # The text is the command line's, byte for byte.
    runner = CliRunner()
    line = runner.invoke(
        app,
        ["import", str(ARMIES / "empire.ros"), "--versus", str(ARMIES / "wood_elves.json"),
         "--fight", "Halberdiers=Dryads", "--charger", "second", "--join", "Captain=Halberdiers"],
    )  # fmt: skip
    assert answer["text"] == line.stdout
    assert answer["name"] == "battle.yaml"
    assert "Dryads: Forest Stalkers: not a rule fracas plays" in answer["unmodelled"]
    # And the page resolves it as any scenario.
    resolved = client.post("/api/resolve", json={"scenario": answer["text"], "name": "battle.yaml"})
    assert resolved.status_code == 200, resolved.text


@pytest.mark.parametrize(
    ("request_body", "message"),
    [
        (
            {"army": {"name": "mine.json", "data": "not base64!"}},
            "mine.json: army.data: is not base64",
        ),
        (
            {"army": {"name": "mine.json", "data": base64.b64encode(b'{"a": 1}').decode()}},
            "mine.json: is not an army list of New Recruit or Old World Builder",
        ),
        (
            {"army": {"name": "../../etc/mine.ros", "data": base64.b64encode(b"<x/>").decode()}},
            "mine.ros: is XML but not a BattleScribe roster",
        ),
        (
            {"army": {"name": "..", "data": base64.b64encode(b"<x/>").decode()}},
            "army: is XML but not a BattleScribe roster",
        ),
        (
            {"army": {"name": "a\u0000b.ros", "data": base64.b64encode(b"<x/>").decode()}},
            "ab.ros: is XML but not a BattleScribe roster",
        ),
    ],
)
def test_a_bad_army_upload_is_a_422_naming_the_users_file(
    client: TestClient, request_body: dict[str, Any], message: str
) -> None:
    response = client.post("/api/import", json=request_body)
    assert response.status_code == 422, response.text
    assert error_of(response)["message"] == message


def test_a_unit_neither_list_has_is_a_422(client: TestClient) -> None:
    lists = {"army": upload(ARMIES / "empire.ros"), "versus": upload(ARMIES / "wood_elves.json")}
    response = client.post("/api/import", json={**lists, "fight": "Ghosts=Dryads"})
    assert response.status_code == 422
    assert "empire.ros has no unit 'Ghosts'" in error_of(response)["message"]


def test_a_message_never_tells_a_request_to_use_the_command_line(client: TestClient) -> None:
    # "raise it with --limit input.depth=N" and "'fracas validate' lists them all" are
    # the command line's: a request can do neither.
    deep = "fracas: 1\nruleset: d100\ntitle: " + "[" * 200 + "]" * 200 + "\n"
    answer = client.post("/api/resolve", json={"scenario": deep}).json()["error"]
    assert "input.depth" in answer["message"]
    assert "--limit" not in json.dumps(answer)
    broken = "fracas: 1\nruleset: d100\nsides: [{name: A}, {name: B}]\n"
    answer = client.post("/api/resolve", json={"scenario": broken}).json()["error"]
    assert "more problem" in answer["message"]
    assert "fracas validate" not in json.dumps(answer)


def test_an_import_error_names_the_request_field_not_the_option(client: TestClient) -> None:
    lists = {"army": upload(ARMIES / "empire.ros"), "versus": upload(ARMIES / "wood_elves.json")}
    cases: list[tuple[dict[str, Any], str | None, str]] = [
        ({"fight": "Halberdiers=Glade Guard"}, "fight", "wood_elves.json has no unit 'Glade"),
        # No "=": it read as a unit named "" of the second list.
        ({"fight": "Halberdiers"}, "fight", "write UNIT=ENEMY: a unit of each list"),
        ({"joins": ["Captain=Nobody"]}, None, "joins 'Captain=Nobody'"),
    ]
    for extra, path, problem in cases:
        request: dict[str, Any] = (
            {**lists, **extra} if "fight" in extra else {"army": lists["army"], **extra}
        )
        response = client.post("/api/import", json=request)
        assert response.status_code == 422, response.text
        error = error_of(response)
        assert problem in error["message"], error
        assert "--" not in json.dumps(error), error
        if path is not None:
            assert error["path"] == path
