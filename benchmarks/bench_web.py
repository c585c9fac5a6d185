"""Benchmark: the web calculator's numbers against their budgets and against the library.

* **assets** — the bytes of the page and everything it loads, against 300 kB;
* **resolve round trip** — every bundled example resolved through ``POST /api/resolve`` on
  a real ``fracas serve`` (HTTP over loopback), against the 300 ms budget and as a ratio to
  ``scenario.resolve()`` called directly in this process (the baseline: what the engine
  itself costs);
* **first paint** — Chromium loading the page from the local server (the
  ``first-contentful-paint`` entry), against 1 s, when ``/usr/bin/chromium`` is there.

Each time is the best of several runs. Run: ``.venv/bin/python benchmarks/bench_web.py``
(or ``make bench``).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import fracas

ROOT = Path(__file__).resolve().parents[1]
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


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "fracas", "serve", "--port", str(port)],
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
            page.wait_for_function(
                "performance.getEntriesByName('first-contentful-paint').length > 0"
            )
            paints.append(
                page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
                / 1000
            )
            context.close()
        browser.close()
    fastest = min(paints)
    print(f"\nfirst contentful paint {fastest * 1000:.0f} ms = {fastest:.3f} of the 1 s budget")


def main() -> None:
    process, url = start_server()
    try:
        assets(url)
        round_trips(url)
        first_paint(url)
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
