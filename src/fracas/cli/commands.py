"""The ``fracas`` command. Every command reports bad input as one line and exits with 2."""

from __future__ import annotations

import copy
import functools
import gc
import inspect
import json
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from fracas._version import __version__
from fracas.cli.armies import import_command
from fracas.cli.campaign import campaign_app
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
    ListFormat,
    ListFormatOpt,
    OutputOpt,
    SeedOpt,
    SetOpt,
    error_line,
    friendly_errors,
    load,
    located,
    names_a_file,
    output_path,
    output_width,
    reading,
    render,
    terminal_width,
    write_output,
)
from fracas.cli.examples import examples_command
from fracas.cli.fair import commit_command, verify_command
from fracas.cli.odds import metrics_command, odds_command
from fracas.cli.progress import QuietOpt, SchedulerOpt, Tracker, interruptible
from fracas.cli.sweep import sweep_command
from fracas.core.errors import FracasError, ScenarioError, UnsupportedError, format_path
from fracas.core.output_schema import OUTPUTS
from fracas.rulesets import AnyRuleset, available_rulesets, find_ruleset
from fracas.rulesets.base import TOP

# Start-up stays light (tests/cli/test_startup.py): scenarios, renderers, pydantic and
# the analysis are imported by the commands that use them, inside the command.

app = typer.Typer(
    name="fracas",
    help=(
        "Resolve and forecast wargame combat: exact, explained, reproducible.\n\n"
        "\b\n"
        "Examples:\n"
        "  fracas examples -o examples\n"
        "  fracas rulesets\n"
        "  fracas resolve examples/hex/river_crossing.yaml\n"
        "  fracas resolve examples/d100/lair_raid.yaml --seed 7 --format bbcode\n"
        "  fracas schema hex -o hex.schema.json\n\n"
        "Shell completion (bash, zsh, fish): fracas --install-completion"
    ),
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


class SchemaFormat(StrEnum):
    json = "json"


def _json(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def ruleset_sentence(cls: type[AnyRuleset]) -> str:
    """One ruleset as a sentence: its name, what it is for, whether it rolls dice, aliases.

    The summary is the ruleset's own words; "deterministic" is added only when they don't
    say it already.
    """
    summary = cls.summary.rstrip(".")
    if cls.deterministic:
        kind = "" if "deterministic" in summary.lower() else " No dice: every result is certain."
    else:
        kind = " Rolls seeded dice (--seed picks them)."
    aliases = f" Also called {', '.join(cls.aliases)}." if cls.aliases else ""
    return f"{cls.name} — {summary}.{kind}{aliases}"


@app.command("rulesets")
@friendly_errors
def rulesets_command(
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="Show one ruleset's parameters.")
    ] = None,
    fmt: ListFormatOpt = ListFormat.text,
    output: OutputOpt = None,
) -> None:
    """List the registered rulesets, or the parameters of one.

    \b
    Examples:
      fracas rulesets
      fracas rulesets hex
      fracas rulesets rankflank --format json
    """
    if name is None:
        classes = available_rulesets()
        if fmt is ListFormat.json:
            listing = [
                {
                    "name": cls.name,
                    "title": cls.title,
                    "summary": cls.summary,
                    "deterministic": cls.deterministic,
                    "aliases": list(cls.aliases),
                }
                for cls in classes
            ]
            write_output(_json(listing), output)
            return
        width = terminal_width()
        lines = [
            textwrap.fill(ruleset_sentence(cls), width=width, subsequent_indent="    ")
            for cls in classes
        ]
        write_output("\n".join(lines) + "\n", output)
        return
    ruleset = find_ruleset(name)
    parameters = ruleset.parameters()
    if fmt is ListFormat.json:
        document = {
            "name": ruleset.name,
            "title": ruleset.title,
            "offers": list(ruleset.capabilities()),
            "parameters": [
                {"name": param, "default": default, "description": description}
                for param, default, description in parameters
            ],
        }
        write_output(_json(document), output)
        return
    width = terminal_width()
    lines = [f"{ruleset.name} — {ruleset.title}", ""]
    for param, default, description in parameters:
        lines += _default_lines(param, default, width)
        lines.append(
            textwrap.fill(
                description,
                width=width,
                initial_indent=" " * 6,
                subsequent_indent=" " * 6,
            )
        )
    offers = f"Offers: {', '.join(ruleset.capabilities())}"
    lines += ["", textwrap.fill(offers, width=width, subsequent_indent=" " * 4)]
    write_output("\n".join(lines) + "\n", output)


