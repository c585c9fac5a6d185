"""``fracas campaign``: a war kept as a journal (see docs/campaigns.md).

Every subcommand takes the campaign's NAME and ``--db`` (an SQLite file, default
``NAME.campaign.db``, or a ``postgresql://`` URL). Bad input is one line and exit 2, and
nothing is written.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from fracas.cli.common import (
    Format,
    FormatOpt,
    Forum,
    ForumOpt,
    LimitOpt,
    OutputOpt,
    SetOpt,
    check_output,
    friendly_errors,
    output_width,
    parse_limits,
    parse_overrides,
    reading,
    write_output,
)
from fracas.cli.odds import check_seed
from fracas.cli.progress import QuietOpt, Tracker, interruptible
from fracas.core.errors import ScenarioError

campaign_app = typer.Typer(
    name="campaign",
    help=(
        "Run a campaign: rosters that remember their battles, a journal anyone can verify, "
        "and a luck audit.\n\n"
        "\b\n"
        "Examples:\n"
        "  fracas campaign new War --from-scenario examples/d100/lair_raid.yaml\n"
        '  fracas campaign battle War --attacker "Red Fang" --defender Thornwall --seed 7\n'
        "  fracas campaign roster War\n"
        "  fracas campaign luck War --format bbcode\n"
        "  fracas campaign export War -o war.jsonl\n"
        "  fracas campaign verify war.jsonl\n\n"
        "See docs/campaigns.md for a whole war."
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)

NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The campaign's name.")]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="PATH|URL",
        help="The campaign's database: an SQLite file (default NAME.campaign.db) or a "
        "postgresql:// URL.",
    ),
]
ByOpt = Annotated[str, typer.Option("--by", metavar="WHO", help="Who makes the change.")]
WhyOpt = Annotated[str, typer.Option("--why", metavar="TEXT", help="Why (kept in the journal).")]


def _db(name: str, db: str | None) -> str:
    from fracas.campaign.actions import check_name

    # Before the name makes a file name: one too long for the file system is refused as a
    # name, not as a failure to open the file.
    check_name(name)
    if db is not None:
        return db
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "campaign"
    return f"{safe}.campaign.db"


def _open(name: str, db: str | None, *, must_exist: bool = True) -> Any:
    from fracas.campaign.store import SQLITE_SUFFIXES, Store, refuse_other_file, sqlite_file

    where = _db(name, db)
    file = sqlite_file(where)
    if file is not None:
        # The database and the files SQLite keeps beside it are read by every command: no
        # -o may replace one of them (that would lose the campaign).
        for suffix in SQLITE_SUFFIXES:
            reading(Path(f"{file}{suffix}"))
    if must_exist and file is not None:
        if not file.exists():
            raise ScenarioError(
                f"no campaign database here (start one with: fracas campaign new {name} "
                "--ruleset RULESET)",
                source=where,
            )
        refuse_other_file(file, where)
    return Store.open(where)


@contextmanager
def _new_database(name: str, db: str | None) -> Iterator[Any]:
    """The store a new campaign goes in. When this command made its SQLite file and
    fails, the file goes again (with its -wal and -shm): a campaign refused leaves no
    database behind, and the next command says there is none."""
    from fracas.campaign.store import SQLITE_SUFFIXES

    where = _db(name, db)
    made = "://" not in where and not Path(where).exists()
    store = _open(name, db, must_exist=False)
    try:
        yield store
    except BaseException:
        if made:
            store.close()
            for suffix in SQLITE_SUFFIXES:
                with contextlib.suppress(OSError):
                    os.unlink(where + suffix)
        raise


def _read_document(path: Path, what: str) -> Any:
    from fracas.io.reader import parse_text, read_text

    text = read_text(reading(path))
    fmt = {".json": "json", ".toml": "toml"}.get(path.suffix.lower(), "yaml")
    document = parse_text(text, fmt, str(path))
    if not isinstance(document, dict):
        raise ScenarioError(f"a {what} file is a mapping of keys", source=str(path))
    return document


@campaign_app.command("new")
@friendly_errors
def new_command(
    name: NameArg,
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", "-r", metavar="RULESET", help="hex, d100, rankflank…"),
    ] = None,
    scenario: Annotated[
        Path | None,
        typer.Option(
            "--from-scenario",
            metavar="FILE",
            help="Start from a scenario: its shared rules, and each of its sides a force.",
        ),
    ] = None,
    db: DbOpt = None,
    rules: Annotated[
        Path | None,
        typer.Option(
            "--rules",
            metavar="FILE",
            help="Rules every battle shares (parameters, extra equipment and effects…).",
        ),
    ] = None,
) -> None:
    """Start a campaign: empty (--ruleset), or from a scenario's sides (--from-scenario).

    \b
    Examples:
      fracas campaign new War --ruleset d100
      fracas campaign new Raids --from-scenario examples/d100/lair_raid.yaml
    """
    from fracas.campaign.actions import new_campaign, new_from_scenario

    if (ruleset is None) == (scenario is None):
        raise ScenarioError(
            "give --ruleset or --from-scenario (one of them)", source="command line"
        )
    if scenario is not None:
        if rules is not None:
            raise ScenarioError(
                "--from-scenario brings its own rules: no --rules", source="command line"
            )
        document = _read_document(scenario, "scenario")
        with _new_database(name, db) as store:
            state = new_from_scenario(store, name, document, source=str(scenario))
        forces = ", ".join(state.forces)
        typer.echo(f"campaign {name!r} ({state.ruleset}) started in {store.shown}: {forces}")
        return
    assert ruleset is not None
    base = _read_document(rules, "rules") if rules is not None else {}
    with _new_database(name, db) as store:
        new_campaign(store, name, ruleset, base, source=str(rules) if rules else "rules file")
    typer.echo(f"campaign {name!r} ({store.ruleset_of(name)}) started in {store.shown}")


@campaign_app.command("roster")
@friendly_errors
def roster_command(
    name: NameArg,
    force: Annotated[
        str | None, typer.Argument(metavar="FORCE", help="The force to enter or edit.")
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file", metavar="FILE", help="Enter the force with this roster (YAML, JSON)."
        ),
    ] = None,
    settings: SetOpt = None,
    by: ByOpt = "",
    why: WhyOpt = "",
    db: DbOpt = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="text|json", help="Listing format.")
    ] = "text",
    output: OutputOpt = None,
) -> None:
    """Enter a force (--file), edit its roster (--set units[0].pax=8), or list the rosters.

    \b
    Examples:
      fracas campaign roster War Fenwick --file fenwick.yaml
      fracas campaign roster War Fenwick --set units[0].dangerous_missions=6 --by GM --why "mission"
      fracas campaign roster War
    """
    from fracas.campaign.actions import edit_roster, enter_roster, state_of
    from fracas.campaign.rosters import roster_table

    store = _open(name, db)
    if force is None:
        if file is not None or settings:
            raise ScenarioError("name the FORCE to enter or edit", source="command line")
        state = state_of(store, name)
        write_output(_rosters_text(roster_table(state), fmt, _size_keys(state)), output)
        return
    if file is not None and settings:
        raise ScenarioError(
            "--file enters a force, --set edits one: not both", source="command line"
        )
    if file is not None:
        document = _read_document(file, "roster")
        treasury = document.pop("treasury", None)
        if treasury is not None and not isinstance(treasury, dict):
            raise ScenarioError(
                "a mapping of gold, resources, items", source=str(file), path=("treasury",)
            )
        enter_roster(
            store, name, force, document, treasury=treasury, by=by, why=why, source=str(file)
        )
        typer.echo(f"{force} entered")
        return
    if settings:
        edit_roster(store, name, force, parse_overrides(settings), by=by, why=why)
        typer.echo(f"{force} edited")
        return
    state = state_of(store, name)
    rows = [row for row in roster_table(state) if row["force"] == force]
    if not rows:
        raise ScenarioError(f"no force {force!r} in the campaign", source="command line")
    write_output(_rosters_text(rows, fmt, _size_keys(state)), output)


def _size_keys(state: Any) -> tuple[str, ...]:
    adapter = state.adapter
    keys = [adapter.size_key, *([adapter.full_key] if adapter.full_key else [])]
    return (*keys, "wounds_taken", "level")


def _rosters_text(rows: list[Any], fmt: str, keys: tuple[str, ...]) -> str:
    import json

    from fracas.core.escape import printable

    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if fmt != "text":
        raise ScenarioError(f"unknown format {fmt!r} (text, json)", source="command line")
    lines = []
    for row in rows:
        money = ", ".join(f"{k} {v:g}" for k, v in row["treasury"].items())
        lines.append(printable(f"{row['force']} — treasury: {money}"))
        for unit in row["units"]:
            name = unit.get("name", unit.get("id"))
            sizes = ", ".join(f"{key} {unit[key]}" for key in keys if key in unit)
            lines.append(printable(f"  {name}: {sizes}"))
        for unit, fell in row["fallen"].items():
            lines.append(printable(f"  ({unit}: {fell['why']} in event {fell['event']})"))
    return "".join(line + "\n" for line in lines)


@campaign_app.command("buy")
@friendly_errors
def buy_command(
    name: NameArg,
    force: Annotated[str, typer.Argument(metavar="FORCE")],
    unit: Annotated[str, typer.Argument(metavar="UNIT")],
    count: Annotated[
        int, typer.Option("--count", metavar="N", help="PAX, models or strength to add.")
    ],
    cost: Annotated[
        float, typer.Option("--cost", metavar="GOLD", help="Gold paid from the treasury.")
    ],
    by: ByOpt = "",
    db: DbOpt = None,
) -> None:
    """Buy replacements for a unit, paid from the force's treasury.

    \b
    Example:
      fracas campaign buy War Fenwick Scouts --count 2 --cost 40
    """
    from fracas.campaign.actions import buy_replacements

    buy_replacements(_open(name, db), name, force, unit, count, cost, by=by)
    typer.echo(f"{unit} of {force}: +{count}")


@campaign_app.command("battle")
@friendly_errors
def battle_command(
    name: NameArg,
    attacker: Annotated[
        str, typer.Option("--attacker", metavar="FORCE", help="The attacking force.")
    ],
    defender: Annotated[
        str, typer.Option("--defender", metavar="FORCE", help="The defending force.")
    ],
    battle_file: Annotated[
        Path | None,
        typer.Option(
            "--battle",
            metavar="FILE",
            help="The battle's own parts: map, orders, placements, engagements, each side's "
            "action or location…",
        ),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", metavar="UNIT", help="Only these units fight. Repeatable."),
    ] = None,
    settings: SetOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, metavar="N", help="Dice seed.")
    ] = None,
    secret_file: Annotated[
        Path | None,
        typer.Option("--secret-file", metavar="PATH", help="Fair dice: the game master's secret."),
    ] = None,
    nonces: Annotated[
        list[str] | None,
        typer.Option("--nonce", metavar="TEXT", help="A player's nonce. Repeatable."),
    ] = None,
    commit: Annotated[
        bool,
        typer.Option("--commit", help="Fair dice, first post: print the commitment; play nothing."),
    ] = False,
    fmt: FormatOpt = Format.text,
    forum: ForumOpt = Forum.phpbb,
    output: OutputOpt = None,
    db: DbOpt = None,
) -> None:
    """Fight a battle from the rosters now, record it, and print the post.

    \b
    Examples:
      fracas campaign battle War --attacker Fenwick --defender Thornwall --seed 7
      fracas campaign battle War --attacker Fenwick --defender Thornwall \\
          --set sides[0].action=raid --secret-file b3.secret --commit
      fracas campaign battle War --attacker Fenwick --defender Thornwall \\
          --set sides[0].action=raid --secret-file b3.secret --nonce owl -f bbcode
    """
    from fracas.campaign.actions import record_battle, state_of
    from fracas.campaign.battle import build_scenario
    from fracas.io.fair import DERIVATION, commitment, mark_revealed, post, secret_from_file
    from fracas.io.render import PostStyle, render_report

    check_seed(seed)  # as resolve does: the post's last line re-runs with it
    store = _open(name, db)
    extra = _read_document(battle_file, "battle") if battle_file is not None else {}
    source = str(battle_file) if battle_file is not None else None
    overrides = parse_overrides(settings)
    if secret_file is None and (nonces or commit):
        raise ScenarioError("--nonce and --commit need --secret-file", source="command line")
    if secret_file is not None and seed is not None:
        raise ScenarioError("--seed and --secret-file exclude each other", source="command line")
    if commit:
        check_output(output)  # before a secret is made for a post that cannot be written
        state = state_of(store, name)
        scenario = build_scenario(
            state,
            attacker,
            defender,
            extra=extra,
            overrides=overrides,
            only=only or (),
            battle_file=source,
        )
        secret, created = secret_from_file(secret_file, create=True)  # type: ignore[arg-type]
        typer.echo(
            f"{'created' if created else 'using'} secret {secret_file}: keep it private",
            err=True,
        )
        # The first post of the thread: to -o when given, as the battle's post will be.
        write_output(
            f"{DERIVATION} commitment {commitment(secret, scenario.canonical_sha256)} "
            f"· scenario sha256:{scenario.sha256}\n",
            output,
        )
        return
    revealed = secret_from_file(reading(secret_file))[0] if secret_file is not None else None
    check_output(output)  # a post that cannot be written: no battle recorded without it
    recorded = record_battle(
        store,
        name,
        attacker,
        defender,
        extra=extra,
        overrides=overrides,
        only=only or (),
        seed=seed,
        secret=revealed,
        nonces=nonces or (),
        battle_file=source,
    )
    fought = recorded.fought
    style = PostStyle(forum=forum.value)
    if secret_file is not None:
        text = post(fought.scenario, fought.report, fmt.value, style)
        mark_revealed(secret_file)
    else:
        text = render_report(fought.report, fmt.value, style, width=output_width(output))
    write_output(text, output)
    typer.echo(f"recorded as event {recorded.event.seq} of {name!r}", err=True)


@campaign_app.command("journal")
@friendly_errors
def journal_command(name: NameArg, output: OutputOpt = None, db: DbOpt = None) -> None:
    """List the journal's events, one line each.

    \b
    Example:
      fracas campaign journal War
    """
    from fracas.core.escape import printable

    lines = []
    for event in _open(name, db).events(name):
        body = event.body
        what = body.get("force") or (
            f"battle {body['battle']}: {body['attacker']} v {body['defender']}, "
            f"winner {body['summary'].get('winner', '—')}"
            if event.kind == "battle_resolved"
            else body.get("name", "")
        )
        who = f" by {body['by']}" if body.get("by") else ""
        why = f" ({body['why']})" if body.get("why") else ""
        lines.append(printable(f"{event.seq:>4} {event.kind:<19} {what}{who}{why}") + "\n")
    write_output("".join(lines), output)


@campaign_app.command("export")
@friendly_errors
def export_command(name: NameArg, output: OutputOpt = None, db: DbOpt = None) -> None:
    """Write the journal as canonical JSON Lines (one event a line), for `verify`.

    \b
    Example:
      fracas campaign export War -o war.jsonl
    """
    from fracas.campaign.verify import export_lines

    write_output(export_lines(_open(name, db).events(name)), output)


@campaign_app.command("verify")
@friendly_errors
def verify_command(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="An exported journal (- for stdin).")
    ],
    no_odds: Annotated[
        bool,
        typer.Option(
            "--no-odds",
            help="Do not work out each battle's stored odds again (much faster; the battles "
            "are still re-played and the rosters re-derived).",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            metavar="N",
            min=1,
            help="Work the odds out again in N processes (default: every core; 1 does "
            "everything in this process). The verdict is the same.",
        ),
    ] = None,
    quiet: QuietOpt = False,
    limits: LimitOpt = None,
) -> None:
    """Re-play every battle of an exported journal, re-derive every roster, and work out
    each battle's stored odds again.

    Exit 0 when every event follows, 1 naming the first that does not, 2 when the file
    cannot be read.

    \b
    Examples:
      fracas campaign verify war.jsonl
      fracas campaign verify war.jsonl --workers 2
      fracas campaign verify war.jsonl --no-odds
      fracas campaign verify war.jsonl --limit input.file_bytes=50000000
    """
    from fracas.analysis.parallel import check_processes, usable_processes
    from fracas.campaign.verify import verify_lines
    from fracas.core.limits import limits_in_force
    from fracas.io.reader import read_text

    # A long war takes minutes: a terminal shows how far the check has gone.
    def stopped(tracker: Tracker) -> str:
        # With several processes the replay is soon over; the odds are what takes long.
        odds = f", odds of {tracker.finished('battles')}" if "battles" in tracker.total else ""
        return f"verify stopped after {tracker.finished('events')}{odds}"

    with limits_in_force(parse_limits(limits)):
        if str(file) == "-":
            text, source = sys.stdin.read(), "stdin"
        else:
            text, source = read_text(reading(file)), str(file)
        if workers is None:
            workers = usable_processes()
        check_processes(workers)
        with interruptible(quiet=quiet, interrupted=stopped) as tracker:
            verdict = verify_lines(
                text, source=source, odds=not no_odds, workers=workers, watch=tracker
            )
    for line in verdict.lines():
        typer.echo(line)
    raise typer.Exit(0 if verdict.ok else 1)


@campaign_app.command("luck")
@friendly_errors
def luck_command(
    name: NameArg,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", "-f", metavar="text|markdown|bbcode|json|svg", help="Output format."
        ),
    ] = "text",
    output: OutputOpt = None,
    db: DbOpt = None,
) -> None:
    """The luck audit: each battle's result against its own odds, and each force's headline.

    \b
    Examples:
      fracas campaign luck War
      fracas campaign luck War --format bbcode -o luck.txt
      fracas campaign luck War --format svg -o luck.svg
    """
    from fracas.campaign.luck import audit, luck_svg, render_luck

    if fmt not in ("text", "markdown", "bbcode", "json", "svg"):
        raise ScenarioError(
            f"unknown format {fmt!r} (text, markdown, bbcode, json, svg)", source="command line"
        )
    lucks = audit(_open(name, db).events(name))
    text = (
        luck_svg(lucks, campaign=name) if fmt == "svg" else render_luck(lucks, fmt, campaign=name)
    )
    write_output(text, output)
