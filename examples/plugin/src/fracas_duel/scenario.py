"""The built duel: the document's meaning checked, frozen for play."""

from __future__ import annotations

from dataclasses import dataclass

from fracas.core.errors import ScenarioError
from fracas_duel.document import DuelDocument, DuelParams, Fighter


@dataclass(frozen=True, slots=True)
class Duel:
    """Two fighters with different names, and the bout's parameters."""

    fighters: tuple[Fighter, Fighter]
    params: DuelParams
    title: str


def build_duel(document: DuelDocument) -> Duel:
    """Check what the shapes cannot: the two fighters need different names."""
    first, second = document.fighters
    if first.name == second.name:
        raise ScenarioError("the two fighters need different names", path=("fighters", 1, "name"))
    title = document.title or f"{first.name} against {second.name}"
    return Duel(document.fighters, document.parameters, title)
