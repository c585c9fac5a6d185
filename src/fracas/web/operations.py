"""What the web API does, as plain functions of plain data (no HTTP in here).

Each operation loads the scenario text the way the command line loads a file (same
parser, same hash, same ``--set`` overrides), asks the ruleset — never a ruleset by name —
and returns JSON-ready answers that carry every rendering the page offers: HTML from
:mod:`fracas.io.html`, Markdown, BBCode and the JSON document, plus the footer and
the command line that reproduce the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

import fracas
from fracas.analysis.odds import odds
from fracas.analysis.reporting import odds_report
from fracas.analysis.results import OddsResult, number
from fracas.analysis.views import headline
from fracas.core.budgets import (
    DEFAULT_MAX_RUNS,
    EXACT_BUDGET,
    EXACT_LIMIT,
    PICTURE_BYTES,
    SAMPLE_BUDGET,
    exact_budget_for,
)
from fracas.core.errors import FracasError, ScenarioError, UnsupportedError
from fracas.core.escape import shell_word
from fracas.core.limits import BudgetExceededError, limits_in_force
from fracas.core.report import Report
from fracas.io.html import odds_chart_svg, odds_html, render_html
from fracas.io.render import PostStyle, render_report, report_document
from fracas.io.scenario import (
    ADVISE_BUDGET,
    FORECAST_BUDGET,
    RESOLVE_BUDGET,
    Scenario,
    parse_scenario,
)
from fracas.rulesets import AnyRuleset, available_rulesets
from fracas.rulesets.base import ACTIONS, fight_pair
from fracas.web.form import form_fields, unit_choices

EXAMPLE_SUFFIXES = (".yaml", ".yml", ".json", ".toml")


@dataclass(frozen=True)
class Limits:
    """The bounds of ``fracas serve`` (its options): of one request's work, of the answers,
    of the connections.

    ``time_limit`` is the wall-clock seconds from a request's arrival to its answer (the
    wait for a worker included); the odds budgets cap what a request may ask for (a request
    may ask for less). ``workers`` is the worker processes of each lane (cheap questions,
    expensive ones), ``queue`` how many questions may wait for one in the cheap lane (the
    expensive lane holds as many waiting as it has workers); past that a request is told to
    retry. ``answer_bytes`` caps an answer's JSON. ``idle_timeout`` closes a connection
    that sends nothing, ``header_timeout`` one whose request head (or body) is not in by
    then; ``connections`` is the most open at once. ``allowed_hosts`` are the names a
    request's ``Host`` header may give, besides the bound address and ``localhost``.
    """

    body_bytes: int = 256 * 1024
    time_limit: float = 30.0
    exact_budget: int = EXACT_BUDGET
    sample_budget: int = 5_000_000
    max_runs: int = DEFAULT_MAX_RUNS
    workers: int = 2
    queue: int = 64
    answer_bytes: int = 16 * 1024 * 1024
    idle_timeout: float = 5.0
    header_timeout: float = 10.0
    connections: int = 128
    allowed_hosts: tuple[str, ...] = ()


# ── capabilities ───────────────────────────────────────────────────────────────────────


def capabilities(ruleset: type[AnyRuleset]) -> dict[str, bool]:
    """What the page may offer for ``ruleset``: the optional hooks it implements."""
    return {
        "resolve": True,
        "odds": ruleset.implements("metrics"),
        **{action.name: ruleset.implements(action.name) for action in ACTIONS},
        "seed": not ruleset.deterministic,
    }


@cache
def rulesets() -> list[dict[str, Any]]:
    """Every installed ruleset with its capabilities and parameters (read once: the
    installed rulesets do not change while a server runs)."""
    return [
        {
            "name": cls.name,
            "title": cls.title,
            "summary": cls.summary,
            "aliases": list(cls.aliases),
            "deterministic": cls.deterministic,
            "capabilities": capabilities(cls),
            "parameters": [
                {"name": name, "default": _json_safe(default), "description": description}
                for name, default, description in cls.parameters()
            ],
        }
        for cls in available_rulesets()
    ]


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# ── examples ───────────────────────────────────────────────────────────────────────────


def examples_folder() -> Path | None:
    """Where the bundled examples are: inside the package if installed so, else the source tree."""
    package = Path(fracas.__file__).resolve().parent
    for candidate in (package / "examples", package.parents[1] / "examples"):
        if candidate.is_dir():
            return candidate
    return None


@cache
def examples() -> list[dict[str, Any]]:
    """Every bundled example scenario: its ruleset, name, title and text (read and parsed
    once a process: the bundled files do not change while a server runs)."""
    folder = examples_folder()
    if folder is None:
        return []
    found = []
    for path in sorted(folder.glob("*/*")):
        if path.suffix not in EXAMPLE_SUFFIXES:
            continue
        text = path.read_text(encoding="utf-8")
        try:
            scenario = parse_scenario(text, source=path.name)
        except FracasError:
            continue  # a broken example is the example tests' business, not the page's
        found.append(
            {
                "id": f"{path.parent.name}/{path.name}",
                "ruleset": scenario.ruleset.name,
                "name": path.name,
                "title": scenario.header.title or path.stem,
                "description": scenario.header.description or "",
                "format": path.suffix.lstrip(".").replace("yml", "yaml"),
                "scenario": text,
            }
        )
    return found


# ── loading ────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class PostOptions:
    """How the copied forum posts are written: ``--forum``, ``--ascii``, ``--fold``."""

    forum: str = "phpbb"
    ascii_only: bool = False
    fold: bool = False

    def words(self) -> list[str]:
        """The command-line options that write the same posts."""
        words = [] if self.forum == "phpbb" else ["--forum", self.forum]
        return words + (["--ascii"] if self.ascii_only else []) + (["--fold"] if self.fold else [])


@dataclass(frozen=True)
class ScenarioInput:
    """A scenario as the page sends it: text, format, file name, ``--set`` overrides."""

    text: str
    name: str = "scenario.yaml"
    format: str | None = None
    overrides: Mapping[str, Any] | None = None
    post: PostOptions = PostOptions()


def load(given: ScenarioInput) -> Scenario:
    """Load the scenario exactly as ``fracas CMD NAME --set PATH=VALUE…`` would."""
    name = PurePath(given.name).name or "scenario.yaml"
    pairs = list((given.overrides or {}).items())
    return parse_scenario(given.text, source=name, fmt=given.format, overrides=pairs)


def _command(verb: str, scenario: Scenario, options: Sequence[str] = ()) -> str:
    words = [shell_word(word) for word in options]
    for override in scenario.overrides:
        words += ["--set", shell_word(override)]
    return " ".join(["fracas", verb, shell_word(scenario.source, file=True), *words])


def _report_answer(
    scenario: Scenario,
    report: Report,
    verb: str,
    options: Sequence[str] = (),
    post: PostOptions = PostOptions(),
) -> dict[str, Any]:
    # The command line's renderers, so that control characters and bidirectional
    # overrides in user text are spelled out here as there: the same bytes.
    style = PostStyle(forum=post.forum, ascii_only=post.ascii_only, fold=post.fold)
    bbcode = render_report(report, "bbcode", style)
    return {
        "ruleset": report.ruleset,
        "title": report.title,
        "seed": report.seed,
        "footer": report.footer(),
        "command": _command(verb, scenario, options),
        "post_options": post.words(),
        "html": render_html(report, fold=post.fold),
        "markdown": render_report(report, "markdown", style),
        "bbcode": bbcode,
        "document": report_document(report),
        "picture": None,
        "limits": [],
    }


def _picture(
    answer: dict[str, Any],
    scenario: Scenario,
    most: int | None,
    work: str | None = None,
    **where: Any,
) -> None:
    """Put the ruleset's picture into ``answer`` (if it draws one), unless it is longer
    than ``most`` characters: then ``limits`` says it was left out, and the rest of the
    answer stands (a board of a quarter of a million hexes draws to some 100 MB).

    The picture is drawn within ``budget.picture`` = ``most``, so a ruleset that counts
    what it draws stops there rather than drawing it whole, and within the work budget
    ``work`` when drawing it works something out (a forecast, the threats), as
    ``fracas render`` does."""
    if not capabilities(type(scenario.ruleset))["picture"]:
        return
    bound = {} if most is None else {PICTURE_BYTES.name: most}
    try:
        with limits_in_force(bound), scenario.budget(work or RESOLVE_BUDGET.name):
            svg = scenario.ruleset.picture(scenario.model, **where)
    except BudgetExceededError as exc:
        if most is None or PICTURE_BYTES.name not in exc.problem:
            raise  # the work, not the drawing, was over its budget: the command line's error
        size = f"more than {most:,} characters"
    else:
        picture = "data:image/svg+xml;charset=utf-8," + quote(svg)
        if most is None or len(picture) <= most:
            answer["picture"] = picture
            return
        size = f"{len(picture):,} bytes"
    answer["limits"].append(
        f"The picture is left out: {size}, over half of this server's answer limit of "
        f"{2 * most:,} bytes (fracas serve --max-answer); fracas render draws it."
    )


# ── operations ─────────────────────────────────────────────────────────────────────────


@cache
def _schema(ruleset: type[AnyRuleset]) -> dict[str, Any]:
    """The ruleset's scenario schema, worked out once a process."""
    return ruleset.json_schema()


