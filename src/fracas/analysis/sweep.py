"""Balance sweeps: one question asked over a grid of scenario values.

Each varied value is a key path with a list or a range of values (``units[0].models=10..40:5``,
``units[1].models=10,20,30``); the grid is every combination, first path slowest. Every
cell is an ordinary odds question with its own seed, derived from the sweep's seed and the
cell's values, so ``fracas odds FILE --set PATH=VALUE … --seed CELL_SEED`` gives the same
numbers for that cell alone. Cells are independent: they run one after another, on local
processes or on a Dask cluster (see :mod:`fracas.analysis.parallel`) with the same result.

>>> parse_vary("units[0].models=10..40:10")
Axis(path='units[0].models', values=(10, 20, 30, 40))
>>> parse_vary("parameters.charge=true,false").values
(True, False)
>>> cell_seed(0, (("units[0].models", 10),)) == cell_seed(0, (("units[0].models", 10),))
True
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

import yaml

from fracas._version import __version__
from fracas.analysis import parallel
from fracas.analysis.odds import LoadedScenario, odds
from fracas.analysis.results import OddsResult
from fracas.analysis.solve import Goal, parse_goal
from fracas.core.budgets import CELLS_LIMIT
from fracas.core.errors import FracasError, ScenarioError
from fracas.core.limits import check
from fracas.core.report import rounded

#: Default cap on the cells of one sweep (``--max-cells`` raises it).
MAX_CELLS = 10_000
#: The odds options a sweep passes on to every cell.
ODDS_OPTIONS = (
    "method",
    "runs",
    "precision",
    "max_runs",
    "confidence",
    "exact_budget",
    "sample_budget",
)

Setting = tuple[str, Any]
#: Builds the scenario of one cell from its settings; it is sent to other processes, so it
#: must pickle (a module-level function, or a ``functools.partial`` of one).
ScenarioAt = Callable[[tuple[Setting, ...]], LoadedScenario]

_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?$")


@dataclass(frozen=True)
class Axis:
    """One varied value: its key path and the values it takes, in order; ``shown`` is the
    path as a person reads it (units by name), ``path`` when not given."""

    path: str
    values: tuple[Any, ...]
    shown: str = field(default="", repr=False)

    @property
    def title(self) -> str:
        return self.shown or self.path


class VaryError(FracasError):
    """A ``--vary`` that cannot be read: ``problem`` apart, for a sweep file to name its
    own key instead of an option nobody typed."""

    def __init__(self, shown: str, problem: str) -> None:
        super().__init__(f"--vary {shown}: {problem}")
        self.problem = problem


def parse_vary(spec: str) -> Axis:
    """Read ``PATH=A..B[:STEP]`` (integers, both ends included) or ``PATH=V1,V2,…``.

    >>> parse_vary("units[0].models=10..20:5").values
    (10, 15, 20)
    >>> try:
    ...     parse_vary("units[0].models=1..0")
    ... except VaryError as error:
    ...     print(error)
    --vary 'units[0].models=1..0': the range 1..0 is empty
    """
    path, equals, raw = spec.partition("=")
    path = path.strip()
    if not equals or not path or not raw.strip():
        raise VaryError(repr(spec), "expected PATH=A..B[:STEP] or PATH=V1,V2,…")
    match = _RANGE.match(raw)
    if match is not None:
        try:
            first, last = int(match.group(1)), int(match.group(2))
            step = int(match.group(3)) if match.group(3) is not None else 1
        except ValueError:  # longer than Python reads (about 4,300 digits)
            raise VaryError(f"{path}=…", "a number too long to read") from None
        if step <= 0:
            raise VaryError(repr(spec), f"the step must be at least 1, not {step}")
        if last < first:
            raise VaryError(repr(spec), f"the range {first}..{last} is empty")
        count = (last - first) // step + 1
        # Checked before the range is laid out: no grid could hold more values than cells.
        check(CELLS_LIMIT.name, count, path=("--vary",), shown=f"{path}: {count:,} values")
        return Axis(path, tuple(range(first, last + 1, step)))
    if ".." in raw:
        raise VaryError(repr(spec), "a range is A..B or A..B:STEP with whole numbers")
    values: list[Any] = []
    for item in raw.split(","):
        text = item.strip()
        if not text:
            raise VaryError(repr(spec), "an empty value in the list")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            value = text
        except (ValueError, OverflowError):  # an integer or a base-60 float beyond reading
            raise VaryError(f"{path}=…", "a number too large to read") from None
        if isinstance(value, dict | list) or value is None:
            raise VaryError(repr(spec), f"{text!r} is not a single value")
        values.append(value)
    if len(set(map(repr, values))) != len(values):
        raise VaryError(repr(spec), "a value is listed twice")
    return Axis(path, tuple(values))


def cell_seed(seed: int, settings: Sequence[Setting]) -> int:
    """The odds seed of the cell with ``settings`` in a sweep seeded with ``seed``."""
    text = json.dumps([seed, [[path, value] for path, value in settings]], sort_keys=True)
    digest = hashlib.sha256(f"fracas-sweep:{text}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


@dataclass(frozen=True)
class CellResult:
    """The metric in one cell: its value, interval and how it was obtained.

    ``method`` is ``exact``, ``monte-carlo`` or ``invalid`` (the cell's scenario is not a
    valid one, e.g. zero models; ``problem`` says why).
    """

    settings: tuple[Setting, ...]
    seed: int
    value: float | None
    low: float | None
    high: float | None
    method: str
    runs: int | None
    problem: str = ""


@dataclass(frozen=True)
class SweepResult:
    """Every cell of a sweep, first varied path slowest."""

    axes: tuple[Axis, ...]
    metric: str
    seed: int
    options: Mapping[str, Any]
    cells: tuple[CellResult, ...]


def measure(result: OddsResult, goal: Goal) -> tuple[float, float, float]:
    """The goal's quantity in ``result`` and its interval (:meth:`Goal.interval`)."""
    return goal.interval(result)


