"""``fracas serve`` on an address it cannot listen on: one line naming it, exit code 2.

uvicorn met a busy port or an unknown host with its multi-line log and exit code 3. No
test here starts a server: ``fracas.web.serve`` is replaced by one that records the call.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.cli import app

pytest.importorskip("uvicorn")
pytest.importorskip("fastapi")

runner = CliRunner()


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The calls of ``fracas.web.serve`` (none may happen unless the test expects one)."""
    import fracas.web

    calls: list[tuple[Any, ...]] = []

    def serve(*args: Any, ready: Any = None, **kwargs: Any) -> None:
        calls.append(args)
        if ready is not None:
            ready()  # the app is there: the command says where it serves

    monkeypatch.setattr(fracas.web, "serve", serve)
    return calls


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port this test listens on, on 127.0.0.1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def one_error_line(result: Any) -> str:
    assert result.exit_code == 2, result.output
    assert "serving on" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return str(lines[0])


def test_a_busy_port_is_one_line_naming_host_and_port(
    busy_port: int, started: list[tuple[Any, ...]]
) -> None:
    result = runner.invoke(app, ["serve", "--host", "127.0.0.1", "--port", str(busy_port)])
    line = one_error_line(result)
    assert line == (
        f"fracas: error: cannot serve on 127.0.0.1:{busy_port}: the port is already in use "
        "(another server?); choose another with --port"
    )
    assert not started


def test_an_address_of_another_machine_is_one_line(started: list[tuple[Any, ...]]) -> None:
    # 203.0.113.0/24 is reserved for documentation: never an address of this machine.
    result = runner.invoke(app, ["serve", "--host", "203.0.113.7", "--port", "8000"])
    line = one_error_line(result)
    assert line == (
        "fracas: error: cannot serve on 203.0.113.7:8000: 203.0.113.7 is not an address of "
        "this machine"
    )
    assert not started


def test_an_unknown_host_is_one_line(
    monkeypatch: pytest.MonkeyPatch, started: list[tuple[Any, ...]]
) -> None:
    def unknown(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    # No name server is asked: the resolver's answer is given.
    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    result = runner.invoke(app, ["serve", "--host", "no.such.host.invalid"])
    line = one_error_line(result)
    assert line == (
        "fracas: error: cannot serve on no.such.host.invalid:8000: unknown host "
        "(Name or service not known)"
    )
    assert not started


def test_a_host_name_the_resolver_cannot_take_is_one_line(
    started: list[tuple[Any, ...]],
) -> None:
    result = runner.invoke(app, ["serve", "--host", "a" * 300])
    assert one_error_line(result).endswith(":8000: not a host name")
    assert not started


def test_a_free_address_starts_the_server(started: list[tuple[Any, ...]]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = runner.invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert f"serving on http://127.0.0.1:{port} " in result.stdout
    assert [call[:2] for call in started] == [("127.0.0.1", port)]


def test_a_server_that_cannot_start_after_the_check_is_still_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fracas.web

    # The port was taken between the check and the start: uvicorn exits with 3.
    monkeypatch.setattr(fracas.web, "serve", lambda *args, **kwargs: sys.exit(3))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = runner.invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"fracas: error: cannot serve on 127.0.0.1:{port}: the server did not start"
    )


def test_workers_above_the_process_limit_is_one_line_and_starts_nothing(
    started: list[tuple[Any, ...]],
) -> None:
    # Each lane starts its workers at once: 100,000 would fork until memory ran out.
    result = runner.invoke(app, ["serve", "--port", "0", "--workers", "100000"])
    line = one_error_line(result)
    assert line == "fracas: error: --workers: 100000 is above the limit work.processes = 256"
    assert not started
    runner.invoke(app, ["serve", "--port", "0", "--workers", "256"])
    assert len(started) == 1


@pytest.mark.parametrize(
    "name", ["", "bad host", "evil\nhost", "calc.lan:8000", "calc.lan/x", "ünï.lan"]
)
def test_an_allowed_host_that_no_request_can_name_is_one_line(
    started: list[tuple[Any, ...]], name: str
) -> None:
    result = runner.invoke(app, ["serve", "--port", "0", "--allowed-host", name])
    assert one_error_line(result) == f"fracas: error: --allowed-host: not a host name: {name!r}"
    assert not started
