"""What a game master does to a campaign: each action reads the journal, checks its input
against the rosters it derives, and appends one event (or nothing, on bad input).

>>> from fracas.campaign.store import Store
>>> store = Store.open("sqlite://")
>>> new_campaign(store, "War", "d100")
>>> state = enter_roster(store, "War", "Fenwick", {"units": [{"name": "Scouts", "pax": 6}]})
>>> state.forces["Fenwick"].roster["units"][0]["pax"]
6
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fracas.campaign.battle import Fought, battle_body, build_scenario, fight, luck_law
from fracas.campaign.carry import adapter_for
from fracas.campaign.journal import Event
from fracas.campaign.rosters import TREASURY, CampaignState, derive
from fracas.campaign.store import Store
from fracas.core.errors import ScenarioError
from fracas.core.limits import check
from fracas.io.scenario import set_path

#: The longest campaign name the store keeps.
MAX_NAME = 200


def state_of(store: Store, name: str) -> CampaignState:
    """The campaign as its journal makes it now."""
    return derive(store.events(name))


def _last(state: CampaignState) -> Event:
    assert state.last is not None  # derive() always sets it
    return state.last


def _check_note(by: str, why: str) -> None:
    """Who and why are kept in the journal for good: no longer than any text of a
    scenario may be (``input.text_length``)."""
    from fracas.io.bounds import TEXT_LENGTH

    for option, text in (("--by", by), ("--why", why)):
        check(
            TEXT_LENGTH.name,
            len(text),
            path=(option,),
            shown=f"a text of {len(text):,} characters",
        )


def check_name(name: str) -> None:
    """Refuse a name no campaign may have (every command checks it before it opens a store).

    >>> check_name("War")
    >>> try:
    ...     check_name("x" * 201)
    ... except ScenarioError as error:
    ...     print(error.problem)
    a campaign's name is at most 200 characters
    """
    if not name.strip():
        raise ScenarioError("a campaign needs a name", source="command line", path=("name",))
    if name.strip() in (".", ".."):
        # A web address ending in /. or /.. is read as another page: its pages would be lost.
        raise ScenarioError(
            f"a campaign cannot be named {name.strip()!r}", source="command line", path=("name",)
        )
    if len(name) > MAX_NAME:
        raise ScenarioError(
            f"a campaign's name is at most {MAX_NAME} characters",
            source="command line",
            path=("name",),
        )


def page_tails(path: str) -> list[tuple[str, str, str]]:
    """The ways the web address ``path`` (below ``/campaign/``) reads as a page of another
    campaign, as ``(kind, campaign, rest)``: ``("battle", "War", "2")`` for
    ``War/battle/2``, ``("journal", "War", "")`` for ``War/journal.jsonl``. The pages try
    them in this order; a new campaign may not be named like one.

    >>> page_tails("War/battle/2"), page_tails("Red/Blue war")
    ([('battle', 'War', '2')], [])
    """
    tails = []
    head, _, number = path.rpartition("/battle/")
    if head:
        tails.append(("battle", head, number))
    journal = path.removesuffix("/journal.jsonl")
    if journal and journal != path:
        tails.append(("journal", journal, ""))
    return tails


def check_new_name(name: str) -> None:
    """Refuse a new name whose web address is another page's (:func:`page_tails`):
    ``x/journal.jsonl`` is the address of campaign ``x``'s journal, ``x/battle/2`` of its
    second battle (a campaign made so before keeps its name; its page shows it, but hides
    the other).

    >>> try:
    ...     check_new_name("War/battle/2")
    ... except ScenarioError as error:
    ...     print(error.problem)
    a campaign's name cannot end like the address of a page ('/battle/2')
    """
    for kind, _, rest in page_tails(name):
        if kind == "journal" or rest.isdigit():
            tail = f"/battle/{rest}" if kind == "battle" else "/journal.jsonl"
            raise ScenarioError(
                f"a campaign's name cannot end like the address of a page ({tail!r})",
                source="command line",
                path=("name",),
            )


def new_campaign(
    store: Store,
    name: str,
    ruleset: str,
    base: Mapping[str, Any] | None = None,
    *,
    source: str = "rules file",
) -> None:
    """Start campaign ``name``; ``base`` holds the rules every battle shares (parameters,
    d100's equipment and effects, hex's terrain…), read from ``source`` (its errors name it)."""
    from fracas.io.canonical import canonical_document
    from fracas.rulesets import find_ruleset

    check_name(name)
    check_new_name(name)
    found = find_ruleset(ruleset).name
    adapter_for(found)
    clean = canonical_document(dict(base or {}), source=source)
    for key in ("fracas", "ruleset", "sides", "units"):
        if key in clean:
            raise ScenarioError("the campaign sets this key itself", source=source, path=(key,))
    store.create(name, found, {"name": name, "ruleset": found, "base": clean})


def new_from_scenario(
    store: Store, name: str, document: Mapping[str, Any], *, source: str
) -> CampaignState:
    """Start campaign ``name`` from a scenario: its shared rules, each side a force.

    The scenario is loaded first (so it is checked whole), then each force is entered as
    its own event.
    """
    from fracas.io.scenario import scenario_from_document

    scenario = scenario_from_document(document, source=source)
    adapter = adapter_for(scenario.ruleset.name)
    base, forces = adapter.split(scenario.document)
    for force, roster in forces:
        adapter.check(force, roster, source=source)
    new_campaign(store, name, scenario.ruleset.name, base)
    for force, roster in forces:
        enter_roster(store, name, force, roster, source=source, why=f"from {source}")
    return state_of(store, name)


def enter_roster(
    store: Store,
    name: str,
    force: str,
    roster: Any,
    *,
    treasury: Mapping[str, Any] | None = None,
    by: str = "",
    why: str = "",
    source: str = "roster",
) -> CampaignState:
    """Add ``force`` with ``roster`` (checked against the ruleset's schema)."""
    _check_note(by, why)
    state = state_of(store, name)
    if not force.strip():
        raise ScenarioError("a force needs a name", source="command line", path=("force",))
    if force in state.forces:
        raise ScenarioError(
            f"force {force!r} is already in the campaign: edit its roster instead",
            source="command line",
            path=("force",),
        )
    checked = state.adapter.check(force, roster, source=source)
    state.adapter.check_playable(state.base, force, checked, source=source)
    body: dict[str, Any] = {"force": force, "roster": checked, "by": by, "why": why}
    body["treasury"] = _treasury(treasury or {}, source=source)
    store.append(name, "roster_entered", body, after=_last(state))
    return state_of(store, name)


def _treasury(values: Mapping[str, Any], *, source: str) -> dict[str, Any]:
    result: dict[str, Any] = dict.fromkeys(TREASURY, 0)
    for key, value in values.items():
        if key not in TREASURY:
            raise ScenarioError("unknown key", source=source, path=("treasury", key))
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ScenarioError("a number, at least 0", source=source, path=("treasury", key))
        result[key] = value
    return result


def edit_roster(
    store: Store,
    name: str,
    force: str,
    changes: Sequence[tuple[str, Any]],
    *,
    by: str = "",
    why: str = "",
) -> CampaignState:
    """Change values of ``force``'s roster by key path (``units[0].pax``; ``treasury.gold``
    for the treasury). The changed roster is checked whole; the event keeps who and why."""
    _check_note(by, why)
    state = state_of(store, name)
    if force not in state.forces:
        raise ScenarioError(
            f"no force {force!r} in the campaign", source="command line", path=("force",)
        )
    if not changes:
        raise ScenarioError("nothing to change: give --set PATH=VALUE", source="command line")
    current = state.forces[force]
    document = {"roster": copy.deepcopy(current.roster), "treasury": dict(current.treasury)}
    for path, value in changes:
        where = path if path.startswith("treasury.") else f"roster.{path}"
        document = set_path(document, where, value, source="--set")
    roster = state.adapter.check(force, document["roster"], source="--set")
    state.adapter.check_playable(state.base, force, roster, source="--set")
    treasury = _treasury(document["treasury"], source="--set")
    body = {
        "force": force,
        "set": [{"path": path, "value": value} for path, value in changes],
        "roster": roster,
        "treasury": treasury,
        "by": by,
        "why": why,
    }
    store.append(name, "roster_edited", body, after=_last(state))
    return state_of(store, name)


def buy_replacements(
    store: Store, name: str, force: str, unit: str, count: int, cost: float, *, by: str = ""
) -> CampaignState:
    """Add ``count`` to ``unit``'s size (PAX, models, strength), paying ``cost`` gold.

    The size stops at the unit's full size where the ruleset has one; the treasury must
    hold the gold.
    """
    _check_note(by, "")
    state = state_of(store, name)
    adapter = state.adapter
    if force not in state.forces:
        raise ScenarioError(
            f"no force {force!r} in the campaign", source="command line", path=("force",)
        )
    found = state.forces[force].unit(adapter, unit)
    if found is None:
        fallen = state.forces[force].fallen.get(unit)
        why = f": it was {fallen[0]} in event {fallen[1]}" if fallen else ""
        raise ScenarioError(
            f"{force} has no unit {unit!r}{why}", source="command line", path=("unit",)
        )
    if count < 1:
        raise ScenarioError("at least 1", source="command line", path=("count",))
    if not math.isfinite(cost):
        raise ScenarioError(f"a number of gold, not {cost}", source="command line", path=("cost",))
    if cost < 0:
        raise ScenarioError("at least 0", source="command line", path=("cost",))
    gold = Fraction(str(state.forces[force].treasury["gold"]))
    if Fraction(str(cost)) > gold:
        raise ScenarioError(
            f"{force} has {float(gold):g} gold, not {cost:g}", source="command line", path=("cost",)
        )
    size = int(found[adapter.size_key]) + count
    full = adapter.full_size(state.base, found)
    if full is not None and size > full:
        raise ScenarioError(
            f"{unit} would have {size} {adapter.size_key}, more than its full {full}",
            source="command line",
            path=("count",),
        )
    body = {"force": force, "unit": unit, "count": count, "size": size, "cost": cost, "by": by}
    store.append(name, "replacements_bought", body, after=_last(state))
    return state_of(store, name)


@dataclass(frozen=True)
class Recorded:
    """A battle fought and written to the journal."""

    fought: Fought
    event: Event


def record_battle(
    store: Store,
    name: str,
    attacker: str,
    defender: str,
    *,
    extra: Mapping[str, Any] | None = None,
    overrides: Sequence[tuple[str, Any]] = (),
    only: Sequence[str] = (),
    seed: int | None = None,
    secret: str | None = None,
    nonces: Sequence[str] = (),
    battle_file: str | None = None,
) -> Recorded:
    """Build, play and record one battle. Nothing is written unless all of it succeeds; the
    event is appended in one transaction after the battle is played."""
    state = state_of(store, name)
    scenario = build_scenario(
        state,
        attacker,
        defender,
        extra=extra,
        overrides=overrides,
        only=only,
        battle_file=battle_file,
    )
    # The odds first: they are asked of the scenario before its dice fall.
    law = luck_law(state, scenario)
    fought = fight(state, scenario, seed=seed, secret=secret, nonces=nonces)
    options = {
        "extra": dict(extra or {}),
        "overrides": [[path, value] for path, value in overrides],
        "only": list(only),
    }
    body = battle_body(state, attacker, defender, fought, law, options=options)
    event = store.append(name, "battle_resolved", body, after=_last(state))
    return Recorded(fought, event)
