"""The ``fracas odds`` command: outcome probabilities, charts, and "what would it take"."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fracas.cli.common import (
    FileArg,
    Format,
    FormatOpt,
    LimitOpt,
    ListFormat,
    ListFormatOpt,
    OutputOpt,
    SeedOpt,
    SetOpt,
    chart_beside,
    check_apart,
    check_output,
    load,
    output_width,
    render,
    write_output,
)
from fracas.cli.progress import QuietOpt, SchedulerOpt, Tracker, long_work
from fracas.core.budgets import (
    AUTO_EXACT_BUDGET,
    DEFAULT_MAX_RUNS,
    EXACT_BUDGET,
    EXACT_LIMIT,
    EXACT_TOLERANCE,
    RUNS_LIMIT,
    SAMPLE_BUDGET,
    SAMPLE_LIMIT,
    SOLVE_LIMIT,
)
from fracas.core.errors import FracasError, ScenarioError
from fracas.core.escape import digit_count
from fracas.core.limits import check, limits_in_force
from fracas.core.report import Section, Table, Text, decimal_text

if TYPE_CHECKING:
    from fracas.analysis.results import OddsResult
    from fracas.analysis.solve import SolveResult
    from fracas.io.scenario import Scenario


#: The limit bounding each work option of odds (``fracas sweep`` passes them on per cell).
WORK_LIMITS = {
    "runs": RUNS_LIMIT.name,
    "max_runs": RUNS_LIMIT.name,
    "exact_budget": EXACT_LIMIT.name,
    "sample_budget": SAMPLE_LIMIT.name,
}


def _check_work_options(
    runs: int | None,
    max_runs: int,
    exact_budget: int | None,
    sample_budget: int,
    low: int,
    high: int,
) -> None:
    check(RUNS_LIMIT.name, runs or 0, path=("--runs",))
    check(RUNS_LIMIT.name, max_runs, path=("--max-runs",))
    check(EXACT_LIMIT.name, exact_budget or 0, path=("--exact-budget",))
    check(SAMPLE_LIMIT.name, sample_budget, path=("--sample-budget",))
    check(SOLVE_LIMIT.name, high - low, path=("--to",), shown=f"a range of {high - low} values")


def check_seed(seed: int | None, *, path: tuple[str, ...] = ("--seed",)) -> None:
    """Refuse a seed longer than ``input.integer_digits``, as ``fracas resolve`` does: a
    seed is a scenario's integer like any other, wherever it is typed."""
    if seed is None:
        return
    from fracas.io.bounds import INTEGER_DIGITS

    digits = digit_count(seed)
    check(INTEGER_DIGITS.name, digits, path=path, shown=f"a seed of {digits} digits")


class Method(StrEnum):
    auto = "auto"
    exact = "exact"
    mc = "mc"


def odds_interrupted(done: Tracker) -> str:
    """What Ctrl-C during odds reports: the runs sampled, or how far an exact walk got.

    >>> tracker = Tracker(show=False)
    >>> tracker.start(8_000_000, "step plays", "rankflank")
    >>> tracker.advance(250_000, "step plays")
    >>> odds_interrupted(tracker)
    'exact odds stopped after 250,000 of at most 8,000,000 step plays'
    """
    if done.total.get("runs") or not done.total.get("step plays"):
        return f"{done.finished('runs')} of the last odds finished"
    plays, budget = done.done.get("step plays", 0), done.total["step plays"]
    return f"exact odds stopped after {plays:,} of at most {budget:,} step plays"


