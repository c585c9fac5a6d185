"""``fracas serve``: uvicorn with the server's own bounds on connections and a quick stop.

uvicorn closes a connection that idles after an answer (its keep-alive timeout), but not
one that never sends a request, nor one that sends its request head a byte at a time, and
its own connection limit answers in plain text. :func:`guarded_protocol` adds what is missing:

* a connection that sends nothing within ``idle_timeout`` seconds of opening is closed;
* a request head that is not complete within ``header_timeout`` seconds of its first byte
  is answered 408 and the connection closed (the body has as long again, see
  :class:`~fracas.web.app.BodyLimit`);
* past ``connections`` open connections, a new one is answered 503 (the JSON error, with
  ``Retry-After``) and closed;
* bytes that are no HTTP request get the JSON error (400), not uvicorn's plain text.

Every connection takes a file descriptor. The connection limit and the accept queue are
fitted to what the process may open (``ulimit -n``): the soft limit is raised as far as
needed (up to the hard one), else the connections allowed are lowered and the server says
so, once. Were the descriptors to run out all the same, the event loop's "too many open
files" is logged once a minute, in one line (asyncio logs it with a traceback for every
try, thousands a second).

SIGINT (Ctrl+C) and SIGTERM stop the server within two seconds: the workers are killed at
once (their questions are answered 503, "the server is stopping"), the connections get a
second to take their answers, and the server ends.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

try:  # the web extra's C parser and event loop: a third of the server's own work per answer
    import uvloop  # noqa: F401
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as BaseProtocol

    LOOP = "uvloop"
except ImportError:  # pragma: no cover - a web install without them (another platform)
    BaseProtocol = H11Protocol  # type: ignore[assignment,misc]
    LOOP = "asyncio"

from fracas.web.app import SECURITY_HEADERS, create_app
from fracas.web.jobs import dumps, error_body
from fracas.web.operations import Limits

#: Seconds the connections get to take their answers once the server stops.
GRACE = 1.0


def canned(status: int, reason: str, problem: str, **headers: str) -> bytes:
    """A whole HTTP answer with the JSON error, for a connection about to be closed."""
    body = dumps(error_body(problem))
    lines = [
        f"HTTP/1.1 {status} {reason}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        "connection: close",
        *(f"{name}: {value}" for name, value in headers.items()),
        *(f"{name.decode()}: {value.decode()}" for name, value in SECURITY_HEADERS),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def guarded_protocol(
    limits: Limits, base: type[H11Protocol] | type[BaseProtocol] = BaseProtocol
) -> type[H11Protocol] | type[BaseProtocol]:
    """uvicorn's HTTP/1.1 protocol (``base``: the C parser where the web extra installed it,
    else h11) with the timeouts and the connection limit of ``limits``."""
    too_many = canned(
        503,
        "Service Unavailable",
        f"the server has {limits.connections} connections open, its most "
        "(fracas serve --connections); try again shortly",
        **{"retry-after": "1"},
    )
    too_slow = canned(
        408,
        "Request Timeout",
        f"the request head did not arrive within {limits.header_timeout:g} s "
        "(fracas serve --header-timeout)",
    )

    class Guarded(base):  # type: ignore[valid-type,misc]
        _timer: asyncio.TimerHandle | None = None
        #: What the timer waits for: "idle" (any byte), "head" (a whole request head).
        _waiting_for = ""

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.connections:
                transport.write(too_many)
                transport.close()
                return
            self._arm("idle", limits.idle_timeout, b"")

        def _arm(self, waiting_for: str, seconds: float, answer: bytes) -> None:
            self._disarm()
            self._waiting_for = waiting_for
            self._timer = self.loop.call_later(seconds, self._expire, answer)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = None
            self._waiting_for = ""

        def _expire(self, answer: bytes) -> None:
            self._timer = None
            if not self.transport.is_closing():
                if answer:
                    self.transport.write(answer)
                self.transport.close()

        def _between_requests(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def data_received(self, data: bytes) -> None:
            if self._between_requests() and self._waiting_for != "head":
                self._arm("head", limits.header_timeout, too_slow)  # a request has begun
            before = self.cycle
            super().data_received(data)
            if self.cycle is not before and not self._between_requests():
                self._disarm()  # its head is in

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def send_400_response(self, msg: str) -> None:
            # Not HTTP at all: the JSON error too, never uvicorn's plain text.
            self._disarm()
            if not self.transport.is_closing():
                problem = "not a valid HTTP/1.1 request"
                self.transport.write(canned(400, "Bad Request", problem))
                self.transport.close()

    return Guarded


#: Descriptors the server's own process holds besides its connections (its modules, the
#: standard streams, the event loop, the listening socket, the fork server's pipes: 10 to
#: 16 measured), with room for more (a campaign database, a Dask client's sockets)...
OWN_DESCRIPTORS = 32
#: ...and for each worker process (its pipe and its sentinel: 3 measured).
WORKER_DESCRIPTORS = 3


def fit_descriptors(limits: Limits) -> tuple[Limits, int, str | None]:
    """``limits`` with a connection limit the process can hold, the accept queue (the
    ``backlog``, which is also how many connections one wake of the event loop accepts),
    and a line to say when ``--connections`` had to be lowered.

    Each open connection, and each one accepted before the guard closes it, holds a
    descriptor; so the server needs its own, the workers', ``connections`` and
    ``backlog`` of them. The soft limit is raised to that if the hard one allows.

    >>> limits, backlog, note = fit_descriptors(Limits(connections=64, workers=2))
    >>> (limits.connections, backlog) if note is None else note  # unless ulimit -n < 200
    (64, 128)
    """
    backlog = max(128, limits.connections)
    try:
        import resource
    except ImportError:  # not POSIX: nothing to ask
        return limits, backlog, None
    own = OWN_DESCRIPTORS + WORKER_DESCRIPTORS * 2 * limits.workers
    needed = own + limits.connections + backlog
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (OSError, ValueError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return limits, backlog, None
    spare = max(2, soft - own)
    connections = max(1, spare // 2)
    note = (
        f"fracas serve: at most {connections} connections at once, not {limits.connections} "
        f"(--connections): this process may open only {soft} files (ulimit -n {soft}); "
        f"raise it to {needed} for {limits.connections}"
    )
    return dataclasses.replace(limits, connections=connections), spare - connections, note


#: What asyncio says when an accept fails for want of descriptors (or memory).
OUT_OF_RESOURCE = "socket.accept() out of system resource"
#: Seconds between two lines about it in the log.
QUIET_SECONDS = 60.0


def quiet_about_descriptors(log: logging.Logger) -> Callable[[Any, dict[str, Any]], None]:
    """An event loop exception handler that logs a failed accept once a minute, in one
    line; anything else as the loop would."""
    last = -QUIET_SECONDS

    def handle(loop: Any, context: dict[str, Any]) -> None:
        nonlocal last
        if context.get("message") != OUT_OF_RESOURCE:
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - last >= QUIET_SECONDS:
            last = now
            log.error(
                "cannot accept connections: %s (ulimit -n, or lower --connections); "
                "said at most once a minute",
                context.get("exception"),
            )

    return handle


class StoppingServer(uvicorn.Server):
    """uvicorn's server that kills the workers as soon as it is told to stop."""

    def __init__(self, config: uvicorn.Config, stop: Any) -> None:
        super().__init__(config)
        self._stop = stop

    async def serve(self, sockets: Any = None) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(quiet_about_descriptors(logging.getLogger("fracas.web")))
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # In a thread: the signal may come while this thread holds a lane's lock.
        threading.Thread(target=self._stop, name="fracas-stop", daemon=True).start()
        super().handle_exit(sig, frame)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    limits: Limits | None = None,
    *,
    scheduler: str | None = None,
    ready: Callable[[], None] | None = None,
    campaign: str | None = None,
) -> None:
    """Serve the calculator until SIGINT or SIGTERM; ``ready`` is called once the app (and
    its cluster, with a ``scheduler``) is there, just before the server starts listening;
    ``campaign`` adds the read-only pages of that campaign database."""
    limits, backlog, note = fit_descriptors(limits or Limits())
    app = create_app(limits, host=host, scheduler=scheduler, campaign=campaign)
    if note is not None:
        print(note, file=sys.stderr, flush=True)
    if ready is not None:
        ready()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        http=guarded_protocol(limits),
        loop=LOOP,
        timeout_keep_alive=max(1, round(limits.idle_timeout)),
        timeout_graceful_shutdown=max(1, round(GRACE)),
        # Past the connection limit the guard answers, in JSON.
        limit_concurrency=None,
        backlog=backlog,
    )
    server = StoppingServer(config, app.state.pool.close)
    try:
        server.run()
    except KeyboardInterrupt:
        pass  # uvicorn raises the Ctrl+C it caught once it has stopped: stopping was asked
    finally:
        app.state.pool.close()


__all__ = ["guarded_protocol", "serve"]
