"""The web app: JSON endpoints under ``/api`` (with an OpenAPI document) and the page.

FastAPI, because fracas's scenario documents are already pydantic models: the request and
answer models below turn into the OpenAPI document (``/api/openapi.json``) and the
request checks for free, and that document is what the fuzz tests generate requests from.

Every error is one JSON object ``{"error": {"message", "path", "problem", "source"}}``,
worded as the command line words it: a 4xx for the request's fault, 503 when the server
cannot answer now (with ``Retry-After`` when trying again helps), 500 for a bug.

The work itself runs in worker processes (:mod:`fracas.web.pool`); this process parses
requests, checks them and forwards the answers the workers wrote.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import ipaddress
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import PurePath
from typing import Any, Literal

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fracas._version import __version__
from fracas.analysis.stats import check_confidence, check_tolerance
from fracas.core.budgets import EXACT_TOLERANCE
from fracas.core.errors import FracasError, ScenarioError, format_path
from fracas.io.html import REPORT_CSS
from fracas.io.render import FORUM_SIZES
from fracas.web import jobs, operations
from fracas.web.campaign import PAGE_STYLE
from fracas.web.jobs import Job, accepts_gzip, dumps, error_body, is_gzip, work_estimate
from fracas.web.operations import (
    ArmyFile,
    ArmyInput,
    Limits,
    OddsOptions,
    PostOptions,
    ScenarioInput,
)
from fracas.web.pool import Busy, Crashed, Pool, Stopping, TimedOut

LOG = logging.getLogger("fracas.web")

FORUMS = tuple(FORUM_SIZES)

#: The largest seed the page can hold exactly (JavaScript numbers).
MAX_SEED = 2**53 - 1

STATIC = files("fracas.web") / "static"
ASSETS = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}


# ── request and answer models ──────────────────────────────────────────────────────────


class ScenarioRequest(BaseModel):
    """A scenario as text, with its format, its file name and ``--set`` overrides."""

    # Strict: `"runs": true` is not 1 run, `"fold": "yes"` is not true (a whole number is
    # still a number where one is asked for).
    model_config = ConfigDict(extra="forbid", strict=True)

    scenario: str = Field(description="The scenario text (YAML, JSON or TOML).")
    format: Literal["yaml", "json", "toml"] | None = Field(
        None, description="Format of the text; by default from the suffix of `name`, else YAML."
    )
    name: str = Field(
        "scenario.yaml",
        max_length=200,
        description="File name, used in error messages and in the reproducing command line.",
    )
    overrides: dict[str, Any] = Field(
        default_factory=dict,
        max_length=200,
        description="Key path → value, applied before loading like `--set PATH=VALUE`.",
        examples=[{"units[0].models": 25}],
    )
    forum: Literal[FORUMS] = Field(  # type: ignore[valid-type]
        "phpbb", description="BBCode dialect of the `bbcode` post, like `--forum`."
    )
    ascii_only: bool = Field(False, description="Posts in ASCII only, like `--ascii`.")
    fold: bool = Field(False, description="Fold the step-by-step sections, like `--fold`.")

    def given(self) -> ScenarioInput:
        """The request as a worker reads it; overrides nested past the input limits are
        refused here, before they are pickled for the worker (pickling recurses, and a
        value 600 levels deep failed there as an internal error)."""
        from fracas.io.reader import check_document

        check_document(self.overrides, source="overrides")
        post = PostOptions(self.forum, self.ascii_only, self.fold)
        return ScenarioInput(self.scenario, self.name, self.format, self.overrides, post)


class ResolveRequest(ScenarioRequest):
    seed: int | None = Field(
        None, ge=0, le=MAX_SEED, description="Seed of the dice; default: the scenario's, else 0."
    )


class ForecastRequest(ScenarioRequest):
    attacker: str = Field(max_length=200, description="The acting unit.")
    target: str = Field(max_length=200, description="The unit it acts on.")


class AdviseRequest(ScenarioRequest):
    side: str = Field(max_length=200, description="The side to advise.")


class ThreatsRequest(ScenarioRequest):
    side: str = Field(max_length=200, description="The side whose units are threatened.")


class ReplyRequest(ScenarioRequest):
    side: str = Field(max_length=200, description="The side that acts first.")
    plan: bool = Field(False, description="Reply to the planned turn, not to each action.")


class ArmyUpload(BaseModel):
    """A file the page read from the user's machine."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=200, description="The file's name (its suffix tells .rosz).")
    data: str = Field(description="The file's bytes, in base64.")

    def file(self, where: str) -> ArmyFile:
        try:
            data = base64.b64decode(self.data, validate=True)
        except (binascii.Error, ValueError):
            raise ScenarioError(
                "is not base64", source=PurePath(self.name).name, path=(where, "data")
            ) from None
        return ArmyFile(self.name, data)


