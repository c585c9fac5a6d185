"""Renderers: pure functions from a :class:`~fracas.core.report.Report` to text.

``text`` (rich tables, for terminals), ``markdown``, ``bbcode`` (forum posts) and
``json`` (for programs; see ``docs/json.md`` for the stable key order).
"""

from __future__ import annotations

import io
import json
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from fracas.core.escape import printable_lines
from fracas.core.report import Report, Section, Table, Text
from fracas.io.markup import escape_bbcode, escape_bbcode_code, escape_markdown, to_ascii

if TYPE_CHECKING:  # rich is imported by the text renderer alone: JSON output needs none of it
    from rich.box import Box
    from rich.console import Console
    from rich.table import Table as RichTable

TEXT_WIDTH = 100


@cache
def _box() -> Box:
    """Like rich's SIMPLE_HEAD, plus a rule above the footer (where totals go)."""
    from rich.box import Box

    return Box("    \n    \n ── \n    \n    \n ── \n    \n    \n", ascii=False)


_WORDS = re.compile(r"[^\W\d_]{2,}")


def numeric_columns(table: Table) -> tuple[bool, ...]:
    """Which columns hold numbers (right-aligned) rather than words (left-aligned).

    A column is numeric when it shows a digit somewhere and none of its cells holds a word
    of two letters or more, so "+5", "4+", "×0.8", "6×2 4×1" and "—" fit in it; the first
    column never is.

    >>> table = Table(("unit", "source", "value", "gear"), (("Orcs", "Throne Room", "+5", "—"),))
    >>> numeric_columns(table)
    (False, False, True, False)
    """
    return tuple(
        index > 0
        and not any(_WORDS.search(row[index]) for row in table.rows)
        and any(cell.isdigit() for row in table.rows for cell in row[index])
        for index in range(len(table.columns))
    )


def render_text(report: Report, *, width: int = TEXT_WIDTH, ascii_only: bool = False) -> str:
    """Plain text with box-drawn tables, ``width`` columns wide; the same bytes for the same
    report and width. Words are never split: a table too wide wraps within its cells.

    ``ascii_only`` spells ×, −, → and the box lines in ASCII (``x``, ``-``, ``->``).
    """
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, color_system=None, force_terminal=False, emoji=False
    )
    console.print(report.title, style="bold", markup=False, highlight=False)
    console.print("═" * min(width, max(len(report.title), 8)), highlight=False)
    for section in report.sections:
        _text_section(console, section)
    console.print(highlight=False)
    console.print(report.footer(), markup=False, highlight=False)
    for line in report.fair_lines():
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    text = _strip_trailing(buffer.getvalue())
    return to_ascii(text) if ascii_only else text