def run_cell(
    scenario_at: ScenarioAt,
    settings: tuple[Setting, ...],
    seed: int,
    metric: str,
    options: Mapping[str, Any],
) -> CellResult:
    """Build and measure one cell (also on another process or a Dask worker)."""
    goal = parse_goal(metric, 0.0)
    try:
        scenario = scenario_at(settings)
    except ScenarioError as exc:
        return CellResult(settings, seed, None, None, None, "invalid", None, exc.problem)
    result = odds(scenario, seed=seed, **options)
    value, low, high = measure(result, goal)
    runs = None if result.exact else result.runs
    return CellResult(settings, seed, value, low, high, result.method, runs)


def _run_cell_alone(
    scenario_at: ScenarioAt,
    settings: tuple[Setting, ...],
    seed: int,
    metric: str,
    options: Mapping[str, Any],
) -> CellResult:
    """:func:`run_cell` on a worker: its runs stay in that worker's process."""
    with parallel.running(workers=1):
        return run_cell(scenario_at, settings, seed, metric, options)


def check_grid(axes: Sequence[Axis], *, max_cells: int = MAX_CELLS) -> int:
    """The number of cells of the grid of ``axes``, refused above ``max_cells``, without
    laying the grid out (a product of axis lengths can be far beyond any memory).

    >>> check_grid([Axis("a", (1, 2)), Axis("b", ("x", "y", "z"))])
    6
    """
    if max_cells < 1:
        raise FracasError(f"--max-cells must be at least 1, not {max_cells}")
    check(CELLS_LIMIT.name, max_cells, path=("--max-cells",))
    if not axes:
        raise FracasError("a sweep needs at least one --vary PATH=VALUES")
    paths = [axis.path for axis in axes]
    if len(set(paths)) != len(paths):
        raise FracasError("a sweep varies each path once")
    size = math.prod(len(axis.values) for axis in axes)
    if size > max_cells:
        raise FracasError(
            f"the grid has {size:,} cells, more than --max-cells {max_cells:,}; "
            f"raise it if that is what you want"
        )
    return size


def grid(axes: Sequence[Axis], *, max_cells: int = MAX_CELLS) -> list[tuple[Setting, ...]]:
    """Every combination of the axes' values, first axis slowest.

    >>> grid([Axis("a", (1, 2)), Axis("b", ("x", "y"))])[1]
    (('a', 1), ('b', 'y'))
    """
    check_grid(axes, max_cells=max_cells)
    paths = [axis.path for axis in axes]
    return [
        tuple(zip(paths, values, strict=True))
        for values in product(*(axis.values for axis in axes))
    ]


