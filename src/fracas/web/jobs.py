"""One request's work as a job: plain data in, the HTTP status and the JSON body out.

A job is what a worker process (or a Dask worker) runs for the server: it calls the
operation, turns a failure into the documented error object, and writes the answer as
JSON bytes there, so the server's own process only forwards them. Nothing here knows
HTTP frameworks, and everything in a job pickles.

>>> from fracas.web.operations import Limits
>>> status, body = run(Job("rulesets", {}, Limits()))
>>> status, body[:9]
(200, b'[{"name":')
>>> status, body = run(Job("resolve", {"given": None, "seed": 1}, Limits()))
>>> status, json.loads(body)["error"]["message"].startswith("internal error")
(500, True)

A client that takes gzip (every browser does) gets the answer compressed, by the worker:
the server's process then forwards an eighth of the bytes, and its event loop stays free.

>>> status, body = run(Job("rulesets", {}, Limits(), gzip=True))
>>> is_gzip(body), gzip.decompress(body)[:9]
(True, b'[{"name":')
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fracas.core.budgets import DEFAULT_RUNS, exact_budget_for
from fracas.core.errors import FracasError, ScenarioError, format_path
from fracas.io.scenario import ADVISE_BUDGET
from fracas.web import operations
from fracas.web.operations import Limits

#: Longest scenario text (in characters) a question may have and still count as cheap: the
#: bundled examples are 1–3 kB; a huge board takes its time whatever is asked of it.
CHEAP_TEXT = 16_384
#: Most counted work (exact steps, plus the dice rolls sampling may take) of a cheap
#: question. A resolve of an example is a few thousand steps.
CHEAP_WORK = 250_000
#: Dice rolls assumed of one sampled run when a question is sorted into a lane (a
#: battle of the examples rolls 50–500). Only the lane depends on it, never the answer.
ROLLS_PER_RUN = 500
#: Shortest answer (in bytes) worth compressing: below it, gzip's header outweighs the gain.
GZIP_MIN = 1_024
#: zlib's fastest level: a resolve's 100 kB of JSON becomes 12 kB in a quarter of a
#: millisecond; the best level saves a further third at eight times the work.
GZIP_LEVEL = 1


@dataclass(frozen=True)
class Job:
    """An operation of :mod:`fracas.web.operations` by name, with its arguments."""

    operation: str
    arguments: dict[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    #: The client takes ``Content-Encoding: gzip``: the answer is compressed (see :func:`run`).
    gzip: bool = False


def is_gzip(body: bytes) -> bool:
    """Whether an answer of :func:`run` is compressed. JSON text never begins with gzip's
    magic bytes (a control character), so the body says it of itself.

    >>> is_gzip(b'{"name": 1}'), is_gzip(gzip.compress(b"{}"))
    (False, True)
    """
    return body[:2] == b"\x1f\x8b"


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip: named (or ``*``) with a weight
    above 0; a gzip named with ``q=0`` is refused even where ``*`` would take it.

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br;q=1.0, *;q=0.5")
    (True, True)
    >>> accepts_gzip(""), accepts_gzip("identity"), accepts_gzip("gzip;q=0, *")
    (False, False, False)
    """
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, *parameters = (part.strip() for part in item.split(";"))
        weight = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name:
            weights[name.lower()] = weight
    if "gzip" in weights:
        return weights["gzip"] > 0
    return weights.get("*", 0.0) > 0