def validate(given: ScenarioInput) -> dict[str, Any]:
    """Check a scenario; answer what the page needs to edit it (fields, unit ids, sides)."""
    scenario = load(given)
    cls = type(scenario.ruleset)
    choices = unit_choices(scenario.document)
    return {
        "ok": True,
        "ruleset": cls.name,
        "title": scenario.header.title or scenario.source,
        "sha256": scenario.sha256,
        "seed": scenario.header.seed,
        "capabilities": capabilities(cls),
        "fields": form_fields(scenario.document, cls.parameters(), _schema(cls)),
        "choices": {**choices, "attacks": legal_attacks(scenario, choices["units"])},
    }


#: Pairs of units tried for legal attacks, at most: enough for every pair of 12 units.
MAX_ATTACK_TRIES = 132


def legal_attacks(scenario: Scenario, units: Sequence[str]) -> list[list[str]]:
    """The ``[attacker, target]`` pairs the ruleset's own forecast accepts, so the page
    opens on an attack that is legal (none for a ruleset without a forecast). Only the
    first :data:`MAX_ATTACK_TRIES` pairs are tried; the page offers every unit when none
    of them is legal.
    """
    if not capabilities(type(scenario.ruleset))["forecast"]:
        return []
    legal = []
    pairs = [(a, t) for a in units for t in units if a != t][:MAX_ATTACK_TRIES]
    for attacker, target in pairs:
        try:
            scenario.ruleset.forecast(scenario.model, attacker, target)
        except FracasError:
            continue
        legal.append([attacker, target])
    return legal


