"""The web app: JSON endpoints under ``/api`` (with an OpenAPI document) and the page.

FastAPI, because fracas's scenario documents are already pydantic models: the request and
answer models below turn into the OpenAPI document (``/api/openapi.json``) and the
request checks for free, and that document is what the fuzz tests generate requests from.

Every error is one JSON object ``{"error": {"message", "path", "problem", "source"}}``
with a 4xx status, worded as the command line words it; a server error is a bug.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib.resources import files
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fracas._version import __version__
from fracas.core.budgets import EXACT_TOLERANCE
from fracas.core.errors import FracasError, ScenarioError, format_path
from fracas.io.render import FORUM_SIZES
from fracas.web import operations
from fracas.web.operations import Limits, OddsOptions, PostOptions, ScenarioInput

T = TypeVar("T")

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

    model_config = ConfigDict(extra="forbid")

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


class OddsRequest(ScenarioRequest):
    method: Literal["auto", "exact", "mc"] = "auto"
    seed: int | None = Field(None, ge=0, le=MAX_SEED)
    runs: int | None = Field(None, ge=1, description="Monte Carlo repetitions (default 10,000).")
    precision: float | None = Field(None, gt=0, lt=0.5)
    max_runs: int | None = Field(None, ge=1)
    confidence: float = Field(0.95, gt=0, lt=1)
    exact_budget: int | None = Field(None, ge=1)
    sample_budget: int | None = Field(None, ge=1)
    exact_fractions: bool = False
    exact_tolerance: float | None = Field(
        None,
        description="Exact odds in floats leave out branches less likely than this "
        f"(default {EXACT_TOLERANCE:g}, as --exact-tolerance); 0 keeps every branch.",
        # Checked where the command line's is, by the odds themselves, so that both refuse
        # the same values in the same words.
        json_schema_extra={"minimum": 0, "exclusiveMaximum": 1},
    )

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
    method: str


class ValidateAnswer(BaseModel):
    ok: bool
    ruleset: str
    title: str
    sha256: str
    seed: int | None
    capabilities: dict[str, bool]
    fields: list[dict[str, Any]]
    choices: dict[str, list[str]]


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
        (413, "The request body is larger than the server's limit."),
        (422, "A bad scenario or request: the message names the key path."),
        (503, "The answer took longer than the server's time limit, or the server is busy."),
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
) -> JSONResponse:
    detail = ErrorDetail(message=message or problem, problem=problem, path=path, source=source)
    return JSONResponse({"error": detail.model_dump()}, status_code=status)


class LimitError(FracasError):
    """The server would not, or could not, finish in its limits (503)."""


def _fracas_error(_: Request, exc: Exception) -> Response:
    if isinstance(exc, ScenarioError):
        return error_response(
            422,
            exc.problem + (f" (hint: {exc.hint})" if exc.hint else ""),
            path=format_path(exc.path) if exc.path else None,
            source=exc.source,
            message=str(exc),
        )
    status = 503 if isinstance(exc, LimitError) else 400
    return error_response(status, str(exc))


def _request_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    # ("body", "seed") → "seed": the page shows the option's own name.
    location = tuple(part for part in first.get("loc", ()) if part != "body")
    path = format_path(location) if location else None
    problem = str(first.get("msg", "invalid request")).replace("Value error, ", "")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return error_response(
        422, problem + more, path=path, message=f"request: {path or '(body)'}: {problem}{more}"
    )


def _http_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error_response(exc.status_code, str(exc.detail))


# ── bounded work ───────────────────────────────────────────────────────────────────────


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, before any of it is parsed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

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


class Worker:
    """Runs computations in threads: at most ``limits.workers`` at once, each waited on
    for at most ``limits.time_limit`` seconds.

    A thread cannot be stopped from outside; one that outlives its time limit keeps its
    slot until its own work budget ends it, so late work can never pile up.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.slots = threading.BoundedSemaphore(limits.workers)

    async def run(self, work: Callable[[], T]) -> T:
        if not self.slots.acquire(blocking=False):
            raise LimitError(
                f"the server is busy with {self.limits.workers} computations; try again shortly"
            )

        def job() -> T:
            try:
                return work()
            finally:
                self.slots.release()

        try:
            with anyio.fail_after(self.limits.time_limit):
                return await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
        except TimeoutError:
            raise LimitError(
                f"no answer within this server's time limit of {self.limits.time_limit:g} s "
                "(fracas serve --time-limit); ask for less work (fewer runs, a lower budget) "
                "or run it on the command line"
            ) from None


