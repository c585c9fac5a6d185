"""docs/limits.md lists every limit fracas declares, with the default it really has."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from fracas.core.limits import declared
from fracas.io.scenario import load_scenario
from fracas.rulesets import declare_ruleset_limits

ROOT = Path(__file__).resolve().parents[1]


def documented() -> dict[str, int]:
    text = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    return {
        name: int(default)
        for name, default in re.findall(r"^\| `([\w.]+)` \| (\d+) \|", text, re.M)
    }


def test_every_limit_is_documented_with_its_default() -> None:
    # Importing a module declares its limits: the rulesets', the odds command's, the sweep's.
    declare_ruleset_limits()
    importlib.import_module("fracas.cli.odds")
    importlib.import_module("fracas.analysis.sweep")
    limits = {
        limit.name: limit.default for limit in declared() if not limit.name.startswith("demo.")
    }
    assert len(limits) >= 15
    assert documented() == limits


def test_the_python_example_of_the_document_works() -> None:
    scenario = load_scenario(
        ROOT / "examples" / "d100" / "lair_raid.yaml", limits={"budget.resolve": 2_000_000}
    )
    assert scenario.limits["budget.resolve"] == 2_000_000
    assert scenario.resolve(seed=1).seed == 1