class ImportRequest(BaseModel):
    """Army lists to read, as ``fracas import`` reads them; with ``versus`` and ``fight``
    the whole battle of one unit of each."""

    model_config = ConfigDict(extra="forbid")

    army: ArmyUpload
    versus: ArmyUpload | None = None
    catalogues: list[ArmyUpload] = Field(default_factory=list, max_length=8)
    joins: list[str] = Field(default_factory=list, max_length=50)
    fight: str | None = Field(None, max_length=400, description="UNIT=ENEMY (with versus).")
    charger: Literal["first", "second", "none"] = "first"
    arc: Literal["front", "left", "right", "rear"] = "front"

    def given(self) -> ArmyInput:
        return ArmyInput(
            self.army.file("army"),
            None if self.versus is None else self.versus.file("versus"),
            tuple(c.file("catalogues") for c in self.catalogues),
            tuple(self.joins),
            self.fight,
            self.charger,
            self.arc,
        )


class OddsRequest(ScenarioRequest):
    method: Literal["auto", "exact", "mc"] = "auto"
    seed: int | None = Field(None, ge=0, le=MAX_SEED)
    runs: int | None = Field(None, ge=1, description="Monte Carlo repetitions (default 10,000).")
    precision: float | None = Field(None, gt=0, lt=0.5, allow_inf_nan=False)
    max_runs: int | None = Field(None, ge=1)
    confidence: float = Field(0.95, gt=0, lt=1, allow_inf_nan=False)
    exact_budget: int | None = Field(None, ge=1)
    sample_budget: int | None = Field(None, ge=1)
    exact_fractions: bool = False
    exact_tolerance: float | None = Field(
        None,
        description="Exact odds in floats leave out branches less likely than this "
        f"(default {EXACT_TOLERANCE:g}, as --exact-tolerance); 0 keeps every branch.",
        # Checked by the check the odds make, so that both refuse the same values in the
        # same words.
        json_schema_extra={"minimum": 0, "exclusiveMaximum": 1},
    )

    @field_validator("confidence")
    @classmethod
    def _a_level_an_interval_can_have(cls, value: float) -> float:
        check_confidence(value)  # (1 + c) / 2 must stay below 1 in a float
        return value

    @field_validator("exact_tolerance")
    @classmethod
    def _a_tolerance_odds_take(cls, value: float | None) -> float | None:
        if value is not None:
            check_tolerance(value)
        return value

    def options(self) -> OddsOptions:
        return OddsOptions(
            method=self.method,
            seed=self.seed,
            runs=self.runs,
            precision=self.precision,
            max_runs=self.max_runs,
            confidence=self.confidence,
            exact_budget=self.exact_budget,
            sample_budget=self.sample_budget,
            exact_fractions=self.exact_fractions,
            exact_tolerance=self.exact_tolerance,
        )


class ErrorDetail(BaseModel):
    message: str = Field(description="The whole message, as the command line prints it.")
    problem: str
    path: str | None = Field(None, description="Key path of the offending value, if any.")
    source: str | None = None


class ErrorAnswer(BaseModel):
    error: ErrorDetail