def error_body(
    problem: str,
    *,
    path: str | None = None,
    source: str | None = None,
    message: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The documented error object: ``{"error": {"message", "problem", "path", "source"}}``.

    >>> error_body("busy", reason="queue")["error"]["reason"]
    'queue'
    """
    detail = {"message": message or problem, "problem": problem, "path": path, "source": source}
    return {"error": {**detail, **extra}}


#: What the YAML parser says of a text it was given as a string rather than a file: the
#: message already names the file, so the parser's placeholder name only confuses.
_PARSER_NAME = ' in "<unicode string>"'


#: What the command line's messages add for its own user, which a request cannot act on:
#: how to raise a limit (``--limit``; the server's limits are its operator's) and which
#: command lists every problem.
_COMMAND_LINE_ONLY = re.compile(
    r" \(raise it with --limit [\w.]+=N\)|; 'fracas validate' lists them all"
)


def _plain(text: str) -> str:
    """``text`` without the YAML parser's placeholder name, nor what only the command line's
    user can do.

    >>> _plain('did not find expected node content in "<unicode string>", line 4, column 1')
    'did not find expected node content, line 4, column 1'
    >>> _plain("above the limit input.depth = 64 (raise it with --limit input.depth=N)")
    'above the limit input.depth = 64'
    >>> _plain("x (hint: 2 more problems after this one; 'fracas validate' lists them all)")
    'x (hint: 2 more problems after this one)'
    """
    return _COMMAND_LINE_ONLY.sub("", text.replace(_PARSER_NAME, ""))


def error_of(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """The status and error object of a failed operation: 422 for a bad scenario, 400 for
    what the ruleset or the options cannot do, 500 for anything else (a bug)."""
    if isinstance(exc, ScenarioError):
        problem = _plain(exc.problem + (f" (hint: {exc.hint})" if exc.hint else ""))
        path = format_path(exc.path) if exc.path else None
        if path is not None and path.startswith("--"):
            # A ruleset names the command line's option (`--target`); the page and the API
            # call it by the request field of that name, and the message is the problem.
            return 422, error_body(problem, path=path.lstrip("-"), source=exc.source)
        return 422, error_body(problem, path=path, source=exc.source, message=_plain(str(exc)))
    if isinstance(exc, FracasError):
        return 400, error_body(_plain(str(exc)))
    return 500, error_body(
        f"internal error, please report it with the scenario ({type(exc).__name__})"
    )


def dumps(value: Any) -> bytes:
    """JSON as the answers are written: UTF-8, compact, no NaN.

    Text with a lone surrogate (a JSON scenario may hold ``"\\udc80"``; the command line
    prints it back escaped) has no UTF-8: the answer then escapes every character beyond
    ASCII, as ``fracas … --format json`` does, the same value to any JSON reader.

    >>> dumps({"title": "Café"}).decode()
    '{"title":"Café"}'
    >>> print(dumps({"title": "a" + chr(0xDC80)}).decode())
    {"title":"a\\udc80"}
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


OPERATIONS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "rulesets": lambda _: operations.rulesets(),
    "examples": lambda _: operations.examples(),
    "validate": lambda a: operations.validate(a["given"]),
    "resolve": lambda a: operations.resolve(
        a["given"], a["seed"], picture_bytes=a["limits"].answer_bytes // 2
    ),
    "forecast": lambda a: operations.forecast(
        a["given"], a["attacker"], a["target"], picture_bytes=a["limits"].answer_bytes // 2
    ),
    "advise": lambda a: operations.advise(a["given"], a["side"]),
    "threats": lambda a: operations.threats(
        a["given"], a["side"], picture_bytes=a["limits"].answer_bytes // 2
    ),
    "reply": lambda a: operations.reply(a["given"], a["side"], plan=a["plan"]),
    "odds": lambda a: operations.odds_answer(a["given"], a["options"], a["limits"]),
    "import": lambda a: operations.import_armies(a["given"]),
}


def run(job: Job) -> tuple[int, bytes]:
    """Do ``job``: the status and the JSON body of its answer (an error object on failure).

    An answer longer than ``job.limits.answer_bytes`` (as JSON) is refused (400) rather
    than sent. With ``job.gzip`` an answer of ``GZIP_MIN`` bytes or more is compressed
    (:func:`is_gzip` tells).
    """
    status, body = _answer(job)
    if job.gzip and len(body) >= GZIP_MIN:
        body = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    return status, body


def _answer(job: Job) -> tuple[int, bytes]:
    try:
        answer = OPERATIONS[job.operation]({**job.arguments, "limits": job.limits})
        body = dumps(answer)
    except Exception as exc:
        status, error = error_of(exc)
        return status, dumps(error)
    if len(body) > job.limits.answer_bytes:
        return 400, dumps(
            error_body(
                f"the answer would be {len(body):,} bytes, over this server's limit of "
                f"{job.limits.answer_bytes:,} (fracas serve --max-answer); the command line "
                "has no such limit"
            )
        )
    return 200, body


def work_estimate(operation: str, arguments: dict[str, Any], limits: Limits) -> float:
    """The counted work a question may ask for, from the request alone (nothing is parsed):
    what sorts it into the cheap lane or the expensive one.

    An odds question counts its exact budget (when it may try exact odds) and the dice
    rolls its runs may take (when it may sample); advice counts its budget; any question on
    a long scenario text counts as expensive.

    >>> from fracas.web.operations import OddsOptions, ScenarioInput
    >>> small = ScenarioInput("fracas: 1\\nruleset: any\\n")
    >>> work_estimate("resolve", {"given": small}, Limits()) <= CHEAP_WORK
    True
    >>> work_estimate("odds", {"given": small, "options": OddsOptions()}, Limits()) > CHEAP_WORK
    True
    >>> quick = OddsOptions(method="mc", runs=200)
    >>> work_estimate("odds", {"given": small, "options": quick}, Limits()) <= CHEAP_WORK
    True
    """
    given = arguments.get("given")
    # An army upload has no text: its work is bounded by the importer's own byte limit.
    if given is not None and len(getattr(given, "text", "")) > CHEAP_TEXT:
        return math.inf
    if operation in ("advise", "threats", "reply"):
        return float(ADVISE_BUDGET.default)
    if operation != "odds":
        return 1.0
    options: operations.OddsOptions = arguments["options"]
    work = 0.0
    if options.method != "mc":
        asked = options.exact_budget
        work += exact_budget_for(options.method) if asked is None else asked
    if options.method != "exact":
        runs = options.runs or DEFAULT_RUNS
        if options.precision is not None:
            runs = options.max_runs or limits.max_runs
        budget = options.sample_budget or limits.sample_budget
        work += min(budget, runs * ROLLS_PER_RUN)
    return work


__all__ = [
    "CHEAP_WORK",
    "Job",
    "accepts_gzip",
    "dumps",
    "error_body",
    "error_of",
    "is_gzip",
    "run",
    "work_estimate",
]