def _strip_trailing(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def _text_section(console: Console, section: Section) -> None:
    console.print(highlight=False)
    console.print(f"── {section.title}", markup=False, highlight=False)
    for block in section.blocks:
        if isinstance(block, Text):
            text = f"» {block.text}" if block.strong else block.text
            console.print(_wrap(text, console.width), markup=False, highlight=False, soft_wrap=True)
        else:
            table = _rich_table(block, console.width)
            # A table whose words alone are wider than the page keeps them whole: it is
            # printed wider (a terminal wraps its lines) rather than cropped or split.
            needed = sum(column.width or 0 for column in table.columns) + _GAP * (
                len(table.columns) - 1
            )
            page = console.width
            console.width = max(needed, page)
            console.print(table)
            console.width = page
            console.print(highlight=False)


#: Columns between two table columns: a space of padding, the divider, a space of padding.
_GAP = 3


def column_widths(table: Table, width: int) -> list[int]:
    """Widths of the columns of ``table`` to fit ``width``, never below a column's longest word.

    Columns start at their longest word; the room left goes to the columns that want more,
    in proportion to how much more, until each has its widest cell or the room is used.

    >>> table = Table(("unit", "note"), (("Orcs", "a long note that wraps"),))
    >>> column_widths(table, 80), column_widths(table, 16), column_widths(table, 5)
    ([4, 22], [4, 9], [4, 5])
    """
    from rich.cells import cell_len

    count = len(table.columns)
    cells = [(table.columns[i], *(row[i] for row in table.rows)) for i in range(count)]
    least = [
        max((cell_len(word) for cell in column for word in cell.split()), default=1)
        for column in cells
    ]
    most = [
        max(max(cell_len(line) for cell in column for line in cell.splitlines() or [""]), low)
        for column, low in zip(cells, least, strict=True)
    ]
    room = width - _GAP * (count - 1)
    if sum(most) <= room:
        return most
    spare = room - sum(least)
    if spare <= 0:
        return least
    wanted = [high - low for low, high in zip(least, most, strict=True)]
    total = sum(wanted)
    widths = [low + want * spare // total for low, want in zip(least, wanted, strict=True)]
    # Rounding down leaves a few columns over: give them to the columns still short.
    leftover = room - sum(widths)
    for index in sorted(range(count), key=lambda i: widths[i] - most[i]):
        if leftover <= 0:
            break
        if widths[index] < most[index]:
            widths[index] += 1
            leftover -= 1
    return widths


def _rich_table(table: Table, width: int = TEXT_WIDTH) -> RichTable:
    from rich.table import Table as RichTable
    from rich.text import Text as RichText

    # Cells are rich Text objects, never markup strings: a unit called "[/b]" is a name.
    rich = RichTable(
        title=RichText(table.title) if table.title else None,
        box=_box(),
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    body = len(table.rows) - table.total_rows
    # One total row becomes the table's footer, drawn under a rule; more stay in the body.
    footer = table.rows[-1] if table.total_rows == 1 else None
    rich.show_footer = footer is not None
    for index, (column, numeric, size) in enumerate(
        zip(table.columns, numeric_columns(table), column_widths(table, width), strict=True)
    ):
        rich.add_column(
            RichText(column),
            footer=RichText(footer[index]) if footer else "",
            justify="right" if numeric else "left",
            overflow="fold",
            width=size,
        )
    for row in table.rows[: body if footer else len(table.rows)]:
        rich.add_row(*(RichText(cell) for cell in row))
    return rich


def _wrap(text: str, width: int) -> str:
    """Wrap each line at spaces, never inside a word; continuations indent under the line.

    >>> print(_wrap("• Defence 117 = 80 (d100) + 12 (Defense)", 24))
    • Defence 117 = 80
      (d100) + 12 (Defense)
    >>> print(_wrap("    Defence 117 = 80 (d100) + 12", 24))
        Defence 117 = 80
            (d100) + 12
    """
    lines = []
    for line in text.splitlines() or [""]:
        body = line.lstrip()
        indent = line[: len(line) - len(body)]
        lines.append(
            textwrap.fill(
                line,
                width=width,
                subsequent_indent=indent * 2 + ("  " if body.startswith("• ") else ""),
                break_long_words=False,
                break_on_hyphens=False,
            )
            if len(line) > width
            else line
        )
    return "\n".join(lines)


def _md_cell(cell: str) -> str:
    return escape_markdown(cell).replace("\n", "<br>")


def render_markdown(report: Report, *, ascii_only: bool = False, fold: bool = False) -> str:
    """GitHub-flavoured Markdown; user text is escaped so it never becomes markup.

    ``fold`` puts the sections a report marks as details in ``<details>`` blocks, so a
    post shows the outcome first and the steps one click away.
    """
    lines = [f"# {escape_markdown(report.title)}", ""]
    for section in report.sections:
        folded = fold and section.fold
        if folded:
            lines += ["<details>", f"<summary>{escape_markdown(section.title)}</summary>", ""]
        else:
            lines += [f"## {escape_markdown(section.title)}", ""]
        for block in section.blocks:
            if isinstance(block, Text):
                text = escape_markdown(block.text).replace("\n", "  \n")
                lines += [f"**{text}**" if block.strong else text, ""]
                continue
            if block.title:
                lines += [f"*{escape_markdown(block.title)}*", ""]
            lines.append("| " + " | ".join(_md_cell(c) for c in block.columns) + " |")
            aligns = ["---:" if numeric else "---" for numeric in numeric_columns(block)]
            lines.append("|" + "|".join(aligns) + "|")
            body = len(block.rows) - block.total_rows
            for index, row in enumerate(block.rows):
                cells = [_md_cell(c) for c in row]
                if index >= body:
                    cells = [f"**{c}**" if c else c for c in cells]
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
        if folded:
            lines += ["</details>", ""]
    footer = [report.footer(), *report.fair_lines()]
    lines.append("<sub>" + "<br>".join(escape_markdown(line) for line in footer) + "</sub>")
    text = "\n".join(lines) + "\n"
    return to_ascii(text) if ascii_only else text


def plain_table(table: Table) -> str:
    """A table as aligned monospace lines (for [code] blocks and other plain contexts).

    >>> print(plain_table(Table(("unit", "PAX"), (("Orcs", "10"), ("Elves", "7")))))
    unit   PAX
    ----------
    Orcs    10
    Elves    7
    """
    widths = [
        max(len(row[i]) for row in (table.columns, *table.rows)) for i in range(len(table.columns))
    ]

    numeric = numeric_columns(table)

    def line(cells: tuple[str, ...]) -> str:
        padded = [
            cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        return "  ".join(padded).rstrip()

    rule = "-" * (sum(widths) + 2 * (len(widths) - 1))
    lines = [line(table.columns), rule]
    body = len(table.rows) - table.total_rows
    lines += [line(row) for row in table.rows[:body]]
    if table.total_rows:
        lines += [rule, *(line(row) for row in table.rows[body:])]
    return "\n".join(lines)


#: BBCode dialects: the sizes of the title and of the footer. phpBB takes percentages,
#: vBulletin, MyBB, SMF and most older boards 1–7; ``plain`` uses no [size] at all.
FORUM_SIZES: dict[str, tuple[str, str] | None] = {
    "phpbb": ("150", "85"),
    "vbulletin": ("5", "1"),
    "plain": None,
}


def render_bbcode(
    report: Report, *, forum: str = "phpbb", ascii_only: bool = False, fold: bool = False
) -> str:
    """BBCode for forum posts. Tables go in [code] blocks, which every board displays.

    User text is escaped so it never becomes a tag; ``forum`` picks the [size] dialect
    (:data:`FORUM_SIZES`); ``fold`` puts the detail sections in ``[spoiler]`` blocks.
    """
    if forum not in FORUM_SIZES:
        raise ValueError(f"unknown forum dialect {forum!r}; known: {', '.join(FORUM_SIZES)}")
    sizes = FORUM_SIZES[forum]

    def sized(text: str, which: int) -> str:
        return f"[size={sizes[which]}]{text}[/size]" if sizes else text

    lines = [sized(f"[b]{escape_bbcode(report.title)}[/b]", 0), ""]
    for section in report.sections:
        folded = fold and section.fold
        lines += [f"[b][u]{escape_bbcode(section.title)}[/u][/b]"]
        if folded:
            lines.append("[spoiler]")
        for block in section.blocks:
            if isinstance(block, Text):
                text = escape_bbcode(block.text)
                lines.append(f"[b]{text}[/b]" if block.strong else text)
                continue
            if block.title:
                lines.append(f"[i]{escape_bbcode(block.title)}[/i]")
            lines.append(f"[code]{escape_bbcode_code(plain_table(block))}[/code]")
        if folded:
            lines.append("[/spoiler]")
        lines.append("")
    lines += [sized(escape_bbcode(line), 1) for line in (report.footer(), *report.fair_lines())]
    text = "\n".join(lines) + "\n"
    return to_ascii(text) if ascii_only else text


def report_document(report: Report) -> dict[str, Any]:
    """The JSON document of a report, keys in their documented order."""
    return {
        "fracas": report.version,
        "ruleset": report.ruleset,
        "source": report.source,
        "scenario_sha256": report.scenario_hash,
        "seed": report.seed,
        "overrides": list(report.overrides),
        "title": report.title,
        "result": report.data,
        # Only with the fair-dice protocol (docs/fair-dice.md).
        **({"fair": dict(report.fair)} if report.fair else {}),
    }


def render_json(report: Report, *, ascii_only: bool = False) -> str:
    """Indented JSON; keys keep their documented order (never sorted alphabetically).

    ``ascii_only`` writes every other character as a ``\\u`` escape (the data is the same).
    """
    text = json.dumps(report_document(report), indent=2, ensure_ascii=ascii_only) + "\n"
    # A lone surrogate (from a JSON "\\ud800" or an undecodable command-line byte) cannot be
    # written as UTF-8; JSON's own escape keeps it exactly.
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _printable_output(renderer: Callable[[Report], str]) -> Callable[[Report], str]:
    """The renderer, with control characters and lone surrogates in its output spelled out.

    User text may hold an ESC (terminal escape injection), a NUL or a lone surrogate (which
    no UTF-8 output can hold); line breaks stay.
    """

    def render(report: Report) -> str:
        return printable_lines(renderer(report))

    render.__doc__ = renderer.__doc__
    return render


RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": _printable_output(render_text),
    "markdown": _printable_output(render_markdown),
    "bbcode": _printable_output(render_bbcode),
    "json": render_json,
}


@dataclass(frozen=True)
class PostStyle:
    """How a report is written for a forum thread (ignored where it does not apply)."""

    #: The BBCode dialect, a key of :data:`FORUM_SIZES`.
    forum: str = "phpbb"
    #: Only ASCII characters (for boards that mangle ×, − and →).
    ascii_only: bool = False
    #: Fold the step-by-step sections ([spoiler], <details>) under the outcome.
    fold: bool = False


def render_report(
    report: Report, fmt: str, style: PostStyle = PostStyle(), *, width: int = TEXT_WIDTH
) -> str:
    """Render ``report`` in format ``fmt`` (a key of :data:`RENDERERS`) with ``style``;
    text ``width`` columns wide.

    >>> report = Report("demo", "[b]Raid[/b]", ())
    >>> render_report(report, "bbcode", PostStyle(forum="vbulletin")).splitlines()[0]
    '[size=5][b][[i][/i]b]Raid[[i][/i]/b][/b][/size]'
    """
    if fmt == "json":
        return render_json(report, ascii_only=style.ascii_only)
    if fmt == "bbcode":
        text = render_bbcode(
            report, forum=style.forum, ascii_only=style.ascii_only, fold=style.fold
        )
    elif fmt == "markdown":
        text = render_markdown(report, ascii_only=style.ascii_only, fold=style.fold)
    elif fmt == "text":
        text = render_text(report, width=width, ascii_only=style.ascii_only)
    else:
        raise ValueError(f"unknown format {fmt!r}; known: {', '.join(RENDERERS)}")
    # As RENDERERS do: control characters and lone surrogates in user text are spelled out.
    return printable_lines(text)
