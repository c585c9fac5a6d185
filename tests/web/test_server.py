"""``fracas serve`` as a user runs it, on a free loopback port: load, limits, stopping.

Each server is a separate process started by the command line. The load test runs 32
clients on one event loop (:mod:`load`) that send raw HTTP, so what it times is the
server, not the client.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The load generator beside this file (the tests are no package to import it from).
from load import (  # type: ignore[import-not-found]
    Answer,
    Call,
    percentile,
    run_load,
)

ROOT = Path(__file__).resolve().parents[2]
LAIR = (ROOT / "examples" / "d100" / "lair_raid.yaml").read_text(encoding="utf-8")
RING = (ROOT / "examples" / "hex" / "encirclement.yaml").read_text(encoding="utf-8")
PROC = Path("/proc")

linux_only = pytest.mark.skipif(not PROC.is_dir(), reason="reads processes from /proc")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def start(*options: str, stderr: Any = subprocess.DEVNULL, files: int | None = None) -> Server:
    """``fracas serve`` on a free port, its first question answered; ``files`` is the
    most descriptors it may open (``ulimit -n``, soft and hard)."""
    port = free_port()

    def limited() -> None:
        import resource

        assert files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    process = subprocess.Popen(
        [sys.executable, "-m", "fracas", "serve", "--port", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        preexec_fn=None if files is None else limited,
    )
    server = Server(process, port)
    for _ in range(300):
        try:
            urllib.request.urlopen(server.url + "/api/rulesets", timeout=2).close()
            # A first question starts the fork server and loads fracas in the workers.
            post(server, "/api/resolve", {"scenario": RING})
            return server
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"fracas serve stopped with {process.returncode}")
            time.sleep(0.1)
    stop(server)
    pytest.fail("fracas serve did not answer within 30 s")


def stop(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGINT)
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    marker = request.node.get_closest_marker("serve")
    running = start(*(marker.args if marker else ()))
    try:
        yield running
    finally:
        stop(running)


def post(server: Server, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], Any]:
    request = urllib.request.Request(
        server.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, dict(answer.headers), json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.load(error)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the workers hang under the fork server)."""
    parents: dict[int, int] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, of in parents.items() if of == parent]
        found += children
        frontier += children
    return found


def cpu_ticks(pid: int) -> int | None:
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])  # utime + stime


def alive(pid: int) -> bool:
    try:
        state = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# ── a mixed load ───────────────────────────────────────────────────────────────────────


def resolve_call(port: int) -> Any:
    host = f"127.0.0.1:{port}"

    def choose(rng: Any) -> Call:
        return Call.post(
            "resolve", "/api/resolve", {"scenario": LAIR, "seed": rng.randrange(1000)}, host
        )

    return choose


def mixed_calls(port: int) -> Any:
    """70 % cheap resolves, 30 % Monte Carlo odds of 10,000 runs (about a second of work)."""
    host = f"127.0.0.1:{port}"
    cheap = resolve_call(port)

    def choose(rng: Any) -> Call:
        if rng.random() < 0.7:
            return cheap(rng)
        body = {"scenario": LAIR, "method": "mc", "runs": 10_000, "seed": rng.randrange(1000)}
        return Call.post("odds", "/api/odds", body, host)

    return choose


def probe_calls(port: int) -> Any:
    call = Call.get("rulesets", "/api/rulesets", f"127.0.0.1:{port}")
    return lambda rng: call


def test_a_mixed_load_answers_every_cheap_question(server: Server) -> None:
    # 32 clients for 20 s, each choosing 70 % resolves and 30 % expensive odds, and one
    # more asking for the rulesets list, all pausing 0.2-0.6 s between an answer and
    # their next question.
    clients = [mixed_calls(server.port)] * 32 + [probe_calls(server.port)]
    answers = run_load(server.port, clients, seconds=20)
    by_kind: dict[str, list[Answer]] = {}
    for answer in answers:
        by_kind.setdefault(answer.kind, []).append(answer)
    resolves, odds, listing = by_kind["resolve"], by_kind["odds"], by_kind["rulesets"]
    # Every answer is one: no connection dropped, no server error.
    assert all(answer.status != 0 for answer in answers)
    assert [a for a in answers if a.status >= 500 and a.kind != "odds"] == []
    assert {a.status for a in resolves} == {200}
    assert {a.status for a in listing} == {200}
    # An expensive question is answered, or told when to try again.
    for answer in odds:
        assert answer.status == 200 or (answer.status == 503 and answer.retry_after), answer
    assert any(a.status == 200 for a in odds)
    # Cheap questions kept coming through the whole load (about 22 clients at 2 questions
    # a second for 20 s, less the pauses that the odds' Retry-After imposes, ask some 300
    # to 800). How fast (p99 of resolves against 100 ms, of the list against 50 ms) is
    # measured by benchmarks/bench_web.py: a test never depends on the speed of the
    # machine it runs on. Only starvation is caught here: resolves queued behind Monte
    # Carlo odds (seconds each) would pass 3 s, and an event loop held by computation put
    # the list's p99 at about 1 s before the lanes. A 2-core machine shared with other
    # work gave 170 ms and 25 ms at load average 4, 726 ms and 80 ms at load average 6.
    assert len(resolves) > 100
    assert percentile([a.seconds for a in resolves], 0.99) < 3.0
    assert percentile([a.seconds for a in listing], 0.99) < 0.5


