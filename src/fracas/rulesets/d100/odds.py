"""What d100's odds put first: win, draw or withdraw, each unit's fate, PAX and goods."""

from __future__ import annotations

from fracas.core.headline import Headline

#: A unit that failed the morale assessment bottled out, whatever its loyalty check gave.
BOTTLED = ("bottled_out", "disbanded", "disbanded_with_equipment")
DISBANDED = ("disbanded", "disbanded_with_equipment")

HEADLINES: tuple[Headline, ...] = (
    Headline(
        "values",
        "winner",
        "P({value} wins)",
        labels=(("draw", "P(draw)"), ("withdraw", "P(withdraw)")),
    ),
    # One unit's four fates together, then the next unit's; a fate that cannot happen to
    # it (or never did in the sample) is left out.
    Headline("event", "fate.*", "P({name} bottles out)", values=BOTTLED, omit_zero=True),
    Headline("event", "fate.*", "P({name} disbands)", values=DISBANDED, omit_zero=True),
    Headline("event", "fate.*", "P({name} flees)", values=("fled",), omit_zero=True),
    Headline("event", "fate.*", "P({name} is killed)", values=("killed",), omit_zero=True),
    Headline("mean", "pax.*", "expected PAX left in {name}"),
    Headline("mean", "goods", "expected value of goods"),
)
