"""Start-up stays light: ``fracas --help`` and ``fracas rulesets`` import no heavy module.

Start-up time is the import list (timing it in a test would fail on a busy machine): the
numeric, plotting and cluster libraries, and the rulesets' own modules for ``--help``,
are imported only by the commands that use them. ``benchmarks/bench_startup.py`` times
them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "numba", "matplotlib", "dask", "distributed", "icepool", "yaml", "rich")


def modules_after(*argv: str) -> set[str]:
    """The modules loaded by running ``fracas ARGV`` in a fresh interpreter."""
    program = (
        "import json, sys\n"
        "from fracas.cli import main\n"
        f"sys.argv = ['fracas', *{list(argv)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return set(loaded)


def roots(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        (("--help",), ()),
        (("odds", "--help"), ()),
        (("sweep", "--help"), ()),
        # Listing the rulesets imports their classes and scenario models (pydantic).
        (("rulesets",), ()),
    ],
)
def test_no_heavy_library_at_start_up(argv: tuple[str, ...], allowed: tuple[str, ...]) -> None:
    loaded = modules_after(*argv)
    heavy = set(HEAVY) - set(allowed)
    assert not roots(loaded) & heavy, sorted(roots(loaded) & heavy)
    assert "fracas.analysis.sweep" not in loaded
    assert "fracas.analysis.plot" not in loaded
    # The options' defaults come from fracas.core.budgets; the evaluators load with odds.
    assert not {"fracas.analysis", "fracas.analysis.odds", "fracas.analysis.exact"} & loaded


def test_help_imports_no_ruleset() -> None:
    loaded = modules_after("--help")
    assert not {name for name in loaded if name.startswith("fracas.rulesets.")} - {
        "fracas.rulesets.base"
    }


def test_help_imports_neither_pydantic_nor_scenarios() -> None:
    loaded = modules_after("--help")
    assert "pydantic" not in roots(loaded)
    assert not {"fracas.io", "fracas.core.schema"} & loaded


def test_listing_rulesets_imports_their_classes_not_their_rules() -> None:
    loaded = modules_after("rulesets")
    assert {"fracas.rulesets.hex.ruleset", "fracas.rulesets.d100.ruleset"} <= loaded
    rules = {
        f"fracas.rulesets.{ruleset}.{module}"
        for ruleset in ("hex", "d100", "rankflank")
        for module in ("play", "report", "batch", "plan", "breaktest", "document", "params")
    }
    # The pydantic models of the documents were most of the listing's start-up: they load
    # with the first scenario (deferred), not with the names and summaries.
    assert not rules & loaded, sorted(rules & loaded)


def blas_threads_after(environment: dict[str, str]) -> str:
    """``OPENBLAS_NUM_THREADS`` as a command that loads numpy leaves it."""
    program = (
        "import os, sys\n"
        "from fracas.cli import main\n"
        "sys.argv = ['fracas', 'resolve', 'examples/hex/encirclement.yaml']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'numpy' in sys.modules\n"
        "sys.stderr.write(os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=True,
        env={**environ, **environment},
        cwd=ROOT,
    )
    return done.stderr.strip().splitlines()[-1]


def test_numpy_starts_no_blas_thread_pool_unless_the_user_asks() -> None:
    # One BLAS thread per core spins at numpy's import: CPU every command paid for nothing.
    assert blas_threads_after({}) == "1"
    assert blas_threads_after({"OPENBLAS_NUM_THREADS": "2"}) == "2"


def frozen_after(*argv: str) -> tuple[int, int]:
    """How many objects the collector had set aside (``gc.freeze``) once ``fracas ARGV``
    ended, and its exit code."""
    program = (
        "import gc, sys\n"
        "from fracas.cli import main\n"
        f"sys.argv = ['fracas', *{list(argv)!r}]\n"
        "try:\n"
        "    main()\n"
        "    code = 0\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "sys.stderr.write(f'{gc.get_freeze_count()} {code}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=ROOT
    )
    frozen, code = done.stderr.strip().splitlines()[-1].split()
    return int(frozen), int(code)


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("resolve", "examples/hex/encirclement.yaml"), 0),
        (("resolve", "examples/hex/nonesuch.yaml"), 2),
        (("--help",), 0),
    ],
)
def test_the_collector_skips_what_a_finished_command_leaves(
    argv: tuple[str, ...], code: int
) -> None:
    # The interpreter's last collections over every module and schema cost every command
    # about 0.05 s (benchmarks/bench_startup.py); a frozen object is left to the process's
    # end. Frozen on every way out, an error's included.
    frozen, exit_code = frozen_after(*argv)
    assert exit_code == code
    assert frozen > 1_000


@pytest.mark.parametrize(
    ("example", "command"),
    [
        ("hex/encirclement.yaml", ("advise", "{file}", "--side", "blue")),
        ("hex/encirclement.yaml", ("resolve", "{file}")),
        ("d100/lair_raid.yaml", ("resolve", "{file}")),
        ("rankflank/frontal_charge.yaml", ("resolve", "{file}")),
    ],
)
def test_json_in_and_out_loads_no_yaml_reader_no_rich_and_no_evaluator(
    example: str, command: tuple[str, ...], tmp_path: Path
) -> None:
    # A program calling fracas on JSON files pays for no reader and no renderer it does not
    # use; --limit names every limit without loading the odds machinery that declares some.
    import yaml

    scenario = tmp_path / "scenario.json"
    document = yaml.safe_load((ROOT / "examples" / example).read_text(encoding="utf-8"))
    scenario.write_text(json.dumps(document), encoding="utf-8")
    argv = [part.format(file=scenario) for part in command]
    out = tmp_path / "out.json"
    loaded = modules_after(*argv, "-f", "json", "-o", str(out), "--limit", "input.nodes=200000")
    assert json.loads(out.read_text(encoding="utf-8"))["title"]
    assert not roots(loaded) & {"yaml", "rich", "tomllib"}, sorted(roots(loaded))
    assert not {name for name in loaded if name.startswith("fracas.analysis")}
