"""The ``fracas sweep`` command: one odds question over a grid of scenario values."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fracas.cli.common import (
    LimitOpt,
    OutputOpt,
    SetOpt,
    chart_beside,
    check_apart,
    check_output,
    output_width,
    parse_limits,
    parse_overrides,
    reading,
    write_output,
)
from fracas.cli.progress import QuietOpt, SchedulerOpt, WorkersOpt, long_work
from fracas.core.errors import FracasError, ScenarioError
from fracas.core.escape import excerpt, shell_word
from fracas.core.limits import limits_in_force

if TYPE_CHECKING:
    from fracas.analysis.sweep import Axis


class SweepFormat(StrEnum):
    text = "text"
    csv = "csv"
    json = "json"


class SweepMethod(StrEnum):
    auto = "auto"
    exact = "exact"
    mc = "mc"


#: Keys of a sweep file, beside ``scenario`` and ``vary`` (the command's long options).
FILE_KEYS = frozenset(
    {
        "scenario",
        "vary",
        "metric",
        "method",
        "seed",
        "runs",
        "precision",
        "max_runs",
        "confidence",
        "exact_budget",
        "sample_budget",
        "max_cells",
        "set",
    }
)
#: The sweep file's whole-number settings, with the least value each may take.
WHOLE_KEYS = {
    "seed": 0,
    "runs": 1,
    "max_runs": 1,
    "exact_budget": 1,
    "sample_budget": 1,
    "max_cells": 1,
}


def cell_scenario(
    document: Mapping[str, Any],
    source: str,
    settings: tuple[Any, ...],
    limits: Mapping[str, int] | None = None,
) -> Any:
    """The scenario of one sweep cell: the document with the cell's values set.

    Built the way ``fracas odds FILE --set PATH=VALUE … --limit NAME=N`` builds it, so a
    cell re-run that way gives the same numbers (``limits`` travel with the cell, as a cell
    may be built in another process).
    """
    from fracas.io.scenario import scenario_from_document, set_path

    with limits_in_force(limits):
        for path, value in settings:
            document = set_path(document, path, value, source=source)
        return scenario_from_document(document, source=source, limits=limits)


def _read_sweep_file(file: Path) -> dict[str, Any] | None:
    """The settings of a sweep file (a YAML mapping under ``sweep:``), or ``None`` for a
    scenario file."""
    # Read as a scenario is, within the input limits: FILE may be anything, /dev/zero too.
    from fracas.io.reader import parse_text, read_text

    text = read_text(file)
    if file.suffix.lower() not in (".yaml", ".yml"):
        return None
    document = parse_text(text, "yaml", str(file))
    if not isinstance(document, dict) or "sweep" not in document:
        return None
    settings = document["sweep"]
    if not isinstance(settings, dict):
        raise ScenarioError("must be a mapping of settings", source=str(file), path=("sweep",))
    for key in settings:
        if key not in FILE_KEYS:
            known = ", ".join(sorted(FILE_KEYS))
            raise ScenarioError(
                f"unknown setting (known: {known})", source=str(file), path=("sweep", str(key))
            )
    if "scenario" not in settings:
        raise ScenarioError("missing key", source=str(file), path=("sweep", "scenario"))
    for key, value in settings.items():
        _check_file_setting(key, value, str(file))
    return settings


def _check_file_setting(key: str, value: Any, source: str) -> None:
    """A sweep file's setting has the type its option has on the command line."""
    where: dict[str, Any] = {"source": source, "path": ("sweep", key)}
    if key in WHOLE_KEYS:
        least = WHOLE_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ScenarioError(
                f"must be a whole number of at least {least}, not {excerpt(value)}", **where
            )
    elif key in ("precision", "confidence"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScenarioError(f"must be a number, not {excerpt(value)}", **where)
        # The odds' own bounds, checked here so that the file's key is named.
        low, high = (0, 0.5) if key == "precision" else (0, 1)
        if not low < value < high:
            raise ScenarioError(
                f"must lie strictly between {low} and {high}, not {excerpt(value)}", **where
            )
    elif key in ("scenario", "metric", "method"):
        if not isinstance(value, str):
            raise ScenarioError(f"must be text, not {excerpt(value)}", **where)
        if key == "method" and value not in set(SweepMethod):
            raise ScenarioError(f"must be auto, exact or mc, not {excerpt(value)}", **where)


def _file_vary(settings: Mapping[str, Any], source: str) -> list[str]:
    vary = settings.get("vary", {})
    if not isinstance(vary, dict):
        raise ScenarioError(
            "must map key paths to values (a list, or a range A..B:STEP)",
            source=source,
            path=("sweep", "vary"),
        )
    import yaml

    from fracas.analysis.sweep import VaryError, parse_vary

    specs = []
    for path, values in vary.items():
        if isinstance(values, list):
            text = ",".join(yaml.safe_dump(v, default_flow_style=True).strip() for v in values)
            text = text.replace("\n...", "")
        else:
            text = str(values)
        spec = f"{path}={text}"
        try:
            parse_vary(spec)
        except VaryError as exc:
            # Written in the sweep file, not typed as --vary: the error names the file's key.
            raise ScenarioError(
                exc.problem, source=source, path=("sweep", "vary", str(path))
            ) from None
        specs.append(spec)
    return specs


def _format_of(fmt: SweepFormat | None, output: Path | None) -> SweepFormat:
    if fmt is not None:
        return fmt
    if output is not None and output.suffix.lower() in (".csv", ".json"):
        return SweepFormat(output.suffix.lower().lstrip("."))
    return SweepFormat.text


def sweep_command(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="Scenario file, or a sweep file (YAML with a 'sweep:' key)."
        ),
    ],
    vary: Annotated[
        list[str] | None,
        typer.Option(
            metavar="PATH=VALUES",
            help="A value to vary: PATH=A..B[:STEP] (whole numbers) or PATH=V1,V2,… "
            "Repeatable; the grid is every combination.",
        ),
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(
            metavar="GOAL",
            help="What each cell measures: NAME=VALUE (also >=, <=, >, <) for a "
            "probability, or NAME for a mean.",
        ),
    ] = None,
    method: Annotated[
        SweepMethod | None,
        typer.Option(metavar="auto|exact|mc", help="exact, mc or auto, as for fracas odds."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            min=0, metavar="N", help="The sweep's seed; each cell's seed is derived from it."
        ),
    ] = None,
    runs: Annotated[
        int | None, typer.Option(metavar="N", help="Monte Carlo runs per cell.")
    ] = None,
    precision: Annotated[
        float | None, typer.Option(metavar="P", help="Sample each cell until this half-width.")
    ] = None,
    max_runs: Annotated[
        int | None, typer.Option(metavar="N", help="Most runs per cell with --precision.")
    ] = None,
    confidence: Annotated[
        float | None, typer.Option(metavar="LEVEL", help="Level of the intervals.")
    ] = None,
    exact_budget: Annotated[
        int | None, typer.Option(metavar="N", help="Most steps exact odds may take per cell.")
    ] = None,
    sample_budget: Annotated[
        int | None, typer.Option(metavar="N", help="Most dice rolls Monte Carlo may take per cell.")
    ] = None,
    max_cells: Annotated[
        int | None,
        typer.Option(min=1, metavar="N", help="Largest grid allowed (default 10,000 cells)."),
    ] = None,
    fmt: Annotated[
        SweepFormat | None,
        typer.Option(
            "--format",
            "-f",
            metavar="text|csv|json",
            help="text, csv or json (default: from -o's suffix).",
        ),
    ] = None,
    output: OutputOpt = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            metavar="PATH",
            help="Also draw a line chart (one value varied) or heatmap (two), .png/.svg.",
        ),
    ] = None,
    settings: SetOpt = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
    limits: LimitOpt = None,
) -> None:
    """One odds question over a grid of scenario values: one row per cell, with its interval.

    Re-run one cell alone with fracas odds FILE --set PATH=VALUE … --seed CELL_SEED.

    \b
    Example:
      fracas sweep examples/rankflank/frontal_charge.yaml --method mc --runs 1000 \\
          --vary 'units[0].models=10..40:5' --vary 'units[1].models=30,40,50' \\
          --metric winner=Empire -o sweep.csv --plot sweep.png
    """
    limit_overrides = parse_limits(limits)
    with limits_in_force(limit_overrides):
        _sweep(
            file,
            given={
                "vary": vary,
                "metric": metric,
                "method": method.value if method is not None else None,
                "seed": seed,
                "runs": runs,
                "precision": precision,
                "max_runs": max_runs,
                "confidence": confidence,
                "exact_budget": exact_budget,
                "sample_budget": sample_budget,
                "max_cells": max_cells,
            },
            limits=limit_overrides,
            fmt=fmt,
            output=output,
            plot=plot,
            settings=settings,
            workers=workers,
            scheduler=scheduler,
            quiet=quiet,
        )