def odds_command(
    file: FileArg,
    method: Annotated[
        Method,
        typer.Option(
            metavar="auto|exact|mc", help="exact, mc (Monte Carlo), or auto: exact when it fits."
        ),
    ] = Method.auto,
    seed: SeedOpt = None,
    runs: Annotated[
        int | None, typer.Option(metavar="N", help="Monte Carlo repetitions (default 10,000).")
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(
            metavar="P", help="Sample until every interval's half-width is below this, e.g. 0.005."
        ),
    ] = None,
    max_runs: Annotated[
        int, typer.Option(metavar="N", help="Most repetitions while sampling towards --precision.")
    ] = DEFAULT_MAX_RUNS,
    confidence: Annotated[
        float, typer.Option(metavar="LEVEL", help="Level of the intervals.")
    ] = 0.95,
    exact_budget: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="Most step plays exact odds may take (default: "
            f"{EXACT_BUDGET:,} with --method exact, {AUTO_EXACT_BUDGET:,} with auto).",
        ),
    ] = None,
    sample_budget: Annotated[
        int, typer.Option(metavar="N", help="Most dice rolls Monte Carlo may take over all runs.")
    ] = SAMPLE_BUDGET,
    exact_fractions: Annotated[
        bool, typer.Option("--exact-fractions", help="Show exact odds as fractions (5/36).")
    ] = False,
    exact_tolerance: Annotated[
        float,
        typer.Option(
            metavar="P",
            help="Exact odds in floats leave out branches less likely than this and report "
            "the probability left out; 0 keeps every branch.",
        ),
    ] = EXACT_TOLERANCE,
    chart: Annotated[
        bool, typer.Option("--chart/--no-chart", help="Bars of unicode blocks in the tables.")
    ] = True,
    plot: Annotated[
        Path | None,
        typer.Option(
            metavar="PATH",
            help="Also draw the headline and the distributions to a .png or .svg file.",
        ),
    ] = None,
    solve_path: Annotated[
        str | None,
        typer.Option(
            "--solve",
            metavar="KEY",
            help="Find the smallest integer value of this field (e.g. units[0].models) "
            "that reaches --target.",
        ),
    ] = None,
    target: Annotated[
        float | None, typer.Option(metavar="T", help="The probability (or metric value) to reach.")
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(
            metavar="GOAL",
            help="What --target measures: NAME=VALUE (also >=, <=, >, <) for a probability, "
            "or NAME for the metric's mean (its value, for a deterministic ruleset). NAME is "
            "a metric's key or its label; `fracas metrics FILE` lists them with their values.",
        ),
    ] = None,
    solve_from: Annotated[
        int, typer.Option("--from", metavar="N", help="Smallest value to try.")
    ] = 0,
    solve_to: Annotated[
        int, typer.Option("--to", metavar="N", help="Largest value to try.")
    ] = 10_000,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="Local processes sharing the work (default: every core): all of them for "
            "Monte Carlo runs, two at most for exact odds; 1 does everything in this "
            "process. The numbers are the same.",
        ),
    ] = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
    limits: LimitOpt = None,
) -> None:
    """Outcome probabilities of a scenario: exact where tractable, sampled otherwise.

    \b
    Examples:
      fracas odds examples/rankflank/flank_charge.yaml
      fracas odds examples/d100/bottle_out.yaml --method mc --precision 0.01 --plot odds.svg
      fracas odds examples/rankflank/frontal_charge.yaml --set parameters.max_rounds=1 \\
          --solve 'units[0].models' --target 0.9 --metric winner=Empire
    """
    scenario = load(file, settings, limits)
    with limits_in_force(scenario.limits):
        try:
            # --max-runs caps a --precision question only: its default, unasked, is no work
            # (a lowered odds.runs must not refuse it); a number typed is checked.
            asked = precision is not None or max_runs != DEFAULT_MAX_RUNS
            capped = max_runs if asked else 0
            _check_work_options(runs, capped, exact_budget, sample_budget, solve_from, solve_to)
            check_seed(seed)
        except ScenarioError as exc:
            raise exc.located("command line") from None
    options: dict[str, Any] = {
        "method": method.value,
        "seed": seed if seed is not None else (scenario.header.seed or 0),
        "runs": runs,
        "precision": precision,
        "max_runs": max_runs,
        "confidence": confidence,
        "exact_budget": exact_budget,
        "sample_budget": sample_budget,
        "exact_fractions": exact_fractions,
        "exact_tolerance": exact_tolerance,
    }
    title = scenario.header.title or file.name
    try:
        from fracas.analysis.stats import check_confidence

        # Before any work: a level no interval can have in a float is refused in one line,
        # and a chart that cannot be drawn (no plotting library) throws no work away.
        check_confidence(confidence, "--confidence")
        # An -o or --plot that cannot be written throws no work away either.
        check_output(output)
        if plot is not None:
            from fracas.analysis.plot import check_charts

            check_charts(plot)
            check_apart(output, plot)
            check_output(plot)
        with (
            limits_in_force(scenario.limits),  # --limit work.processes bounds --workers
            long_work(
                workers=workers,
                scheduler=scheduler,
                quiet=quiet,
                interrupted=odds_interrupted,
            ),
        ):
            if solve_path is None:
                if target is not None or metric is not None:
                    raise FracasError("--target and --metric need --solve FIELD")
                from fracas.analysis.odds import odds

                result = odds(scenario, **options)
                extra: tuple[Section, ...] = ()
                extra_data: dict[str, Any] = {}
            else:
                answer = _solve(scenario, solve_path, target, metric, solve_from, solve_to, options)
                result = answer.result
                # The odds shown are those of the value found: the title says which.
                title = f"{title} — at {answer.path} = {answer.value}"
                extra = (_solve_section(answer),)
                extra_data = {"solve": _solve_data(answer)}
        from fracas.analysis.reporting import odds_report

        report = odds_report(
            result,
            title=title,
            fractions=exact_fractions,
            chart=chart,
            extra=extra,
            extra_data=extra_data,
        )
        stamped = scenario.stamp(report)
        text = render(stamped, fmt, output)
        drawn = None if plot is None else _chart(result, plot, title, stamped.footer())
    except ScenarioError:
        raise
    except FracasError as exc:
        raise ScenarioError(str(exc), source=str(file)) from None
    if drawn is None or plot is None:
        write_output(text, output)
        return
    # All or nothing: the chart waits beside its target until the report is written.
    try:
        write_output(text, output)
        os.replace(drawn, plot)
        typer.echo(f"wrote {plot}", err=True)
    finally:
        if drawn.exists():
            drawn.unlink()