def resolve(
    given: ScenarioInput, seed: int | None, *, picture_bytes: int | None = None
) -> dict[str, Any]:
    """Resolve the scenario (with ``seed``, else the scenario's own, else 0); the picture
    comes when it is at most ``picture_bytes`` long (``None``: any length)."""
    scenario = load(given)
    report = scenario.resolve(seed=seed)
    options = [] if report.seed is None else ["--seed", str(report.seed)]
    answer = _report_answer(scenario, report, "resolve", options, given.post)
    _picture(answer, scenario, picture_bytes)
    return answer


def forecast(
    given: ScenarioInput, attacker: str, target: str, *, picture_bytes: int | None = None
) -> dict[str, Any]:
    """One action previewed, without changing the scenario (for rulesets that can)."""
    scenario = load(given)
    report = scenario.forecast(attacker, target)  # within budget.forecast, as the CLI's
    options = ["--attacker", attacker, "--target", target]
    answer = _report_answer(scenario, report, "forecast", options, given.post)
    work = FORECAST_BUDGET.name
    _picture(answer, scenario, picture_bytes, work, attacker=attacker, target=target)
    return answer


def advise(given: ScenarioInput, side: str) -> dict[str, Any]:
    """The actions of ``side``, best first (for rulesets that can)."""
    scenario = load(given)
    report = scenario.advise(side)  # within budget.advise, as the command line's
    return _report_answer(scenario, report, "advise", ["--side", side], given.post)


