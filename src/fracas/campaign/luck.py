"""The luck audit: where each battle's result fell in its own odds, and over the campaign.

**One battle.** Each force's luck score (the PAX, models or strength the enemy lost minus
those the force lost; :mod:`fracas.campaign.carry`) has a law, stored with the battle when
it was recorded: exact, or from sampled runs when exact odds are out of reach. The result's
percentile is the *mid-p* ``P(S < s) + ½·P(S = s)``: a force that got exactly the median
result, or fought a battle with only one possible result, scores 50 %. From plays, the
percentile carries an error bar of ±1.96 standard errors, ``√(u(1 − u)/n)``.

The drill-down shows the outcomes the score is made of, each at its own percentile for the
force, from the laws stored beside it: winning (against the chance to win), the force's
losses (fewer is luckier), the enemy's losses, and, where the ruleset has them, the units
of each side that broke or fled.

**The campaign.** A force's campaign score is the sum of its battles' percentiles. Had the
dice been fair, each battle's percentile would be a random variable ``U_i`` whose law
follows from the battle's own law (each possible result ``s`` with ``P(S = s)``, at its own
mid-p); the ``U_i`` are independent (each battle its own dice), so the law of their sum is
the convolution of theirs, worked out exactly. The headline is the mid-p of the actual sum
in that law: "luckier than 83 % of campaigns like this one" means that, over campaigns of
the same battles with fair dice, 83 % would have gone worse for this force (ties counted
half).

>>> law = [(0.0, 0.25), (1.0, 0.5), (2.0, 0.25)]
>>> mid_p(law, 1.0)
0.5
>>> mid_p(law, 2.0)
0.875
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from fracas.campaign.journal import Event
from fracas.core.escape import printable

Law = Sequence[tuple[float, float]]
#: Most points the law of a campaign sum keeps exactly; past it, sums are binned to
#: :data:`GRID` (a change of at most 1/GRID per battle in the headline).
EXACT_POINTS = 200_000
GRID = 10_000
TIE = 1e-9


def mid_p(law: Law, value: float) -> float:
    """``P(S < value) + ½·P(S = value)`` for ``S`` of ``law`` (pairs of value and chance)."""
    # Sums of percentiles are floats: values within TIE of each other are the same result.
    below = sum(p for v, p in law if v < value - TIE)
    equal = sum(p for v, p in law if abs(v - value) <= TIE)
    total = sum(p for _, p in law)
    return (below + equal / 2) / total


def percentile_law(law: Law) -> Law:
    """The law of a battle's mid-p percentile had the dice been fair: each result at its
    own mid-p, with its chance.

    >>> percentile_law([(0.0, 0.5), (1.0, 0.5)])
    [(0.25, 0.5), (0.75, 0.5)]
    """
    return [(mid_p(law, value), p) for value, p in law]


def sum_law(laws: Sequence[Law]) -> tuple[dict[float, float], bool]:
    """The law of the sum of independent variables of ``laws`` (their convolution), and
    whether it had to be binned to :data:`GRID`.

    >>> sum_law([[(0.0, 0.5), (1.0, 0.5)], [(0.0, 0.5), (1.0, 0.5)]])
    ({0.0: 0.25, 1.0: 0.5, 2.0: 0.25}, False)
    """
    total: dict[float, float] = {0.0: 1.0}
    binned = False
    for law in laws:
        step: dict[float, float] = {}
        for a, pa in total.items():
            for b, pb in law:
                key = a + b
                key = round(key * GRID) / GRID if binned else round(key, 12)
                step[key] = step.get(key, 0.0) + pa * pb
        total = step
        if len(total) > EXACT_POINTS and not binned:
            binned = True
            rebinned: dict[float, float] = {}
            for key, p in total.items():
                k = round(key * GRID) / GRID
                rebinned[k] = rebinned.get(k, 0.0) + p
            total = rebinned
    return total, binned


@dataclass(frozen=True)
class Outcome:
    """Where one outcome of one battle fell for one force: its value, the chance of a
    result as good or worse (its percentile, mid-p; higher is luckier for the force), and
    the error bar of that percentile (0 when exact)."""

    value: float
    percentile: float
    error: float


@dataclass(frozen=True)
class BattleLuck:
    """One force in one battle: its luck score, and the outcomes that make it up."""

    battle: int
    event: int
    force: str
    enemy: str
    score: float
    expected: float
    percentile: float
    error: float
    method: str
    win_chance: float | None
    won: bool | None
    #: The force's winning (1 won, 0 not) against its chance to win.
    win: Outcome | None = None
    #: What the force lost, and what the enemy lost (fewer own losses are luckier).
    losses: Outcome | None = None
    enemy_losses: Outcome | None = None
    #: How many of the force's units broke or fled, and the enemy's (where the ruleset
    #: has breaks).
    breaks: Outcome | None = None
    enemy_breaks: Outcome | None = None


@dataclass(frozen=True)
class ForceLuck:
    """One force over the campaign: its headline and its battles."""

    force: str
    battles: tuple[BattleLuck, ...]
    headline: float
    cumulative: tuple[float, ...]


def error_bar(percentile: float, runs: int) -> float:
    """±1.96 standard errors of a percentile from ``runs`` plays (0 when exact: no runs).

    >>> round(error_bar(0.5, 2000), 4)
    0.0219
    """
    return 1.96 * math.sqrt(percentile * (1 - percentile) / runs) if runs else 0.0


def outcome(law: Law, value: float, *, runs: int, higher_is_luckier: bool = True) -> Outcome:
    """Where ``value`` fell in ``law``: its mid-p, turned so that higher is luckier.

    >>> outcome([(0.0, 0.25), (1.0, 0.5), (2.0, 0.25)], 0.0, runs=0, higher_is_luckier=False)
    Outcome(value=0.0, percentile=0.875, error=0.0)
    """
    turned = law if higher_is_luckier else [(-v, p) for v, p in law]
    percentile = mid_p(turned, value if higher_is_luckier else -value)
    return Outcome(value, percentile, error_bar(percentile, runs))


def audit(events: Sequence[Event]) -> list[ForceLuck]:
    """The luck of every force that fought, from the odds stored with each battle (they
    are read as they are, never worked out again)."""
    rows: dict[str, list[tuple[BattleLuck, Law]]] = {}
    for event in events:
        if event.kind != "battle_resolved":
            continue
        body = event.body
        odds = body["odds"]
        runs = int(odds.get("runs") or 0)
        forces = list(body["scores"])
        actual = body.get("outcomes", {})
        for force in forces:
            law = law_of(odds, force)
            score = float(body["scores"][force])
            enemy = next(f for f in forces if f != force)
            found = outcome(law, score, runs=runs, higher_is_luckier=True)
            winners = odds.get("winner", {})
            chance = winners.get(force) if winners else None
            won = None if not winners else body["summary"].get("winner") == force
            win = None
            if chance is not None and won is not None:
                p = float(chance)
                found_win = outcome([(0.0, 1 - p), (1.0, p)], float(won), runs=0)
                # Winning's percentile is 1 − p/2, losing's (1 − p)/2: its error is half
                # that of the sampled chance p itself (0 when p is 0 or 1).
                error = 1.96 * math.sqrt(p * (1 - p) / runs) / 2 if runs else 0.0
                win = Outcome(found_win.value, found_win.percentile, error)
            parts = {}
            for kind in ("losses", "breaks"):
                for whose, key, luckier in ((force, kind, False), (enemy, f"enemy_{kind}", True)):
                    if kind in odds and whose in actual.get(kind, {}):
                        value = float(actual[kind][whose])
                        parts[key] = outcome(
                            law_of(odds, whose, kind), value, runs=runs, higher_is_luckier=luckier
                        )
            row = BattleLuck(
                int(body["battle"]),
                event.seq,
                force,
                enemy,
                score,
                sum(v * p for v, p in law) / sum(p for _, p in law),
                found.percentile,
                found.error,
                str(odds["method"]),
                None if chance is None else float(chance),
                won,
                win,
                **parts,
            )
            rows.setdefault(force, []).append((row, law))
    result = []
    for force, found_rows in rows.items():
        cumulative = []
        laws: list[Law] = []
        total = 0.0
        for row, law in found_rows:
            laws.append(percentile_law(law))
            total += row.percentile
            cumulative.append(_headline(laws, total))
        result.append(
            ForceLuck(force, tuple(r for r, _ in found_rows), cumulative[-1], tuple(cumulative))
        )
    return result


def _headline(laws: Sequence[Law], actual: float) -> float:
    law, binned = sum_law(laws)
    key = round(actual * GRID) / GRID if binned else actual
    return mid_p(sorted(law.items()), key)


# Rendering ---------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{100 * value:.0f} %"


def headline_sentence(luck: ForceLuck) -> str:
    """The one sentence a player reads first."""
    battles = len(luck.battles)
    word = "luckier" if luck.headline >= 0.5 else "unluckier"
    share = luck.headline if luck.headline >= 0.5 else 1 - luck.headline
    return (
        f"{luck.force} has been {word} than {_pct(share)} of campaigns like this one "
        f"({battles} battle{'s' if battles != 1 else ''})"
    )


#: The drill-down's two tables, (heading, what it shows): the luck score battle by battle,
#: then the outcomes it is made of, each as its value and its percentile for the force
#: (the break columns where the ruleset has breaks).
_COLUMNS = (
    ("battle", "the battle's number"),
    ("against", "the enemy force"),
    ("result", "the luck score: what the enemy lost minus what the force lost"),
    ("expected", "the luck score's mean under the battle's odds"),
    ("percentile", "where the luck score fell (mid-p), ± its error bar from plays"),
    ("odds", "exact, or mc (sampled runs)"),
    ("P(win)", "the chance to win, asked before the battle"),
    ("luck so far", "the campaign headline after this battle"),
)
_OUTCOME_COLUMNS = (
    ("won", "whether the force won, and its percentile (against P(win))"),
    ("lost", "what the force lost, and its percentile (fewer losses: higher)"),
    ("killed", "what the enemy lost, and its percentile"),
    ("broke", "the force's units that broke or fled, and its percentile"),
    ("enemy broke", "the enemy's units that broke or fled, and its percentile"),
)


def _outcome_cell(found: Outcome | None, value: str | None = None) -> str:
    if found is None:
        return ""
    error = f" ± {100 * found.error:.0f}" if found.error else ""
    shown = f"{found.value:g}" if value is None else value
    return f"{shown} ({100 * found.percentile:.0f}{error} %)"


def _has_breaks(luck: ForceLuck) -> bool:
    return any(row.breaks is not None for row in luck.battles)


def _cells(luck: ForceLuck) -> list[list[str]]:
    cells = []
    for row, so_far in zip(luck.battles, luck.cumulative, strict=True):
        error = f" ± {100 * row.error:.0f}" if row.error else ""
        cells.append(
            [
                str(row.battle),
                row.enemy,
                f"{row.score:+g}",
                f"{row.expected:+.1f}",
                f"{100 * row.percentile:.0f}{error} %",
                row.method,
                "" if row.win_chance is None else _pct(row.win_chance),
                _pct(so_far),
            ]
        )
    return cells


def _outcome_cells(luck: ForceLuck) -> list[list[str]]:
    breaks = _has_breaks(luck)
    return [
        [
            str(row.battle),
            _outcome_cell(row.win, "yes" if row.won else "no"),
            _outcome_cell(row.losses),
            _outcome_cell(row.enemy_losses),
            *([_outcome_cell(row.breaks), _outcome_cell(row.enemy_breaks)] if breaks else []),
        ]
        for row in luck.battles
    ]


def drilldown(luck: ForceLuck) -> list[tuple[list[str], list[list[str]]]]:
    """The drill-down of one force: two tables, each its headings and a row per battle, as
    text (every renderer, the web page included, shows these cells): the luck score, and
    the outcomes it is made of.

    >>> from fracas.campaign.journal import make_event
    >>> first = make_event(1, "campaign_created", {"name": "W", "ruleset": "x"}, "")
    >>> odds = {"method": "exact", "runs": 0, "winner": {"A": 0.5, "B": 0.5},
    ...         "scores": {"A": [[-1, 0.5], [1, 0.5]], "B": [[-1, 0.5], [1, 0.5]]}}
    >>> body = {"battle": 1, "scores": {"A": 1, "B": -1}, "summary": {"winner": "A"},
    ...         "odds": odds}
    >>> luck = audit([first, make_event(2, "battle_resolved", body, first.hash)])[0]
    >>> [columns for columns, _ in drilldown(luck)][1]
    ['battle', 'won', 'lost', 'killed']
    >>> [cells for _, cells in drilldown(luck)][1]
    [['1', 'yes (75 %)', '', '']]
    """
    breaks = _has_breaks(luck)
    outcomes = [name for name, _ in _OUTCOME_COLUMNS if breaks or "broke" not in name]
    return [
        ([name for name, _ in _COLUMNS], _cells(luck)),
        (["battle", *outcomes], _outcome_cells(luck)),
    ]


def render_luck(lucks: Sequence[ForceLuck], fmt: str, *, campaign: str) -> str:
    """The audit in ``text``, ``markdown``, ``bbcode`` or ``json``."""
    if fmt == "json":
        document = {
            "campaign": campaign,
            "method": "mid-p percentile of each battle's luck score; campaign: mid-p of the "
            "sum of percentiles in its exact law under fair dice",
            "columns": dict(_COLUMNS + _OUTCOME_COLUMNS),
            "forces": [
                {
                    "force": luck.force,
                    "headline": luck.headline,
                    "sentence": headline_sentence(luck),
                    "cumulative": list(luck.cumulative),
                    "battles": [asdict(row) for row in luck.battles],
                }
                for luck in lucks
            ],
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    out: list[str] = []
    title = f"Luck audit: {campaign}"
    if fmt == "markdown":
        out.append(f"## {_md(title)}")
    elif fmt == "bbcode":
        out.append(f"[b]{_bb(title)}[/b]")
    else:
        out.append(printable(title))
    if not lucks:
        out.append("no battle yet")
    for luck in lucks:
        sentence = headline_sentence(luck)
        out.append("")
        if fmt == "markdown":
            out.append(f"**{_md(sentence)}**")
        elif fmt == "bbcode":
            out.append(f"[b]{_bb(sentence)}[/b]")
        else:
            out.append(printable(sentence))
        for columns, cells in drilldown(luck):
            if fmt == "markdown":
                out.append("")
                out.append("| " + " | ".join(columns) + " |")
                out.append("|" + "---|" * len(columns))
                out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in cells]
            elif fmt == "bbcode":
                out.append("[code]")
                out += _aligned([columns, *cells], escape=_bb_code)
                out.append("[/code]")
            else:
                out += _aligned([columns, *cells], escape=printable)
                if columns[-1] == "luck so far":
                    out.append("luck so far: " + _spark(luck.cumulative))
                    out.append("")
    return "\n".join(out) + "\n"


def _aligned(rows: list[list[str]], *, escape: Any) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(escape(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _spark(values: Sequence[float]) -> str:
    bars = "▁▂▃▄▅▆▇█"
    return "".join(bars[min(len(bars) - 1, int(v * len(bars)))] for v in values)


def _md(text: str) -> str:
    from fracas.io.markup import escape_markdown

    return escape_markdown(printable(text))


def _bb(text: str) -> str:
    from fracas.io.markup import escape_bbcode

    return escape_bbcode(printable(text))


def _bb_code(text: str) -> str:
    from fracas.io.markup import escape_bbcode_code

    return escape_bbcode_code(printable(text))


def luck_svg(lucks: Sequence[ForceLuck], *, campaign: str) -> str:
    """A chart of each force's luck so far, battle by battle (SVG, no dependency)."""
    from fracas.core.escape import escape_html as escape

    height, pad, plot = 320, 40, 560
    # The names stand right of the plot, in a column as wide as the longest (about 7
    # pixels a character at 12 px, 30 characters at most), so none is cut off.
    legend = 7 * min(max((len(luck.force) for luck in lucks), default=0), 30) + 12
    width = pad + plot + legend
    colours = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
    most = max((len(luck.cumulative) for luck in lucks), default=1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f"<title>{escape(f'Luck so far: {campaign}')}</title>",
        f'<line x1="{pad}" y1="{height / 2}" x2="{pad + plot}" y2="{height / 2}" stroke="#999" '
        'stroke-dasharray="4 4"/>',
        f'<text x="4" y="{pad}">100 %</text><text x="4" y="{height / 2 + 4}">50 %</text>'
        f'<text x="4" y="{height - pad}">0 %</text>',
    ]
    for index, luck in enumerate(lucks):
        colour = colours[index % len(colours)]
        points = [
            (pad + plot * (i + 1) / most, height - pad - (height - 2 * pad) * value)
            for i, value in enumerate(luck.cumulative)
        ]
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{line}"/>')
        # A mark on each battle: one battle alone is a point, which a line does not show.
        parts.extend(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in points
        )
        parts.append(
            f'<text x="{pad + plot + 8}" y="{pad + 16 * index}" fill="{colour}">'
            f"{escape(luck.force)}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def law_of(odds: Mapping[str, Any], force: str, kind: str = "scores") -> Law:
    """A force's stored law of ``kind`` (``scores``, ``losses``, ``breaks``), as pairs."""
    return [(float(v), float(p)) for v, p in odds[kind][force]]