# ── limits of the work ─────────────────────────────────────────────────────────────────


@linux_only
@pytest.mark.serve("--time-limit", "1", "--workers", "1")
def test_a_question_past_its_time_limit_leaves_no_busy_process(server: Server) -> None:
    before = set(descendants(server.process.pid))
    # 200,000 runs of the lair raid towards a precision it does not reach take ~20 s.
    status, _, body = post(
        server,
        "/api/odds",
        {"scenario": LAIR, "method": "mc", "precision": 0.0001, "max_runs": 200_000},
    )
    assert status == 503
    assert "time limit of 1 s" in body["error"]["message"]
    assert body["error"]["reason"] == "time limit"
    after = descendants(server.process.pid)
    # The worker that ran it was killed (and replaced): no process of the server works.
    assert before - set(after), "the worker that ran out of time is still there"
    ticks = {pid: cpu_ticks(pid) for pid in after}
    time.sleep(1.0)
    busy = [
        pid
        for pid in after
        if alive(pid) and (cpu_ticks(pid) or 0) - (ticks[pid] or 0) > 10  # 0.1 s of CPU
    ]
    assert busy == []
    # And the server still answers.
    assert post(server, "/api/resolve", {"scenario": RING})[0] == 200


def big_board(rows: int = 383, columns: int = 383, units: int = 1200, seed: int = 7) -> str:
    """A legal hex board of some 258 kB of YAML (146,689 hexes, 1,200 units): as large as
    a request body may be (256 KiB with its JSON around it). Terrain and units are drawn
    as in benchmarks/bench_hex_boards.py, units spread evenly, sides in bands."""
    rng = random.Random(seed)
    lines = ["fracas: 1", "ruleset: hex", "title: a big board", "map:", "  rows:"]
    for _ in range(rows):
        lines.append('    - "' + "".join(rng.choice(".....fhm~=") for _ in range(columns)) + '"')
    lines.append("units:")
    step = rows * columns // units
    for n in range(units):
        r, c = divmod(n * step, columns)
        lines.append(
            f"  - {{id: u{n}, side: {'blue' if (c // 3) % 2 == 0 else 'red'}, "
            f"hex: [{c - r // 2}, {r}], strength: {rng.choice([33, 50, 77, 99, 100])}, "
            f"attack: {{land: {rng.choice([8, 10, 12])}}}, defense: {rng.choice([8, 10, 12])}}}"
        )
    return "\n".join(lines) + "\n"


def status_kib(pid: int, field: str) -> int:
    """A ``/proc/PID/status`` size field (``VmRSS``, ``VmHWM``) in KiB, 0 if gone."""
    try:
        lines = (PROC / str(pid) / "status").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith(field + ":")), 0)


@linux_only
def test_the_largest_legal_board_gets_a_bounded_answer_and_memory_is_given_back(
    server: Server,
) -> None:
    text = big_board()
    body = {"scenario": text, "name": "big.yaml"}
    assert len(text) > 250_000  # large
    assert len(json.dumps(body)) <= 256 * 1024  # and legal: within the body limit
    workers = descendants(server.process.pid)
    before = sum(status_kib(pid, "VmRSS") for pid in [server.process.pid, *workers])
    for _ in range(2):
        status, _, answer = post(server, "/api/resolve", body)
        assert status == 200
        # Its picture (some 60 MB drawn whole) is stopped at half the 16 MiB answer
        # limit, and said so; the battle is answered.
        assert answer["picture"] is None
        assert answer["limits"] == [
            "The picture is left out: more than 8,388,608 characters, over half of this "
            "server's answer limit of 16,777,216 bytes (fracas serve --max-answer); "
            "fracas render draws it."
        ]
        assert len(json.dumps(answer)) < 16 * 2**20
    # No process of the server went near the 560 MB that drawing the whole picture takes.
    peaks = {pid: status_kib(pid, "VmHWM") for pid in descendants(server.process.pid)}
    assert max(peaks.values()) < 300 * 1024, peaks
    # And what the two questions took is given back: the server and its workers hold
    # about what they held before them (a worker keeps some 20 MB of caches each).
    after = sum(
        status_kib(pid, "VmRSS") for pid in [server.process.pid, *descendants(server.process.pid)]
    )
    assert after - before < 150 * 1024, (before, after)


