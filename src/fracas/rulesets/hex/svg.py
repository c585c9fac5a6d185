"""An SVG picture of a hex board: a pure function from a board to a string.

Hexes are pointy-topped and filled with their terrain colour; odd rows sit half a hex to
the right, as in map rows. Each unit is drawn in its side's colour (a disc on land, a
diamond in the air, a hull at sea) showing its strength and level; each status it carries
is a ring at its feet (a thick inner ring for a debuff, a thin outer ring for a buff).
Given an attacker and a target, the picture adds the attack arrow, rings around the
supporters and the encircling enemies, and the forecast losses. A legend under the map
gives each terrain's attack and defence factors, each side's colour and what the rings
mean. The same board gives the same bytes.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> board = Board.from_rows(["..", ".."], [Unit.make("a", "blue", (0, 0)),
...                                        Unit.make("b", "red", (1, 0))])
>>> svg = board_svg(board, attacker="a", target="b")
>>> svg.count('class="hex"'), svg.count('class="unit"'), svg.count('class="attack-arrow"')
(4, 2, 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from fracas.core import limits
from fracas.core.budgets import PICTURE_BYTES
from fracas.core.errors import IllegalActionError
from fracas.core.escape import escape_html as escape
from fracas.rulesets.hex.document import HexParams
from fracas.rulesets.hex.play import Combat, forecast, illegal_reason
from fracas.rulesets.hex.scenario import Board, Hex, Unit

#: Hex circumradius in pixels.
SIZE = 40.0
PADDING = 12.0
#: Height of one legend line under the map.
LEGEND_LINE = 22.0
NAMED_COLOURS = {
    "blue": "#2b6cb0",
    "red": "#c53030",
    "green": "#2f855a",
    "yellow": "#b7791f",
    "purple": "#6b46c1",
    "grey": "#4a5568",
    "gray": "#4a5568",
    "orange": "#c05621",
}
PALETTE = ("#2b6cb0", "#c53030", "#2f855a", "#b7791f", "#6b46c1", "#319795")
DEBUFF_COLOUR = "#9b2c2c"
BUFF_COLOUR = "#d69e2e"
SUPPORTER_COLOUR = "#2f855a"
ENCIRCLER_COLOUR = "#e53e3e"


def _n(value: float) -> str:
    """Coordinates to one decimal, so the output is identical on every platform."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _centre(place: Hex) -> tuple[float, float]:
    return SIZE * math.sqrt(3) * (place.q + place.r / 2), SIZE * 1.5 * place.r


def side_colours(board: Board) -> dict[str, str]:
    """A colour per side: its own name when it is a colour, else the palette in order."""
    colours: dict[str, str] = {}
    spare = iter(c for c in PALETTE)
    for side in board.sides():
        colours[side] = NAMED_COLOURS.get(side.lower()) or next(spare, "#333333")
    return colours


def _body(unit: Unit, x: float, y: float, radius: float, colour: str) -> str:
    """A disc for land units, a diamond for fliers, a hull for ships."""
    common = (
        f'class="unit-body" data-domain="{unit.domain}" fill="{colour}" stroke="#1a202c" '
        'stroke-width="1.5"'
    )
    if unit.domain == "air":
        r = radius * 1.2
        points = f"{_n(x)},{_n(y - r)} {_n(x + r)},{_n(y)} {_n(x)},{_n(y + r)} {_n(x - r)},{_n(y)}"
        return f'<polygon {common} points="{points}"/>'
    if unit.domain == "sea":
        return (
            f'<rect {common} x="{_n(x - radius * 1.15)}" y="{_n(y - radius * 0.75)}" '
            f'width="{_n(radius * 2.3)}" height="{_n(radius * 1.5)}" rx="{_n(radius * 0.6)}"/>'
        )
    return f'<circle {common} cx="{_n(x)}" cy="{_n(y)}" r="{_n(radius)}"/>'


