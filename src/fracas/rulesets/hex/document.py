"""The scenario document of the ``hex`` ruleset (pydantic), and its parameters.

Shapes and ranges are checked here (a negative strength, a pierce of 1, a level of 100, an
attack of 1e300 are rejected with their key path); meaning (unknown ids, two units on one
hex, a hex off the map, an illegal order) is checked by
:meth:`fracas.rulesets.hex.HexRuleset.build`.

>>> HexParams().encirclement
(1.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
>>> HexParams(terrain={"forest": {"defense": 1.5}}).terrain["forest"].letter
'f'
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from fracas.core.schema import Document, Int, StrictModel

Domain = Literal["land", "air", "sea"]
DOMAINS: tuple[Domain, ...] = ("land", "air", "sea")

#: Every number of a hex scenario is 0 or lies between these in size, and a strength is at
#: most LARGEST soldiers. The advisor and the planner work in floats with a bound on their
#: own rounding error (:mod:`fracas.rulesets.hex.batch`), which holds only while no product
#: of the strike formula overflows or underflows; inside this range none can. The exact
#: path would take any size, but one range means every command answers every valid file.
SMALLEST, LARGEST = 1e-12, 1e12
#: The range in words, for error messages and the documentation.
RANGE = "0, or 1e-12 to 1e12 in size"


def out_of_range(value: float | Fraction) -> bool:
    """True for a number outside :data:`SMALLEST` to :data:`LARGEST` in size (0 is in).

    >>> out_of_range(0), out_of_range(2.5), out_of_range(-1e12), out_of_range(1e-13)
    (False, False, False, True)
    """
    # Python compares ints and floats with floats exactly: only a fraction needs turning
    # into one exact type first (a file's numbers are all ints or floats, and a board of
    # ten thousand units asks this of each).
    size = abs(value) if isinstance(value, int | float) else abs(Fraction(value))
    return size != 0 and not SMALLEST <= size <= LARGEST


def _problem(message: str) -> PydanticCustomError:
    """A validation error whose message is shown as is (no "Value error," prefix)."""
    return PydanticCustomError("value_error", message)


def _in_range(value: float) -> float:
    if out_of_range(value):
        raise _problem(f"is outside the numbers hex computes with ({RANGE})")
    return value


#: A number of the rules: finite, and within the range every command computes with.
Real = Annotated[float, Field(strict=True, allow_inf_nan=False), AfterValidator(_in_range)]
NonNegative = Annotated[
    float, Field(strict=True, allow_inf_nan=False, ge=0), AfterValidator(_in_range)
]
#: A count of soldiers.
Soldiers = Annotated[Int, Field(ge=0, le=int(LARGEST))]
#: A colour for SVG fills: `#rgb`, `#rrggbb` or a plain colour name.
COLOUR_PATTERN = r"^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-zA-Z]+)$"


class HexModel(StrictModel):
    """Strict like every scenario model, and no infinite or not-a-number values."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class TerrainType(HexModel):
    """One kind of terrain: the letter that draws it in map rows, and its two factors."""

    letter: str = Field(
        min_length=1, max_length=1, description="One character that stands for it in map rows."
    )
    attack: NonNegative = Field(description="Factor on the attack of a unit standing here.")
    defense: NonNegative = Field(description="Factor on the defence of a unit standing here.")
    color: str = Field(
        "#cccccc",
        pattern=COLOUR_PATTERN,
        description="Fill colour of the hex in pictures: #rgb, #rrggbb or a colour name.",
    )


#: The terrain table every scenario starts from (attack factor, defence factor).
DEFAULT_TERRAIN: dict[str, dict[str, Any]] = {
    "plains": {"letter": ".", "attack": 1.0, "defense": 1.0, "color": "#dfe8b0"},
    "forest": {"letter": "f", "attack": 1.0, "defense": 1.25, "color": "#7fa35a"},
    "hills": {"letter": "h", "attack": 1.1, "defense": 1.3, "color": "#c9b27c"},
    "mountains": {"letter": "m", "attack": 1.0, "defense": 1.5, "color": "#9a928a"},
    "city": {"letter": "c", "attack": 1.0, "defense": 1.5, "color": "#c4bdb4"},
    "swamp": {"letter": "s", "attack": 0.8, "defense": 0.9, "color": "#94a98a"},
    "river": {"letter": "~", "attack": 0.8, "defense": 0.8, "color": "#8dbde6"},
    "road": {"letter": "=", "attack": 1.0, "defense": 0.9, "color": "#e6d7b0"},
    "sea": {"letter": "w", "attack": 1.0, "defense": 1.0, "color": "#5f8fc4"},
}