@linux_only
def test_sigint_stops_the_server_under_load_within_two_seconds(server: Server) -> None:
    workers = descendants(server.process.pid)
    expensive = {"scenario": LAIR, "method": "mc", "precision": 0.0001, "max_runs": 200_000}
    answers: list[int] = []
    threads = [
        threading.Thread(target=lambda: answers.append(post(server, "/api/odds", expensive)[0]))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # the workers are busy
    started = time.monotonic()
    server.process.send_signal(signal.SIGINT)
    server.process.wait(timeout=10)
    took = time.monotonic() - started
    assert took <= 2.0, f"stopped after {took:.2f} s"
    for thread in threads:
        thread.join(timeout=10)
    # Every question in flight got its answer: 503, busy or stopping.
    assert answers == [503] * 6
    deadline = time.monotonic() + 2
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in workers if alive(pid)] == []


# ── connections ────────────────────────────────────────────────────────────────────────


@pytest.mark.serve("--idle-timeout", "1", "--header-timeout", "1", "--connections", "4")
def test_idle_and_slow_connections_are_closed(server: Server) -> None:
    def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
        sock.settimeout(seconds)
        data = b""
        try:
            while chunk := sock.recv(4096):
                data += chunk
        except TimeoutError:
            return False, data
        return True, data

    with socket.create_connection(("127.0.0.1", server.port)) as silent:
        assert closed_within(silent, 5)[0]  # 1 s, with room for a busy machine
    with socket.create_connection(("127.0.0.1", server.port)) as slow:
        slow.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0")  # and no more
        closed, data = closed_within(slow, 5)
        assert closed
        assert data.startswith(b"HTTP/1.1 408 ")
        assert b'"the request head did not arrive within 1 s' in data
    with socket.create_connection(("127.0.0.1", server.port)) as trickle:
        trickle.sendall(
            b"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"scen'
        )  # and the other 94 bytes never
        closed, data = closed_within(trickle, 5)
        assert data.startswith(b"HTTP/1.1 408 ")
        assert b"the request body did not arrive within 1 s" in data
    with socket.create_connection(("127.0.0.1", server.port)) as kept:
        kept.sendall(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        closed, data = closed_within(kept, 5)  # answered, then idle: closed
        assert closed
        assert data.startswith(b"HTTP/1.1 200 ")
    # Four connections at most: the fifth is told to come back.
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(4)]
    try:
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", server.port)) as extra:
            closed, data = closed_within(extra, 5)
        assert data.startswith(b"HTTP/1.1 503 ")
        assert b"retry-after: 1" in data
        assert b'"error":{"message":"the server has 4 connections open' in data
    finally:
        for sock in held:
            sock.close()