def _chart(result: OddsResult, path: Path, title: str, footer: str) -> Path:
    """Draw the chart into a hidden file beside ``path``, ready to be renamed into place;
    its metadata carries the report's ``footer`` (seed, scenario, version)."""
    from fracas.analysis.plot import chart_bytes, chart_format

    data = chart_bytes(result, chart_format(path), title=title, description=footer)
    return chart_beside(data, path)


def _solve(
    scenario: Scenario,
    path: str,
    target: float | None,
    metric: str | None,
    low: int,
    high: int,
    options: dict[str, Any],
) -> SolveResult:
    from fracas.analysis.solve import parse_goal, solve
    from fracas.io.scenario import (
        check_settable,
        get_path,
        index_path,
        named_path,
        scenario_from_document,
        set_path,
    )

    if target is None:
        raise FracasError("--solve needs --target (a probability, or a metric value)")
    source = scenario.source
    try:
        # A key left at its default (units[0].level, parameters.level_percent) is one that
        # --set and --vary take: it is solved for when a scenario with it set loads.
        check_settable(scenario.document, path, low, source=source)
    except ScenarioError:
        get_path(scenario.document, path, source=source)  # names the key that is not there
        raise
    goal = parse_goal(metric, target, ruleset=scenario.ruleset.name)
    # Worked on with indices, shown with names: units[0].models reads units[Halberdiers].models.
    place = index_path(scenario.document, path, source=source)

    def scenario_at(value: int) -> Scenario:
        document = set_path(scenario.document, place, value, source=source)
        return scenario_from_document(document, source=source)

    shown = named_path(scenario.document, place)
    return solve(scenario_at, goal, path=shown, low=low, high=high, **options)


def _measure(value: float) -> str:
    return decimal_text(value, 4) if value % 1 else str(int(value))