def _unit_group(unit: Unit, x: float, y: float, colour: str) -> list[str]:
    body = SIZE * 0.5
    parts = [
        f'<g class="unit" data-id="{escape(unit.id)}" data-side="{escape(unit.side)}">',
        f"<title>{escape(unit.id)} ({escape(unit.side)}, {unit.domain}): "
        f"{unit.strength}/{unit.max_strength}, Lv {unit.level}</title>",
    ]
    debuffs = [s for s in unit.statuses if s.kind == "debuff"]
    buffs = [s for s in unit.statuses if s.kind == "buff"]
    for index, status in enumerate(debuffs):
        parts.append(
            f'<circle class="status-ring debuff" data-status="{escape(status.name)}" '
            f'cx="{_n(x)}" cy="{_n(y)}" r="{_n(body + 3 + 5 * index)}" fill="none" '
            f'stroke="{DEBUFF_COLOUR}" stroke-width="4"/>'
        )
    outer = body + 3 + 5 * len(debuffs) + 2
    for index, status in enumerate(buffs):
        parts.append(
            f'<circle class="status-ring buff" data-status="{escape(status.name)}" '
            f'cx="{_n(x)}" cy="{_n(y)}" r="{_n(outer + 3 * index)}" fill="none" '
            f'stroke="{BUFF_COLOUR}" stroke-width="1.2"/>'
        )
    parts.append(_body(unit, x, y, body, colour))
    parts.append(
        f'<text class="strength" x="{_n(x)}" y="{_n(y + 1)}" text-anchor="middle" '
        f'font-size="12" font-weight="bold" fill="#ffffff">{unit.strength}</text>'
    )
    parts.append(
        f'<text class="level" x="{_n(x)}" y="{_n(y + 12)}" text-anchor="middle" '
        f'font-size="8" fill="#ffffff">Lv {unit.level}</text>'
    )
    parts.append("</g>")
    return parts


def _unit_label(unit: Unit, x: float, y: float) -> str:
    # Drawn after the attack layer, with a white halo, so no arrow or ring hides a name.
    return (
        f'<text class="unit-id" data-id="{escape(unit.id)}" x="{_n(x)}" '
        f'y="{_n(y - SIZE * 0.5 - 4)}" text-anchor="middle" font-size="9" fill="#1a202c" '
        f'stroke="#ffffff" stroke-width="3" paint-order="stroke">{escape(unit.id)}</text>'
    )


def _marker(kind: str, x: float, y: float, unit: str) -> str:
    # Encirclers get the wider ring so a unit that is both stays readable.
    radius = SIZE * (0.86 if kind == "encircler" else 0.76)
    colour = ENCIRCLER_COLOUR if kind == "encircler" else SUPPORTER_COLOUR
    return (
        f'<circle class="{kind}" data-id="{escape(unit)}" cx="{_n(x)}" cy="{_n(y)}" '
        f'r="{_n(radius)}" fill="none" stroke="{colour}" stroke-width="2.5" '
        f'stroke-dasharray="5 3"/>'
    )


def _marker_layer(combat: Combat, shift: tuple[float, float]) -> list[str]:
    """Dashed rings around the supporters and the encirclers, drawn under the units."""
    board = combat.before
    parts = ['<g class="attack-markers">']
    # The supporters of both strikes are the allies next to the unit attacked.
    for side in (combat.strike.inputs.attacker, combat.strike.inputs.defender):
        for supporter in side.supporters:
            x, y = _centre(board.unit(supporter.unit).hex)
            parts.append(_marker("supporter", x + shift[0], y + shift[1], supporter.unit))
    for side in (combat.strike.inputs.attacker, combat.strike.inputs.defender):
        if side.encirclement >= 1:
            continue
        for enemy in side.encirclers:
            x, y = _centre(board.unit(enemy).hex)
            parts.append(_marker("encircler", x + shift[0], y + shift[1], enemy))
    parts.append("</g>")
    return parts


