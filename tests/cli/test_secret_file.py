"""``fracas commit --secret-file``: the file is read within a bound, whatever it is."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from .conftest import LAIR, assert_one_line, run


def test_a_secret_file_that_never_ends_is_refused() -> None:
    # /dev/zero used to be read until the memory ran out (MemoryError, exit code 70).
    assert_one_line(("commit", LAIR, "--secret-file", "/dev/zero"), "/dev/zero", "at most")


def test_a_long_secret_file_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "big.secret"
    secret.write_text("ab" * 100_000 + "\n")
    assert_one_line(("commit", LAIR, "--secret-file", secret), "big.secret", "at most")


def test_a_secret_file_of_the_usual_size_still_works(tmp_path: Path) -> None:
    secret = tmp_path / "raid.secret"
    code, lines, out = run("commit", LAIR, "--secret-file", secret)
    assert code == 0, lines
    assert out.startswith("fracas-fair-v1 commitment ")
    code, _, again = run("commit", LAIR, "--secret-file", secret)
    assert (code, again) == (0, out)


def test_resolve_refuses_a_secret_file_that_never_ends() -> None:
    assert_one_line(
        ("resolve", LAIR, "--secret-file", "/dev/zero", "--nonce", "a"), "/dev/zero", "at most"
    )


def test_a_secret_from_a_pipe_is_read_once(tmp_path: Path) -> None:
    # A shell's <(cat gm.secret) can be read only once: measuring it first left it empty.
    secret = tmp_path / "raid.secret"
    code, _, out = run("commit", LAIR, "--secret-file", secret)
    assert code == 0
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_bytes(secret.read_bytes()))
    writer.start()
    code, lines, again = run("commit", LAIR, "--secret-file", pipe)
    writer.join(timeout=30)
    assert (code, again) == (0, out), lines
