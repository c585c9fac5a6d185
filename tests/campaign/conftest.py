"""Stores for the campaign tests: an SQLite file, and a throwaway PostgreSQL server.

The PostgreSQL cluster lives in a temporary folder, listens on 127.0.0.1 only, on a free
port, and is stopped when the tests end (``make postgresql`` installs the server; without
its binaries those tests skip and say why).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from fracas.campaign.store import Store


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A running PostgreSQL server's URL, on a cluster made for these tests."""
    binaries = _pg_bin()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (make postgresql installs it)")
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="fracas-pg-"))
    if os.geteuid() == 0:  # initdb refuses root: the cluster runs as the postgres user
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no postgres user to run the server")
        os.chown(folder, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", _free_port()
    subprocess.run(
        [*as_user, str(binaries / "initdb"), "-D", str(data), "-U", "fracas", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder}"
    subprocess.run(
        [
            *as_user,
            str(binaries / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-w",
            "start",
            "-l",
            str(folder / "log"),
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://fracas@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"],
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: an SQLite file, or a new database on the server."""
    if request.param == "sqlite":
        yield str(tmp_path / "war.db")
        return
    server: str = request.getfixturevalue("postgres_url")
    name = "t" + uuid.uuid4().hex[:12]
    admin = Store.open(server, upgrade_to=0)
    with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.close()
    yield server.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def store(db: str) -> Iterator[Store]:
    opened = Store.open(db)
    yield opened
    opened.close()
