"""Benchmark: the web calculator's numbers against their budgets and against the library.

* **assets** — the bytes of the page and everything it loads, against 300 kB;
* **resolve round trip** — every bundled example resolved through ``POST /api/resolve`` on
  a real ``fracas serve`` (HTTP over loopback), against the 300 ms budget and as a ratio to
  ``scenario.resolve()`` called directly in this process (the baseline: what the engine
  itself costs);
* **first paint** — Chromium loading the page from the local server (the
  ``first-contentful-paint`` entry), against 1 s, when ``/usr/bin/chromium`` is there;
* **throughput** — cheap resolves a second, 16 clients asking without pause, with
  ``--workers 1`` and ``--workers 2``, three runs of each in turn: the ratio of the best
  of each against 1.8 (on 2 cores);
* **mixed load** — the load of ``tests/web/test_server.py``: 32 clients for 20 s, 70 %
  resolves and 30 % Monte Carlo odds, pausing 0.2–0.6 s, and one asking for the ruleset
  list: the p99 of resolves against 100 ms and of the list against 50 ms, the 5xx counts;
* **memory** — the resident memory of the server and all its workers after 100 mixed
  questions and after 1,000: within 20 %.

Each time is the best of several runs. Run: ``.venv/bin/python benchmarks/bench_web.py``
(or ``make bench``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import fracas
from fracas.core import helper as forking

ROOT = Path(__file__).resolve().parents[1]
# The load generator and the load of the tests, so that both measure the same thing.
sys.path.insert(0, str(ROOT / "tests" / "web"))
from load import percentile, run_load  # type: ignore[import-not-found]  # noqa: E402
from test_server import (  # type: ignore[import-not-found]  # noqa: E402
    LAIR,
    descendants,
    mixed_calls,
    probe_calls,
    resolve_call,
)

resolve_calls = resolve_call
CHROMIUM = Path("/usr/bin/chromium")
REPEATS = 7


def best(action: Callable[[], Any], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as answer:
        data: bytes = answer.read()
        return data


def start_server(*options: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "fracas", "serve", "--port", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            get(url + "/api/rulesets")
            return process, url
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("fracas serve did not start")


def assets(url: str) -> None:
    names = ["/", "/static/app.js", "/static/app.css", "/static/favicon.svg"]
    sizes = {name: len(get(url + name)) for name in names}
    total = sum(sizes.values())
    print("assets: " + ", ".join(f"{name} {size:,} B" for name, size in sizes.items()))
    print(f"assets total {total:,} B = {total / 300_000:.3f} of the 300 kB budget")


def round_trips(url: str) -> None:
    print(f"\n{'example':<34} {'direct':>9} {'via HTTP':>9} {'ratio':>7} {'of 300 ms':>9}")
    worst = 0.0
    for path in sorted(ROOT.glob("examples/*/*.yaml")):
        scenario = fracas.load_scenario(path)
        direct = best(scenario.resolve)
        body = {"scenario": path.read_text(encoding="utf-8"), "name": path.name}
        post(url + "/api/resolve", body)  # warm up
        remote = best(partial(post, url + "/api/resolve", body))
        worst = max(worst, remote)
        name = f"{path.parent.name}/{path.name}"
        print(
            f"{name:<34} {direct * 1000:>7.1f}ms {remote * 1000:>7.1f}ms "
            f"{remote / direct:>7.1f} {remote / 0.3:>9.3f}"
        )
    print(f"slowest round trip {worst * 1000:.1f} ms = {worst / 0.3:.3f} of the 300 ms budget")


def first_paint(url: str) -> None:
    if not CHROMIUM.exists():
        print("\nfirst paint: skipped (no /usr/bin/chromium; `make chromium` installs it)")
        return
    from playwright.sync_api import sync_playwright

    paints = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        for _ in range(5):
            context = browser.new_context()
            page = context.new_page()
            page.goto(url + "/")
            # Polled from here: the page's content policy forbids wait_for_function's eval.
            while not page.evaluate(
                "performance.getEntriesByName('first-contentful-paint').length > 0"
            ):
                time.sleep(0.01)
            paints.append(
                page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
                / 1000
            )
            context.close()
        browser.close()
    fastest = min(paints)
    print(f"\nfirst contentful paint {fastest * 1000:.0f} ms = {fastest:.3f} of the 1 s budget")


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def cpu_seconds(pid: int, reaped: bool = False) -> float:
    """CPU seconds ``pid`` has used (Linux), with its reaped children's when ``reaped``."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(value) for value in fields[11 : 15 if reaped else 13])
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Throughput:
    """Resolves answered a second, and the CPU milliseconds each took: in the server's
    own process, in its workers (replaced ones included), in the load generator."""

    rate: float
    server: float
    workers: float
    load: float


