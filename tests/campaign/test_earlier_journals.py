"""A journal exported by an earlier fracas, before battle events stored their outcomes and
the odds of each, still verifies: its battles are re-played, their odds are not asked again."""

from __future__ import annotations

import json
from pathlib import Path

from fracas.campaign.verify import verify_lines

EARLIER = Path(__file__).parent / "data" / "journal_before_outcomes.jsonl"


def test_an_earlier_journal_still_verifies_and_says_what_was_not_checked() -> None:
    verdict = verify_lines(EARLIER.read_text(encoding="utf-8"))
    assert verdict.ok, verdict.lines()
    assert (verdict.events, verdict.battles, verdict.earlier) == (5, 2, 2)
    assert "2 recorded before battles stored their outcomes" in verdict.lines()[0]


def test_an_earlier_journal_with_a_changed_roll_still_fails() -> None:
    lines = EARLIER.read_text(encoding="utf-8").splitlines()
    event = json.loads(lines[3])
    assert event["kind"] == "battle_resolved"
    assert "outcomes" not in event["body"]
    event["body"]["seed"] += 1
    lines[3] = json.dumps(event)
    verdict = verify_lines("\n".join(lines))
    assert not verdict.ok
    assert verdict.problem is not None
    assert verdict.problem.seq == 4
