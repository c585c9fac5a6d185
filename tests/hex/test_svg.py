"""The SVG picture: parsed with ElementTree and its elements counted."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction
from types import MappingProxyType

import pytest

from fracas.core.errors import IllegalActionError
from fracas.rulesets.hex import Board, Hex, HexParams, Status, Terrain, Unit, board_svg

NS = {"svg": "http://www.w3.org/2000/svg"}

shaken = Status.make("Shaken", "debuff", atk_mul=0.8)
rally = Status.make("Rally", "buff", atk_add=50)
dug_in = Status.make("Dug in", "buff", def_mul=1.2)


def board() -> Board:
    # 3 rows of 4: 12 hexes. b (1, 0) has a, c and d next to it: encircled by three;
    # a (0, 0) has b and e next to it: encircled by two.
    return Board.from_rows(
        ["..f.", "h~..", "...."],
        [
            Unit.make("a", "blue", (0, 0), attack=10, defense=10, statuses=[shaken, rally]),
            Unit.make("b", "red", (1, 0), attack=10, defense=10, statuses=[dug_in]),
            Unit.make("c", "blue", (2, 0), attack=10, defense=10),
            Unit.make("d", "blue", (1, 1), attack=10, defense=10),
            Unit.make("e", "red", (0, 1), attack=10, defense=10, statuses=[rally, dug_in]),
        ],
    )


def classes(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def test_the_board_alone() -> None:
    root = ET.fromstring(board_svg(board()))
    assert len(classes(root, "hex")) == 12
    assert len(classes(root, "unit")) == 5
    # Debuffs: a's Shaken. Buffs: a's Rally, b's Dug in, e's Rally and Dug in.
    assert len(classes(root, "debuff")) == 1
    assert len(classes(root, "buff")) == 4
    assert classes(root, "attack-arrow") == []
    assert [t.text for t in classes(root, "strength")] == ["100"] * 5
    assert {h.get("data-terrain") for h in classes(root, "hex")} == {
        "plains", "forest", "hills", "river",
    }  # fmt: skip


def test_a_debuff_ring_is_thick_and_inside_a_buff_ring() -> None:
    root = ET.fromstring(board_svg(board()))
    unit_a = next(g for g in classes(root, "unit") if g.get("data-id") == "a")
    debuff = classes(unit_a, "debuff")[0]
    buff = classes(unit_a, "buff")[0]
    assert float(debuff.get("stroke-width", "0")) > float(buff.get("stroke-width", "0"))
    assert float(debuff.get("r", "0")) < float(buff.get("r", "0"))


def test_an_attack_draws_arrow_supporters_encirclers_and_losses() -> None:
    root = ET.fromstring(board_svg(board(), attacker="a", target="b"))
    assert len(classes(root, "attack-arrow")) == 1
    # Supporters of a's strike: c and d (blue, next to b); of b's defence: e (red, next to b).
    assert sorted(m.get("data-id") or "" for m in classes(root, "supporter")) == ["c", "d", "e"]
    # Both rings are marked: a, c, d around b, and b, e around a.
    encirclers = sorted(m.get("data-id") or "" for m in classes(root, "encircler"))
    assert encirclers == ["a", "b", "c", "d", "e"]
    losses = classes(root, "forecast-loss")
    assert [m.get("data-id") for m in losses] == ["a", "b"]
    # a strikes: 100 × 10 × 0.9 (b and e next to it) × 0.8 (Shaken) = 720, + c and d
    # 2 × 0.25 × 100 × 10 = 500, + Rally 50 → 1270. b: 100 × 10 × 0.8 (a, c, d) × 1.2
    # (Dug in) = 960, + e 250 → 1210. r = 127/121, r² = 16129/14641 → 0.5242 × 100 → 52.
    # b counters: 100 × 10 × 0.8 = 800, + e (next to b) 250 → 1050 against a's
    # 100 × 10 × 0.9 = 900, + c and d (blue, next to b, the unit attacked) 500 → 1400:
    # r = 3/4, r² = 9/16, 9/25 = 0.36 → 36.
    assert [m.text for m in losses] == ["−36", "−52"]
    # The markers lie under the units, the arrow and the names over them.
    layers = [g.get("class") for g in root if g.tag.endswith("g")]
    assert layers == ["map", "legend", "attack-markers", "units", "attack", "labels"]


def test_the_legend_explains_terrain_sides_rings_and_markers() -> None:
    root = ET.fromstring(board_svg(board(), attacker="a", target="b"))
    legend = classes(root, "legend")[0]
    labels = [t.text for t in classes(legend, "legend-label")]
    assert labels == [
        "forest ×1/×1.25", "hills ×1.1/×1.3", "plains ×1/×1", "river ×0.8/×0.8",
        "blue", "red", "debuff", "buff", "supporter", "encircler",
    ]  # fmt: skip
    alone = ET.fromstring(board_svg(board()))
    keys = [s.get("data-key") for s in classes(alone, "legend-swatch")]
    assert keys.count("side") == 2
    assert "supporter" not in keys
    assert "encircler" not in keys


def test_a_colour_given_from_python_cannot_break_the_picture() -> None:
    odd = Terrain("odd", Fraction(1), Fraction(1), ".", 'red" onload="x')
    picture = board_svg(Board(MappingProxyType({Hex(0, 0): odd}), ()))
    hexagon = classes(ET.fromstring(picture), "hex")[0]
    assert hexagon.get("fill") == 'red" onload="x'
    assert hexagon.get("onload") is None


def test_the_picture_is_deterministic_and_refuses_an_illegal_attack() -> None:
    assert board_svg(board(), attacker="a", target="b") == board_svg(
        board(), attacker="a", target="b", params=HexParams()
    )
    with pytest.raises(IllegalActionError, match="illegal attack"):
        board_svg(board(), attacker="a", target="c")
