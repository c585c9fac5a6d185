"""Input and output: scenario files and report renderers."""

from fracas.io.html import odds_html, render_html
from fracas.io.render import RENDERERS, render_bbcode, render_json, render_markdown, render_text
from fracas.io.scenario import (
    Scenario,
    load_scenario,
    parse_scenario,
    scenario_from_document,
    set_path,
)

__all__ = [
    "RENDERERS",
    "Scenario",
    "load_scenario",
    "odds_html",
    "parse_scenario",
    "render_bbcode",
    "render_html",
    "render_json",
    "render_markdown",
    "render_text",
    "scenario_from_document",
    "set_path",
]