def throughput(workers: int, seconds: float = 8.0) -> Throughput:
    """Resolves answered a second by a server with ``workers`` workers, 16 clients."""
    process, url = start_server("--workers", str(workers))
    try:
        port = port_of(url)
        post(url + "/api/resolve", {"scenario": LAIR})  # the workers are ready

        def used() -> tuple[float, float, float]:
            below = sum(cpu_seconds(pid, reaped=True) for pid in descendants(process.pid))
            return cpu_seconds(process.pid), below, time.process_time()

        before = used()
        answers = run_load(port, [resolve_calls(port)] * 16, seconds=seconds, pause=(0, 0))
        after = used()
    finally:
        stop_server(process)
    assert {answer.status for answer in answers} == {200}
    each = [(end - start) * 1000 / len(answers) for start, end in zip(before, after, strict=True)]
    return Throughput(len(answers) / seconds, *each)


def mixed(url: str) -> None:
    port = port_of(url)
    answers = run_load(port, [mixed_calls(port)] * 32 + [probe_calls(port)], seconds=20)
    print(f"\nmixed load, 32 clients for 20 s ({len(answers):,} answers):")
    for kind in ("resolve", "odds", "rulesets"):
        mine = [answer for answer in answers if answer.kind == kind]
        statuses = Counter(answer.status for answer in mine)
        times = [answer.seconds for answer in mine if answer.status == 200]
        told = sum(1 for a in mine if a.status == 503 and a.retry_after)
        print(
            f"  {kind:<9} {len(mine):>5} asked, statuses {dict(sorted(statuses.items()))}, "
            f"503 with Retry-After {told}, p50 {percentile(times, 0.5) * 1000:.0f} ms, "
            f"p99 {percentile(times, 0.99) * 1000:.0f} ms"
        )
    resolve_p99 = percentile([a.seconds for a in answers if a.kind == "resolve"], 0.99)
    listing_p99 = percentile([a.seconds for a in answers if a.kind == "rulesets"], 0.99)
    print(
        f"  resolve p99 {resolve_p99 * 1000:.0f} ms = {resolve_p99 / 0.1:.2f} of 100 ms; "
        f"rulesets p99 {listing_p99 * 1000:.0f} ms = {listing_p99 / 0.05:.2f} of 50 ms"
    )


def resident(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it (Linux)."""
    total = 0
    for process in [pid, *descendants(pid)]:
        try:
            status = Path(f"/proc/{process}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def memory() -> None:
    if not Path("/proc").is_dir():
        print("\nmemory: skipped (reads /proc)")
        return
    process, url = start_server()
    try:
        port = port_of(url)
        clients = [mixed_calls(port)] * 8
        counted: list[Any] = []
        while len(counted) < 100:
            counted += run_load(port, clients, seconds=1, pause=(0, 0.05))
        early = resident(process.pid)
        while len(counted) < 1000:
            counted += run_load(port, clients, seconds=2, pause=(0, 0.05))
        late = resident(process.pid)
    finally:
        stop_server(process)
    print(
        f"\nmemory of the server and its workers: {early / 2**20:.0f} MiB after "
        f"{100} questions, {late / 2**20:.0f} MiB after {len(counted):,}: "
        f"{late / early:.3f} of it (budget 1.2)"
    )


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    process.wait(timeout=10)


def main() -> None:
    process, url = start_server()
    try:
        assets(url)
        round_trips(url)
        first_paint(url)
        mixed(url)
    finally:
        stop_server(process)
    # Alternated and the best of each kept, as every other time here: a burst of other
    # work on the machine lowers one run, never raises one.
    runs = [(throughput(1), throughput(2)) for _ in range(3)]
    one = max((run[0] for run in runs), key=lambda measured: measured.rate)
    two = max((run[1] for run in runs), key=lambda measured: measured.rate)
    print(
        f"\nthroughput of resolves: {one.rate:.0f}/s with 1 worker, {two.rate:.0f}/s with 2 "
        f"({forking.cores()} cores): {two.rate / one.rate:.2f}× (budget 1.8×); each run "
        + ", ".join(f"{a.rate:.0f}/{b.rate:.0f}" for a, b in runs)
    )
    # Where the cores went: with one worker its core bounds the rate; with two, the
    # workers, the server and the load generator share every core, so the rate can grow
    # at most by 2·(worker ms with one)/(all ms with two).
    for name, measured in (("1 worker", one), ("2 workers", two)):
        print(
            f"  CPU ms a resolve, {name}: workers {measured.workers:.2f}, server "
            f"{measured.server:.2f}, load generator {measured.load:.2f}"
        )
    if one.workers and two.workers:
        shared = two.workers + two.server + two.load
        print(
            f"  on {forking.cores()} cores the most 2 workers can give is "
            f"{forking.cores() * one.workers / shared:.2f}× "
            f"({forking.cores()} × {one.workers:.2f} / {shared:.2f})"
        )
    memory()


if __name__ == "__main__":
    main()