def _combat_layer(combat: Combat, shift: tuple[float, float]) -> list[str]:
    """The attack arrow and the forecast loss badges, drawn over the units."""
    board = combat.before
    attacker, target = board.unit(combat.attacker), board.unit(combat.target)
    ax, ay = _centre(attacker.hex)
    tx, ty = _centre(target.hex)
    ax, ay, tx, ty = ax + shift[0], ay + shift[1], tx + shift[0], ty + shift[1]
    parts = ['<g class="attack">']
    length = math.hypot(tx - ax, ty - ay) or 1.0
    trim = SIZE * 0.55
    x1, y1 = ax + (tx - ax) * trim / length, ay + (ty - ay) * trim / length
    x2, y2 = tx - (tx - ax) * trim / length, ty - (ty - ay) * trim / length
    parts.append(
        f'<line class="attack-arrow" x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" '
        f'stroke="#1a202c" stroke-width="3" marker-end="url(#arrowhead)"/>'
    )
    for unit, lost in ((attacker, combat.losses[attacker.id]), (target, combat.losses[target.id])):
        x, y = _centre(unit.hex)
        x, y = x + shift[0] + SIZE * 0.45, y + shift[1] - SIZE * 0.62
        label = f"−{lost}" + (" ✝" if unit.id in combat.destroyed else "")
        width = 8 + 7 * len(label)
        parts.append(
            f'<rect class="forecast-badge" x="{_n(x)}" y="{_n(y)}" width="{width}" height="16" '
            f'rx="4" fill="#fff5f5" stroke="#9b2c2c"/>'
        )
        parts.append(
            f'<text class="forecast-loss" data-id="{escape(unit.id)}" x="{_n(x + width / 2)}" '
            f'y="{_n(y + 12)}" text-anchor="middle" font-size="11" font-weight="bold" '
            f'fill="#9b2c2c">{label}</text>'
        )
    parts.append("</g>")
    return parts


def _arrow(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float, float]:
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    trim = SIZE * 0.55
    return (
        x1 + (x2 - x1) * trim / length,
        y1 + (y2 - y1) * trim / length,
        x2 - (x2 - x1) * trim / length,
        y2 - (y2 - y1) * trim / length,
    )


def _reply_layer(
    board: Board,
    reply: Sequence[tuple[str, str, int]],
    colours: Mapping[str, str],
    shift: tuple[float, float],
) -> list[str]:
    """The enemy's reply: a dashed arrow per attack in its side's colour, with the soldiers
    it would take written at the arrow's head."""
    parts = ['<g class="reply">']
    for attacker_id, target_id, lost in reply:
        attacker, target = board.unit(attacker_id), board.unit(target_id)
        ax, ay = _centre(attacker.hex)
        tx, ty = _centre(target.hex)
        x1, y1, x2, y2 = _arrow(ax + shift[0], ay + shift[1], tx + shift[0], ty + shift[1])
        colour = escape(colours[attacker.side])
        parts.append(
            f'<line class="reply-arrow" data-attacker="{escape(attacker_id)}" '
            f'data-target="{escape(target_id)}" x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" '
            f'y2="{_n(y2)}" stroke="{colour}" stroke-width="3" stroke-dasharray="6 3" '
            f'marker-end="url(#arrowhead)"/>'
        )
        parts.append(
            f'<text class="reply-loss" data-id="{escape(target_id)}" x="{_n(x2)}" '
            f'y="{_n(y2 - 6)}" text-anchor="middle" font-size="11" font-weight="bold" '
            f'fill="{colour}" stroke="#ffffff" stroke-width="3" paint-order="stroke">−{lost}</text>'
        )
    parts.append("</g>")
    return parts


def _threat_layer(
    board: Board, threatened: Mapping[str, int], shift: tuple[float, float]
) -> list[str]:
    """On each threatened unit, the most soldiers one enemy attack would take from it now."""
    parts = ['<g class="threats">']
    for unit in board.units:
        if unit.id not in threatened:
            continue
        x, y = _centre(unit.hex)
        x, y = x + shift[0] - SIZE * 0.95, y + shift[1] - SIZE * 0.62
        label = f"⚠{threatened[unit.id]}"
        width = 8 + 7 * len(label)
        parts.append(
            f'<rect class="threat-badge" x="{_n(x)}" y="{_n(y)}" width="{width}" height="16" '
            f'rx="4" fill="#fffbea" stroke="#b7791f"/>'
        )
        parts.append(
            f'<text class="threat-loss" data-id="{escape(unit.id)}" x="{_n(x + width / 2)}" '
            f'y="{_n(y + 12)}" text-anchor="middle" font-size="11" font-weight="bold" '
            f'fill="#975a16">{label}</text>'
        )
    parts.append("</g>")
    return parts