@linux_only
def test_few_descriptors_lower_the_connection_limit_and_the_log_stays_quiet(
    tmp_path: Path,
) -> None:
    # With 64 descriptors the 128 connections allowed by default cannot be held: asyncio
    # then logged a traceback for every accept that failed (97 MB in 20 s) and answered
    # nothing. The limit is fitted to the descriptors, and said once.
    log = tmp_path / "serve.log"
    with log.open("wb") as stderr:
        # Held for the whole test: the default 5 s idle timeout would close the held
        # connections while the others still wait in the kernel's queue (a SYN dropped
        # there is sent again after 1 s, then 3 s), and the probe would be answered 200.
        server = start("--workers", "2", "--idle-timeout", "120", stderr=stderr, files=64)
        try:
            held = []
            for _ in range(200):  # more than the descriptors: all but a few get the 503
                held.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            try:
                # Still answering, in JSON: told to come back, as past --connections. The
                # server takes the held connections from its queue at its own pace (slowly
                # on a busy machine): asked again until it holds its most, within 20 s.
                deadline = time.monotonic() + 20
                while True:
                    data = ask(
                        server.port, b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    )
                    if data.startswith(b"HTTP/1.1 503 ") or time.monotonic() > deadline:
                        break
                    time.sleep(0.25)
                assert data.startswith(b"HTTP/1.1 503 "), data[:100]
                assert b"connections open, its most (fracas serve --connections)" in data
            finally:
                for sock in held:
                    sock.close()
            # Once they are closed, answered again, as the 503's retry-after promises: the
            # queued connections are taken and their ends seen first (uvloop takes a burst of
            # them at once), so within 20 s rather than at the very next connection.
            deadline = time.monotonic() + 20
            while True:
                status = ask(server.port, b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")[
                    9:12
                ]
                if status == b"200" or time.monotonic() > deadline:
                    break
                time.sleep(0.25)
            assert status == b"200", status
        finally:
            stop(server)
    text = log.read_text(encoding="utf-8")
    assert len(text) < 20_000, text[:2_000]
    # 64 files, less 32 of the server's own and 3 for each of the 2 × 2 workers (two
    # lanes): 20 spare, half for connections, half for the accept queue. The default
    # needs 32 + 12 + 128 connections + 128 in the accept queue = 300.
    assert (
        "fracas serve: at most 10 connections at once, not 128 (--connections): this "
        "process may open only 64 files (ulimit -n 64); raise it to 300 for 128" in text
    )
    assert "out of system resource" not in text
    assert "Too many open files" not in text


def ask(port: int, request: bytes) -> bytes:
    """Send raw ``request`` and read the whole answer (its head and its body)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(30)
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
        length = int(head.split("content-length:", 1)[1].split("\r\n", 1)[0])
        while len(data) < len(head) + 4 + length:
            data += sock.recv(65536)
        return data


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    """One whole answer from ``sock`` (kept open): its status and its body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, rest = data.split(b"\r\n\r\n", 1)
    length = int(head.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
    while len(rest) < length:
        rest += sock.recv(65536)
    return int(head.split()[1]), rest


def test_a_confidence_too_near_one_is_422_and_the_connection_goes_on(server: Server) -> None:
    # It was a 500 (the quantile of 1.0), after which the next question on the same
    # keep-alive connection failed 9 times in 10. Ten rounds on one connection.
    near = json.dumps({"scenario": LAIR, "method": "mc", "runs": 50, "confidence": 1 - 2**-53})
    fine = json.dumps({"scenario": LAIR, "seed": 1})
    assert json.loads(near)["confidence"] == 0.9999999999999999

    def request(path: str, content: str) -> bytes:
        return (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(content.encode())}\r\n\r\n{content}"
        ).encode()

    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.settimeout(30)
        for _ in range(10):
            sock.sendall(request("/api/odds", near))
            status, answer = read_answer(sock)
            assert status == 422
            error = json.loads(answer)["error"]
            assert error["path"] == "confidence"
            assert "must be at most 0.9999999999999998" in error["message"]
            sock.sendall(request("/api/resolve", fine))
            assert read_answer(sock)[0] == 200


def test_bytes_that_are_no_http_get_the_json_error(server: Server) -> None:
    data = ask(server.port, b"HELLO THERE\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/json" in data
    body = json.loads(data.split(b"\r\n\r\n", 1)[1])
    assert body["error"]["message"] == "not a valid HTTP/1.1 request"


def test_a_host_name_not_allowed_is_refused(server: Server) -> None:
    data = ask(server.port, b"GET /api/rulesets HTTP/1.1\r\nHost: rebound.example:80\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 400 ")
    assert b"does not answer to the host name 'rebound.example:80'" in data
    assert b"x-content-type-options: nosniff" in data


@pytest.mark.serve("--allowed-host", "calc.lan")
def test_allowed_host_adds_a_name(server: Server) -> None:
    for name in (b"calc.lan:8000", b"localhost", b"[::1]:1"):
        data = ask(server.port, b"GET /api/rulesets HTTP/1.1\r\nHost: " + name + b"\r\n\r\n")
        assert data.startswith(b"HTTP/1.1 200 "), name
    assert ask(server.port, b"GET / HTTP/1.1\r\nHost: calc.lan.evil\r\n\r\n")[9:12] == b"400"


def test_sigterm_stops_the_server_too(server: Server) -> None:
    server.process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    server.process.wait(timeout=10)
    assert time.monotonic() - started <= 2.0
    if os.name == "posix":
        # uvicorn raises the signal again once it has stopped, as the signal asks.
        assert server.process.returncode in (0, -signal.SIGTERM)
