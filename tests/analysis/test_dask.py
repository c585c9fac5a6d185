"""Odds and sweeps on a real Dask cluster: a scheduler and two workers on 127.0.0.1.

The cluster is made of the ``dask scheduler`` and ``dask worker`` commands, as a user
would start them; every process is stopped at the end. The numbers must be those of a
run in this process, to the byte, even when a worker dies in the middle of a sweep.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.analysis.odds import odds
from fracas.analysis.parallel import running
from fracas.analysis.sweep import parse_vary, sweep, to_csv
from fracas.cli import app
from fracas.cli.sweep import cell_scenario
from fracas.io.scenario import load_scenario

DASK = Path(sys.executable).with_name("dask")
LAIR = Path("examples/d100/lair_raid.yaml")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Cluster:
    address: str
    workers: list[subprocess.Popen[bytes]]


def wait_for_workers(address: str, count: int, timeout: float = 60.0) -> None:
    from distributed import Client

    connect: Any = Client  # distributed is only partly typed
    with connect(address, timeout=30) as client:
        client.wait_for_workers(count, timeout=timeout)


def start_worker(address: str, directory: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            str(DASK),
            "worker",
            address,
            "--host",
            "127.0.0.1",
            "--nthreads",
            "1",
            "--no-nanny",
            "--no-dashboard",
            "--local-directory",
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(
        [
            str(DASK),
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-dashboard",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[subprocess.Popen[bytes]] = []
    try:
        workers = [start_worker(address, tmp_path / f"worker{n}") for n in range(2)]
        wait_for_workers(address, 2)
        yield Cluster(address, workers)
    finally:
        for process in [*workers, scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in [*workers, scheduler]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def lair_sweep(runs: int = 1500) -> str:
    scenario = load_scenario(LAIR)
    scenario_at = partial(cell_scenario, dict(scenario.document), str(LAIR))
    axes = [parse_vary("sides[1].units[0].pax=2..6:2"), parse_vary("parameters.round_limit=3,5")]
    return to_csv(sweep(scenario_at, axes, "winner=Red Fang", seed=4, method="mc", runs=runs))


def test_odds_on_the_cluster_are_those_of_one_process(cluster: Cluster) -> None:
    scenario = load_scenario(LAIR)
    alone = odds(scenario, method="mc", runs=3000, seed=2)
    with running(scheduler=cluster.address) as runner:
        assert runner.workers == 2
        remote = odds(scenario, method="mc", runs=3000, seed=2)
    assert remote == alone


def test_sweep_csv_is_the_same_locally_on_two_processes_and_on_dask(
    cluster: Cluster, tmp_path: Path
) -> None:
    common = [
        "sweep",
        str(LAIR),
        "--vary",
        "sides[1].units[0].pax=2..6:2",
        "--vary",
        "parameters.round_limit=3,5",
        "--metric",
        "winner=Red Fang",
        "--method",
        "mc",
        "--runs",
        "800",
        "--seed",
        "4",
    ]
    outputs = {}
    for name, extra in {
        "one": ["--workers", "1"],
        "two": ["--workers", "2"],
        "dask": ["--scheduler", cluster.address],
    }.items():
        target = tmp_path / f"{name}.csv"
        result = CliRunner().invoke(app, [*common, *extra, "-o", str(target)])
        assert result.exit_code == 0, result.output
        outputs[name] = target.read_bytes()
    assert outputs["one"] == outputs["two"] == outputs["dask"]
    assert outputs["one"].count(b"\n") == 1 + 3 * 2  # a header and one row per cell


class FirstCell:
    """A progress sink that says when the first cell of a sweep has finished."""

    def __init__(self) -> None:
        self.cells = 0
        self.first = threading.Event()

    def start(self, total: int, unit: str, label: str) -> None:
        pass

    def advance(self, done: int, unit: str = "runs") -> None:
        if unit == "cells":
            self.cells += done
            self.first.set()


def test_a_worker_killed_mid_sweep_is_replaced_and_the_numbers_do_not_change(
    cluster: Cluster,
) -> None:
    expected = lair_sweep(runs=3000)
    outcome: dict[str, str | BaseException] = {}
    progress = FirstCell()

    def remote() -> None:
        try:
            with running(scheduler=cluster.address, progress=progress):
                outcome["csv"] = lair_sweep(runs=3000)
        except BaseException as exc:  # reported by the main thread
            outcome["error"] = exc

    thread = threading.Thread(target=remote)
    thread.start()
    assert progress.first.wait(timeout=300)
    victim = cluster.workers[0]
    assert victim.poll() is None, "the worker ended before it could be killed"
    os.kill(victim.pid, signal.SIGKILL)
    assert progress.cells < 6, "the sweep ended before a worker could be killed"
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert "error" not in outcome, outcome.get("error")
    assert victim.wait(timeout=10) == -signal.SIGKILL
    assert outcome["csv"] == expected


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    address = f"tcp://127.0.0.1:{free_port()}"
    started = time.monotonic()
    result = CliRunner().invoke(
        app,
        [
            "sweep",
            str(LAIR),
            "--vary",
            "parameters.round_limit=3,5",
            "--metric",
            "winner=Red Fang",
            "--scheduler",
            address,
            "-o",
            str(target),
        ],
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "cannot reach the Dask scheduler" in result.stderr
    # Nothing listens there: refused at the first try, not after the client's retries.
    assert result.stderr.endswith(
        f"cannot reach the Dask scheduler at {address}: connection refused\n"
    )
    assert not target.exists()
    assert time.monotonic() - started < 60


def test_the_cluster_result_is_json_too(cluster: Cluster, tmp_path: Path) -> None:
    target = tmp_path / "sweep.json"
    result = CliRunner().invoke(
        app,
        [
            "sweep",
            str(LAIR),
            "--vary",
            "parameters.round_limit=1..2",
            "--metric",
            "rounds",
            "--method",
            "mc",
            "--runs",
            "300",
            "--scheduler",
            cluster.address,
            "-o",
            str(target),
        ],
    )
    assert result.exit_code == 0, result.output
    cells = json.loads(target.read_text())["cells"]
    # With one round allowed no battle lasts two: the mean is at most 1.
    assert cells[0]["settings"] == {"parameters.round_limit": 1}
    assert 0 <= cells[0]["value"] <= 1
    assert cells[1]["value"] >= cells[0]["value"]