def threats(given: ScenarioInput, side: str, *, picture_bytes: int | None = None) -> dict[str, Any]:
    """What the other sides can do to ``side`` now, worst first (for rulesets that can);
    the picture marks each threatened unit."""
    scenario = load(given)
    with scenario.budget(ADVISE_BUDGET.name):  # as `fracas threats` bounds it
        report = scenario.stamp(scenario.ruleset.threats(scenario.model, side))
    answer = _report_answer(scenario, report, "threats", ["--side", side], given.post)
    _picture(answer, scenario, picture_bytes, ADVISE_BUDGET.name, threats=side)
    return answer


def reply(given: ScenarioInput, side: str, *, plan: bool = False) -> dict[str, Any]:
    """The enemy's best reply to each of the best actions of ``side``, or to its planned
    turn (``plan``), ranked by the value after both (for rulesets that can)."""
    scenario = load(given)
    with scenario.budget(ADVISE_BUDGET.name):  # as `fracas advise --reply` bounds it
        report = scenario.stamp(scenario.ruleset.reply(scenario.model, side, plan=plan))
    options = ["--side", side, *(["--plan"] if plan else []), "--reply"]
    return _report_answer(scenario, report, "advise", options, given.post)


@dataclass(frozen=True)
class ArmyFile:
    """An uploaded file: its name as the user's machine called it, and its bytes."""

    name: str
    data: bytes


@dataclass(frozen=True)
class ArmyInput:
    """What the page's army lists ask: one list (its units), or two and the ``fight``
    (``UNIT=ENEMY``) to build a battle of, as ``fracas import --versus`` does."""

    army: ArmyFile
    versus: ArmyFile | None = None
    catalogues: tuple[ArmyFile, ...] = ()
    joins: tuple[str, ...] = ()
    fight: str | None = None
    charger: str = "first"
    arc: str = "front"


#: The options of ``fracas import`` and the request fields of ``/api/import`` that carry them.
_IMPORT_FIELDS = {
    "--fight": "fight",
    "--join": "joins",
    "--catalogue": "catalogues",
    "--versus": "versus",
    "--charger": "charger",
    "--arc": "arc",
}
_OPTION = re.compile("|".join(rf"{re.escape(option)}\b" for option in _IMPORT_FIELDS))