def _default_lines(param: str, default: object, width: int) -> list[str]:
    """``param = default`` on one line where it fits the width, else the default's entries
    one a line, each opened up in turn while it does not fit (a table of terrain or
    equipment is hundreds of columns on one line).

    >>> _default_lines("rounds", 3, 100)
    ['  rounds = 3']
    >>> for line in _default_lines("table", {"a": [1, 2], "b": "xyz"}, 20):
    ...     print(line)
      table = {
          "a": [1, 2],
          "b": "xyz"
        }
    """
    return _json_lines(f"  {param} = ", default, "    ", width)


def _json_lines(head: str, value: object, indent: str, width: int, tail: str = "") -> list[str]:
    line = f"{head}{json.dumps(value, ensure_ascii=False)}{tail}"
    if len(line) <= width or not isinstance(value, dict | list) or not value:
        return [line]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    lines = [f"{head}{opening}"]
    inner = indent + "  "
    for number, (key, item) in enumerate(items, 1):
        label = "" if key is None else f"{json.dumps(key, ensure_ascii=False)}: "
        comma = "," if number < len(items) else ""
        lines += _json_lines(f"{inner}{label}", item, inner, width, comma)
    lines.append(f"{indent}{closing}{tail}")
    return lines


@app.command("validate")
@friendly_errors
def validate_command(
    file: FileArg,
    settings: SetOpt = None,
    limits: LimitOpt = None,
    fmt: ListFormatOpt = ListFormat.text,
    output: OutputOpt = None,
) -> None:
    """Check a scenario file without resolving it; list every problem, one a line.

    Exit code 0 when the file is valid, 2 when it is not.

    \b
    Examples:
      fracas validate examples/hex/river_crossing.yaml
      fracas validate examples/d100/lair_raid.yaml --format json
    """
    from fracas.core.schema import ScenarioProblems

    try:
        scenario = load(file, settings, limits)
    except ScenarioError as exc:
        problems = exc.problems if isinstance(exc, ScenarioProblems) else (exc,)
        if fmt is ListFormat.json:
            document = {
                "source": str(file),
                "valid": False,
                "problems": [
                    {"path": format_path(problem.path), "problem": str(problem.problem)}
                    for problem in problems
                ],
            }
            friendly_errors(write_output)(_json(document), output)
        else:
            for problem in problems:
                typer.echo(error_line(str(problem)), err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except FracasError as exc:
        typer.echo(error_line(str(exc)), err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if fmt is ListFormat.json:
        document = {
            "source": str(file),
            "valid": True,
            "ruleset": scenario.ruleset.name,
            "scenario_sha256": scenario.sha256,
            "problems": [],
        }
        friendly_errors(write_output)(_json(document), output)
        return
    text = f"ok: {file} (ruleset {scenario.ruleset.name}, sha256:{scenario.sha256})\n"
    friendly_errors(write_output)(text, output)


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
            metavar="PATH",
            help="Fair dice: derive the seed from this secret (see 'fracas commit'), the "
            "scenario and the --nonce texts, and seal the post for 'fracas verify'.",
        ),
    ] = None,
    nonces: Annotated[
        list[str] | None,
        typer.Option(
            "--nonce", metavar="TEXT", help="A player's nonce, in thread order. Repeatable."
        ),
    ] = None,
    forum: ForumOpt = Forum.phpbb,
    ascii_only: AsciiOpt = False,
    fold: FoldOpt = False,
    limits: LimitOpt = None,
) -> None:
    """Resolve a scenario and print the report.

    \b
    Examples:
      fracas resolve examples/hex/river_crossing.yaml --format markdown
      fracas resolve examples/d100/lair_raid.yaml --seed 42 --format bbcode -o post.txt
      fracas commit examples/d100/lair_raid.yaml --secret-file raid.secret
      fracas resolve examples/d100/lair_raid.yaml --secret-file raid.secret --nonce owl \\
          -f bbcode --fold -o post.txt
    """
    from fracas.cli.odds import check_seed
    from fracas.core.limits import limits_in_force
    from fracas.io.fair import fair_resolve, mark_revealed, secret_from_file
    from fracas.io.fair import post as fair_post
    from fracas.io.render import PostStyle, render_report

    scenario = load(file, settings, limits)
    with limits_in_force(scenario.limits):
        check_seed(seed)  # typed on the command line: the error names --seed, not the file
    style = PostStyle(forum=forum.value, ascii_only=ascii_only, fold=fold)
    if secret_file is None:
        if nonces:
            raise ScenarioError("--nonce needs --secret-file", source="command line")
        report = scenario.resolve(seed=seed)
        write_output(render_report(report, fmt.value, style, width=output_width(output)), output)
        return
    if seed is not None:
        raise ScenarioError(
            "--seed and --secret-file exclude each other: the seed is derived",
            source="command line",
        )
    secret, _ = secret_from_file(reading(secret_file))
    with located(file):
        report = fair_resolve(scenario, secret, nonces or [])
    write_output(fair_post(scenario, report, fmt.value, style), output)
    mark_revealed(secret_file)


