"""Export and verify, concurrent writers, schema upgrades, bad input on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.campaign.actions import enter_roster, new_campaign, record_battle, state_of
from fracas.campaign.journal import event_hash
from fracas.campaign.store import SCHEMA_VERSION, StaleWrite, Store
from fracas.campaign.verify import export_lines, verify_lines
from fracas.cli import app

RUNNER = CliRunner()
SIDE_A = {"units": [{"name": "Scouts", "pax": 4, "offense": 2, "strength": 2}]}
SIDE_B = {"units": [{"name": "Guards", "pax": 4, "defense": 2}]}


def small_war(store: Store, battles: int = 2) -> None:
    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "A", SIDE_A)
    enter_roster(store, "War", "B", SIDE_B)
    for seed in range(battles):
        record_battle(store, "War", "A", "B", seed=seed + 1)


def exported(store: Store) -> list[dict[str, object]]:
    return [json.loads(line) for line in export_lines(store.events("War")).splitlines()]


def text_of(lines: list[dict[str, object]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def rehash(line: dict[str, object]) -> None:
    line["hash"] = event_hash(line["seq"], line["kind"], line["body"], line["prev"])  # type: ignore[arg-type]


def test_an_untouched_journal_verifies(store: Store) -> None:
    small_war(store)
    verdict = verify_lines(export_lines(store.events("War")))
    assert verdict.ok, verdict.lines()
    assert (verdict.events, verdict.battles) == (5, 2)


def test_export_is_canonical_and_stable(store: Store) -> None:
    small_war(store, battles=1)
    text = export_lines(store.events("War"))
    assert text == export_lines(store.events("War"))
    for line in text.splitlines():
        assert (
            json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            == line
        )


def test_verify_names_an_edited_event(store: Store) -> None:
    small_war(store)
    lines = exported(store)
    lines[1]["body"]["roster"]["units"][0]["pax"] = 9  # type: ignore[index]
    verdict = verify_lines(text_of(lines))
    assert not verdict.ok
    # The edit makes battle 1's scenario differ from the one recorded at event 4 … unless
    # the hash check comes first: event 2 is the first that does not follow.
    assert verdict.problem is not None
    assert verdict.problem.seq == 2
    assert "edited" in str(verdict.problem)


def test_verify_names_a_changed_roll_even_when_rehashed(store: Store) -> None:
    small_war(store)
    lines = exported(store)
    body = lines[3]["body"]
    body["seed"] = int(body["seed"]) + 1000  # type: ignore[index]
    rehash(lines[3])
    for later in lines[4:]:  # a forger fixes the chain after it, too
        later["prev"] = lines[lines.index(later) - 1]["hash"]
        rehash(later)
    verdict = verify_lines(text_of(lines))
    assert verdict.problem is not None
    assert verdict.problem.seq == 4
    assert "re-played" in str(verdict.problem) or "scenario" in str(verdict.problem)


def test_verify_names_a_changed_result(store: Store) -> None:
    small_war(store)
    lines = exported(store)
    body = lines[3]["body"]
    body["summary"]["pax.Scouts"] = 4 if body["summary"]["pax.Scouts"] != 4 else 3  # type: ignore[index]
    rehash(lines[3])
    verdict = verify_lines(text_of(lines[:4]))
    assert verdict.problem is not None
    assert verdict.problem.seq == 4
    assert "summary differs at pax.Scouts" in str(verdict.problem)


def _forged(store: Store, event: int, **changes: object) -> Any:
    """The verdict on the journal with event ``event``'s body changed and the whole chain
    after it hashed again, as a forger would."""
    lines = exported(store)
    lines[event - 1]["body"].update(changes)  # type: ignore[attr-defined]
    for index in range(event - 1, len(lines)):
        if index:
            lines[index]["prev"] = lines[index - 1]["hash"]
        rehash(lines[index])
    return verify_lines(text_of(lines))


@pytest.mark.parametrize(
    ("event", "changes", "problem"),
    [
        # Battle 2 called battle 1 (two "battle 1"s), or battle 7.
        (5, {"battle": 1}, "event 5: is battle 1, but it is battle 2"),
        (5, {"battle": 7}, "event 5: is battle 7, but it is battle 2"),
        # A seed that int() would read all the same.
        (4, {"seed": "1"}, "event 4: battle 1: its seed '1' is not a whole number"),
        (4, {"seed": True}, "event 4: battle 1: its seed True is not a whole number"),
        # The title is outside the canonical hash: the stored scenario is compared whole.
        (4, {"scenario": None}, "event 4: battle 1: the scenario it stores is not the one"),
    ],
)
def test_verify_names_a_forged_number_seed_or_scenario(
    store: Store, event: int, changes: dict[str, object], problem: str
) -> None:
    small_war(store)
    verdict = _forged(store, event, **changes)
    assert verdict.problem is not None
    assert str(verdict.problem).startswith(problem), str(verdict.problem)


def test_verify_names_an_event_of_no_known_kind(store: Store) -> None:
    small_war(store)
    lines = exported(store)
    lines[3]["kind"] = "bogus"
    for index in range(3, len(lines)):
        lines[index]["prev"] = lines[index - 1]["hash"]
        rehash(lines[index])
    verdict = verify_lines(text_of(lines))
    assert str(verdict.problem) == "event 4: unknown event kind 'bogus'"


def test_verify_names_a_missing_battle(store: Store) -> None:
    small_war(store)
    lines = exported(store)
    del lines[3]
    verdict = verify_lines(text_of(lines))
    assert verdict.problem is not None
    assert verdict.problem.seq == 5
    assert "missing" in str(verdict.problem)


#: A writer that appends five events, reading again whenever its write was stale.
WRITER = """
import sys
from fracas.campaign.actions import state_of
from fracas.campaign.store import StaleWrite, Store
store = Store.open(sys.argv[1])
written = 0
while written < 5:
    state = state_of(store, "War")
    try:
        store.append("War", "roster_entered",
                     {"force": sys.argv[2] + str(written), "roster": {"units": []}},
                     after=state.last)
    except StaleWrite:
        continue
    written += 1
