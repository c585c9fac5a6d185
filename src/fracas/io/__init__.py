"""Input and output: scenario files and report renderers.

The names below are imported when first used: a command that reads a scenario and
writes text loads neither the HTML page nor the other renderers.

>>> from fracas import io
>>> sorted(io.RENDERERS)
['bbcode', 'json', 'markdown', 'text']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fracas._lazy import load

if TYPE_CHECKING:
    from fracas.io.html import odds_html, render_html
    from fracas.io.render import (
        RENDERERS,
        render_bbcode,
        render_json,
        render_markdown,
        render_text,
    )
    from fracas.io.scenario import (
        Scenario,
        load_scenario,
        parse_scenario,
        scenario_from_document,
        set_path,
    )

#: Where each public name lives (imported on first use, see :func:`__getattr__`).
_HOMES = {
    **dict.fromkeys(("odds_html", "render_html"), "fracas.io.html"),
    **dict.fromkeys(
        ("RENDERERS", "render_bbcode", "render_json", "render_markdown", "render_text"),
        "fracas.io.render",
    ),
    **dict.fromkeys(
        ("Scenario", "load_scenario", "parse_scenario", "scenario_from_document", "set_path"),
        "fracas.io.scenario",
    ),
}


def __getattr__(name: str) -> Any:
    return load(__name__, _HOMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


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