@contextmanager
def _operating_on(file: Path) -> Iterator[None]:
    """Name ``file`` in the errors of a ruleset hook, a missing hook's included.

    A ruleset without a forecast, an advisor or a picture says so without knowing the
    file, and every other error line of these commands starts with it.
    """
    with located(file):
        try:
            yield
        except UnsupportedError as exc:
            raise ScenarioError(str(exc), source=str(file)) from None


@app.command("forecast")
@friendly_errors
def forecast_command(
    file: FileArg,
    attacker: Annotated[str, typer.Option(metavar="ID", help="Id of the attacking unit.")],
    target: Annotated[str, typer.Option(metavar="ID", help="Id of the unit attacked.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    limits: LimitOpt = None,
) -> None:
    """Preview one attack without changing the board.

    \b
    Example:
      fracas forecast examples/hex/river_crossing.yaml --attacker assault --target grenadiers
    """
    scenario = load(file, settings, limits)
    with _operating_on(file):
        report = scenario.forecast(attacker, target)
    write_output(render(report, fmt, output), output)


@app.command("threats")
@friendly_errors
def threats_command(
    file: FileArg,
    side: Annotated[str, typer.Option(metavar="SIDE", help="The side under threat.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    limits: LimitOpt = None,
) -> None:
    """List every attack the other sides can make on a side now, worst first.

    \b
    Example:
      fracas threats examples/hex/encirclement.yaml --side blue
    """
    from fracas.io.scenario import ADVISE_BUDGET

    scenario = load(file, settings, limits)
    with _operating_on(file), scenario.budget(ADVISE_BUDGET.name):
        report = scenario.stamp(scenario.ruleset.threats(scenario.model, side))
    write_output(render(report, fmt, output), output)


@app.command("advise")
@friendly_errors
def advise_command(
    file: FileArg,
    side: Annotated[str, typer.Option(metavar="SIDE", help="The side to advise.")],
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    settings: SetOpt = None,
    plan: Annotated[
        bool, typer.Option("--plan", help="Propose an order of attacks for the whole side.")
    ] = False,
    width: Annotated[
        int | None,
        typer.Option(metavar="N", help="With --plan: the search width (default: the ruleset's)."),
    ] = None,
    top: Annotated[
        int,
        typer.Option(
            "--top", metavar="N", help="Show the best N (default 20); the JSON keeps them all."
        ),
    ] = TOP,
    everything: Annotated[
        bool, typer.Option("--all", help="Show every attack, not only the best --top.")
    ] = False,
    reply: Annotated[
        bool,
        typer.Option(
            "--reply",
            help="Show the enemy's best reply to each of the best --top attacks (with "
            "--plan: to the planned turn), ranked by the value after both.",
        ),
    ] = False,
    focus: Annotated[
        str | None,
        typer.Option(
            "--focus",
            metavar="ID",
            help="The best order of the side's attackers against this one unit.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="With --reply: processes sharing the enemy's searches (default: every "
            "core; two at most help); 1 does everything in this process. The replies are "
            "the same.",
        ),
    ] = None,
    limits: LimitOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Rank every legal attack of a side by its forecast, or plan the side's whole turn.

    On a terminal a progress bar shows the attacks worked out, then the report being
    written (--quiet: none).

    \b
    Examples:
      fracas advise examples/hex/encirclement.yaml --side blue
      fracas advise examples/hex/encirclement.yaml --side blue --plan
      fracas advise examples/hex/encirclement.yaml --side blue --reply
      fracas advise examples/hex/encirclement.yaml --side blue --focus holdout
    """
    from fracas.core.helper import cores, sharing_with
    from fracas.core.process import watching_work
    from fracas.io.scenario import ADVISE_BUDGET

    scenario = load(file, settings, limits)
    if workers is not None:
        from fracas.analysis.parallel import check_processes
        from fracas.core.limits import limits_in_force

        with limits_in_force(scenario.limits):
            check_processes(workers)
    label = f"{scenario.ruleset.name} {side}"
    shown = None if everything else top
    ruleset, model = scenario.ruleset, scenario.model
    with interruptible(quiet=quiet, interrupted=advise_interrupted) as tracker:
        with _operating_on(file), watching_work(_attacks_told_to(tracker, label)):
            if top < 0:
                raise ScenarioError(f"must be 0 or more, not {top}", path=("--top",))
            if focus is not None and (plan or reply):
                raise ScenarioError("goes with neither --plan nor --reply", path=("--focus",))
            if width is not None and not (plan or reply):
                raise ScenarioError("only goes with --plan or --reply", path=("--width",))
            if focus is not None:
                with scenario.budget(ADVISE_BUDGET.name):
                    report = scenario.stamp(ruleset.focus(model, side, focus))
            elif reply:
                processes = cores() if workers is None else workers
                with scenario.budget(ADVISE_BUDGET.name), sharing_with(processes):
                    found = ruleset.reply(model, side, plan=plan, width=width, top=shown)
                report = scenario.stamp(found)
            elif plan:
                # A plan is advice for the whole turn: the same budget bounds it.
                with scenario.budget(ADVISE_BUDGET.name):
                    found = scenario.ruleset.plan(scenario.model, side, width=width)
                report = scenario.stamp(found)
            else:
                report = scenario.advise(side, top=shown)
        # A thousand ranked attacks take seconds to lay out as text: say so meanwhile, at
        # once (the bar may have been drawn a moment ago, and nothing redraws it before
        # the text is done).
        tracker.start(1, REPORT, f"{label}: writing the")
        tracker.advance(0, REPORT, at_once=True)
        text = render(report, fmt, output)
        tracker.advance(1, REPORT)
    write_output(text, output)


#: What the progress of advise counts: the attacks a ruleset reports worked out (it
#: reports them through fracas.core.process.watching_work), then the report.
ATTACKS, REPORT = "attacks", "report"


def _attacks_told_to(tracker: Tracker, label: str) -> Callable[[int], None]:
    """A work watcher that advances ``tracker`` by the attacks worked out so far."""
    tracker.start(0, ATTACKS, label)
    # How many there will be only the ruleset knows: no total (the bar counts up).
    del tracker.total[ATTACKS]
    told = 0

    def watch(attacks: int) -> None:
        nonlocal told
        tracker.advance(attacks - told, ATTACKS)
        told = attacks

    return watch


def advise_interrupted(done: Tracker) -> str:
    """What Ctrl-C during advise reports: how many attacks were worked out.

    >>> tracker = Tracker(show=False)
    >>> tracker.advance(1_234, "attacks")
    >>> advise_interrupted(tracker)
    'advice stopped after 1,234 attacks worked out'
    """
    return f"advice stopped after {done.done.get(ATTACKS, 0):,} attacks worked out"


@app.command("schema")
@friendly_errors
def schema_command(
    ruleset: Annotated[
        str | None,
        typer.Argument(
            metavar="RULESET",
            help="Ruleset name or alias: its scenario files' schema (with --command: the "
            "output of that ruleset).",
        ),
    ] = None,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            "-c",
            metavar="KIND",
            help="The schema of a --format json output instead: " + ", ".join(OUTPUTS) + ".",
        ),
    ] = None,
    fmt: Annotated[
        SchemaFormat,
        typer.Option("--format", "-f", metavar="json", help="Output format (JSON Schema)."),
    ] = SchemaFormat.json,
    output: OutputOpt = None,
) -> None:
    """Print the JSON Schema of a ruleset's scenario files, or of a command's JSON output.

    \b
    Examples:
      fracas schema hex -o hex.schema.json
      fracas schema --command odds
      fracas schema hex --command advise -o advise.schema.json
    """
    if command is not None:
        from fracas.io.output_schemas import output_schema

        schema = output_schema(command, ruleset)
    elif ruleset is None:
        raise ScenarioError(
            "name a RULESET (its scenario files) or --command KIND (a JSON output)",
            source="command line",
        )
    else:
        schema = find_ruleset(ruleset).json_schema()
    write_output(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", output)


@app.command("render")
@friendly_errors
def render_command(
    file: FileArg,
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", metavar="PATH", parser=output_path, help="SVG file to write."
        ),
    ],
    attacker: Annotated[
        str | None, typer.Option(metavar="ID", help="Draw this unit's attack.")
    ] = None,
    target: Annotated[str | None, typer.Option(metavar="ID", help="The unit it attacks.")] = None,
    reply: Annotated[
        bool, typer.Option("--reply", help="Draw the enemy's best reply to that attack.")
    ] = False,
    threats: Annotated[
        str | None,
        typer.Option(
            metavar="SIDE", help="Write on each unit of SIDE the most one enemy attack takes."
        ),
    ] = None,
    settings: SetOpt = None,
    limits: LimitOpt = None,
) -> None:
    """Draw the scenario as an SVG picture.

    \b
    Examples:
      fracas render examples/hex/encirclement.yaml -o board.svg --attacker lead --target holdout
      fracas render examples/hex/encirclement.yaml -o reply.svg --attacker lead --target holdout \\
          --reply --threats blue
    """
    if (attacker is None) != (target is None):
        raise ScenarioError("give both --attacker and --target, or neither", source=str(file))
    to_file = names_a_file(output)
    if to_file and output.suffix.lower() != ".svg":
        # A picture is SVG; under another name it would open as a broken image.
        raise ScenarioError("render writes SVG: name the file .svg", source=str(output))
    scenario = load(file, settings, limits)
    with _operating_on(file):
        if reply or threats is not None:
            from fracas.io.scenario import ADVISE_BUDGET

            with scenario.budget(ADVISE_BUDGET.name):
                svg = scenario.ruleset.picture(
                    scenario.model, attacker=attacker, target=target, reply=reply, threats=threats
                )
        else:
            from fracas.core.limits import limits_in_force

            # --limit budget.picture=N bounds the drawing here too.
            with limits_in_force(scenario.limits):
                svg = scenario.ruleset.picture(scenario.model, attacker=attacker, target=target)
    write_output(svg, output)


app.command("odds")(friendly_errors(odds_command))
app.command("metrics")(friendly_errors(metrics_command))
app.command("examples")(friendly_errors(examples_command))
app.command("import")(friendly_errors(import_command))
app.command("commit")(friendly_errors(commit_command))
app.command("verify")(friendly_errors(verify_command))
app.command("sweep")(friendly_errors(sweep_command))
app.add_typer(campaign_app)


@app.command("serve")
@friendly_errors
def serve_command(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, metavar="PORT", help="Port to listen on.")
    ] = 8000,
    time_limit: Annotated[
        float,
        typer.Option(
            min=0.1, metavar="SECONDS", help="Seconds the server works on one answer at most."
        ),
    ] = 30.0,
    max_body: Annotated[
        int, typer.Option(min=1, metavar="BYTES", help="Largest request body, in bytes.")
    ] = (256 * 1024),
    exact_budget: Annotated[
        int | None,
        typer.Option(min=1, metavar="N", help="Most exact-odds steps a request may ask for."),
    ] = None,
    sample_budget: Annotated[
        int | None,
        typer.Option(min=1, metavar="N", help="Most sampled dice rolls a request may ask for."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="Worker processes of each lane, cheap and expensive questions "
            "(default: every core).",
        ),
    ] = None,
    queue: Annotated[
        int,
        typer.Option(min=0, metavar="N", help="Cheap questions that may wait for a worker."),
    ] = 64,
    max_answer: Annotated[
        int, typer.Option(min=1, metavar="BYTES", help="Largest answer, in bytes of JSON.")
    ] = (16 * 1024 * 1024),
    idle_timeout: Annotated[
        float,
        typer.Option(
            min=0.1, metavar="SECONDS", help="Close a connection that sends nothing this long."
        ),
    ] = 5.0,
    header_timeout: Annotated[
        float,
        typer.Option(
            min=0.1,
            metavar="SECONDS",
            help="Seconds a request's head, and then its body, may take to arrive.",
        ),
    ] = 10.0,
    connections: Annotated[
        int, typer.Option(min=1, metavar="N", help="Most connections open at once.")
    ] = 128,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="A host name requests may give besides the bound address and localhost "
            "(e.g. the machine's name on the network). Repeatable.",
        ),
    ] = None,
    scheduler: SchedulerOpt = None,
    campaign: Annotated[
        str | None,
        typer.Option(
            "--campaign",
            metavar="DB",
            help="Also show this campaign database's pages, read-only, under /campaign.",
        ),
    ] = None,
) -> None:
    """Start the web calculator (needs the web extra: pip install 'fracas[web]').

    \b
    Example, then open http://127.0.0.1:8000:
      fracas serve --port 8000  # (not run: starts a server)
    """
    try:
        from fracas.web import Limits, serve
    except ImportError as exc:
        raise FracasError(
            f"fracas serve needs the web extra ({exc.name} is missing): pip install 'fracas[web]'"
        ) from None
    from fracas.analysis.parallel import check_processes, usable_processes

    # Each lane starts its workers at once. The server takes no --limit (its limits are
    # options): the refusal names the limit alone.
    if workers is not None:
        check_processes(workers)
    from fracas.web.app import is_host_name

    for name in allowed_host or ():
        # A request's Host header is read as one name and a port: an entry that is not
        # read back as itself (a space, a port, a path) would match no request.
        if not is_host_name(name):
            raise ScenarioError(f"not a host name: {name!r}", path=("--allowed-host",))
    defaults = Limits()
    limits = Limits(
        body_bytes=max_body,
        time_limit=time_limit,
        exact_budget=exact_budget or defaults.exact_budget,
        sample_budget=sample_budget or defaults.sample_budget,
        workers=workers or usable_processes(),
        queue=queue,
        answer_bytes=max_answer,
        idle_timeout=idle_timeout,
        header_timeout=header_timeout,
        connections=connections,
        allowed_hosts=tuple(allowed_host or ()),
    )
    where = _check_address(host, port)

    def ready() -> None:
        typer.echo(f"fracas {__version__}: serving on http://{where} (Ctrl+C stops)")

    try:
        serve(host, port, limits, scheduler=scheduler, ready=ready, campaign=campaign)
    except SystemExit as exc:
        # uvicorn's exit when it cannot start: the address was taken since the check.
        if exc.code != UVICORN_STARTUP_FAILURE:
            raise
        raise FracasError(f"cannot serve on {where}: the server did not start") from None


#: uvicorn's exit status when its server cannot start.
UVICORN_STARTUP_FAILURE = 3


def _check_address(host: str, port: int) -> str:
    """``host:port`` as a URL shows it, once it is known the server can listen there.

    uvicorn meets a busy port or an unknown host with its start-up log, the error and its
    shutdown log, and exits with 3; the same check here is one line and exit code 2. It
    binds as the server will (every address the host resolves to, SO_REUSEADDR) and lets
    go at once.
    """
    import errno
    import socket

    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        found = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise FracasError(f"cannot serve on {where}: unknown host ({exc.strerror})") from None
    except UnicodeError:  # a label too long or not encodable for the resolver
        raise FracasError(f"cannot serve on {where}: not a host name") from None
    for family, kind, proto, _, address in found:
        try:
            sock = socket.socket(family, kind, proto)
        except OSError:
            continue  # a family this machine lacks (IPv6 off): the server skips it too
        with sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                problem = {
                    errno.EADDRINUSE: "the port is already in use (another server?); "
                    "choose another with --port",
                    errno.EADDRNOTAVAIL: f"{host} is not an address of this machine",
                    errno.EACCES: "no permission to listen there (ports below 1024 need it)",
                }.get(exc.errno or 0, exc.strerror or str(exc))
                raise FracasError(f"cannot serve on {where}: {problem}") from None
    return where


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


def _no_type(ctx: Any) -> None:
    return None


def _plain_metavars(command: Any) -> None:
    """Show an argument as its metavariable alone (``FILE``), not ``{FILE}`` and ``<path>``.

    typer's help adds the type to each argument; the metavariable says it better. The
    change is made on this command's own parameter objects, never on typer's classes.
    """
    for param in getattr(command, "params", ()):
        metavar = getattr(param, "metavar", None)
        if not isinstance(param, typer.core.TyperArgument) or not metavar:
            continue
        if hasattr(param, "display_type_rich"):
            param.display_type_rich = _no_type  # type: ignore[method-assign]
        if hasattr(param, "_usage_display_name"):
            shown = metavar if param.required else f"[{metavar}]"
            param._usage_display_name = functools.partial(str, shown)  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        _plain_metavars(sub)


def _whole_summaries(command: Any) -> None:
    """Give each command's list entry its whole first sentence: click would cut it to the
    terminal's width with "…", hiding the end ("needs the web extra"); the list wraps."""
    for sub in getattr(command, "commands", {}).values():
        if sub.short_help is None and sub.help:
            first = inspect.cleandoc(sub.help).split("\n\n", 1)[0].replace("\n", " ")
            sub.short_help = first.split(". ", 1)[0].rstrip(".")
        _whole_summaries(sub)


def cli_command(only: str | None = None) -> Any:
    """The command behind ``fracas`` (click's), with plain metavariables in its help and
    every command's summary whole.

    With ``only`` the name of one of its commands, the group holds that command alone:
    turning every command's signature into click's takes longer than most commands run
    (a few milliseconds each), and one invocation uses one. An unknown name gets the whole
    group, so that its error lists the commands.

    >>> sorted(cli_command("advise").commands)
    ['advise']
    >>> len(cli_command("no-such").commands) > 10
    True
    """
    source = app
    commands = [c for c in app.registered_commands if c.name == only]
    groups = [
        g
        for g in app.registered_groups
        if g.typer_instance is not None and g.typer_instance.info.name == only
    ]
    if only is not None and (commands or groups):
        source = copy.copy(app)
        source.registered_commands, source.registered_groups = commands, groups
    command = typer.main.get_command(source)
    _plain_metavars(command)
    _whole_summaries(command)
    return command


def main() -> None:
    """Entry point of the ``fracas`` script and ``python -m fracas``.

    Usage mistakes (an unknown option, a value of the wrong kind) get the same one-line
    ``fracas: error: …`` and exit code 2 as a bad scenario.
    """
    # numpy's BLAS starts a spinning thread per core at import, about 0.1 s of CPU for
    # every command on two cores; fracas does no linear algebra (a user's own setting wins).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        _run_command()
    finally:
        # Whatever is left is freed with the process: without this, the collector's
        # passes while the interpreter shuts down walk every module, schema and cache
        # once more, about 0.05 s of every command (atexit handlers still run).
        gc.freeze()


def _run_command() -> None:
    if len(sys.argv) < 2:
        cli_command()(prog_name="fracas")  # the help, or a shell completion script
        return
    named = sys.argv[1]
    # A shell's completion asks about the whole command line: it gets every command.
    completing = any(key.startswith("_FRACAS_COMPLETE") for key in os.environ)
    command = cli_command(None if completing or named.startswith("-") else named)
    try:
        code = command.main(prog_name="fracas", standalone_mode=False)
    except typer.Abort:
        typer.echo("fracas: aborted", err=True)
        sys.exit(1)
    except typer.TyperException as exc:
        context = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError":
            # A group named alone (`fracas campaign`): its help, as `fracas` alone gives.
            typer.echo(exc.format_message())
            sys.exit(EXIT_BAD_INPUT)
        where = context.command_path if context is not None else "fracas"
        message = exc.format_message().replace("Value error, ", "")
        typer.echo(error_line(f"{message} (see '{where} --help')"), err=True)
        sys.exit(getattr(exc, "exit_code", EXIT_BAD_INPUT))
    sys.exit(code if isinstance(code, int) else 0)