def _solve_section(answer: SolveResult) -> Section:
    previous = answer.previous
    lines = [
        f"{answer.path} = {answer.value} is the smallest value with "
        f"{answer.goal.describe()}: it gives {_measure(answer.measured)}."
    ]
    if previous is not None and previous.measured is not None:
        lines.append(f"At {previous.value} it gives {_measure(previous.measured)}.")
    elif previous is not None:
        lines.append(f"{previous.value} is not a valid value: {previous.problem}.")
    indistinct = answer.indistinct
    if indistinct:
        values = ", ".join(str(value) for value in indistinct)
        lines.append(
            f"Not told apart at this many runs: the intervals of {values} hold the target "
            f"{answer.goal.target:g}, so the smallest value may lie anywhere from "
            f"{min(indistinct[0], answer.value)} to {max(indistinct[-1], answer.value)}; "
            "more runs (--runs) narrow it."
        )
    lines.append(f"The odds below are those at {answer.path} = {answer.value}.")
    sampled = any(p.low != p.high for p in answer.probes if p.measured is not None)
    rows = tuple(
        (
            str(probe.value),
            _measure(probe.measured) if probe.measured is not None else f"invalid: {probe.problem}",
            *(
                (
                    f"{_measure(probe.low)} – {_measure(probe.high)}"
                    if probe.low is not None and probe.high is not None
                    else "",
                )
                if sampled
                else ()
            ),
        )
        for probe in answer.probes
    )
    columns = ("value tried", "measured", *(("interval",) if sampled else ()))
    table = Table(columns, rows, title="Search")
    return Section(
        "What would it take", (Text(lines[0], strong=True), *map(Text, lines[1:]), table)
    )


def _solve_data(answer: SolveResult) -> dict[str, Any]:
    return {
        "path": answer.path,
        "goal": answer.goal.describe(),
        "metric": answer.goal.metric,
        "target": answer.goal.target,
        "value": answer.value,
        "measured": answer.measured,
        "indistinct": list(answer.indistinct),
        "probes": [
            {
                "value": p.value,
                "measured": p.measured,
                "low": p.low,
                "high": p.high,
                "problem": p.problem or None,
            }
            for p in answer.probes
        ],
    }


#: Sampled battles behind the values ``fracas metrics`` lists (a quick look, not odds).
METRICS_LOOK_RUNS = 200
#: Values listed per metric before the rest are counted.
METRICS_SHOWN_VALUES = 12


def metrics_command(
    file: FileArg,
    settings: SetOpt = None,
    fmt: ListFormatOpt = ListFormat.text,
    output: OutputOpt = None,
) -> None:
    """List a scenario's metrics: the keys and labels --metric takes, and their values.

    The values are those of a quick look: one play for a ruleset without dice, else
    200 sampled battles from seed 0 (a rare value may be missing; `fracas odds` gives them
    all with their odds).

    \b
    Example:
      fracas metrics examples/rankflank/frontal_charge.yaml
    """
    from fracas.analysis.odds import odds

    scenario = load(file, settings)
    try:
        result = odds(scenario, method="mc", runs=METRICS_LOOK_RUNS, seed=0)
    except FracasError as exc:
        raise ScenarioError(str(exc), source=str(file)) from None
    rows = [
        {
            "key": metric.name,
            "label": metric.title,
            "kind": "numeric" if metric.numeric else "categorical",
            "values": [entry.value for entry in metric.values],
        }
        for metric in result.metrics
    ]
    if fmt is ListFormat.json:
        import json

        look = "one play" if scenario.ruleset.deterministic else f"{METRICS_LOOK_RUNS} runs"
        document = {"source": str(file), "values_from": look, "metrics": rows}
        write_output(json.dumps(document, indent=2, ensure_ascii=False) + "\n", output)
        return
    from fracas._version import __version__
    from fracas.core.escape import printable
    from fracas.core.report import Report
    from fracas.io.render import render_report

    table_rows = []
    for row in rows:
        values = [str(value) for value in row["values"]]
        shown = ", ".join(values[:METRICS_SHOWN_VALUES])
        if len(values) > METRICS_SHOWN_VALUES:
            shown += f", … ({len(values)} values)"
        table_rows.append(
            (printable(str(row["key"])), printable(str(row["label"])), str(row["kind"]), shown)
        )
    look = (
        "its value in the one play there is"
        if scenario.ruleset.deterministic
        else f"values seen in {METRICS_LOOK_RUNS} sampled battles"
    )
    report = Report(
        scenario.ruleset.name,
        f"Metrics — {scenario.header.title or file.name}",
        (
            Section(
                "Metrics",
                (
                    Text(f"Give --metric a key or a label; {look}."),
                    Table(("key", "label", "kind", "values"), tuple(table_rows)),
                ),
            ),
        ),
        version=__version__,
    )
    text = render_report(scenario.stamp(report), "text", width=output_width(output))
    write_output(text + "\n", output)