def _legend_item(x: float, top: float, swatch: str, label: str) -> tuple[list[str], float]:
    parts = [
        swatch,
        f'<text class="legend-label" x="{_n(x + 18)}" y="{_n(top + 11)}" font-size="10" '
        f'fill="#1a202c">{escape(label)}</text>',
    ]
    return parts, x + 26 + 5.5 * len(label)


def _key_swatch(kind: str, x: float, top: float, colour: str) -> str:
    """A small circle: filled for a side, a ring like the ones on the map for the rest."""
    cx, cy = _n(x + 7), _n(top + 7)
    if kind == "side":
        return (
            f'<circle class="legend-swatch" data-key="side" cx="{cx}" cy="{cy}" r="6" '
            f'fill="{colour}" stroke="#1a202c"/>'
        )
    width, dash = {
        "debuff": ("3", ""),
        "buff": ("1.2", ""),
        "supporter": ("2", ' stroke-dasharray="3 2"'),
        "encircler": ("2", ' stroke-dasharray="3 2"'),
    }[kind]
    return (
        f'<circle class="legend-swatch" data-key="{kind}" cx="{cx}" cy="{cy}" r="6" fill="none" '
        f'stroke="{colour}" stroke-width="{width}"{dash}/>'
    )


def _legend(board: Board, top: float, colours: dict[str, str], attack: bool) -> list[str]:
    """Under the map: each terrain with its factors; then sides, status rings and markers."""
    used = sorted({t.name: t for t in board.hexes.values()}.values(), key=lambda t: t.name)
    parts = ['<g class="legend">']
    x = PADDING
    for terrain in used:
        label = f"{terrain.name} ×{float(terrain.attack):g}/×{float(terrain.defense):g}"
        swatch = (
            f'<rect class="legend-swatch" x="{_n(x)}" y="{_n(top)}" width="14" height="14" '
            f'fill="{escape(terrain.color)}" stroke="#4a5568"/>'
        )
        items, x = _legend_item(x, top, swatch, label)
        parts.extend(items)
    keys = [("side", colour, side) for side, colour in colours.items()]
    statuses = {s.kind for unit in board.units for s in unit.statuses}
    if "debuff" in statuses:
        keys.append(("debuff", DEBUFF_COLOUR, "debuff"))
    if "buff" in statuses:
        keys.append(("buff", BUFF_COLOUR, "buff"))
    if attack:
        keys.append(("supporter", SUPPORTER_COLOUR, "supporter"))
        keys.append(("encircler", ENCIRCLER_COLOUR, "encircler"))
    x, top = PADDING, top + LEGEND_LINE
    for kind, colour, label in keys:
        items, x = _legend_item(x, top, _key_swatch(kind, x, top, colour), label)
        parts.extend(items)
    parts.append("</g>")
    return parts


def _legend_width(board: Board, colours: dict[str, str], attack: bool) -> float:
    terrain = {t.name: t for t in board.hexes.values()}.values()
    first = sum(
        26 + 5.5 * len(f"{t.name} ×{float(t.attack):g}/×{float(t.defense):g}") for t in terrain
    )
    # Sides, then at most "debuff", "buff", "supporter" and "encircler".
    second = sum(26 + 5.5 * len(side) for side in colours) + 2 * 59.5 + 2 * 75.5
    return PADDING * 2 + max(first, second)