class ReportAnswer(BaseModel):
    ruleset: str
    title: str
    seed: int | None
    footer: str = Field(description="The line that reproduces this answer.")
    command: str = Field(description="The command line that gives the same answer.")
    post_options: list[str] = Field(
        description="Command-line options that write the same `bbcode` and `markdown` posts."
    )
    html: str
    markdown: str
    bbcode: str
    document: dict[str, Any] = Field(description="The JSON report, as `--format json` writes it.")
    picture: str | None = Field(description="An SVG picture (data URL), when the ruleset draws.")
    limits: list[str] = Field(description="Where a limit cut the work short.")


class HeadlineAnswer(BaseModel):
    label: str
    kind: str
    metric: str
    value: float
    low: float
    high: float


class OddsAnswer(ReportAnswer):
    chart: str = Field(description="The SVG chart of every metric.")
    headline: list[HeadlineAnswer]
    distributions: list[dict[str, Any]] = Field(
        description="Each metric's values with their chances and intervals, for charts."
    )
    method: str


class ValidateAnswer(BaseModel):
    ok: bool
    ruleset: str
    title: str
    sha256: str
    seed: int | None
    capabilities: dict[str, bool]
    fields: list[dict[str, Any]]
    choices: dict[str, list[Any]]


class RulesetAnswer(BaseModel):
    name: str
    title: str
    summary: str
    aliases: list[str]
    deterministic: bool
    capabilities: dict[str, bool]
    parameters: list[dict[str, Any]]


class ExampleAnswer(BaseModel):
    id: str
    ruleset: str
    name: str
    title: str
    description: str
    format: str
    scenario: str


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorAnswer, "description": text}
    for code, text in (
        (400, "An operation the ruleset does not offer, or options that do not fit."),
        (408, "The request body did not arrive in time."),
        (413, "The request body is larger than the server's limit."),
        (422, "A bad scenario or request: the message names the key path."),
        (
            503,
            "No answer within the server's time limit, the server is busy (then "
            "`Retry-After` says in how many seconds to try again), or it is stopping.",
        ),
    )
}


# ── errors ─────────────────────────────────────────────────────────────────────────────


