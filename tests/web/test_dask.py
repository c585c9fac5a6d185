"""``fracas serve --scheduler``: the questions worked out on a real Dask cluster on loopback.

A scheduler and one worker are started with the ``dask`` commands, as a user would, and
stopped at the end. The answers are those of the local workers, within the same budgets
and the same time limit.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fracas.web import Limits, create_app

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The process helpers beside this file (the tests are no package to import them from).
from test_server import PROC, cpu_ticks, descendants  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")
LAIR = ROOT / "examples" / "d100" / "lair_raid.yaml"
RING = ROOT / "examples" / "hex" / "encirclement.yaml"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Cluster:
    address: str
    worker_pid: int


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    command = [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port)]
    processes = [subprocess.Popen([*command, "--no-dashboard"], **quiet)]
    try:
        directory = tmp_path_factory.mktemp("dask-worker")
        command = [str(DASK), "worker", address, "--host", "127.0.0.1", "--nthreads", "1"]
        extra = ["--no-nanny", "--no-dashboard", "--local-directory", str(directory)]
        processes.append(subprocess.Popen([*command, *extra], **quiet))
        from distributed import Client

        connect: Any = Client  # distributed is only partly typed
        with connect(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
        yield Cluster(address, processes[1].pid)
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="module")
def scheduler(cluster: Cluster) -> str:
    return cluster.address


def body(path: Path, **extra: Any) -> dict[str, Any]:
    return {"scenario": path.read_text(encoding="utf-8"), "name": path.name, **extra}


def test_answers_on_the_cluster_are_the_local_ones(scheduler: str) -> None:
    local = TestClient(create_app(), base_url="http://127.0.0.1")
    with TestClient(create_app(scheduler=scheduler), base_url="http://127.0.0.1") as remote, local:
        for path, endpoint, extra in (
            (RING, "resolve", {}),
            (LAIR, "resolve", {"seed": 4}),
            (LAIR, "odds", {"method": "mc", "runs": 300, "seed": 2}),
            (LAIR, "odds", {"method": "mc", "sample_budget": 500}),
        ):
            there = remote.post(f"/api/{endpoint}", json=body(path, **extra))
            here = local.post(f"/api/{endpoint}", json=body(path, **extra))
            assert there.status_code == here.status_code == 200, there.text
            assert there.json() == here.json()
        # The sample budget stopped the work on the cluster as it does here.
        cut = remote.post("/api/odds", json=body(LAIR, method="mc", sample_budget=500)).json()
        assert cut["limits"] == ["Stopped early by the work budget (500 dice rolls)."]
        # The same refusals, in the same words.
        there = remote.post("/api/odds", json=body(LAIR, method="exact", exact_budget=10))
        here = local.post("/api/odds", json=body(LAIR, method="exact", exact_budget=10))
        assert there.status_code == here.status_code == 400
        assert there.json() == here.json()


def test_the_time_limit_holds_on_the_cluster(cluster: Cluster) -> None:
    app = create_app(Limits(time_limit=1), scheduler=cluster.address)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        slow = body(LAIR, method="mc", precision=0.0001, max_runs=200_000)
        response = client.post("/api/odds", json=slow)
        assert response.status_code == 503
        assert response.json()["error"]["reason"] == "time limit"
        if PROC.is_dir():
            # The work was stopped there too: the Dask worker killed the process that ran
            # it (about 20 s of work), so nothing under the worker keeps a core busy.
            time.sleep(0.5)  # the worker's own deadline, a moment after the server's
            below = [cluster.worker_pid, *descendants(cluster.worker_pid)]
            ticks = {pid: cpu_ticks(pid) for pid in below}
            time.sleep(1.0)
            busy = [
                pid
                for pid in below
                if (cpu_ticks(pid) or 0) - (ticks[pid] or 0) > 20  # 0.2 s
            ]
            assert busy == []
        # The cluster is not held: a cheap question goes first and is answered.
        assert client.post("/api/resolve", json=body(RING)).status_code == 200