def import_armies(given: ArmyInput) -> dict[str, Any]:
    """The army lists read as ``fracas import`` reads them: each list's units and
    characters, and the scenario text (the first list's units, or with ``fight`` the whole
    battle), with what the ruleset does not model. The files are written to a private
    folder under their own names for the importer, so every message names them as the
    user does.

    >>> from fracas.web.operations import examples_folder
    >>> empire = (examples_folder() / "armies" / "empire.ros").read_bytes()
    >>> import_armies(ArmyInput(ArmyFile("empire.ros", empire)))["armies"][0]["units"]
    ['Halberdiers', 'Empire Knights']
    """
    import tempfile

    from fracas.rulesets import army_importer

    importer = army_importer()
    with tempfile.TemporaryDirectory(prefix="fracas-army-") as folder:
        written: dict[str, str] = {}

        def put(upload: ArmyFile, index: int) -> Path:
            # Each file in a folder of its own: two uploads of one name stay apart. The
            # name is the user's last component, never "..", a control character or a slash.
            name = "".join(c for c in PurePath(upload.name).name if c.isprintable())
            if name in ("", ".", ".."):
                name = "army"
            path = Path(folder) / str(index) / name
            path.parent.mkdir()
            path.write_bytes(upload.data)
            written[str(path)] = name
            return path

        try:
            army = put(given.army, 0)
            versus = None if given.versus is None else put(given.versus, 1)
            catalogues = tuple(put(c, 2 + k) for k, c in enumerate(given.catalogues))
            lists = [
                importer.import_army(path, catalogues=catalogues, joins=())
                for path in (army, *([versus] if versus else []))
            ]
            if versus is None and not given.joins:
                result = lists[0]  # the one list, as already read
            elif versus is not None and given.fight:
                pair = fight_pair(given.fight)
                if pair is None:
                    raise ScenarioError("write UNIT=ENEMY: a unit of each list", path=("fight",))
                result = importer.import_battle(
                    army,
                    versus,
                    pair,
                    charger=given.charger,
                    arc=given.arc,
                    catalogues=catalogues,
                    joins=given.joins,
                )
            else:
                result = importer.import_army(army, catalogues=catalogues, joins=given.joins)
        except ScenarioError as exc:
            # The importer speaks to the command line; the request names its fields.
            source = written.get(exc.source or "", exc.source)
            path = exc.path
            field = _IMPORT_FIELDS.get(source or "")
            if field is not None:
                source, path = None, (field, *path)
            problem = _OPTION.sub(lambda m: _IMPORT_FIELDS[m.group()], exc.problem)
            raise ScenarioError(problem, source=source, path=path, hint=exc.hint) from None
    uploads = (given.army, *([given.versus] if given.versus else []))
    return {
        "armies": [
            {
                "file": PurePath(upload.name).name,
                "units": list(read.units),
                "characters": list(read.characters),
            }
            for upload, read in zip(uploads, lists, strict=True)
        ],
        "text": result.text,
        "name": "battle.yaml" if versus is not None and given.fight else "units.yaml",
        "unmodelled": list(result.unmodelled),
    }


@dataclass(frozen=True)
class OddsOptions:
    """The options of ``fracas odds`` that the page offers."""

    method: str = "auto"
    seed: int | None = None
    runs: int | None = None
    precision: float | None = None
    max_runs: int | None = None
    confidence: float = 0.95
    exact_budget: int | None = None
    sample_budget: int | None = None
    exact_fractions: bool = False
    exact_tolerance: float | None = None


def _within(name: str, asked: int | None, limit: int, flag: str | None, default: int) -> int:
    """What a request gets: what it asked for, else the command line's default, within
    this server's limit (so the command the page shows gives the same answer). ``flag``
    is the ``fracas serve`` option that sets the limit, if there is one."""
    if asked is None:
        return min(default, limit)
    if asked > limit:
        raised = f"fracas serve {flag}; " if flag else ""
        raise ScenarioError(
            f"{asked:,} is above this server's limit of {limit:,} "
            f"({raised}the command line has no such limit)",
            path=(name,),
        )
    return asked


def _limit_notes(result: OddsResult) -> list[str]:
    notes = []
    if result.fallback:
        notes.append(f"Not exact: {result.fallback}; the odds were sampled instead.")
    if result.stopped_by and result.stopped_by != "precision" and result.precision is not None:
        notes.append(
            f"Precision ±{result.precision:g} not reached: stopped by the {result.stopped_by}."
        )
    elif result.stopped_by == "work budget":
        notes.append(f"Stopped early by the work budget ({result.budget:,} dice rolls).")
    return notes