def error_response(
    status: int,
    problem: str,
    *,
    path: str | None = None,
    source: str | None = None,
    message: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body = error_body(problem, path=path, source=source, message=message, **extra)
    return JSONResponse(body, status_code=status, headers=headers)


def _fracas_error(_: Request, exc: Exception) -> Response:
    status, body = jobs.error_of(exc)
    return JSONResponse(body, status_code=status)


def _server_error(_: Request, exc: Exception) -> Response:
    # A bug: the documented error object all the same, never a page of plain text. It is
    # sent from outside every middleware, so it carries the security headers itself.
    LOG.error("internal error", exc_info=exc)
    status, body = jobs.error_of(exc)
    headers = {name.decode(): value.decode() for name, value in SECURITY_HEADERS}
    return JSONResponse(body, status_code=status, headers=headers)


def _request_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    # ("body", "seed") → "seed": the page shows the option's own name.
    location = tuple(part for part in first.get("loc", ()) if part != "body")
    path = format_path(location) if location else None
    problem = str(first.get("msg", "invalid request")).replace("Value error, ", "")
    if first.get("type") == "json_invalid":
        # Its location is a character's offset in the body, not a key.
        offset = f" at character {location[0]}" if location else ""
        problem, path = f"the body is not valid JSON{offset}", None
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return error_response(
        422, problem + more, path=path, message=f"request: {path or '(body)'}: {problem}{more}"
    )


#: What FastAPI says of a body its JSON reader gave up on, and what it was.
_UNREADABLE_BODY = "There was an error parsing the body"


def _http_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400 and exc.detail == _UNREADABLE_BODY:
        # Python's JSON reader refused it whole: no key of it can be named.
        return error_response(
            422,
            "the body could not be read as JSON: it is not UTF-8, or it is nested or holds "
            "a number past what the reader takes (about 1,000 levels, 4,300 digits)",
        )
    return error_response(exc.status_code, str(exc.detail))


# ── bounded work ───────────────────────────────────────────────────────────────────────


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, before any of it is parsed."""

    def __init__(self, app: ASGIApp, limit: int, seconds: float = 10.0) -> None:
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        # A body trickled in a byte at a time must not hold a connection for ever.
        with anyio.move_on_after(self.seconds) as reading:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.limit:
                    await self._refuse(scope, receive, send)
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if reading.cancelled_caught:
            late = error_response(
                408,
                f"the request body did not arrive within {self.seconds:g} s "
                "(fracas serve --header-timeout)",
            )
            await late(scope, receive, send)
            return
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            413,
            f"the request is larger than this server's limit of {self.limit:,} bytes "
            "(fracas serve --max-body)",
        )
        await response(scope, receive, send)


#: A strict content policy: the page's own scripts, styles and images only, no inline
#: script, no framing. The one inline style allowed is the odds chart's (its hash).
CHART_STYLE = ".t{font-weight:600;font-size:11px}"


def style_hash(style: str) -> str:
    """The CSP source that allows the inline ``<style>`` holding ``style``."""
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    return f"'sha256-{digest}'"


#: Every inline style the server sends: the odds chart's, and the report's and the
#: campaign pages' own (a page whose style the policy does not name renders unstyled).
INLINE_STYLES = " ".join(style_hash(style) for style in (CHART_STYLE, REPORT_CSS, PAGE_STYLE))
CONTENT_POLICY = (
    "default-src 'none'; script-src 'self'; "
    f"style-src 'self' {INLINE_STYLES}; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


def host_names(bound: str, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The ``Host`` names a server bound to ``bound`` answers to: that address, the
    loopback names, and ``extra`` (``--allowed-host``), in lower case.

    >>> sorted(host_names("127.0.0.1", ("calc.lan",)))
    ['127.0.0.1', '::1', 'calc.lan', 'localhost']
    """
    return frozenset(name.lower().strip("[]") for name in (bound, *LOOPBACK, *extra) if name)


def is_host_name(name: str) -> bool:
    """Whether a ``Host`` header of ``name`` names ``name`` (no port, nothing else), as
    ``--allowed-host`` needs; an IPv6 address may be written without its brackets.

    >>> [is_host_name(n) for n in ("calc.lan", "[fd00::1]", "fd00::1", "calc.lan:80", "")]
    [True, True, True, False, False]
    """
    if ":" in name and not name.startswith("["):
        return _is_address(name)
    try:
        header = name.encode("ascii")
    except UnicodeEncodeError:
        return False
    return bool(name) and host_of(header) == name.lower().strip("[]")


LOOPBACK = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")


_HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::[0-9]{1,5})?")


