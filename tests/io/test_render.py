import json

from hypothesis import given
from hypothesis import strategies as st

from fracas.core.modifiers import Breakdown
from fracas.core.report import Report, Section, Table, Text, breakdown_table
from fracas.io.render import render_bbcode, render_json, render_markdown, render_text

ATK = Breakdown.start("Effective Atk", "Strength", 50).times("Attack", 2).plus("Support", 5)
REPORT = Report(
    ruleset="demo",
    title="Demo report",
    sections=(
        Section("Strike", (breakdown_table(ATK), Text("Attacker wins", strong=True))),
        Section("Notes", (Text("a | pipe"), Table(("a", "b"), (("1", "2"),)))),
    ),
    data={"zeta": 1, "alpha": [1, 2]},
    seed=5,
    version="9.9",
    scenario_hash="abc",
)


def test_text_shows_every_row_and_the_footer() -> None:
    text = render_text(REPORT)
    # 50 × 2 = 100, + 5 = 105
    for cell in ("Strength", "Attack", "×2", "100", "+5", "105", "» Attacker wins"):
        assert cell in text
    assert text.rstrip().endswith("ruleset demo · seed 5 · scenario sha256:abc · fracas 9.9")


def test_markdown_tables_escape_pipes_and_bold_totals() -> None:
    md = render_markdown(REPORT)
    assert "| row | source | value | running |" in md
    assert "| **Effective Atk** |  |  | **105** |" in md
    # User text is escaped everywhere; a "\\|" displays as "|" in a paragraph too.
    assert "a \\| pipe" in md
    assert "**Attacker wins**" in md


def test_bbcode_uses_forum_tags() -> None:
    bb = render_bbcode(REPORT)
    assert "[b][u]Strike[/u][/b]" in bb
    # Tables go in [code] blocks: 50 × 2 = 100, + 5 = 105 on the total line.
    assert bb.count("[code]") == bb.count("[/code]") == 2
    assert "\nEffective Atk                     105[/code]" in bb


def test_json_envelope_keeps_its_documented_order() -> None:
    doc = json.loads(render_json(REPORT))
    assert list(doc) == [
        "fracas",
        "ruleset",
        "source",
        "scenario_sha256",
        "seed",
        "overrides",
        "title",
        "result",
    ]
    assert list(doc["result"]) == ["zeta", "alpha"]  # never sorted


@given(st.text(max_size=40))
def test_renderers_are_pure(title: str) -> None:
    report = Report("demo", title or "t", REPORT.sections, {"a": 1})
    for render in (render_text, render_markdown, render_bbcode, render_json):
        assert render(report) == render(report)