def odds_answer(given: ScenarioInput, options: OddsOptions, limits: Limits) -> dict[str, Any]:
    """The odds of every metric, with the headline table and the chart."""
    scenario = load(given)
    if not capabilities(type(scenario.ruleset))["odds"]:
        raise UnsupportedError(f"ruleset {scenario.ruleset.name!r} does not summarize outcomes")
    runs = options.runs
    if runs is not None:
        _within("runs", runs, limits.max_runs, None, runs)
    # Each budget with the command line's default for this method; the shown command
    # names every one that differs from it.
    exact_default = exact_budget_for(options.method)
    budgets = {
        "max_runs": ("--max-runs", options.max_runs, limits.max_runs, DEFAULT_MAX_RUNS),
        "exact_budget": (
            "--exact-budget",
            options.exact_budget,
            limits.exact_budget,
            exact_default,
        ),
        "sample_budget": (
            "--sample-budget",
            options.sample_budget,
            limits.sample_budget,
            SAMPLE_BUDGET,
        ),
    }
    # `fracas serve` caps the two budgets with options of the same name; the runs cap is
    # the server's own.
    spent = {
        name: _within(name, asked, limit, None if name == "max_runs" else flag, default)
        for name, (flag, asked, limit, default) in budgets.items()
    }
    settings = {
        "method": options.method,
        "seed": options.seed,
        "runs": runs,
        "precision": options.precision,
        "confidence": options.confidence,
        **spent,
        "exact_fractions": options.exact_fractions,
    }
    if options.exact_tolerance is not None:
        settings["exact_tolerance"] = options.exact_tolerance
    # Advice to raise the exact budget must stay within what this server allows.
    with limits_in_force({EXACT_LIMIT.name: limits.exact_budget}):
        result = odds(scenario, **settings)  # type: ignore[arg-type]
    title = scenario.header.title or scenario.source
    report = scenario.stamp(odds_report(result, title=title, fractions=options.exact_fractions))
    words = ["--method", options.method] if options.method != "auto" else []
    if result.seed is not None and not result.exact:
        words += ["--seed", str(result.seed)]
    for flag, value in (
        ("--runs", options.runs),
        ("--precision", options.precision),
        ("--exact-tolerance", options.exact_tolerance),
    ):
        if value is not None:
            words += [flag, str(value)]
    # Every budget the method uses is part of the answer (the report records it), so each
    # one that differs from the command line's default is named.
    unused = {"exact": ("max_runs", "sample_budget"), "mc": ("exact_budget",)}
    for name, (flag, _, _, default) in budgets.items():
        if spent[name] != default and name not in unused.get(options.method, ()):
            words += [flag, str(spent[name])]
    if options.confidence != 0.95:
        words += ["--confidence", str(options.confidence)]
    if options.exact_fractions:
        words.append("--exact-fractions")
    answer = _report_answer(scenario, report, "odds", words, given.post)
    plain = scenario.stamp(
        odds_report(result, title=title, fractions=options.exact_fractions, chart=False)
    )
    answer["html"] = odds_html(result, title=title, report=plain)
    answer["chart"] = odds_chart_svg(result, title=title)
    answer["headline"] = [
        {
            "label": row.label,
            "kind": row.kind,
            "metric": row.metric,
            "value": float(row.value),
            "low": row.low,
            "high": row.high,
        }
        for row in headline(result)
    ]
    answer["distributions"] = distributions(result)
    answer["method"] = result.method
    answer["limits"] = _limit_notes(result)
    return answer


def _plain_value(value: Any) -> Any:
    return (
        value
        if isinstance(value, int | float | str) and not isinstance(value, bool)
        else str(value)
    )


def distributions(result: OddsResult) -> list[dict[str, Any]]:
    """Every metric's distribution as the page draws it: each value with its label (as the
    tables write it), its chance and the interval around it.

    >>> from fracas.analysis.results import MetricOdds, OddsResult, ValueOdds
    >>> hits = MetricOdds("hits", True, (ValueOdds(0, 0.25, 0.25, 0.25),
    ...                                  ValueOdds(1, 0.75, 0.75, 0.75)), 0.75, 0.75, 0.75)
    >>> shown = distributions(OddsResult("coin", "exact", "single play", 1, "play", 0, (hits,)))
    >>> shown[0]["values"][1]
    {'value': 1, 'label': '1', 'p': 0.75, 'low': 0.75, 'high': 0.75}
    """
    return [
        {
            "metric": metric.name,
            "label": metric.title,
            "numeric": metric.numeric,
            "mean": None if metric.mean is None else float(metric.mean),
            "values": [
                {
                    "value": _plain_value(entry.value),
                    "label": number(entry.value),
                    "p": float(entry.probability),
                    "low": entry.low,
                    "high": entry.high,
                }
                for entry in metric.values
            ],
        }
        for metric in result.metrics
    ]
