"""The journal's events: what happened in a campaign, in order, each chained to the one
before by its hash.

An event is its sequence number, its kind, its body (a JSON document) and the hash of the
event before it; its own hash is the SHA-256 of all four in canonical JSON
(:mod:`fracas.io.canonical`). An event edited after the fact no longer matches its hash,
and one taken out breaks the chain, so a journal exported as JSON Lines can be checked
line by line by anyone (:mod:`fracas.campaign.verify`).

>>> first = make_event(1, "campaign_created", {"name": "War", "ruleset": "d100"}, "")
>>> first.line()[:40]
'{"body":{"name":"War","ruleset":"d100"},'
>>> parse_line(first.line(), number=1) == first
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fracas.core.errors import ScenarioError
from fracas.io.canonical import canonical_document, canonical_json

#: Every kind of event, and what it records.
KINDS: dict[str, str] = {
    "campaign_created": "the campaign's name, ruleset and the rules every battle shares",
    "roster_entered": "a force joins the campaign with its roster",
    "roster_edited": "values of a force's roster changed (who, why)",
    "battle_resolved": "a battle: its scenario, seed or fair dice, result, odds, carry-over",
    "replacements_bought": "PAX or models added to a unit, paid from the treasury",
}


@dataclass(frozen=True)
class Event:
    """One event of the journal, as stored and as exported."""

    seq: int
    kind: str
    body: Mapping[str, Any]
    prev: str
    hash: str

    def content(self) -> dict[str, Any]:
        """What the hash is taken over: everything but the hash itself."""
        return {"seq": self.seq, "kind": self.kind, "body": self.body, "prev": self.prev}

    def line(self) -> str:
        """The event as one canonical JSON line (no line break)."""
        return canonical_json({**self.content(), "hash": self.hash})


def event_hash(seq: int, kind: str, body: Mapping[str, Any], prev: str) -> str:
    """The SHA-256 of an event's content in canonical JSON (64 hex digits)."""
    content = {"seq": seq, "kind": kind, "body": body, "prev": prev}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


def make_event(seq: int, kind: str, body: Mapping[str, Any], prev: str) -> Event:
    """A new event after the one whose hash is ``prev`` (``""`` for the first)."""
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    clean = canonical_document(body)
    return Event(seq, kind, clean, prev, event_hash(seq, kind, clean, prev))


def parse_line(line: str, *, number: int, source: str = "journal") -> Event:
    """Read one exported line back; a line that is not an event is one clear error.

    The hash is read as written, not recomputed: checking it is the verifier's work.
    """
    where = f"{source}: line {number}"
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        raise ScenarioError("not a JSON object", source=where) from None
    if not isinstance(data, dict):
        raise ScenarioError("not a JSON object", source=where)
    for key, kind in (("seq", int), ("kind", str), ("body", dict), ("prev", str), ("hash", str)):
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ScenarioError(f"missing or not a {kind.__name__}", source=where, path=(key,))
    extra = sorted(set(data) - {"seq", "kind", "body", "prev", "hash"})
    if extra:
        raise ScenarioError("unknown key", source=where, path=(extra[0],))
    return Event(data["seq"], data["kind"], data["body"], data["prev"], data["hash"])