def host_of(header: bytes) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` → ``::1``); ``""``
    for a header that is no host and port (``localhost:80@evil.com``, ``[::1]evil``),
    which no allowed name matches.

    >>> host_of(b"[::1]:8000"), host_of(b"LocalHost:80"), host_of(b"localhost:80@evil.com")
    ('::1', 'localhost', '')
    """
    found = _HOST.fullmatch(header.decode("latin-1").strip().lower())
    if found is None:
        return ""
    return found.group("v6") or found.group("name")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """Every answer gets the security headers; a request whose ``Host`` is not one of
    ``allowed`` is refused (400) before anything else runs.

    The ``Host`` check stops DNS rebinding: a page of another site that has its own name
    point at this machine reaches the server under that name, and is refused. A server
    bound to every address (``0.0.0.0``) also answers to any address written as numbers,
    which no rebinding can produce.
    """

    def __init__(self, app: ASGIApp, allowed: frozenset[str], any_address: bool) -> None:
        self.app = app
        self.allowed = allowed
        self.any_address = any_address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]
            await send(message)

        hosts = [value for key, value in scope.get("headers", ()) if key == b"host"]
        # Two Host headers are no request a browser sends: neither is taken.
        header = hosts[0] if len(hosts) == 1 else b""
        name = host_of(header)
        if name not in self.allowed and not (self.any_address and _is_address(name)):
            shown = header.decode("latin-1")[:100] or "(none)"
            response = error_response(
                400,
                f"this server does not answer to the host name {shown!r}; start it with "
                "fracas serve --allowed-host NAME to allow a name",
            )
            await response(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)


# ── the app ────────────────────────────────────────────────────────────────────────────


def create_app(
    limits: Limits | None = None,
    *,
    host: str = "127.0.0.1",
    scheduler: str | None = None,
    campaign: str | None = None,
) -> FastAPI:
    """The ASGI app of ``fracas serve`` bound to ``host``, with its limits; its work runs
    in worker processes (started with the first question), or on the Dask cluster whose
    scheduler is at ``scheduler``. ``app.state.pool.stop()`` stops them. The workers are
    forked from a server process that imports the main module as ``multiprocessing`` does,
    so a script that makes the app must do it under ``if __name__ == "__main__":``.
    ``campaign`` (a database path or URL) adds the read-only campaign pages under
    ``/campaign`` (:mod:`fracas.web.campaign`).

    >>> app = create_app()
    >>> sorted(route.path for route in app.routes if route.path.startswith("/api/r"))
    ['/api/reply', '/api/resolve', '/api/rulesets']
    """
    limits = limits or Limits()
    pool = Pool(limits, scheduler)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        pool.start()
        try:
            yield
        finally:
            pool.stop()

    app = FastAPI(
        lifespan=lifespan,
        title="fracas",
        version=__version__,
        description=(
            "Resolve and forecast wargame combat: exact, explained, reproducible. Every "
            "answer carries the footer and the command line that reproduce it. Limits: "
            f"{limits.body_bytes:,} bytes a request, {limits.time_limit:g} s an answer, "
            f"{limits.answer_bytes:,} bytes an answer, odds budgets "
            f"{limits.exact_budget:,} exact steps and {limits.sample_budget:,} sampled "
            "dice rolls."
        ),
        openapi_url="/api/openapi.json",
        docs_url=None,  # the interactive docs load scripts from a CDN; the page must not
        redoc_url=None,
    )
    app.add_exception_handler(FracasError, _fracas_error)
    app.add_exception_handler(RequestValidationError, _request_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _server_error)
    app.add_middleware(BodyLimit, limit=limits.body_bytes, seconds=limits.header_timeout)
    allowed = host_names(host, limits.allowed_hosts)
    app.add_middleware(Guard, allowed=allowed, any_address=host in WILDCARDS)
    app.state.limits = limits
    app.state.pool = pool

    async def compute(http: Request, operation: str, **arguments: Any) -> Response:
        """Answer with what a worker writes for ``operation``, or the error saying why not."""
        taken = http.headers.get("accept-encoding", "")
        job = Job(operation, arguments, limits, gzip=accepts_gzip(taken))
        try:
            future = pool.submit(job, work_estimate(operation, arguments, limits))
            status, body = await asyncio.wrap_future(future)
        except Busy as exc:
            return error_response(
                503,
                str(exc),
                headers={"Retry-After": str(exc.retry_after)},
                reason="busy",
                retry_after=exc.retry_after,
            )
        except TimedOut:
            return error_response(
                503,
                f"no answer within this server's time limit of {limits.time_limit:g} s "
                "(fracas serve --time-limit); ask for less work (fewer runs, a lower "
                "budget) or run it on the command line",
                reason="time limit",
            )
        except Stopping:
            return error_response(503, "the server is stopping", reason="stopping")
        except Crashed:
            return error_response(
                500, "internal error: the worker stopped while it worked on this question"
            )
        # The answer depends on Accept-Encoding, so a cache must key on it.
        headers = {"vary": "accept-encoding"}
        if is_gzip(body):
            headers["content-encoding"] = "gzip"
        return Response(body, status_code=status, media_type="application/json", headers=headers)

    # Read once: the same bytes for every request, from this process, at once.
    listing: dict[str, bytes] = {}

    def cached(name: str) -> Response:
        if name not in listing:
            listing[name] = dumps(getattr(operations, name)())
        return Response(listing[name], media_type="application/json")

    @app.get("/api/rulesets", response_model=list[RulesetAnswer], tags=["api"])
    async def list_rulesets() -> Response:
        """Every installed ruleset, with what it can do (capabilities) and its parameters."""
        return cached("rulesets")

    @app.get("/api/examples", response_model=list[ExampleAnswer], tags=["api"])
    async def list_examples() -> Response:
        """The bundled example scenarios, with their text."""
        if "examples" not in listing:
            await anyio.to_thread.run_sync(cached, "examples")
        return cached("examples")

    @app.post("/api/validate", response_model=ValidateAnswer, responses=ERRORS, tags=["api"])
    async def validate(request: ScenarioRequest, http: Request) -> Response:
        """Check a scenario; answer its editable numbers and the names of its units."""
        return await compute(http, "validate", given=request.given())

    @app.post("/api/resolve", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def resolve(request: ResolveRequest, http: Request) -> Response:
        """Resolve a scenario with seeded dice."""
        return await compute(http, "resolve", given=request.given(), seed=request.seed)

    @app.post("/api/forecast", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def forecast(request: ForecastRequest, http: Request) -> Response:
        """Preview one action without changing the scenario (rulesets with a forecast)."""
        return await compute(
            http,
            "forecast",
            given=request.given(),
            attacker=request.attacker,
            target=request.target,
        )

    @app.post("/api/advise", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def advise(request: AdviseRequest, http: Request) -> Response:
        """Rank a side's actions, best first (rulesets with an advisor)."""
        return await compute(http, "advise", given=request.given(), side=request.side)

    @app.post("/api/threats", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def threats(request: ThreatsRequest, http: Request) -> Response:
        """What the other sides can do to a side now, worst first (rulesets with threats)."""
        return await compute(http, "threats", given=request.given(), side=request.side)

    @app.post("/api/reply", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def reply(request: ReplyRequest, http: Request) -> Response:
        """The enemy's best reply to each of a side's best actions, or to its planned turn
        (rulesets with a reply)."""
        return await compute(
            http, "reply", given=request.given(), side=request.side, plan=request.plan
        )

    @app.post("/api/import", responses=ERRORS, tags=["api"])
    async def import_armies(request: ImportRequest, http: Request) -> Response:
        """Army lists from a list builder (rulesets that read them): each list's units,
        and the scenario text of its units, or of a battle of one unit of each list."""
        try:
            given = request.given()
        except ScenarioError as exc:
            status, body = jobs.error_of(exc)
            return JSONResponse(body, status_code=status)
        return await compute(http, "import", given=given)

    @app.post("/api/odds", response_model=OddsAnswer, responses=ERRORS, tags=["api"])
    async def odds(request: OddsRequest, http: Request) -> Response:
        """Outcome probabilities: exact where tractable, sampled otherwise, within the budgets."""
        return await compute(http, "odds", given=request.given(), options=request.options())

    if campaign is not None:
        from fracas.web.campaign import add_campaign_pages

        add_campaign_pages(app, campaign)

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> HTMLResponse:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        # The defaults the page shows are the command line's, from the one place they live.
        filled = html.replace("{{version}}", __version__)
        return HTMLResponse(filled.replace("{{exact_tolerance}}", f"{EXACT_TOLERANCE:g}"))

    @app.api_route("/static/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    async def asset(name: str) -> Response:
        if name not in ASSETS:
            raise HTTPException(404, f"no asset named {name!r}")
        body = (STATIC / name).read_bytes()
        return Response(body, media_type=ASSETS[name], headers={"Cache-Control": "no-cache"})

    return app


__all__ = ["ERRORS", "Limits", "create_app"]
