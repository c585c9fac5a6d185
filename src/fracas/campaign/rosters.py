"""The rosters now: derived by replaying the journal, event by event, never stored.

>>> from fracas.campaign.journal import make_event
>>> created = make_event(1, "campaign_created", {"name": "War", "ruleset": "d100"}, "")
>>> roster = {"units": [{"name": "Scouts", "pax": 6}]}
>>> entered = make_event(2, "roster_entered", {"force": "Fenwick", "roster": roster},
...                      created.hash)
>>> state = derive([created, entered])
>>> state.forces["Fenwick"].roster["units"][0]["pax"]
6
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fracas.campaign.carry import Adapter, Change, adapter_for
from fracas.campaign.journal import Event
from fracas.core.errors import FracasError

TREASURY = ("gold", "resources", "items")


class JournalError(FracasError):
    """An event that does not follow from the ones before it."""

    def __init__(self, seq: int, problem: str) -> None:
        self.seq = seq
        self.problem = problem
        super().__init__(f"event {seq}: {problem}")


@dataclass
class Force:
    """One force as the journal has made it so far."""

    name: str
    roster: dict[str, Any]
    treasury: dict[str, int | float] = field(default_factory=lambda: dict.fromkeys(TREASURY, 0))
    #: Units no longer in the roster: unit → (why, the event that took it).
    fallen: dict[str, tuple[str, int]] = field(default_factory=dict)

    def unit(self, adapter: Adapter, name: str) -> dict[str, Any] | None:
        """The roster's unit called ``name``, if it is there."""
        return next((u for u in self.roster["units"] if u[adapter.unit_key] == name), None)


@dataclass
class CampaignState:
    """Everything the journal has established up to its last event."""

    name: str
    ruleset: str
    base: dict[str, Any]
    forces: dict[str, Force] = field(default_factory=dict)
    battles: int = 0
    last: Event | None = None

    @property
    def adapter(self) -> Adapter:
        return adapter_for(self.ruleset)


def derive(events: Iterable[Event]) -> CampaignState:
    """Replay ``events`` from the first; :class:`JournalError` names one that cannot apply."""
    state: CampaignState | None = None
    for event in events:
        if state is None:
            if event.kind != "campaign_created":
                raise JournalError(event.seq, "a journal starts with campaign_created")
            body = event.body
            state = CampaignState(
                str(body["name"]), str(body["ruleset"]), dict(body.get("base", {}))
            )
        else:
            apply(state, event)
        state.last = event
    if state is None:
        raise JournalError(1, "the journal is empty")
    return state


#: The kinds of event a journal holds (a campaign_created opens it).
EVENT_KINDS = (
    "campaign_created",
    "roster_entered",
    "roster_edited",
    "replacements_bought",
    "battle_resolved",
)


def apply(state: CampaignState, event: Event) -> None:
    """Change ``state`` by one event (after the first)."""
    body, seq = event.body, event.seq
    if event.kind == "campaign_created":
        raise JournalError(seq, "a second campaign_created")
    if event.kind not in EVENT_KINDS:
        raise JournalError(seq, f"unknown event kind {event.kind!r}")
    force_name = str(body.get("force", ""))
    if event.kind == "roster_entered":
        if force_name in state.forces:
            raise JournalError(seq, f"force {force_name!r} is already in the campaign")
        treasury: dict[str, int | float] = dict.fromkeys(TREASURY, 0)
        treasury.update(body.get("treasury", {}))
        state.forces[force_name] = Force(force_name, copy.deepcopy(dict(body["roster"])), treasury)
        return
    if event.kind == "battle_resolved":
        state.battles += 1
        for change in body["changes"]:
            apply_change(state, change, seq)
        return
    force = _force(state, force_name, seq)
    if event.kind == "roster_edited":
        force.roster = copy.deepcopy(dict(body["roster"]))
        if "treasury" in body:
            force.treasury = dict(body["treasury"])
        return
    if event.kind == "replacements_bought":
        adapter = state.adapter
        unit = force.unit(adapter, str(body["unit"]))
        if unit is None:
            raise JournalError(seq, f"{force_name!r} has no unit {body['unit']!r}")
        unit[adapter.size_key] = body["size"]
        force.treasury["gold"] = _number(
            Fraction(str(force.treasury["gold"])) - Fraction(str(body["cost"]))
        )
        return
    raise JournalError(seq, f"unknown event kind {event.kind!r}")


def apply_change(state: CampaignState, change: Change, seq: int) -> None:
    """Apply one of a battle's changes (see :data:`fracas.campaign.carry.Change`)."""
    force = _force(state, str(change["force"]), seq)
    adapter = state.adapter
    if change["op"] == "bank":
        for key in TREASURY:
            total = Fraction(str(force.treasury.get(key, 0))) + Fraction(str(change[key]))
            force.treasury[key] = _number(total)
        return
    unit = force.unit(adapter, str(change["unit"]))
    if unit is None:
        raise JournalError(seq, f"{force.name!r} has no unit {change['unit']!r}")
    if change["op"] == "remove":
        force.roster["units"].remove(unit)
        force.fallen[str(change["unit"])] = (str(change["why"]), seq)
    elif change["op"] == "set":
        unit[str(change["key"])] = copy.deepcopy(change["value"])
    else:
        raise JournalError(seq, f"unknown change {change['op']!r}")


def _force(state: CampaignState, name: str, seq: int) -> Force:
    if name not in state.forces:
        raise JournalError(seq, f"no force {name!r} in the campaign")
    return state.forces[name]


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def roster_table(state: CampaignState) -> list[Mapping[str, Any]]:
    """Every force now, for listings: its units, treasury and fallen units."""
    return [
        {
            "force": force.name,
            "units": copy.deepcopy(force.roster["units"]),
            "treasury": dict(force.treasury),
            "fallen": {
                unit: {"why": why, "event": seq} for unit, (why, seq) in force.fallen.items()
            },
        }
        for force in state.forces.values()
    ]