def board_svg(
    board: Board,
    *,
    attacker: str | None = None,
    target: str | None = None,
    params: HexParams | None = None,
    reply: Sequence[tuple[str, str, int]] = (),
    threatened: Mapping[str, int] | None = None,
) -> str:
    """The board as an SVG document; with ``attacker`` and ``target``, their forecast too.

    ``reply`` draws attacks ``(attacker, target, soldiers taken)`` as dashed arrows in the
    attacker's colour (the enemy's reply, :mod:`fracas.rulesets.hex.reply`); ``threatened``
    writes on each unit named the most one enemy attack would take from it now.

    The attack must be legal (:class:`~fracas.core.errors.IllegalActionError`, a
    ``ValueError``, otherwise: a picture of an impossible attack would mislead).
    """
    params = params or HexParams()
    centres = {place: _centre(place) for place in board.hexes}
    half_width = SIZE * math.sqrt(3) / 2
    min_x = min((x for x, _ in centres.values()), default=0.0) - half_width - PADDING
    min_y = min((y for _, y in centres.values()), default=0.0) - SIZE - PADDING
    max_x = max((x for x, _ in centres.values()), default=0.0) + half_width + PADDING
    max_y = max((y for _, y in centres.values()), default=0.0) + SIZE + PADDING
    shift = (-min_x, -min_y)
    colours = side_colours(board)
    drawing = attacker is not None and target is not None
    width = max(max_x - min_x, _legend_width(board, colours, drawing))
    height = max_y - min_y + 2 * LEGEND_LINE + 4
    combat: Combat | None = None
    if attacker is not None and target is not None:
        reason = illegal_reason(board, attacker, target)
        if reason is not None:
            raise IllegalActionError(f"cannot draw an illegal attack: {reason}")
        combat = forecast(board, attacker, target, params)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="fracas-hex" width="{_n(width)}" '
        f'height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}" '
        f'font-family="sans-serif">',
        "<defs>",
        '<marker id="arrowhead" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" '
        'markerHeight="5" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1a202c"/></marker>',
        "</defs>",
        '<g class="map">',
    ]
    # Counted as it is drawn, so that a picture past the budget stops there: a board of a
    # quarter of a million hexes would otherwise be drawn whole (~100 MB) to be refused.
    size = limits.Budget(PICTURE_BYTES.name, "characters", limits.value(PICTURE_BYTES.name))
    size.spend(sum(map(len, out)))
    for place in sorted(board.hexes, key=lambda h: (h.r, h.q)):
        terrain = board.hexes[place]
        cx, cy = centres[place][0] + shift[0], centres[place][1] + shift[1]
        corners = " ".join(
            f"{_n(cx + SIZE * math.cos(math.radians(60 * i - 30)))},"
            f"{_n(cy + SIZE * math.sin(math.radians(60 * i - 30)))}"
            for i in range(6)
        )
        out.append(
            f'<polygon class="hex" data-q="{place.q}" data-r="{place.r}" '
            f'data-terrain="{escape(terrain.name)}" points="{corners}" '
            f'fill="{escape(terrain.color)}" '
            f'stroke="#4a5568" stroke-width="1"><title>{escape(terrain.name)} {place}: '
            f"attack ×{float(terrain.attack):g}, defence ×{float(terrain.defense):g}"
            f"</title></polygon>"
        )
        size.spend(len(out[-1]))
    out.append("</g>")
    out.extend(_legend(board, max_y - min_y + 4, colours, drawing))
    if combat is not None:
        out.extend(_marker_layer(combat, shift))
    out.append('<g class="units">')
    for unit in board.units:
        x, y = _centre(unit.hex)
        group = _unit_group(unit, x + shift[0], y + shift[1], colours[unit.side])
        size.spend(sum(map(len, group)))
        out.extend(group)
    out.append("</g>")
    if combat is not None:
        out.extend(_combat_layer(combat, shift))
    if reply:
        out.extend(_reply_layer(board, reply, colours, shift))
    if threatened:
        out.extend(_threat_layer(board, threatened, shift))
    out.append('<g class="labels">')
    for unit in board.units:
        x, y = _centre(unit.hex)
        out.append(_unit_label(unit, x + shift[0], y + shift[1]))
        size.spend(len(out[-1]))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
