"""The duel's scenario document: two fighters and the parameters of the bout."""

from __future__ import annotations

from pydantic import Field

from fracas.core.schema import Document, Int, StrictModel


class DuelParams(StrictModel):
    """How the bout is fought."""

    max_exchanges: Int = Field(
        3, ge=1, le=20, description="Exchanges fought at most; then both still stand."
    )
    die: Int = Field(6, ge=2, le=20, description="Sides of the die each fighter rolls.")


class Fighter(StrictModel):
    """One fighter: a skill added to every roll, and the wounds it takes to fall."""

    name: str = Field(min_length=1, max_length=40)
    skill: Int = Field(0, ge=-5, le=5, description="Added to each of the fighter's rolls.")
    health: Int = Field(1, ge=1, le=10, description="Wounds it takes to fall.")


class DuelDocument(Document):
    """A duel scenario file."""

    parameters: DuelParams = DuelParams()
    fighters: tuple[Fighter, Fighter]
