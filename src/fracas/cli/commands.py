"""The ``fracas`` command. Every command reports bad input as one line and exits with 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from fracas._version import __version__
from fracas.cli.common import (
    EXIT_BAD_INPUT,
    AsciiOpt,
    FileArg,
    FoldOpt,
    Format,
    FormatOpt,
    Forum,
    ForumOpt,
    LimitOpt,
    OutputOpt,
    SeedOpt,
    SetOpt,
    error_line,
    friendly_errors,
    load,
    located,
    render,
    write_output,
)
from fracas.cli.fair import commit_command, verify_command
from fracas.cli.odds import odds_command
from fracas.cli.sweep import sweep_command
from fracas.core.errors import FracasError, ScenarioError
from fracas.io.fair import fair_resolve, mark_revealed, secret_from_file
from fracas.io.fair import post as fair_post
from fracas.io.render import PostStyle, render_report
from fracas.io.scenario import ADVISE_BUDGET
from fracas.rulesets import available_rulesets, find_ruleset

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
    typer.echo(f"\nOffers: {', '.join(ruleset.capabilities())}")


@app.command("validate")
@friendly_errors
def validate_command(file: FileArg, settings: SetOpt = None, limits: LimitOpt = None) -> None:
    """Check a scenario file without resolving it.

    Example: fracas validate examples/hex/river_crossing.yaml
    """
    scenario = load(file, settings, limits)
    typer.echo(f"ok: {file} (ruleset {scenario.ruleset.name}, sha256:{scenario.sha256})")


@app.command("resolve")
@friendly_errors
def resolve_command(
    file: FileArg,
    seed: SeedOpt = None,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    secret_file: Annotated[
        Path | None,
        typer.Option(
            "--secret-file",
            help="Fair dice: derive the seed from this secret (see 'fracas commit'), the "
            "scenario and the --nonce texts, and seal the post for 'fracas verify'.",
        ),
    ] = None,
    nonces: Annotated[
        list[str] | None,
        typer.Option("--nonce", help="A player's nonce, in thread order. Repeatable."),
    ] = None,
    forum: ForumOpt = Forum.phpbb,
    ascii_only: AsciiOpt = False,
    fold: FoldOpt = False,
    limits: LimitOpt = None,
) -> None:
    """Resolve a scenario and print the report.

    Examples: fracas resolve examples/hex/river_crossing.yaml --format markdown;
    fracas resolve examples/d100/lair_raid.yaml --seed 42 --format bbcode -o post.txt;
    fracas resolve raid.yaml --secret-file raid.secret --nonce owl --nonce 7 -f bbcode --fold
    """
    scenario = load(file, settings, limits)
    style = PostStyle(forum=forum.value, ascii_only=ascii_only, fold=fold)
    if secret_file is None:
        if nonces:
            raise ScenarioError("--nonce needs --secret-file", source="command line")
        write_output(render_report(scenario.resolve(seed=seed), fmt.value, style), output)
        return
    if seed is not None:
        raise ScenarioError(
            "--seed and --secret-file exclude each other: the seed is derived",
            source="command line",
        )
    secret, _ = secret_from_file(secret_file)
    with located(file):
        report = fair_resolve(scenario, secret, nonces or [])
    write_output(fair_post(scenario, report, fmt.value, style), output)
    mark_revealed(secret_file)


@app.command("forecast")
@friendly_errors
def forecast_command(
    file: FileArg,
    attacker: Annotated[str, typer.Option(help="Id of the attacking unit.")],
    target: Annotated[str, typer.Option(help="Id of the unit attacked.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    limits: LimitOpt = None,
) -> None:
    """Preview one attack without changing the board.

    Example: fracas forecast examples/hex/river_crossing.yaml --attacker tanks --target mg
    """
    scenario = load(file, settings, limits)
    with located(file):
        report = scenario.forecast(attacker, target)
    write_output(render(report, fmt), output)


@app.command("advise")
@friendly_errors
def advise_command(
    file: FileArg,
    side: Annotated[str, typer.Option(help="The side to advise.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    plan: Annotated[
        bool, typer.Option("--plan", help="Propose an order of attacks for the whole side.")
    ] = False,
    width: Annotated[
        int | None, typer.Option(help="With --plan: the search width (default: the ruleset's).")
    ] = None,
    limits: LimitOpt = None,
) -> None:
    """Rank every legal attack of a side by its forecast, or plan the side's whole turn.

    Example: fracas advise examples/hex/encirclement.yaml --side blue --plan
    """
    scenario = load(file, settings, limits)
    with located(file):
        if plan:
            # A plan is advice for the whole turn: the same budget bounds it.
            with scenario.budget(ADVISE_BUDGET.name):
                found = scenario.ruleset.plan(scenario.model, side, width=width)
            report = scenario.stamp(found)
        elif width is not None:
            raise ScenarioError("only goes with --plan", path=("--width",))
        else:
            report = scenario.advise(side)
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
    limits: LimitOpt = None,
) -> None:
    """Draw the scenario as an SVG picture.

    Example: fracas render examples/hex/encirclement.yaml -o board.svg --attacker a --target b
    """
    if (attacker is None) != (target is None):
        raise ScenarioError("give both --attacker and --target, or neither", source=str(file))
    scenario = load(file, settings, limits)
    with located(file):
        svg = scenario.ruleset.picture(scenario.model, attacker=attacker, target=target)
    write_output(svg, output)
    typer.echo(f"wrote {output}")


app.command("odds")(friendly_errors(odds_command))
app.command("commit")(friendly_errors(commit_command))
app.command("verify")(friendly_errors(verify_command))
app.command("sweep")(friendly_errors(sweep_command))


@app.command("serve")
@friendly_errors
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    time_limit: Annotated[
        float, typer.Option(min=0.1, help="Seconds the server works on one answer at most.")
    ] = 30.0,
    max_body: Annotated[int, typer.Option(min=1, help="Largest request body, in bytes.")] = (
        256 * 1024
    ),
    exact_budget: Annotated[
        int | None, typer.Option(min=1, help="Most exact-odds steps a request may ask for.")
    ] = None,
    sample_budget: Annotated[
        int | None, typer.Option(min=1, help="Most sampled dice rolls a request may ask for.")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Computations at once.")] = 2,
) -> None:
    """Start the web calculator (needs the web extra: pip install 'fracas[web]').

    Example: fracas serve --port 8000, then open http://127.0.0.1:8000
    """
    try:
        from fracas.web import Limits, serve
    except ImportError as exc:
        raise FracasError(
            f"fracas serve needs the web extra ({exc.name} is missing): pip install 'fracas[web]'"
        ) from None
    defaults = Limits()
    limits = Limits(
        body_bytes=max_body,
        time_limit=time_limit,
        exact_budget=exact_budget or defaults.exact_budget,
        sample_budget=sample_budget or defaults.sample_budget,
        workers=workers,
    )
    typer.echo(f"fracas {__version__}: serving on http://{host}:{port} (Ctrl+C stops)")
    serve(host, port, limits)


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
    """Entry point of the ``fracas`` script and ``python -m fracas``.

    Usage mistakes (an unknown option, a value of the wrong kind) get the same one-line
    ``fracas: error: …`` and exit code 2 as a bad scenario.
    """
    if len(sys.argv) < 2:
        app()  # prints the help
        return
    command = typer.main.get_command(app)
    try:
        code = command.main(prog_name="fracas", standalone_mode=False)
    except typer.Abort:
        typer.echo("fracas: aborted", err=True)
        sys.exit(1)
    except typer.TyperException as exc:
        context = getattr(exc, "ctx", None)
        where = context.command_path if context is not None else "fracas"
        message = exc.format_message().replace("Value error, ", "")
        typer.echo(error_line(f"{message} (see '{where} --help')"), err=True)
        sys.exit(getattr(exc, "exit_code", EXIT_BAD_INPUT))
    sys.exit(code if isinstance(code, int) else 0)