#: Encirclement factor by the number of adjacent enemies (index 0 to 6).
DEFAULT_ENCIRCLEMENT = (1.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5)


def _seven_entries(value: tuple[float, ...]) -> tuple[float, ...]:
    # Checked once the entries are: pydantic's own length check counts only the entries
    # that validated, so one bad factor also reported the table as too short.
    if len(value) != len(DEFAULT_ENCIRCLEMENT):
        raise _problem("needs 7 entries, one for each count of adjacent enemies from 0 to 6")
    return value


class HexParams(HexModel):
    """Every number of the ``hex`` rules. A scenario's ``parameters`` overrides any of them."""

    loss_exponent: Real = Field(
        2,
        gt=0,
        le=16,
        description="k in the loss curve fraction = r^k / (1 + r^k), r = Effective Atk / "
        "Effective Def. With k = 2: even 50 %, double 80 %, half 20 %.",
    )
    encirclement: Annotated[tuple[NonNegative, ...], AfterValidator(_seven_entries)] = Field(
        DEFAULT_ENCIRCLEMENT,
        json_schema_extra={"minItems": 7, "maxItems": 7},
        description="Attack and defence factor of a unit by the number of enemies on the six "
        "hexes around it (entries for 0, 1, ..., 6). Encircled means a factor below 1.",
    )
    support_share: Real = Field(
        0.25,
        ge=0,
        description="Share of Strength × Attack (or Defense) that each adjacent ally adds as "
        "Support.",
    )
    counter_support: Literal["target", "attacker"] = Field(
        "target",
        description="Whose neighbours support in the counter. target (the seed's reading): "
        "in both strikes of a combat the supporters stand next to the unit attacked. "
        "attacker: in the counter they stand next to the attacker, the unit it strikes.",
    )
    defense_support_cap: Real = Field(
        2,
        ge=0,
        description="Defence Support is capped at this multiple of the defence before support.",
    )
    level_percent: Real = Field(
        1, ge=0, description="Per cent added to attack and defence by each level (Lv)."
    )
    # At most 99: no gain can take a unit further than the highest cap.
    level_gain_fight: Int = Field(
        1,
        ge=0,
        le=99,
        description="Levels gained by the attacker, and by a defender that countered.",
    )
    level_gain_kill: Int = Field(
        1,
        ge=0,
        le=99,
        description="Further levels gained by a unit whose strike destroyed the enemy.",
    )
    level_cap: Int = Field(99, ge=0, le=99, description="Highest level a unit can reach.")
    advisor_enemy_weight: Real = Field(
        1, ge=0, description="Advisor score: weight of each enemy soldier the attack removes."
    )
    advisor_own_weight: Real = Field(
        1, ge=0, description="Advisor score: weight of each own soldier the attack costs."
    )
    planner_width: Int = Field(
        4,
        ge=1,
        le=64,
        description="Beam width of the turn planner (advise --plan): how many plans it keeps "
        "and how many next attacks it tries for each. 1 is greedy.",
    )
    advisor_detail: Int = Field(
        10,
        ge=0,
        description="The advice report shows the full forecast, row by row, of this many of "
        "the best attacks; the ranking lists them all.",
    )
    reply_attacks_shown: Int = Field(
        8,
        ge=0,
        description="The reply report's table lists this many attacks of each turn, ours and "
        "theirs, and counts the rest; the JSON keeps every attack.",
    )
    terrain: dict[str, TerrainType] = Field(
        default_factory=lambda: {n: TerrainType(**t) for n, t in DEFAULT_TERRAIN.items()},
        description="Terrain types by name. A scenario's entries are merged into this table: "
        "a new name adds a type, a known name changes only the fields given.",
    )

    @field_validator("terrain", mode="before")
    @classmethod
    def _merge_terrain(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        merged: dict[str, Any] = {name: dict(entry) for name, entry in DEFAULT_TERRAIN.items()}
        for name, entry in value.items():
            if isinstance(entry, TerrainType):
                entry = entry.model_dump()
            if name in merged and isinstance(entry, dict):
                merged[name] = {**merged[name], **entry}
            else:
                merged[name] = entry
        return merged


class StatusSpec(HexModel):
    """A buff or debuff from a skill. Multipliers default to 1, additions to 0."""

    name: str = Field(min_length=1, description="Shown in the report's Status rows.")
    kind: Literal["buff", "debuff"] = Field(description="Buffs ring the unit thin and outside.")
    atk_mul: NonNegative = Field(1, description="Multiplies attack (Status (×) row).")
    def_mul: NonNegative = Field(1, description="Multiplies defence (Status (×) row).")
    atk_add: Real = Field(0, description="Added to attack (Status (+) row).")
    def_add: Real = Field(0, description="Added to defence (Status (+) row).")


class UnitSpec(HexModel):
    """One unit on the board."""

    id: str = Field(min_length=1, description="Unique name, used by orders and reports.")
    side: str = Field(min_length=1, description="Units of different sides are enemies.")
    hex: tuple[Int, Int] = Field(description="Axial coordinates [q, r] of the unit's hex.")
    domain: Domain = Field("land", description="land, air or sea.")
    strength: Soldiers = Field(
        description="Soldiers (at most 10^12). Strength multiplies into everything."
    )
    max_strength: Soldiers | None = Field(
        None, description="Full strength (default: the current strength)."
    )
    attack: dict[Domain, NonNegative] = Field(
        description="Attack per target domain; a missing or zero entry cannot attack it."
    )
    defense: NonNegative = Field(description="Printed defence.")
    range: tuple[Int, Int] = Field((1, 1), description="[min, max] attack distance in hexes.")
    level: Int = Field(0, ge=0, le=99, description="Each level adds level_percent to both.")
    pierce: Real = Field(0, ge=0, lt=1, description="Share of the target's defence ignored.")
    statuses: tuple[StatusSpec, ...] = Field((), description="Buffs and debuffs carried.")

    @field_validator("range")
    @classmethod
    def _range_ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        low, high = value
        if low < 1 or high < low:
            raise _problem("range must be [min, max] with 1 ≤ min ≤ max")
        return value

    @field_validator("statuses")
    @classmethod
    def _statuses_in_range(cls, value: tuple[StatusSpec, ...]) -> tuple[StatusSpec, ...]:
        # A strike takes the product of the multipliers and the sum of the additions, so
        # those must stay in range too, not only each status's own numbers.
        for key, together in (
            ("atk_mul", math.prod((Fraction(s.atk_mul) for s in value), start=Fraction(1))),
            ("def_mul", math.prod((Fraction(s.def_mul) for s in value), start=Fraction(1))),
            ("atk_add", sum((Fraction(s.atk_add) for s in value), Fraction(0))),
            ("def_add", sum((Fraction(s.def_add) for s in value), Fraction(0))),
        ):
            # A sum may come close to 0 (1 − 0.999…): adding a small number is safe.
            if abs(together) > LARGEST or (key.endswith("_mul") and out_of_range(together)):
                raise _problem(
                    f"the statuses' {key} come to {float(together):.6g} together, outside "
                    f"the numbers hex computes with ({RANGE})"
                )
        return value


class HexSpec(HexModel):
    """One hex given explicitly."""

    q: Int
    r: Int
    terrain: str = Field("plains", description="A name from the terrain table.")


class MapSpec(HexModel):
    """The map: ``rows`` of terrain letters (odd rows shifted right) or explicit ``hexes``."""

    rows: tuple[str, ...] | None = Field(
        None,
        description="One string per row, one terrain letter per hex; spaces are ignored. "
        "Odd rows (1, 3, ...) sit half a hex to the right ('odd-r'); the hex in row r, "
        "column c has axial q = c − floor(r / 2).",
    )
    hexes: tuple[HexSpec, ...] | None = Field(None, description="Explicit hexes instead.")

    @model_validator(mode="after")
    def _one_layout(self) -> MapSpec:
        if (self.rows is None) == (self.hexes is None):
            raise _problem("give the map either as rows or as hexes (exactly one)")
        return self


class OrderSpec(HexModel):
    """One attack of the turn."""

    attacker: str = Field(description="Id of the attacking unit.")
    target: str = Field(description="Id of the unit attacked.")


class HexDocument(Document):
    """A ``hex`` scenario: parameters, the map, the units and the turn's ordered attacks."""

    parameters: HexParams = HexParams()
    map: MapSpec
    units: tuple[UnitSpec, ...] = Field(description="Every unit on the board.")
    orders: tuple[OrderSpec, ...] = Field(
        (), description="The turn: attacks resolved one after the other."
    )