"""


def test_two_processes_writing_at_once_lose_no_event(db: str) -> None:
    store = Store.open(db)
    new_campaign(store, "War", "d100")
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, db, name]) for name in ("X", "Y")]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    events = store.events("War")
    # 1 creation + 5 events from each writer, numbered 1..11 with no gap, all there.
    assert [e.seq for e in events] == list(range(1, 12))
    forces = sorted(str(e.body["force"]) for e in events[1:])
    assert forces == sorted(f"{n}{i}" for n in "XY" for i in range(5))


def test_a_stale_write_is_refused_with_a_line_to_retry(store: Store) -> None:
    new_campaign(store, "War", "d100")
    first = store.events("War")[-1]
    store.append("War", "roster_entered", {"force": "A", "roster": SIDE_A}, after=first)
    with pytest.raises(StaleWrite, match="run the command again"):
        store.append("War", "roster_entered", {"force": "B", "roster": SIDE_B}, after=first)
    assert len(store.events("War")) == 2


def test_a_version_1_store_is_upgraded_and_keeps_its_events(db: str) -> None:
    old = Store.open(db, upgrade_to=1)
    assert old.version() == 1
    import sqlalchemy as sa

    with old.engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO campaigns VALUES ('Old', 'd100')"))
        connection.execute(
            sa.text("INSERT INTO events VALUES ('Old', 1, 'campaign_created', :body, '', :h)"),
            {
                "body": '{"name":"Old","ruleset":"d100"}',
                "h": event_hash(1, "campaign_created", {"name": "Old", "ruleset": "d100"}, ""),
            },
        )
    old.close()
    store = Store.open(db)
    assert store.version() == SCHEMA_VERSION == 2
    assert [e.kind for e in store.events("Old")] == ["campaign_created"]
    enter_roster(store, "Old", "A", SIDE_A)
    assert verify_lines(export_lines(store.events("Old"))).ok


# The command line ----------------------------------------------------------------------


def run(*args: str) -> tuple[int, str, str]:
    result = RUNNER.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_whole_campaign_from_the_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "war.db")
    roster = tmp_path / "a.yaml"
    roster.write_text("units:\n  - {name: Scouts, pax: 4, offense: 2}\ntreasury: {gold: 5}\n")
    other = tmp_path / "b.yaml"
    other.write_text("units:\n  - {name: Guards, pax: 4, defense: 2}\n")
    assert run("campaign", "new", "War", "--ruleset", "d100", "--db", db)[0] == 0
    assert run("campaign", "roster", "War", "A", "--file", str(roster), "--db", db)[0] == 0
    assert run("campaign", "roster", "War", "B", "--file", str(other), "--db", db)[0] == 0
    code, out, _ = run(
        "campaign",
        "battle",
        "War",
        "--attacker",
        "A",
        "--defender",
        "B",
        "--seed",
        "3",
        "-f",
        "bbcode",
        "--db",
        db,
    )
    assert code == 0
    assert "seed 3" in out
    code, out, _ = run("campaign", "luck", "War", "-f", "markdown", "--db", db)
    assert code == 0
    assert "campaigns like this one" in out
    journal = tmp_path / "war.jsonl"
    assert run("campaign", "export", "War", "-o", str(journal), "--db", db)[0] == 0
    code, out, _ = run("campaign", "verify", str(journal))
    assert code == 0
    assert out.startswith("verified: 4 events, 1 battles")
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:2] + lines[3:]) + "\n")
    code, out, _ = run("campaign", "verify", str(journal))
    assert code == 1
    assert "NOT VERIFIED: event 4" in out


def test_verify_works_the_odds_out_on_every_core_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fracas.campaign.verify
    import fracas.core.helper

    asked: list[int] = []

    def noting(text: str, **options: Any) -> Any:
        asked.append(options["workers"])
        return fracas.campaign.verify.verify_events([], odds=False)

    monkeypatch.setattr(fracas.core.helper, "cores", lambda: 3)
    monkeypatch.setattr(fracas.campaign.verify, "verify_lines", noting)
    journal = tmp_path / "war.jsonl"
    journal.write_text("\n")
    run("campaign", "verify", str(journal))
    run("campaign", "verify", str(journal), "--workers", "1")
    assert asked == [3, 1]
    # A typo would fork a process per battle of a long journal: bounded as odds bounds it.
    code, _, err = run("campaign", "verify", str(journal), "--workers", "100000")
    assert code == 2
    assert err == (
        "fracas: error: --workers: 100000 is above the limit work.processes = 256 "
        "(raise it with --limit work.processes=N)\n"
    )
    assert asked == [3, 1]
    # The hint works: verify takes --limit as odds does.
    run("campaign", "verify", str(journal), "--workers", "300", "--limit", "work.processes=300")
    assert asked == [3, 1, 300]
    # Unasked, every core, but no more than the limit allows.
    run("campaign", "verify", str(journal), "--limit", "work.processes=2")
    assert asked == [3, 1, 300, 2]


def test_verify_reads_a_journal_within_the_input_limit_it_can_raise(tmp_path: Path) -> None:
    """A journal is read under input.file_bytes (4 MB by default: about 900 battles of
    d100); verify takes --limit, so the hint of its refusal can be followed."""
    journal, db = tmp_path / "war.jsonl", str(tmp_path / "war.db")
    assert run("campaign", "new", "War", "--ruleset", "d100", "--db", db)[0] == 0
    assert run("campaign", "export", "War", "-o", str(journal), "--db", db)[0] == 0
    size = journal.stat().st_size
    code, _, err = run(
        "campaign", "verify", str(journal), "--limit", f"input.file_bytes={size - 1}"
    )
    assert code == 2
    assert err == (
        f"fracas: error: {journal}: the file is larger than the limit input.file_bytes = "
        f"{size - 1} (raise it with --limit input.file_bytes=N)\n"
    )
    code, out, _ = run("campaign", "verify", str(journal), "--limit", f"input.file_bytes={size}")
    assert code == 0
    assert out.startswith("verified: 1 events")


def test_verify_stopped_by_ctrl_c_says_how_far_the_events_and_the_odds_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fracas.campaign.verify

    def interrupted(text: str, **options: Any) -> Any:
        watch = options["watch"]
        watch.start(27, "events", "verifying")
        watch.start(8, "battles", "odds of")
        watch.advance(27, "events")
        watch.advance(3, "battles")
        raise KeyboardInterrupt

    monkeypatch.setattr(fracas.campaign.verify, "verify_lines", interrupted)
    journal = tmp_path / "war.jsonl"
    journal.write_text("\n")
    code, out, err = run("campaign", "verify", str(journal), "--workers", "2")
    assert (code, out) == (130, "")
    assert "verify stopped after 27 of 27 events, odds of 3 of 8 battles" in err


@pytest.mark.parametrize(
    ("roster", "needle"),
    [
        ("units:\n  - {name: Scouts, pax: -1}\n", "units[0].pax"),
        ("units:\n  - {name: Scouts, pax: 4, colour: red}\n", "units[0].colour"),
        ("units: []\n", "units"),
        ("units:\n  - {name: Scouts, pax: 4}\naction: raid\n", "action"),
        # What d100 checks when it builds a battle is checked when the roster comes in,
        # not at the force's first battle.
        (
            "units:\n  - {name: Scouts, pax: 5, max_pax: 3}\n",
            "units[0].pax: pax 5 is more than max_pax 3",
        ),
        (
            "units:\n  - {name: Scouts, pax: 4, equipment: [shield, shield]}\n",
            "units[0].equipment[1]: 'shield' is listed twice",
        ),
        (
            "units:\n  - {name: Scouts, pax: 4, ranged_attacks: 2}\n",
            "units[0].ranged_attacks: 2 ranged attack(s) but no ranged weapon",
        ),
        (
            "units:\n  - {name: Scouts, pax: 4, traits: [flying_carpet]}\n",
            "units[0].traits[0]: unknown effect 'flying_carpet'",
        ),
        # The file is named with the key: the treasury's NaN is this file's.
        ("units:\n  - {name: Scouts, pax: 4}\ntreasury: {gold: .nan}\n", "bad.yaml: treasury.gold"),
    ],
)
def test_a_roster_that_does_not_fit_is_one_line_and_writes_nothing(
    tmp_path: Path, roster: str, needle: str
) -> None:
    db = str(tmp_path / "war.db")
    run("campaign", "new", "War", "--ruleset", "d100", "--db", db)
    file = tmp_path / "bad.yaml"
    file.write_text(roster)
    code, _, err = run("campaign", "roster", "War", "A", "--file", str(file), "--db", db)
    assert code == 2
    assert err.count("\n") == 1
    assert needle in err
    assert "Traceback" not in err
    assert len(Store.open(db).events("War")) == 1


def test_an_edit_no_battle_could_be_built_from_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "war.db")
    run("campaign", "new", "War", "--ruleset", "d100", "--db", db)
    file = tmp_path / "a.yaml"
    file.write_text("units:\n  - {name: Scouts, pax: 4}\n")
    assert run("campaign", "roster", "War", "A", "--file", str(file), "--db", db)[0] == 0
    # d100's default max_pax is 10.
    code, _, err = run("campaign", "roster", "War", "A", "--set", "units[0].pax=50", "--db", db)
    assert code == 2
    assert err == "fracas: error: --set: units[0].pax: pax 50 is more than max_pax 10\n"
    assert len(Store.open(db).events("War")) == 2


def test_a_battle_with_a_fallen_or_unknown_unit_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "war.db")
    store = Store.open(db)
    new_campaign(store, "War", "d100")
    enter_roster(
        store,
        "War",
        "A",
        {
            "units": [
                {"name": "Knights", "pax": 10, "offense": 9, "strength": 9, "melee_attacks": 9}
            ]
        },
    )
    enter_roster(
        store,
        "War",
        "B",
        {"units": [{"name": "Peasants", "pax": 1}, {"name": "Militia", "pax": 10}]},
    )
    seed = next(
        s
        for s in range(50)
        if record_battle(store, "War", "A", "B", seed=s).fought.summary["fate.Peasants"] == "killed"
    )
    del seed
    fell = state_of(store, "War").forces["B"].fallen["Peasants"]
    count = len(store.events("War"))
    code, _, err = run(
        "campaign",
        "battle",
        "War",
        "--attacker",
        "A",
        "--defender",
        "B",
        "--only",
        "Knights",
        "--only",
        "Peasants",
        "--db",
        db,
    )
    assert code == 2
    assert f"was killed in event {fell[1]}" in err
    assert "only[1]" in err
    code, _, err = run(
        "campaign", "battle", "War", "--attacker", "A", "--defender", "C", "--db", db
    )
    assert code == 2
    assert "no force 'C'" in err
    assert err.count("\n") == 1
    assert len(Store.open(db).events("War")) == count


def test_a_fair_battle_verifies_and_its_nonces_cannot_be_swapped(store: Store) -> None:
    from fracas.io.fair import derive_seed

    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "A", SIDE_A)
    enter_roster(store, "War", "B", SIDE_B)
    secret = "ab" * 32
    recorded = record_battle(store, "War", "A", "B", secret=secret, nonces=["owl", "7"])
    body = recorded.event.body
    assert body["seed"] == derive_seed(secret, body["scenario_sha256"], ["owl", "7"])
    assert body["fair"]["nonces"] == ["owl", "7"]
    assert verify_lines(export_lines(store.events("War"))).ok
    lines = exported(store)
    lines[3]["body"]["fair"]["nonces"] = ["owl", "8"]  # type: ignore[index]
    rehash(lines[3])
    verdict = verify_lines(text_of(lines))
    assert verdict.problem is not None
    assert verdict.problem.seq == 4
    assert "its fair dice give seed" in str(verdict.problem)


def test_verify_counts_the_battles_before_the_first_that_fails(store: Store) -> None:
    small_war(store, battles=2)
    lines = exported(store)
    lines[4]["body"]["seed"] = 999  # type: ignore[index]
    verdict = verify_lines(text_of(lines))
    assert (verdict.events, verdict.battles) == (4, 1)


def test_a_database_that_is_not_one_is_one_line(tmp_path: Path) -> None:
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("these are my notes, not a database\n" * 100)
    code, _, err = run("campaign", "new", "War", "--ruleset", "d100", "--db", str(not_a_db))
    assert code == 2
    assert err.count("\n") == 1
    assert "cannot open the database" in err
    code, _, err = run(
        "campaign", "new", "W" * 201, "--ruleset", "d100", "--db", str(tmp_path / "w.db")
    )
    assert code == 2
    assert "at most 200 characters" in err
    # Its pages' addresses would end in /. or /.., which clients read as another page.
    for dots in (".", ".."):
        code, _, err = run(
            "campaign", "new", dots, "--ruleset", "d100", "--db", str(tmp_path / "w.db")
        )
        assert code == 2
        assert f"a campaign cannot be named {dots!r}" in err


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_a_file_with_no_event_is_unreadable_not_a_journal_that_fails(
    tmp_path: Path, text: str
) -> None:
    """Exit 2, as for a line that is no event: there is no first event to name."""
    journal = tmp_path / "war.jsonl"
    journal.write_text(text)
    code, out, err = run("campaign", "verify", str(journal))
    assert code == 2
    assert out == ""
    assert err == f"fracas: error: {journal}: no events: an exported journal has one event a line\n"
