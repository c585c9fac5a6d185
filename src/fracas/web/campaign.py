"""Read-only campaign pages for ``fracas serve --campaign DB``: the campaigns in the store,
each one's rosters now, its journal and luck chart, and a permalink per battle.

Nothing here writes: the pages read the journal and derive what they show, as the command
line does. Every text from the journal is escaped.

>>> from fracas.campaign.store import Store
>>> from fracas.campaign.actions import new_campaign
>>> from fracas.rulesets import available_rulesets
>>> store = Store.open("sqlite://")
>>> with_campaigns = next(r for r in available_rulesets() if r().campaign_rules())
>>> new_campaign(store, "War & Peace", with_campaigns.name)
>>> "War &amp; Peace" in index_page(store)
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fracas.campaign.store import Store
from fracas.core.errors import FracasError
from fracas.core.escape import escape_html as escape

if TYPE_CHECKING:
    from fastapi import FastAPI

#: The campaign pages' own style (the page's Content-Security-Policy allows it by hash).
PAGE_STYLE = (
    "body{font-family:sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem}"
    # A phone narrower than the chart or a table scales the one and scrolls the other.
    "svg{max-width:100%;height:auto}table{display:block;overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.2rem .6rem;"
    "text-align:left}"
)


class NoSuchBattle(FracasError, LookupError):
    """A battle number the campaign does not have."""


def _page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f'</title><link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'
        f"<style>{PAGE_STYLE}</style></head><body>{body}</body></html>\n"
    )


def _link(name: str, tail: str = "") -> str:
    return f"/campaign/{quote(name, safe='')}{tail}"


def index_page(store: Store) -> str:
    """Every campaign in the store, each a link."""
    items = "".join(
        f'<li><a href="{escape(_link(name))}">{escape(name)}</a> ({escape(ruleset)})</li>'
        for name, ruleset in store.campaigns()
    )
    return _page("Campaigns", f"<h1>Campaigns</h1><ul>{items or '<li>none yet</li>'}</ul>")


def campaign_page(store: Store, name: str) -> str:
    """One campaign: the luck headlines and chart, the rosters now, the journal."""
    from fracas.campaign.luck import audit, drilldown, headline_sentence, luck_svg
    from fracas.campaign.rosters import derive, roster_table

    events = store.events(name)
    state = derive(events)
    adapter = state.adapter
    parts = [
        f"<h1>{escape(name)}</h1><p>{escape(state.ruleset)} · {len(events)} events · "
        f'<a href="{escape(_link(name, "/journal.jsonl"))}">journal (JSON Lines)</a></p>'
    ]
    lucks = audit(events)
    parts.append("<h2>Luck</h2>")
    if lucks:
        parts.append(luck_svg(lucks, campaign=name))
    for luck in lucks:
        # The headline first, then the battles it is made of (the drill-down).
        parts.append(f"<p><strong>{escape(headline_sentence(luck))}</strong></p>")
        for columns, cells in drilldown(luck):
            head = "".join(f"<th>{escape(c)}</th>" for c in columns)
            rows = "".join(
                "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in cells
            )
            parts.append(f"<table><tr>{head}</tr>{rows}</table>")
    parts.append("<h2>Rosters now</h2>")
    keys = [adapter.size_key, *([adapter.full_key] if adapter.full_key else []), "level"]
    for row in roster_table(state):
        money = ", ".join(f"{k} {v:g}" for k, v in row["treasury"].items())
        parts.append(f"<h3>{escape(row['force'])}</h3><p>treasury: {escape(money)}</p>")
        # A column no unit of the force gives (a level no unit has, a max_pax left to its
        # default) is left out, as the command line's roster leaves it out.
        shown = [k for k in keys if any(k in unit for unit in row["units"])]
        head = "".join(f"<th>{escape(k)}</th>" for k in ["unit", *shown])
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{escape(str(unit.get(k, '')))}</td>" for k in [adapter.unit_key, *shown]
            )
            + "</tr>"
            for unit in row["units"]
        )
        fallen = "".join(
            f"<li>{escape(unit)}: {escape(fell['why'])} in event {fell['event']}</li>"
            for unit, fell in row["fallen"].items()
        )
        parts.append(f"<table><tr>{head}</tr>{rows}</table>")
        if fallen:
            parts.append(f"<p>Fallen:</p><ul>{fallen}</ul>")
    parts.append("<h2>Journal</h2><table><tr><th>#</th><th>event</th><th>what</th></tr>")
    for event in events:
        body = event.body
        if event.kind == "battle_resolved":
            number = int(body["battle"])
            what = (
                f'<a href="{escape(_link(name, f"/battle/{number}"))}">battle {number}</a>: '
                f"{escape(str(body['attacker']))} v {escape(str(body['defender']))}, "
                f"winner {escape(str(body['summary'].get('winner', '—')))}"
            )
        else:
            who = f" by {body['by']}" if body.get("by") else ""
            why = f" ({body['why']})" if body.get("why") else ""
            what = escape(f"{body.get('force', body.get('name', ''))}{who}{why}")
        parts.append(f"<tr><td>{event.seq}</td><td>{escape(event.kind)}</td><td>{what}</td></tr>")
    parts.append("</table>")
    return _page(name, "".join(parts))


def battle_page(store: Store, name: str, number: int) -> str:
    """One battle's post, played again from the journal's scenario and seed."""
    from fracas.io.html import render_html
    from fracas.io.scenario import scenario_from_document

    for event in store.events(name):
        if event.kind == "battle_resolved" and event.body["battle"] == number:
            body = event.body
            break
    else:
        raise NoSuchBattle(f"campaign {name!r} has no battle {number}")
    scenario = scenario_from_document(body["scenario"], source=f"{name} battle {number}")
    report = scenario.resolve(seed=int(body["seed"]))
    if body.get("fair"):
        report = replace(report, fair=body["fair"])
    title = f"{name}: battle {number}"
    links = f'<p><a href="{escape(_link(name))}">{escape(name)}</a></p>'
    return _page(title, links + render_html(report, standalone=True, fold=True))


def add_campaign_pages(app: FastAPI, db: str) -> None:
    """Add the read-only pages of the store at ``db`` to the FastAPI ``app``."""
    import anyio
    from fastapi import HTTPException
    from fastapi.responses import HTMLResponse, PlainTextResponse, Response

    from fracas.campaign.store import UnknownCampaign
    from fracas.campaign.verify import export_lines

    store = Store.open(db, read_only=True)  # the pages never write, nor create a store

    async def run(work: Any, *args: Any) -> Any:
        try:
            return await anyio.to_thread.run_sync(work, *args)
        except UnknownCampaign as exc:  # never where the database is: that is the GM's
            raise HTTPException(404, exc.problem) from None
        except NoSuchBattle as exc:
            raise HTTPException(404, str(exc)) from None

    @app.api_route("/campaign", methods=["GET", "HEAD"], include_in_schema=False)
    async def campaigns() -> HTMLResponse:
        return HTMLResponse(await run(index_page, store))

    # A name may hold "/" ("Red/Blue war"): the server sees its %2F as "/", so one route
    # takes the whole path and a campaign's own name is matched before any tail, so that
    # "x/journal.jsonl" is that campaign's page, not the journal of "x".
    @app.api_route("/campaign/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def campaign(path: str) -> Response:
        kind, name, number = await run(page_of, store, path)
        if kind == "journal":
            events = await run(store.events, name)
            return PlainTextResponse(export_lines(events), media_type="application/jsonl")
        if kind == "battle":
            return HTMLResponse(await run(battle_page, store, name, number))
        return HTMLResponse(await run(campaign_page, store, name))


def page_of(store: Store, path: str) -> tuple[str, str, int]:
    """What the campaign page at ``path`` (below ``/campaign/``) shows: ``("campaign",
    name, 0)``, ``("journal", name, 0)`` or ``("battle", name, number)``. A path that is
    no campaign's name nor one with a tail is a campaign unknown (its page says so)."""
    from fracas.campaign.actions import page_tails

    names = {name for name, _ in store.campaigns()}
    if path in names:
        return "campaign", path, 0
    for kind, name, rest in page_tails(path):
        if name not in names:
            continue
        if kind == "journal":
            return "journal", name, 0
        if not (rest.isascii() and rest.isdigit() and len(rest) < 10):
            raise NoSuchBattle(f"campaign {name!r} has no battle {rest[:20]!r}")
        return "battle", name, int(rest)
    return "campaign", path, 0