def _sweep(
    file: Path,
    *,
    given: Mapping[str, Any],
    limits: Mapping[str, int],
    fmt: SweepFormat | None,
    output: Path | None,
    plot: Path | None,
    settings: list[str] | None,
    workers: int | None,
    scheduler: str | None,
    quiet: bool,
) -> None:
    """The sweep, with the ``--limit`` overrides in force."""
    from fracas.analysis.sweep import (
        MAX_CELLS,
        chart_bytes,
        check_grid,
        footer,
        parse_vary,
        sweep,
        to_csv,
        to_json,
        to_text,
    )
    from fracas.io.scenario import load_scenario

    options_file = _read_sweep_file(reading(file)) or {}
    scenario_file = file
    if options_file:
        scenario_file = (file.parent / str(options_file["scenario"])).resolve()
        with contextlib.suppress(ValueError):
            scenario_file = scenario_file.relative_to(Path.cwd())
    # Where each option came from, so that an error names the option or the file's key.
    origins: dict[str, tuple[str, tuple[str, ...]]] = {}

    def pick(name: str, default: Any = None) -> Any:
        if given.get(name) is not None:
            origins[name] = ("command line", ("--" + name.replace("_", "-"),))
            return given[name]
        if name in options_file:
            origins[name] = (str(file), ("sweep", name))
            return options_file[name]
        return default

    specs = list(given["vary"] or []) or _file_vary(options_file, str(file))
    chosen_metric = pick("metric")
    if chosen_metric is None:
        raise FracasError("a sweep needs --metric, e.g. --metric winner=Empire")
    chosen = {
        name: pick(name)
        for name in ("runs", "precision", "max_runs", "confidence", "exact_budget", "sample_budget")
    }
    sweep_seed = pick("seed")
    max_cells = pick("max_cells", MAX_CELLS)
    _check_work_options(chosen, sweep_seed, max_cells, origins)
    base_settings = list(settings or [])
    file_set = options_file.get("set", {})
    if not isinstance(file_set, dict):
        raise ScenarioError("must map key paths to values", source=str(file), path=("sweep", "set"))
    overrides = [(str(k), v) for k, v in file_set.items()] + parse_overrides(base_settings)
    try:
        scenario = load_scenario(reading(scenario_file), overrides=overrides, limits=limits)
    except ScenarioError as exc:
        if scenario_file == file or exc.hint is not None:
            raise
        # The scenario a sweep file names: say where it was named.
        raise ScenarioError(
            exc.problem, source=exc.source, path=exc.path, hint=f"named by {file}: sweep.scenario"
        ) from None
    source = str(scenario_file)
    # Each axis is worked out on its path with indices (so a cell's seed is the same
    # whether a unit was named or counted) and shown with names.
    axes = [_by_index(scenario.document, source, parse_vary(spec)) for spec in specs]
    for axis in axes:
        _check_digits(axis)
    # The grid's size is known from its axes: refused before anything is laid out or started.
    check_grid(axes, max_cells=max_cells)
    for axis in axes:
        _check_path(scenario.document, source, axis.path, axis.values[0])

    options = {
        "method": str(pick("method", "auto")),
        **{key: value for key, value in chosen.items() if value is not None},
    }
    if sweep_seed is None:
        sweep_seed = scenario.header.seed or 0
    kind = _format_of(fmt, output)
    # Files that cannot be written are refused before the grid is worked out, not after.
    check_output(output)
    if plot is not None:
        from fracas.analysis.plot import check_charts

        check_charts(plot)
        check_apart(output, plot)
        check_output(plot)
        if len(axes) not in (1, 2):
            raise FracasError("--plot draws one varied value (a line) or two (a heatmap)")
    scenario_at = partial(cell_scenario, dict(scenario.document), source, limits=dict(limits))
    with long_work(
        workers=workers,
        scheduler=scheduler,
        quiet=quiet,
        interrupted=lambda done: f"{done.finished('cells')} finished",
    ):
        result = sweep(
            scenario_at,
            axes,
            str(chosen_metric),
            seed=int(sweep_seed),
            max_cells=int(max_cells),
            **options,
        )
    made = footer(
        result,
        ruleset=scenario.ruleset.name,
        scenario_hash=scenario.sha256,
        overrides=scenario.overrides,
    )
    if kind is SweepFormat.csv:
        text = to_csv(result)
    elif kind is SweepFormat.json:
        text = to_json(result, source=source)
    else:
        hint = _rerun_hint(source, result, overrides, limits, output_width(output))
        text = f"{to_text(result)}{hint}\n{made}\n"
    drawn = None
    unplotted: FracasError | None = None
    if plot is not None:
        try:
            drawn = chart_beside(
                chart_bytes(result, plot.suffix.lower()[1:], description=made), plot
            )
        except FracasError as exc:  # the grid's numbers are worth keeping all the same
            unplotted = exc
    try:
        write_output(text, output)
        if drawn is not None and plot is not None:
            os.replace(drawn, plot)
            typer.echo(f"wrote {plot}", err=True)
    finally:
        if drawn is not None and drawn.exists():
            drawn.unlink()
    if unplotted is not None:
        raise FracasError(f"the table is written; the chart is not: {unplotted}")