def sweep(
    scenario_at: ScenarioAt,
    axes: Sequence[Axis],
    metric: str,
    *,
    seed: int = 0,
    max_cells: int = MAX_CELLS,
    **options: Any,
) -> SweepResult:
    """Measure ``metric`` (``NAME=VALUE``, ``NAME>=VALUE``… or ``NAME`` for a mean) in every
    cell of the grid of ``axes``.

    ``options`` go to :func:`~fracas.analysis.odds.odds` for every cell. With several
    workers (see :func:`fracas.analysis.parallel.running`) the cells are shared out among
    them when there are enough; otherwise they run in turn and share out their runs.

    >>> from fracas.core.dice import D6
    >>> from fracas.core.process import OneStep
    >>> from fracas.rulesets.base import Ruleset
    >>> class Volley(Ruleset):  # type: ignore[type-arg]
    ...     name, title, summary, deterministic = "volley", "", "", False
    ...     def build(self, document): return document
    ...     def process(self, n, recorder):
    ...         return OneStep(lambda dice: sum(dice.roll(D6) == 6 for _ in range(n)))
    ...     def report(self, n, played): raise NotImplementedError
    ...     def metrics(self, n, state): return {"sixes": state.result}
    >>> class At:
    ...     def __init__(self, settings): self.ruleset, self.model = Volley(), settings[0][1]
    >>> result = sweep(At, [parse_vary("shots=1,2")], "sixes>=1")
    >>> [round(cell.value, 4) for cell in result.cells]   # 1/6, then 1 − (5/6)² = 11/36
    [0.1667, 0.3056]
    """
    unknown = set(options) - set(ODDS_OPTIONS)
    if unknown:
        raise FracasError(f"unknown odds options: {', '.join(sorted(unknown))}")
    parse_goal(metric, 0.0)
    cells = grid(axes, max_cells=max_cells)
    runner = parallel.current()
    progress = runner.progress
    if progress is not None:
        progress.start(len(cells), "cells", "sweep")
    seeds = [cell_seed(seed, settings) for settings in cells]
    spread = runner.workers > 1 and len(cells) >= runner.workers
    function = _run_cell_alone if spread else run_cell
    calls: list[tuple[Callable[..., CellResult], tuple[Any, ...]]] = [
        (function, (scenario_at, settings, cell_seed_, metric, options))
        for settings, cell_seed_ in zip(cells, seeds, strict=True)
    ]

    def tell(_index: int, _cell: CellResult) -> bool:
        if progress is not None:
            progress.advance(1, "cells")
        return False

    results = parallel.gather_in_order(runner.pool if spread else None, calls, done=tell)
    return SweepResult(tuple(axes), metric, seed, dict(options), tuple(results))


# ── output ─────────────────────────────────────────────────────────────────────────────

#: The columns after the varied values. The last two are the same on every row: the table
#: stays one rectangle that any CSV reader takes, and a row copied out alone still says
#: which sweep and which fracas made it.
COLUMNS = (
    "metric",
    "value",
    "low",
    "high",
    "method",
    "runs",
    "seed",
    "problem",
    "sweep_seed",
    "version",
)

#: What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _number(value: float | Fraction | None) -> str:
    if value is None:
        return ""
    return repr(float(value))


def _text(text: str) -> str:
    """User text as a CSV cell a spreadsheet shows as text, never runs as a formula.

    >>> print(_text('=HYPERLINK("http://e")'), _text("@x"), _text("-x"), _text("Red Fang"))
    '=HYPERLINK("http://e") '@x '-x Red Fang
    """
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def _setting(value: Any) -> str:
    # Numbers stay numbers (-2 is a number, not a formula); only text is escaped.
    return _text(value) if isinstance(value, str) else _scalar_text(value)


def rows(result: SweepResult) -> list[list[str]]:
    """The table of a sweep: a header, then one row per cell.

    Text cells that a spreadsheet would take for a formula get a leading ``'``.
    """
    header = [_text(axis.path) for axis in result.axes] + list(COLUMNS)
    table = [header]
    for cell in result.cells:
        table.append(
            [_setting(value) for _, value in cell.settings]
            + [
                _text(result.metric),
                _number(cell.value),
                _number(cell.low),
                _number(cell.high),
                cell.method,
                "" if cell.runs is None else str(cell.runs),
                str(cell.seed),
                _text(cell.problem),
                str(result.seed),
                __version__,
            ]
        )
    return table


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def to_csv(result: SweepResult) -> str:
    """The sweep as CSV (RFC 4180 quoting, so any text in a value stays in its column; text
    that starts like a formula begins with ``'``)."""
    return "".join(",".join(map(_csv_field, row)) + "\n" for row in rows(result))


