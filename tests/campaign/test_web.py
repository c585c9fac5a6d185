"""The read-only campaign pages of ``fracas serve --campaign DB``."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from fracas.campaign.actions import enter_roster, new_campaign, record_battle
from fracas.campaign.store import Store
from fracas.web import create_app


def test_the_pages_show_rosters_journal_luck_and_each_battles_post(tmp_path: Path) -> None:
    db = str(tmp_path / "war.db")
    store = Store.open(db)
    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "<b>A</b>", {"units": [{"name": "Scouts", "pax": 3}]})
    enter_roster(store, "War", "B", {"units": [{"name": "Guards", "pax": 3}]})
    recorded = record_battle(store, "War", "<b>A</b>", "B", seed=2)
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
    assert len(Store.open(db).events("War")) == count
