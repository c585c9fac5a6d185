"""Campaign journals exported before keep verifying: their battles re-played from their
seeds (one of them fair dice), their rosters re-derived, and the odds stored before each
battle worked out again, sampled (d100, rankflank) or exact (hex), to the bit.

A change that alters a ruleset's play, the exact walk's budget, or the sampled law of the
luck audit (the runs, their streams, the seed from the scenario hash) fails here: every GM's
journal would stop verifying. Such a change must keep the earlier law for the journals
that hold it. These files are never rewritten to make this test pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fracas.campaign.verify import verify_lines

JOURNALS = sorted((Path(__file__).resolve().parent / "journals").glob("*.jsonl"))


def battles(path: Path) -> list[dict[str, object]]:
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [event["body"] for event in events if event["kind"] == "battle_resolved"]


@pytest.mark.parametrize("journal", JOURNALS, ids=[p.stem for p in JOURNALS])
def test_a_journal_exported_before_still_verifies_odds_and_all(journal: Path) -> None:
    verdict = verify_lines(journal.read_text(encoding="utf-8"), workers=1)
    assert verdict.ok, verdict.lines()
    assert verdict.battles == len(battles(journal)) > 0
    assert verdict.earlier == 0  # every battle's odds were worked out again and compared


def test_the_stored_journals_hold_every_kind_of_battle_and_law() -> None:
    bodies = [body for journal in JOURNALS for body in battles(journal)]
    methods = {body["odds"]["method"] for body in bodies}  # type: ignore[index]
    assert methods == {"exact", "mc"}
    assert any("commitment" in json.dumps(body) for body in bodies)  # a battle of fair dice
    rulesets = {journal.stem.split("_")[0] for journal in JOURNALS}
    assert rulesets == {"d100", "rankflank", "hex"}
