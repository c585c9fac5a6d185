"""User text reaches every output format literally: markup in names is shown, never obeyed."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.escape import escape_html, escape_rich, excerpt, printable
from fracas.core.report import Report, Section, Table, Text
from fracas.io.render import RENDERERS, render_text
from fracas.io.scenario import scenario_from_document

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ("[/b]", "[bold]x", "[url=http://evil.example]click[/url]", "*a* _b_ `c` <i>d</i>")


def report_with(name: str) -> Report:
    return Report(
        ruleset="demo",
        title=f"Battle of {name}",
        sections=(
            Section(
                name,
                (
                    Text(f"{name} wins", strong=True),
                    Text(f"a line about {name}"),
                    Table(("unit", "PAX"), ((name, "3"), ("total", "3")), title=name, total_rows=1),
                ),
            ),
        ),
        seed=1,
        version="0",
    )


@pytest.mark.parametrize("name", HOSTILE)
def test_text_renderer_prints_markup_in_names_literally(name: str) -> None:
    # "[/b]" used to raise rich's MarkupError; "[bold]x" used to print as a bold "x".
    text = render_text(report_with(name))
    assert f"Battle of {name}" in text
    assert f"» {name} wins" in text
    assert text.count(name) >= 5  # title, section, headline, paragraph, table title and cell


def test_lone_surrogates_and_controls_never_reach_the_output_raw() -> None:
    # "x\ud800" used to raise UnicodeEncodeError when the report was written.
    for render in RENDERERS.values():
        out = render(report_with("x\ud800\x1b[31m"))
        out.encode("utf-8")  # does not raise
        assert "\x1b" not in out


def test_json_keeps_a_lone_surrogate_as_an_escape() -> None:
    import json

    out = RENDERERS["json"](report_with("x\ud800"))
    assert json.loads(out)["title"] == "Battle of x\ud800"


def test_svg_shows_a_hostile_unit_id_literally() -> None:
    document = yaml.safe_load((ROOT / "examples/hex/encirclement.yaml").read_text())
    document["units"][0]["id"] = "<b>&[url=x]\x07"
    document["orders"] = []
    scenario = scenario_from_document(document)
    svg = scenario.ruleset.picture(scenario.model)
    tree = ET.fromstring(svg)  # well-formed: the id did not break the XML
    texts = ["".join(node.itertext()) for node in tree.iter() if node.tag.endswith("text")]
    assert any("<b>&[url=x]" in text for text in texts)


@given(st.text())
def test_escape_functions_keep_one_line_text_on_one_line(text: str) -> None:
    one_line = text.replace("\n", "")
    for escape in (escape_html, escape_rich, printable):
        assert "\n" not in escape(one_line)
        escape(one_line).encode("utf-8")


@given(st.text(max_size=30))
def test_rich_escape_round_trips_through_rich(text: str) -> None:
    from rich.console import Console

    console = Console(color_system=None, width=1000, record=True, file=io.StringIO())
    one_line = printable(text.replace("\n", " "))
    # Escaped text is followed by markup where it is used (a trailing backslash would
    # otherwise escape the tag after it), so the check prints it before a tag too.
    console.print(escape_rich(one_line) + "[b][/b]", end="", highlight=False, soft_wrap=True)
    assert console.export_text() == one_line


@pytest.mark.parametrize("text", ["\\[", "a\\\\[", "\\[x]", "\\\\[x]", "[", "[x]", "\\"])
def test_rich_escape_keeps_backslashes_before_brackets(text: str) -> None:
    # rich reads backslashes as escapes only before a "[" that looks like a tag ("[x]"),
    # and elsewhere only turns "\\[" into "[": a backslash before a lone "[" printed
    # doubled once every backslash was doubled.
    from rich.console import Console

    console = Console(color_system=None, width=1000, record=True, file=io.StringIO())
    console.print(escape_rich(text) + "[b][/b]", end="", highlight=False, soft_wrap=True)
    assert console.export_text() == text


def test_excerpt_is_short_and_never_walks_a_value() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert excerpt(deep) == "a list of 1 item"
    assert len(excerpt("y" * 10**6)) <= 45
    assert excerpt("a\nb") == "'a\\nb'"


def visible_text_of_markdown(markdown: str) -> str:
    """What a reader sees: the text content of the HTML a CommonMark renderer makes."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(markdown)
    text = re.sub(r"<[^>]+>", "", html)
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&amp;", "&")):
        text = text.replace(entity, char)
    return text


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_shows_names_literally_once_rendered(name: str) -> None:
    seen = visible_text_of_markdown(RENDERERS["markdown"](report_with(name)))
    assert f"Battle of {name}" in seen
    assert f"{name} wins" in seen
    assert seen.count(name) >= 5


@pytest.mark.parametrize("name", HOSTILE)
def test_bbcode_never_lets_a_name_open_a_tag(name: str) -> None:
    bb = RENDERERS["bbcode"](report_with(name))
    # Boards show [code] blocks verbatim; outside them, every tag left in the post is one
    # the renderer wrote itself.
    outside = re.sub(r"\[code\].*?\[/code\]", "", bb, flags=re.S)
    tags = set(re.findall(r"\[(/?[a-z]+)(?:=[^\]]*)?\]", outside))
    assert tags <= {"b", "/b", "u", "/u", "i", "/i", "size", "/size", "code", "/code"}
    assert "url" not in {tag.strip("/") for tag in tags}


def test_a_name_cannot_close_the_code_block() -> None:
    bb = RENDERERS["bbcode"](report_with("[/code][url=x]y"))
    assert bb.count("[/code]") == bb.count("[code]") == 1


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
def test_markdown_escape_round_trips_through_a_renderer(text: str) -> None:
    from fracas.io.markup import escape_markdown

    # Runs of white space are not kept by any Markdown renderer; line breaks are not text.
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return
    # As the renderers do: control characters are spelled out first, then escaped.
    seen = visible_text_of_markdown(f"x {escape_markdown(printable(text))}").strip()
    assert seen == f"x {printable(text)}"