# ── the app ────────────────────────────────────────────────────────────────────────────


def create_app(limits: Limits | None = None) -> FastAPI:
    """The ASGI app of ``fracas serve``, with its limits.

    >>> app = create_app()
    >>> sorted(route.path for route in app.routes if route.path.startswith("/api/r"))
    ['/api/resolve', '/api/rulesets']
    """
    limits = limits or Limits()
    worker = Worker(limits)
    app = FastAPI(
        title="fracas",
        version=__version__,
        description=(
            "Resolve and forecast wargame combat: exact, explained, reproducible. Every "
            "answer carries the footer and the command line that reproduce it. Limits: "
            f"{limits.body_bytes:,} bytes a request, {limits.time_limit:g} s an answer, "
            f"odds budgets {limits.exact_budget:,} exact steps and "
            f"{limits.sample_budget:,} sampled dice rolls."
        ),
        openapi_url="/api/openapi.json",
        docs_url=None,  # the interactive docs load scripts from a CDN; the page must not
        redoc_url=None,
    )
    app.add_exception_handler(FracasError, _fracas_error)
    app.add_exception_handler(RequestValidationError, _request_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_middleware(BodyLimit, limit=limits.body_bytes)
    app.state.limits = limits

    async def run(work: Callable[[], T]) -> T:
        return await worker.run(work)

    @app.get("/api/rulesets", response_model=list[RulesetAnswer], tags=["api"])
    async def list_rulesets() -> list[dict[str, Any]]:
        """Every installed ruleset, with what it can do (capabilities) and its parameters."""
        return operations.rulesets()

    @app.get("/api/examples", response_model=list[ExampleAnswer], tags=["api"])
    async def list_examples() -> list[dict[str, Any]]:
        """The bundled example scenarios, with their text."""
        return await anyio.to_thread.run_sync(operations.examples)

    @app.post("/api/validate", response_model=ValidateAnswer, responses=ERRORS, tags=["api"])
    async def validate(request: ScenarioRequest) -> dict[str, Any]:
        """Check a scenario; answer its editable numbers and the names of its units."""
        return await run(lambda: operations.validate(request.given()))

    @app.post("/api/resolve", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def resolve(request: ResolveRequest) -> dict[str, Any]:
        """Resolve a scenario with seeded dice."""
        return await run(lambda: operations.resolve(request.given(), request.seed))

    @app.post("/api/forecast", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def forecast(request: ForecastRequest) -> dict[str, Any]:
        """Preview one action without changing the scenario (rulesets with a forecast)."""
        return await run(
            lambda: operations.forecast(request.given(), request.attacker, request.target)
        )

    @app.post("/api/advise", response_model=ReportAnswer, responses=ERRORS, tags=["api"])
    async def advise(request: AdviseRequest) -> dict[str, Any]:
        """Rank a side's actions, best first (rulesets with an advisor)."""
        return await run(lambda: operations.advise(request.given(), request.side))

    @app.post("/api/odds", response_model=OddsAnswer, responses=ERRORS, tags=["api"])
    async def odds(request: OddsRequest) -> dict[str, Any]:
        """Outcome probabilities: exact where tractable, sampled otherwise, within the budgets."""
        return await run(lambda: operations.odds_answer(request.given(), request.options(), limits))

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        # The defaults the page shows are the command line's, from the one place they live.
        filled = html.replace("{{version}}", __version__)
        return HTMLResponse(filled.replace("{{exact_tolerance}}", f"{EXACT_TOLERANCE:g}"))

    @app.get("/static/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        if name not in ASSETS:
            raise HTTPException(404, f"no asset named {name!r}")
        body = (STATIC / name).read_bytes()
        return Response(body, media_type=ASSETS[name], headers={"Cache-Control": "no-cache"})

    return app


__all__ = ["ERRORS", "Limits", "create_app"]