def _by_index(document: Any, source: str, axis: Any) -> Any:
    from fracas.io.scenario import index_path, named_path

    path = index_path(document, axis.path, source=source)
    return dataclasses.replace(axis, path=path, shown=named_path(document, path))


def _check_digits(axis: Axis) -> None:
    """Refuse a whole number longer than ``input.integer_digits``, as ``--set`` does: a
    value varied is a scenario's value like any other, wherever it is typed."""
    from fracas.core.escape import digit_count
    from fracas.core.limits import check
    from fracas.io.bounds import INTEGER_DIGITS

    for value in axis.values:
        if isinstance(value, int) and not isinstance(value, bool):
            digits = digit_count(value)
            check(
                INTEGER_DIGITS.name,
                digits,
                path=("--vary",),
                shown=f"{axis.path}: an integer of {digits} digits",
            )


def _check_work_options(
    chosen: Mapping[str, Any],
    seed: int | None,
    max_cells: int,
    origins: Mapping[str, tuple[str, tuple[str, ...]]],
) -> None:
    """The numbers that set the work, bounded by the limits ``fracas odds`` puts on its own
    options (each cell is an odds question), and the grid by ``sweep.cells``."""
    from fracas.cli.odds import WORK_LIMITS, check_seed
    from fracas.core.budgets import CELLS_LIMIT
    from fracas.core.limits import check

    def located(name: str) -> tuple[str, tuple[str, ...]]:
        return origins.get(name, ("command line", ("--" + name.replace("_", "-"),)))

    for name, limit in WORK_LIMITS.items():
        if chosen.get(name) is not None:
            source, path = located(name)
            _at(source, check, limit, chosen[name], path=path)
    source, path = located("max_cells")
    _at(source, check, CELLS_LIMIT.name, max_cells, path=path)
    source, path = located("seed")
    _at(source, check_seed, seed, path=path)
    confidence = chosen.get("confidence")
    if isinstance(confidence, int | float) and not isinstance(confidence, bool):
        from fracas.analysis.stats import ConfidenceError, check_confidence

        source, path = located("confidence")
        try:
            check_confidence(confidence)
        except ConfidenceError as exc:
            raise ScenarioError(str(exc), source=source, path=path) from None


