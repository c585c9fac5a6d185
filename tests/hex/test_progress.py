"""Long advice shows progress on a terminal, and only there: the report stays the same bytes.

The advisor and the planner tell the core's work watcher (``watching_work``) how many
attacks they have worked out; ``fracas advise`` hangs its progress bar on it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fracas.core.process import watching_work
from fracas.rulesets.hex import Board, HexParams, Unit
from fracas.rulesets.hex.advisor import advise
from fracas.rulesets.hex.boards import attack_pairs
from fracas.rulesets.hex.plan import plan_turn


def board_document(units: int, seed: int = 5) -> dict[str, object]:
    rng = random.Random(seed)
    size = int((units * 1.1) ** 0.5) + 1
    places = [(c - r // 2, r) for r in range(size) for c in range(size)]
    rng.shuffle(places)
    return {
        "fracas": 1,
        "ruleset": "hex",
        "title": "A big board",
        "map": {"rows": ["".join(rng.choice(".fh~") for _ in range(size)) for _ in range(size)]},
        "units": [
            {
                "id": f"u{number}",
                "side": rng.choice(["blue", "red"]),
                "hex": list(place),
                "strength": rng.choice([50, 80, 100, 120]),
                "attack": {"land": rng.choice([8, 10, 12])},
                "defense": rng.choice([8, 10, 12]),
                "range": [1, rng.choice([1, 1, 2, 3])],
            }
            for number, place in enumerate(places[:units])
        ],
    }


def small_board() -> Board:
    return Board.from_rows(
        [".....", "....."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10),
            Unit.make("b", "blue", (2, 0), attack=10, defense=10, range=(1, 2)),
            Unit.make("foe", "red", (1, 0), attack=10, defense=10),
            Unit.make("far", "red", (3, 0), attack=10, defense=10),
        ],
    )


def test_the_advisor_tells_the_work_watcher_every_attack_it_works_out() -> None:
    board = small_board()
    seen: list[int] = []
    with watching_work(seen.append):
        advise(board, "blue", HexParams())
    pairs = len(attack_pairs(board, "blue"))
    # Each attack gathered once, then evaluated once; the counts only grow.
    assert seen[-1] == 2 * pairs
    assert seen == sorted(seen)


def test_the_planner_tells_the_work_watcher_as_it_searches() -> None:
    seen: list[int] = []
    with watching_work(seen.append):
        plan_turn(small_board(), "blue", HexParams(), width=2)
    assert len(seen) > 3
    assert seen == sorted(seen)


def test_without_a_watcher_nothing_is_told() -> None:
    # No display hangs on the work: the advice is the same and nothing is called.
    with watching_work(None):
        quiet = advise(small_board(), "blue", HexParams())
    assert quiet == advise(small_board(), "blue", HexParams())


def _run(args: list[str], out: Path, *, terminal: bool) -> tuple[bytes, bytes]:
    """Run fracas with stderr on a pseudo-terminal (or a pipe) and stdout into ``out``."""
    import pty

    command = [sys.executable, "-m", "fracas", *args]
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    with out.open("wb") as stdout:
        if not terminal:
            done = subprocess.run(
                command, stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=300, check=False
            )
            assert done.returncode == 0, done.stderr
            return out.read_bytes(), done.stderr
        main, other = pty.openpty()
        process = subprocess.Popen(command, stdout=stdout, stderr=other, env=env)
        os.close(other)
        drawn = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the other end is closed: the command has finished
                break
            if not chunk:
                break
            drawn.append(chunk)
        os.close(main)
        assert process.wait(timeout=300) == 0
    return out.read_bytes(), b"".join(drawn)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")
@pytest.mark.parametrize("plan", [False, True], ids=["advise", "plan"])
def test_advise_draws_progress_on_a_terminal_only_and_prints_the_same_bytes(
    tmp_path: Path, plan: bool
) -> None:
    board = tmp_path / "big.yaml"
    board.write_text(yaml.safe_dump(board_document(400)), encoding="utf-8")
    args = ["advise", str(board), "--side", "blue", *(["--plan"] if plan else [])]
    out = tmp_path / "stdout.txt"
    piped, nothing = _run(args, out, terminal=False)
    assert nothing == b""
    shown, bar = _run(args, out, terminal=True)
    assert shown == piped
    assert b"hex blue attacks" in bar
    assert b"hex blue: writing the report" in bar
    quiet, none = _run([*args, "--quiet"], out, terminal=True)
    assert quiet == piped
    assert b"attacks" not in none
