"""The ``fracas`` command. Every command reports bad input as one line and exits with 2."""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
import yaml

from fracas._version import __version__
from fracas.cli.odds import odds_command
from fracas.core.errors import FracasError, ScenarioError
from fracas.core.report import Report
from fracas.io.render import RENDERERS
from fracas.io.scenario import Scenario, load_scenario
from fracas.rulesets import available_rulesets, find_ruleset

EXIT_BAD_INPUT = 2

app = typer.Typer(
    name="fracas",
    help=(
        "Resolve and forecast wargame combat: exact, explained, reproducible.\n\n"
        "Examples:\n\n"
        "  fracas rulesets\n\n"
        "  fracas resolve examples/hex/river_crossing.yaml\n\n"
        "  fracas resolve examples/d100/lair_raid.yaml --seed 7 --format bbcode\n\n"
        "  fracas schema hex > hex.schema.json"
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


class Format(StrEnum):
    text = "text"
    markdown = "markdown"
    bbcode = "bbcode"
    json = "json"


F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(command: F) -> F:
    """Turn fracas errors into one line on stderr and exit code 2 (never a traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except FracasError as exc:
            typer.echo(f"fracas: error: {exc}", err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None

    return wrapper  # type: ignore[return-value]


def write_output(text: str, output: Path | None) -> None:
    """Print ``text``, or write it to ``output`` atomically (all or nothing)."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    directory = output.parent if str(output.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{output.name}.")
    except OSError as exc:
        raise ScenarioError(f"cannot write output: {exc.strerror}", source=str(output)) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, output)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def parse_overrides(settings: list[str] | None) -> list[tuple[str, Any]]:
    """``KEY.PATH=VALUE`` pairs; values are read as YAML scalars (3, 0.5, true, text)."""
    pairs: list[tuple[str, Any]] = []
    for setting in settings or []:
        path, equals, raw = setting.partition("=")
        if not equals or not path:
            raise ScenarioError(
                f"--set expects KEY.PATH=VALUE, got {setting!r}", source="command line"
            )
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            value = raw
        pairs.append((path.strip(), value))
    return pairs


def render(report: Report, fmt: Format) -> str:
    return RENDERERS[fmt.value](report)


FileArg = Annotated[Path, typer.Argument(help="Scenario file (.yaml, .json or .toml).")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a scenario value before loading, e.g. --set units[0].level=5 "
        "or --set parameters.loss_exponent=3. Repeatable.",
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(help="Seed for the dice (default: the scenario's seed, else 0)."),
]


def load(file: Path, settings: list[str] | None = None) -> Scenario:
    return load_scenario(file, overrides=parse_overrides(settings))


@app.command("rulesets")
@friendly_errors
def rulesets_command(
    name: Annotated[str | None, typer.Argument(help="Show one ruleset's parameters.")] = None,
) -> None:
    """List the registered rulesets, or the parameters of one.

    Example: fracas rulesets hex
    """
    if name is None:
        for cls in available_rulesets():
            kind = "deterministic" if cls.deterministic else "dice"
            aliases = f" (aliases: {', '.join(cls.aliases)})" if cls.aliases else ""
            typer.echo(f"{cls.name:<10} {kind:<13} {cls.summary}{aliases}")
        return
    ruleset = find_ruleset(name)
    typer.echo(f"{ruleset.name} — {ruleset.title}\n")
    for param, default, description in ruleset.parameters():
        typer.echo(f"  {param} = {json.dumps(default, ensure_ascii=False)}")
        typer.echo(f"      {description}")


@app.command("validate")
@friendly_errors
def validate_command(file: FileArg, settings: SetOpt = None) -> None:
    """Check a scenario file without resolving it.

    Example: fracas validate examples/hex/river_crossing.yaml
    """
    scenario = load(file, settings)
    typer.echo(f"ok: {file} (ruleset {scenario.ruleset.name}, sha256:{scenario.sha256})")


@app.command("resolve")
@friendly_errors
def resolve_command(
    file: FileArg,
    seed: SeedOpt = None,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
) -> None:
    """Resolve a scenario and print the report.

    Examples: fracas resolve examples/hex/river_crossing.yaml --format markdown;
    fracas resolve examples/d100/lair_raid.yaml --seed 42 --format bbcode -o post.txt
    """
    scenario = load(file, settings)
    write_output(render(scenario.resolve(seed=seed), fmt), output)


@app.command("forecast")
@friendly_errors
def forecast_command(
    file: FileArg,
    attacker: Annotated[str, typer.Option(help="Id of the attacking unit.")],
    target: Annotated[str, typer.Option(help="Id of the unit attacked.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
) -> None:
    """Preview one attack without changing the board.

    Example: fracas forecast examples/hex/river_crossing.yaml --attacker tanks --target mg
    """
    scenario = load(file, settings)
    report = scenario.stamp(scenario.ruleset.forecast(scenario.model, attacker, target))
    write_output(render(report, fmt), output)


@app.command("advise")
@friendly_errors
def advise_command(
    file: FileArg,
    side: Annotated[str, typer.Option(help="The side to advise.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
) -> None:
    """Rank every legal attack of a side by its forecast.

    Example: fracas advise examples/hex/encirclement.yaml --side blue
    """
    scenario = load(file, settings)
    report = scenario.stamp(scenario.ruleset.advise(scenario.model, side))
    write_output(render(report, fmt), output)


@app.command("schema")
@friendly_errors
def schema_command(
    ruleset: Annotated[str, typer.Argument(help="Ruleset name or alias.")],
    output: OutputOpt = None,
) -> None:
    """Print the JSON Schema of a ruleset's scenario files.

    Example: fracas schema hex > hex.schema.json
    """
    schema = find_ruleset(ruleset).json_schema()
    write_output(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", output)


@app.command("render")
@friendly_errors
def render_command(
    file: FileArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="SVG file to write.")],
    attacker: Annotated[str | None, typer.Option(help="Draw this unit's attack.")] = None,
    target: Annotated[str | None, typer.Option(help="The unit it attacks.")] = None,
    settings: SetOpt = None,
) -> None:
    """Draw the scenario as an SVG picture.

    Example: fracas render examples/hex/encirclement.yaml -o board.svg --attacker a --target b
    """
    if (attacker is None) != (target is None):
        raise ScenarioError("give both --attacker and --target, or neither", source=str(file))
    scenario = load(file, settings)
    svg = scenario.ruleset.picture(scenario.model, attacker=attacker, target=target)
    write_output(svg, output)
    typer.echo(f"wrote {output}")


app.command("odds")(friendly_errors(odds_command))


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"fracas {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=version_callback, is_eager=True, help="Show version."),
    ] = False,
) -> None:
    """Resolve and forecast wargame combat: exact, explained, reproducible."""


def main() -> None:
    """Entry point of the ``fracas`` script and ``python -m fracas``."""
    app()
