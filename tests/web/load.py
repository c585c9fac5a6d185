"""A small load generator for ``fracas serve``: many keep-alive clients on one event loop.

Each client holds one HTTP/1.1 connection and sends prepared requests over it, one after
another, with a pause between an answer and the next question (people clicking, not a
flood); a 503 with ``Retry-After`` is honoured as a browser's script would. Requests are
written and answers read as raw bytes, so the generator costs little of the machine it
shares with the server: what it times is the server.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    """A prepared request: what it is (for the tallies) and its bytes."""

    kind: str
    data: bytes

    @classmethod
    def post(cls, kind: str, path: str, body: dict[str, Any], host: str) -> Call:
        content = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Accept-Encoding: gzip\r\nContent-Length: {len(content)}\r\n\r\n"
        )
        return cls(kind, head.encode() + content)

    @classmethod
    def get(cls, kind: str, path: str, host: str) -> Call:
        head = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip\r\n\r\n"
        return cls(kind, head.encode())


@dataclass(frozen=True)
class Answer:
    kind: str
    status: int
    seconds: float
    retry_after: str | None
    size: int


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, call: Call
) -> tuple[int, dict[str, str], bytes]:
    writer.write(call.data)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, body


async def _client(
    port: int,
    choose: Callable[[random.Random], Call],
    until: float,
    pause: tuple[float, float],
    rng: random.Random,
    answers: list[Answer],
) -> None:
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    # Clients start spread over the first pause, as people arrive.
    await asyncio.sleep(rng.uniform(0, pause[1]))
    while time.monotonic() < until:
        call = choose(rng)
        reused = connection is not None
        start = time.perf_counter()
        try:
            if connection is None:
                connection = await asyncio.open_connection("127.0.0.1", port)
            status, headers, body = await _exchange(*connection, call)
        except (ConnectionError, asyncio.IncompleteReadError):
            connection = None
            if not reused:  # a kept connection the server closed while idle is no failure
                answers.append(Answer(call.kind, 0, time.perf_counter() - start, None, 0))
            continue
        seconds = time.perf_counter() - start
        retry = headers.get("retry-after")
        answers.append(Answer(call.kind, status, seconds, retry, len(body)))
        if headers.get("connection", "").lower() == "close":
            connection[1].close()
            connection = None
        wait = rng.uniform(*pause)
        if status == 503 and retry is not None:
            wait = max(wait, float(retry))
        await asyncio.sleep(max(0.0, min(wait, until - time.monotonic())))
    if connection is not None:
        connection[1].close()


def run_load(
    port: int,
    choosers: Sequence[Callable[[random.Random], Call]],
    seconds: float,
    pause: tuple[float, float] = (0.2, 0.6),
    seed: int = 1,
) -> list[Answer]:
    """Run one client per chooser against ``127.0.0.1:port`` for ``seconds``; every answer."""
    answers: list[Answer] = []

    async def main() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(
                _client(port, choose, until, pause, random.Random(seed * 1000 + index), answers)
                for index, choose in enumerate(choosers)
            )
        )

    try:  # the server's own event loop where it has one: the generator's share of the cores
        import uvloop
    except ImportError:  # pragma: no cover - a web install without it (another platform)
        asyncio.run(main())
    else:
        uvloop.run(main())
    return answers


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile (0.99: p99) of ``values``, nearest rank."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]
