"""Two writers at once, a battle that fails half-way, and bad input: the journal never
loses an event and never holds half of one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fracas.campaign.actions import enter_roster, new_campaign, record_battle, state_of
from fracas.campaign.store import StaleWrite, Store
from fracas.campaign.verify import export_lines, verify_lines
from fracas.cli import app

SIDE_A = {"units": [{"name": "Scouts", "pax": 4, "offense": 2, "strength": 2}]}
SIDE_B = {"units": [{"name": "Guards", "pax": 4, "defense": 2}]}
RUNNER = CliRunner()


def war(store: Store) -> None:
    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "A", SIDE_A)
    enter_roster(store, "War", "B", SIDE_B)


def test_two_threads_that_read_the_same_event_one_is_refused_and_retries(db: str) -> None:
    store = Store.open(db)
    new_campaign(store, "War", "d100")
    # Both writers read the journal, wait for each other, then append after what they
    # read: exactly one append can follow event 1; the other is refused, reads again and
    # appends after the winner's event.
    both_read = threading.Barrier(2)
    outcomes: dict[str, list[str]] = {}

    def writer(name: str) -> None:
        mine = Store.open(db)
        tries: list[str] = []
        while True:
            last = state_of(mine, "War").last
            assert last is not None
            if not tries:
                both_read.wait(timeout=30)
            try:
                body = {"force": name, "roster": SIDE_A}
                mine.append("War", "roster_entered", body, after=last)
            except StaleWrite as exc:
                tries.append(str(exc))
                continue
            tries.append("written")
            break
        outcomes[name] = tries
        mine.close()

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("X", "Y")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    refused = [tries[0] for tries in outcomes.values() if tries[0] != "written"]
    assert len(refused) == 1
    assert (
        "changed since it was read (event 1 is no longer the last): run the command again"
        in (refused[0])
    )
    assert sorted(len(tries) for tries in outcomes.values()) == [1, 2]
    events = store.events("War")
    assert [e.seq for e in events] == [1, 2, 3]
    assert sorted(str(e.body["force"]) for e in events[1:]) == ["X", "Y"]
    assert verify_lines(export_lines(events)).ok


def test_a_battle_raced_by_another_writer_is_refused_whole(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fracas.campaign.actions as actions
    from fracas.campaign import battle

    war(store)

    def fight_while_another_gm_edits(*args: Any, **kwargs: Any) -> Any:
        # While this battle is played, a second game master edits a roster.
        actions.edit_roster(store, "War", "B", [("units[0].pax", 3)], by="GM 2")
        return battle.fight(*args, **kwargs)

    monkeypatch.setattr(actions, "fight", fight_while_another_gm_edits)
    with pytest.raises(StaleWrite, match="run the command again"):
        record_battle(store, "War", "A", "B", seed=1)
    kinds = [e.kind for e in store.events("War")]
    assert kinds == ["campaign_created", "roster_entered", "roster_entered", "roster_edited"]
    monkeypatch.undo()
    # Run again, the battle is built from the edited roster.
    again = record_battle(store, "War", "A", "B", seed=1)
    assert again.fought.scenario.document["sides"][1]["units"][0]["pax"] == 3


@pytest.mark.parametrize("breaks", ["luck_law", "fight", "battle_body"])
def test_a_battle_that_fails_half_way_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, breaks: str
) -> None:
    import fracas.campaign.actions as actions

    db = str(tmp_path / "war.db")
    store = Store.open(db)
    war(store)
    before = export_lines(store.events("War"))

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the power went out")

    monkeypatch.setattr(actions, breaks, crash)
    result = RUNNER.invoke(
        app, ["campaign", "battle", "War", "--attacker", "A", "--defender", "B", "--db", db]
    )
    # Not bad input: an internal error (exit 70), in one line; the journal is as it was.
    assert result.exit_code == 70
    assert result.stderr.count("\n") == 1
    assert export_lines(Store.open(db).events("War")) == before


def test_a_stale_write_on_the_command_line_is_one_line_to_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fracas.campaign.actions as actions
    from fracas.campaign import battle

    db = str(tmp_path / "war.db")
    store = Store.open(db)
    war(store)

    def raced(*args: Any, **kwargs: Any) -> Any:
        actions.edit_roster(store, "War", "B", [("units[0].pax", 3)], by="GM 2")
        return battle.fight(*args, **kwargs)

    monkeypatch.setattr(actions, "fight", raced)
    result = RUNNER.invoke(
        app, ["campaign", "battle", "War", "--attacker", "A", "--defender", "B", "--db", db]
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "run the command again" in result.stderr
    assert [e.kind for e in Store.open(db).events("War")][-1] == "roster_edited"


def test_a_force_with_no_unit_left_cannot_fight(tmp_path: Path) -> None:
    db = str(tmp_path / "war.db")
    store = Store.open(db)
    new_campaign(store, "War", "d100")
    knights = {"name": "Knights", "pax": 10, "offense": 9, "strength": 9, "melee_attacks": 9}
    enter_roster(store, "War", "A", {"units": [knights]})
    enter_roster(store, "War", "B", {"units": [{"name": "Peasants", "pax": 1}]})
    # Some seed kills the one peasant; from then on B has nothing to field.
    for seed in range(50):
        record_battle(store, "War", "A", "B", seed=seed)
        if not state_of(store, "War").forces["B"].roster["units"]:
            break
    fell = state_of(store, "War").forces["B"].fallen["Peasants"]
    count = len(store.events("War"))
    result = RUNNER.invoke(
        app, ["campaign", "battle", "War", "--attacker", "A", "--defender", "B", "--db", db]
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "defender" in result.stderr
    assert f"B has no unit left to fight (Peasants {fell[0]} in event {fell[1]})" in result.stderr
    assert len(Store.open(db).events("War")) == count


@pytest.mark.parametrize(
    ("battle", "needle"),
    [
        ("sides: [attack]\n", "battle.yaml: sides"),
        ("sides: {A: {units: []}}\n", "sides.A"),
        ("sides: {A: {action: dance}}\n", "action"),
        ("ruleset: hex\n", "battle.yaml: ruleset"),
        ("weather: rain\n", "War battle 1 (rosters and "),
        ("[1, 2]\n", "a mapping of keys"),
        # A force misspelt: its keys would be dropped and the battle played without them.
        ("sides: {Aa: {action: raid}}\n", "sides.Aa: no force of this battle (A and B)"),
    ],
)
def test_a_bad_battle_file_is_one_line_and_writes_nothing(
    tmp_path: Path, battle: str, needle: str
) -> None:
    db = str(tmp_path / "war.db")
    store = Store.open(db)
    war(store)
    count = len(store.events("War"))
    file = tmp_path / "battle.yaml"
    file.write_text(battle)
    result = RUNNER.invoke(
        app,
        [
            "campaign",
            "battle",
            "War",
            "--attacker",
            "A",
            "--defender",
            "B",
            "--battle",
            str(file),
            "--db",
            db,
        ],
    )
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert needle in result.stderr
    assert len(Store.open(db).events("War")) == count


def test_an_sqlite_store_is_one_file_in_wal_mode(tmp_path: Path) -> None:

    store = Store.open(str(tmp_path / "war.db"))
    war(store)
    with store.engine.connect() as connection:
        mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar_one()
    assert mode == "wal"


def test_a_correction_is_a_new_event_that_keeps_who_and_why(store: Store) -> None:
    war(store)
    entered = store.events("War")[-1]
    actions_state = state_of(store, "War")
    assert actions_state.forces["B"].roster["units"][0]["pax"] == 4
    from fracas.campaign.actions import edit_roster

    edit_roster(store, "War", "B", [("units[0].pax", 3)], by="GM", why="a typo in the list")
    events = store.events("War")
    # The entry is as it was (same hash); the edit is the next event, with who and why.
    assert events[2] == entered
    edit = events[3]
    assert (edit.kind, edit.body["by"], edit.body["why"]) == (
        "roster_edited",
        "GM",
        "a typo in the list",
    )
    assert edit.body["set"] == [{"path": "units[0].pax", "value": 3}]
    assert state_of(store, "War").forces["B"].roster["units"][0]["pax"] == 3


def refused_whole(tmp_path: Path, *args: str, one_line: bool = True) -> str:
    """Run ``fracas campaign ARGS`` on a new war: it must exit 2 and write no event, with
    one line (``one_line``: an option typer refuses prints its usage here; the ``fracas``
    command folds that into one line). Returns what it printed."""
    db = str(tmp_path / "war.db")
    store = Store.open(db)
    war(store)
    count = len(store.events("War"))
    result = RUNNER.invoke(app, ["campaign", *args, "--db", db])
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1 or not one_line, result.stderr
    assert len(Store.open(db).events("War")) == count
    return str(result.stderr)


@pytest.mark.parametrize("output", ["a folder", "no/such/folder/post.txt"])
def test_a_battle_whose_post_cannot_be_written_is_not_recorded(tmp_path: Path, output: str) -> None:
    # The post is what the players see: a battle recorded without it would be fought
    # again by the next command, a second battle in the journal.
    (tmp_path / "a folder").mkdir()
    target = tmp_path / output
    battle = ["battle", "War", "--attacker", "A", "--defender", "B", "--seed", "1"]
    line = refused_whole(tmp_path, *battle, "-o", str(target))
    assert line.startswith(f"fracas: error: {target}: cannot write output")


@pytest.mark.parametrize(
    "options",
    [
        ["--ruleset", "nope"],
        ["--from-scenario", "{bad}"],
        ["--ruleset", "d100", "--rules", "{bad}"],
    ],
)
def test_a_campaign_refused_at_its_start_leaves_no_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("fracas: 1\nsides: []\n")
    args = [option.format(bad="bad.yaml") for option in options]
    result = RUNNER.invoke(app, ["campaign", "new", "Zed", *args])
    assert result.exit_code == 2, result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.yaml"]
    # So the next command says there is no campaign here, not that Zed is unknown.
    again = RUNNER.invoke(app, ["campaign", "roster", "Zed"])
    assert "no campaign database here" in again.stderr


@pytest.mark.parametrize("cost", ["nan", "inf", "1e400"])
def test_replacements_at_a_cost_that_is_no_number_are_refused(tmp_path: Path, cost: str) -> None:
    buy = ["buy", "War", "A", "Scouts", "--count", "1", "--cost", cost]
    assert "cost: a number of gold, not" in refused_whole(tmp_path, *buy)


@pytest.mark.parametrize("seed", ["-1", "1" + "0" * 5000])
def test_a_battle_seed_resolve_refuses_is_refused_here_too(tmp_path: Path, seed: str) -> None:
    # The post's last line re-runs the battle with `fracas resolve --seed`: a seed it would
    # refuse would make a post nobody can check.
    battle = ["battle", "War", "--attacker", "A", "--defender", "B", "--seed", seed]
    assert "--seed" in refused_whole(tmp_path, *battle, one_line=False)


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
@pytest.mark.parametrize(
    "command",
    [
        ["journal", "War"],
        ["export", "War"],
        ["luck", "War"],
        ["roster", "War"],
        ["battle", "War", "--attacker", "A", "--defender", "B", "--seed", "1"],
    ],
)
def test_no_output_may_replace_the_campaign_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], suffix: str
) -> None:
    # Replaced, the database (or the WAL file SQLite still holds) would lose the campaign.
    monkeypatch.chdir(tmp_path)
    war(Store.open("War.campaign.db"))
    result = RUNNER.invoke(app, ["campaign", *command, "-o", f"War.campaign.db{suffix}"])
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        f"fracas: error: War.campaign.db{suffix}: cannot write output: this is a file the "
        "command reads; choose another -o\n"
    )
    assert Path("War.campaign.db").read_bytes().startswith(b"SQLite format 3")
    assert len(Store.open("War.campaign.db").events("War")) == 3


@pytest.mark.parametrize("db", ["empty.yaml", "battle.yaml", "sqlite:///nowhere.db"])
def test_reading_a_campaign_from_a_file_that_is_no_database_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("empty.yaml").write_bytes(b"")
    Path("battle.yaml").write_text("fracas: 1\nruleset: d100\n")
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir())
    result = RUNNER.invoke(app, ["campaign", "journal", "War", "--db", db])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert (
        "not a campaign database (not an SQLite file)" in result.stderr
        if db.endswith(".yaml")
        else "no campaign database here" in result.stderr
    )
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize(
    "command", [["new", "{name}", "--ruleset", "d100"], ["journal", "{name}"], ["roster", "{name}"]]
)
def test_a_name_too_long_for_a_file_is_refused_as_a_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    # 250 letters make a default file name longer than a file system allows.
    monkeypatch.chdir(tmp_path)
    args = [part.format(name="x" * 250) for part in command]
    result = RUNNER.invoke(app, ["campaign", *args])
    assert result.exit_code == 2
    assert result.stderr == (
        "fracas: error: command line: name: a campaign's name is at most 200 characters\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_bad_rules_file_is_named_in_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("rules.yaml").write_text("fracas: 1\nruleset: d100\n")
    result = RUNNER.invoke(
        app, ["campaign", "new", "War", "--ruleset", "d100", "--rules", "rules.yaml"]
    )
    assert result.exit_code == 2
    assert result.stderr == "fracas: error: rules.yaml: fracas: the campaign sets this key itself\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["rules.yaml"]


@pytest.mark.parametrize("digits", ["١", "１"])
def test_a_limit_is_written_in_ascii_digits(digits: str) -> None:
    # Python reads other scripts' digits as numbers; --seed and every other count refuse them.
    result = RUNNER.invoke(app, ["campaign", "verify", "-", "--limit", f"work.processes={digits}"])
    assert result.exit_code == 2
    assert "expects NAME=WHOLE_NUMBER" in result.stderr


def test_the_commitment_goes_to_o_and_a_post_it_cannot_write_makes_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    war(Store.open("War.campaign.db"))
    battle = ["campaign", "battle", "War", "--attacker", "A", "--defender", "B", "--commit"]
    refused = RUNNER.invoke(app, [*battle, "--secret-file", "lost.secret", "-o", "no/c.txt"])
    assert refused.exit_code == 2
    assert not Path("lost.secret").exists()
    written = RUNNER.invoke(app, [*battle, "--secret-file", "gm.secret", "-o", "commit.txt"])
    assert written.exit_code == 0, written.stderr
    printed = RUNNER.invoke(app, [*battle, "--secret-file", "gm.secret"])
    assert printed.stdout == Path("commit.txt").read_text()
    assert printed.stdout.startswith("fracas-fair-v1 commitment ")
    assert len(Store.open("War.campaign.db").events("War")) == 3  # nothing recorded


@pytest.mark.parametrize("option", ["--by", "--why"])
def test_who_and_why_are_no_longer_than_any_text_of_a_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    # Kept in the journal for good, and shown on every page of the campaign.
    monkeypatch.chdir(tmp_path)
    war(Store.open("War.campaign.db"))
    edit = ["campaign", "roster", "War", "A", "--set", "units[0].pax=3"]
    result = RUNNER.invoke(app, [*edit, option, "x" * 10_001])
    assert result.exit_code == 2
    assert result.stderr == (
        f"fracas: error: {option}: a text of 10,001 characters is above the limit "
        "input.text_length = 10000\n"
    )
    assert RUNNER.invoke(app, [*edit, option, "x" * 10_000]).exit_code == 0
    assert len(Store.open("War.campaign.db").events("War")) == 4