def _csv_field(text: str) -> str:
    """One CSV field, quoted when it holds a comma, a quote or a line break.

    ``csv.writer`` with lines ending in ``\\n`` leaves a carriage return unquoted, and
    readers then cut the row in two there; this quotes it like any line break.

    >>> print(_csv_field("plain"), _csv_field('say "hi", twice'), repr(_csv_field("a\\rb")))
    plain "say ""hi"", twice" '"a\\rb"'
    """
    if any(char in text for char in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_json(result: SweepResult, *, source: str = "") -> str:
    """The sweep as JSON: what was asked, then one object per cell."""
    data = {
        "sweep": {
            "source": source,
            "metric": result.metric,
            "seed": result.seed,
            "vary": [{"path": axis.path, "values": list(axis.values)} for axis in result.axes],
            "options": dict(result.options),
            "version": __version__,
        },
        "cells": [
            {
                "settings": dict(cell.settings),
                "value": None if cell.value is None else float(cell.value),
                "low": cell.low,
                "high": cell.high,
                "method": cell.method,
                "runs": cell.runs,
                "seed": cell.seed,
                "problem": cell.problem or None,
            }
            for cell in result.cells
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_text(result: SweepResult) -> str:
    """A table for the terminal: the varied values, the metric with its interval, the method."""
    level = f"{float(result.options.get('confidence', 0.95)) * 100:g} % interval"
    header = [axis.title for axis in result.axes] + [result.metric, level, "method"]
    lines = [header]
    for cell in result.cells:
        settings = [_scalar_text(value) for _, value in cell.settings]
        if cell.value is None:
            lines.append([*settings, "—", "", f"invalid: {cell.problem}"])
            continue
        interval = (
            f"{rounded(cell.low, 4)} – {rounded(cell.high, 4)}"
            if cell.method != "exact" and cell.low is not None and cell.high is not None
            else ""
        )
        lines.append([*settings, f"{rounded(cell.value, 4)}", interval, cell.method])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = "\n".join(
        "  ".join(item.ljust(width) for item, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )
    return text + "\n"


def footer(
    result: SweepResult,
    *,
    ruleset: str = "",
    scenario_hash: str = "",
    overrides: Sequence[str] = (),
) -> str:
    """The line that lets anyone run the whole sweep again, in the words of a report's
    footer: the ruleset, the sweep's seed, the scenario, its overrides, the version.

    >>> result = SweepResult((), "wounds>=1", 7, {}, ())
    >>> print(footer(result, ruleset="volley"))  # doctest: +ELLIPSIS
    ruleset volley · sweep seed 7 · fracas ...
    """
    parts = [f"ruleset {ruleset}"] if ruleset else []
    # "sweep seed": each row's own seed is another number, derived from this one.
    parts.append(f"sweep seed {result.seed}")
    if scenario_hash:
        parts.append(f"scenario sha256:{scenario_hash}")
    parts += [f"--set {override}" for override in overrides]
    parts.append(f"fracas {__version__}")
    return " · ".join(parts)


def _plain(text: str) -> str:
    """User text as matplotlib shows it literally (a ``$`` would start mathematics)."""
    return text.replace("$", r"\$")


def chart_bytes(result: SweepResult, kind: str, *, title: str = "", description: str = "") -> bytes:
    """A line chart (one varied value) or heatmap (two) of the sweep, as png or svg bytes.

    The file's metadata holds ``description`` (default: the sweep's :func:`footer`).
    """
    # The optional plot extra, imported when used.
    from fracas.analysis.plot import _pyplot, chart_metadata

    if len(result.axes) not in (1, 2):
        raise FracasError("--plot draws one varied value (a line) or two (a heatmap)")
    pyplot = _pyplot()
    values = [math.nan if cell.value is None else float(cell.value) for cell in result.cells]
    with pyplot.rc_context({"svg.hashsalt": "fracas", "font.size": 8}):
        figure, axis = pyplot.subplots(figsize=(7, 4.5), constrained_layout=True)
        try:
            first = result.axes[0]
            if len(result.axes) == 1:
                xs = list(range(len(first.values)))
                lows = [math.nan if c.low is None else c.low for c in result.cells]
                highs = [math.nan if c.high is None else c.high for c in result.cells]
                axis.fill_between(xs, lows, highs, alpha=0.25, linewidth=0)
                axis.plot(xs, values, marker="o")
                axis.set_xticks(xs, [_plain(_scalar_text(v)) for v in first.values])
                axis.set_xlabel(_plain(first.title))
                axis.set_ylabel(_plain(result.metric))
            else:
                second = result.axes[1]
                width = len(second.values)
                grid_values = [values[i : i + width] for i in range(0, len(values), width)]
                image = axis.imshow(grid_values, aspect="auto", origin="lower", cmap="viridis")
                axis.set_yticks(
                    range(len(first.values)), [_plain(_scalar_text(v)) for v in first.values]
                )
                axis.set_xticks(range(width), [_plain(_scalar_text(v)) for v in second.values])
                axis.set_ylabel(_plain(first.title))
                axis.set_xlabel(_plain(second.title))
                figure.colorbar(image, ax=axis, label=_plain(result.metric))
                for row, line in enumerate(grid_values):
                    for column, value in enumerate(line):
                        text = "—" if math.isnan(value) else f"{rounded(value, 2)}"
                        axis.text(column, row, text, ha="center", va="center", color="white")
            heading = title or f"{result.metric} over the sweep"
            axis.set_title(_plain(heading))
            metadata = chart_metadata(kind, heading, description or footer(result))
            buffer = io.BytesIO()
            figure.savefig(buffer, format=kind, metadata=metadata)
        finally:
            pyplot.close(figure)
    return buffer.getvalue()
