"""The read-only campaign pages of ``fracas serve --campaign DB``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fracas.campaign.actions import enter_roster, new_campaign, record_battle
from fracas.campaign.store import Store
from fracas.web import create_app


def war_of_one_battle(
    tmp_path: Path, first: str = "A", second: str = "B", *, campaign: str = "War", **fought: Any
) -> Any:
    """A d100 campaign of two forces and one battle in ``tmp_path``/war.db: the database and
    the battle recorded (``fought``: its seed, or its fair dice)."""
    db = str(tmp_path / "war.db")
    store = Store.open(db)
    new_campaign(store, campaign, "d100")
    enter_roster(store, campaign, first, {"units": [{"name": "Scouts", "pax": 3}]})
    enter_roster(store, campaign, second, {"units": [{"name": "Guards", "pax": 3}]})
    return db, record_battle(store, campaign, first, second, **(fought or {"seed": 2}))


def test_the_pages_show_rosters_journal_luck_and_each_battles_post(tmp_path: Path) -> None:
    db, recorded = war_of_one_battle(tmp_path, "<b>A</b>")
    store = Store.open(db)
    count = len(store.events("War"))
    app = create_app(campaign=db)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert 'href="/campaign/War"' in client.get("/campaign").text
        page = client.get("/campaign/War").text
        assert "&lt;b&gt;A&lt;/b&gt;" in page
        assert "<b>A</b>" not in page
        assert "<svg" in page
        # Each force's headline, then its drill-down: a row per battle, each outcome in it.
        assert "campaigns like this one" in page
        assert "<th>P(win)</th><th>luck so far</th>" in page
        assert "<th>won</th><th>lost</th><th>killed</th>" in page
        assert 'href="/campaign/War/battle/1"' in page
        # The rosters' columns are those their units give: these d100 units give no level
        # and no max_pax (two columns of empty cells before).
        assert "<tr><th>unit</th><th>pax</th></tr>" in page
        post = client.get("/campaign/War/battle/1")
        assert post.status_code == 200
        # The permalink shows the very log the battle printed: its footer, seed included.
        assert recorded.fought.report.footer() in post.text.replace("&lt;", "<").replace(
            "&gt;", ">"
        )
        assert client.get("/campaign/War/battle/2").status_code == 404
        assert client.get("/campaign/Peace").status_code == 404
        journal = client.get("/campaign/War/journal.jsonl").text
        assert journal.count("\n") == count
        assert client.post("/campaign/War").status_code == 405
        head = client.head("/campaign/War")
        assert head.status_code == 200
        assert head.content == b""
    assert len(Store.open(db).events("War")) == count


def test_an_unknown_campaign_page_never_shows_where_the_database_is(tmp_path: Path) -> None:
    # The store's place (a PostgreSQL URL holds its password) is the game master's.
    db = str(tmp_path / "secret-folder" / "war.db")
    (tmp_path / "secret-folder").mkdir()
    new_campaign(Store.open(db), "War", "d100")
    with TestClient(create_app(campaign=db), base_url="http://127.0.0.1") as client:
        answer = client.get("/campaign/Peace")
    assert answer.status_code == 404
    assert "secret-folder" not in answer.text
    assert "sqlite" not in answer.text
    assert "no campaign called 'Peace' (there are: War)" in answer.text


def test_a_database_url_is_shown_without_its_password() -> None:
    from fracas.campaign.store import UnknownCampaign, shown_url

    assert shown_url("postgresql+psycopg://gm:hunter2@h:5432/w") == (
        "postgresql+psycopg://gm:***@h:5432/w"
    )
    store = Store.open("sqlite://")
    store.url = "postgresql+psycopg://gm:hunter2@h/w"  # as a PostgreSQL store names itself
    store.shown = shown_url(store.url)
    with pytest.raises(UnknownCampaign) as refused:
        store.ruleset_of("Peace")
    assert str(refused.value).startswith("postgresql+psycopg://gm:***@h/w: no campaign called")


def test_the_pages_create_and_upgrade_nothing(tmp_path: Path) -> None:
    from fracas.core.errors import ScenarioError

    missing = tmp_path / "typo.db"
    with pytest.raises(ScenarioError, match="no campaign database here"):
        create_app(campaign=str(missing))
    assert list(tmp_path.iterdir()) == []
    old = str(tmp_path / "old.db")
    Store.open(old, upgrade_to=1).close()
    with pytest.raises(ScenarioError, match="schema version 1; this fracas reads 2"):
        create_app(campaign=old)
    assert Store.open(old, read_only=False, upgrade_to=1).version() == 1


def test_the_pages_and_the_luck_chart_spell_out_control_characters(tmp_path: Path) -> None:
    # A force named with a right-to-left override: the page would show its text reversed.
    db, _ = war_of_one_battle(tmp_path, "A\u202eB", "C")
    with TestClient(create_app(campaign=db), base_url="http://127.0.0.1") as client:
        page = client.get("/campaign/War").text
    assert "\u202e" not in page
    assert "A\\u202eB" in page


def test_every_inline_style_of_the_pages_is_allowed_by_their_policy(tmp_path: Path) -> None:
    # The browser applies an inline <style> only when the Content-Security-Policy names
    # its hash: the campaign pages and the battle posts rendered unstyled.
    import re

    from fracas.web.app import style_hash

    db, _ = war_of_one_battle(tmp_path)
    with TestClient(create_app(campaign=db), base_url="http://127.0.0.1") as client:
        for url in ("/campaign", "/campaign/War", "/campaign/War/battle/1"):
            answer = client.get(url)
            styles = re.findall(r"<style>(.*?)</style>", answer.text, re.S)
            assert styles, url
            policy = answer.headers["content-security-policy"]
            for style in styles:
                assert style_hash(style) in policy, url


def test_a_fair_battles_permalink_shows_the_lines_that_prove_its_dice(tmp_path: Path) -> None:
    # The post printed the commitment, the nonces and the secret under its footer; the
    # permalink left them out, so nobody could check the dice from it.
    db, recorded = war_of_one_battle(tmp_path, secret="ab" * 32, nonces=["owl", "7"])
    with TestClient(create_app(campaign=db), base_url="http://127.0.0.1") as client:
        page = client.get("/campaign/War/battle/1").text
    fair = recorded.fought.report.fair
    assert fair
    assert f"commitment {fair['commitment']}" in page
    assert "nonces &quot;owl&quot;, &quot;7&quot;" in page
    assert f"secret {fair['secret']}" in page


def test_a_campaign_named_with_a_slash_has_pages_that_answer(tmp_path: Path) -> None:
    # "Red/Blue war" was linked as /campaign/Red%2FBlue%20war, which no route matched.
    db, _ = war_of_one_battle(tmp_path, campaign="Red/Blue war")
    with TestClient(create_app(campaign=db), base_url="http://127.0.0.1") as client:
        index = client.get("/campaign").text
        assert 'href="/campaign/Red%2FBlue%20war"' in index
        for tail in ("", "/battle/1", "/journal.jsonl"):
            answer = client.get("/campaign/Red%2FBlue%20war" + tail)
            assert answer.status_code == 200, tail
        assert client.get("/campaign/Red%2FBlue%20war/battle/2").status_code == 404


def test_the_pages_leave_the_database_file_as_it_was(tmp_path: Path) -> None:
    """A copy in rollback-journal mode (the GM's backup, say): opening it in WAL mode, as
    a writer does, rewrote its header and made -wal and -shm files beside it."""
    import hashlib
    import sqlite3

    db, _ = war_of_one_battle(tmp_path)
    copy = tmp_path / "copy.db"
    with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    with TestClient(create_app(campaign=str(copy)), base_url="http://127.0.0.1") as client:
        for page in ("/campaign", "/campaign/War", "/campaign/War/battle/1"):
            assert client.get(page).status_code == 200, page
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("copy")) == [
        "copy.db"
    ]


def test_a_read_only_store_refuses_to_write_on_either_database(db: str) -> None:
    import sqlalchemy as sa

    Store.open(db).close()
    reader = Store.open(db, read_only=True)
    with pytest.raises(sa.exc.DBAPIError), reader.engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE scratch (x INTEGER)")
    reader.close()


def test_a_campaign_named_like_another_ones_page_shows_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Such names are refused now (below); a store made before keeps them, and the page
    at each name is that campaign's own. "x/journal.jsonl" was served x's journal, and
    "y/battle/1" was "no campaign called 'y'"."""
    db, _ = war_of_one_battle(tmp_path, campaign="x")
    store = Store.open(db)
    with monkeypatch.context() as before:  # as a fracas that allowed them made them
        before.setattr("fracas.campaign.actions.check_new_name", lambda name: None)
        for name in ("x/journal.jsonl", "y/battle/1"):
            new_campaign(store, name, "d100")
    with TestClient(create_app(campaign=db), base_url="http://127.0.0.1") as client:
        index = client.get("/campaign").text
        for name, link in (
            ("x/journal.jsonl", "x%2Fjournal.jsonl"),
            ("y/battle/1", "y%2Fbattle%2F1"),
        ):
            assert f'href="/campaign/{link}"' in index
            page = client.get(f"/campaign/{link}")
            assert page.status_code == 200, name
            assert page.headers["content-type"].startswith("text/html")
            assert f"<title>{name}" in page.text
        assert client.get("/campaign/x/battle/1").status_code == 200
        assert client.get("/campaign/x/battle/one").status_code == 404
        # The pages name their icon, which the server has.
        assert 'rel="icon" href="/static/favicon.svg"' in index
        assert client.get("/static/favicon.svg").status_code == 200


def test_a_new_campaign_cannot_be_named_like_another_ones_page(tmp_path: Path) -> None:
    from fracas.core.errors import ScenarioError

    store = Store.open(str(tmp_path / "war.db"))
    for name in ("x/journal.jsonl", "y/battle/1"):
        with pytest.raises(ScenarioError, match="cannot end like the address of a page"):
            new_campaign(store, name, "d100")
    new_campaign(store, "y/battle/one", "d100")  # no page has this address