def _at(source: str, function: Any, *args: Any, **kwargs: Any) -> None:
    """Call ``function``; a scenario error it raises names ``source``."""
    try:
        function(*args, **kwargs)
    except ScenarioError as exc:
        raise exc.located(source) from None


def _check_path(document: Any, source: str, path: str, value: Any) -> None:
    """A varied path must exist in the scenario, or be one that setting makes valid."""
    from fracas.io.scenario import check_settable

    try:
        check_settable(document, path, value, source=source)
    except ScenarioError as exc:
        raise FracasError(f"--vary {path}: no such key in {source} ({exc.problem})") from None


def _set_word(path: str, value: Any) -> str:
    """``--set PATH=VALUE`` as a shell word that ``--set`` reads back as ``value``."""
    from fracas.io.scenario import override_text

    return f"--set {shell_word(override_text(path, value))}"


def _rerun_hint(
    source: str,
    result: Any,
    overrides: list[tuple[str, Any]],
    limits: Mapping[str, int] | None = None,
    width: int = 100,
) -> str:
    """The command that gives the first cell's numbers: the sweep's own overrides (the
    sweep file's ``set:``, then ``--set``), the cell's values, its seed, the options and
    the limits raised (without them odds could refuse the options)."""
    if not result.cells:
        return ""
    cell = result.cells[0]
    words = [
        f"fracas odds {shell_word(source, file=True)}",
        *(_set_word(path, value) for path, value in [*overrides, *cell.settings]),
        f"--seed {cell.seed}",
        *(f"--{key.replace('_', '-')} {value}" for key, value in result.options.items()),
        *(f"--limit {name}={amount}" for name, amount in (limits or {}).items()),
    ]
    return f"\nRe-run a cell alone:\n{shell_lines(words, width)}\n"


def shell_lines(words: list[str], width: int) -> str:
    """A command's words on lines of at most ``width`` columns where they can be, each
    line but the last ending in `` \\`` so that the whole still pastes into a shell.

    >>> print(shell_lines(["fracas odds a.yaml", "--seed 5", "--runs 100"], 32))
      fracas odds a.yaml --seed 5 \\
        --runs 100
    """
    lines: list[str] = []
    line = "  " + words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) + 2 > width:
            lines.append(line + " \\")
            line = "    " + word
        else:
            line += " " + word
    return "\n".join([*lines, line])
