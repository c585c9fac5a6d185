"""What rankflank's odds put first: who wins the combat, who breaks, who is caught.

``HEADLINES`` asks who wins the whole combat (``winner``, over every round fought) and
round 1 (``round_winner``), who breaks, who is caught or destroyed, and the expected
casualties. Every metric comes from the ruleset's own summary of a finished fight, so
exact odds and sampling answer the same questions.
"""

from __future__ import annotations

from fracas.core.headline import Headline

HEADLINES: tuple[Headline, ...] = (
    Headline(
        "values",
        "winner",
        "P({value} wins the combat)",
        labels=(
            ("undecided", "P(combat undecided after the last round)"),
            ("draw", "P(both sides routed or destroyed)"),
        ),
    ),
    Headline(
        "values",
        "round_winner",
        "P({value} wins round 1)",
        labels=(("draw", "P(draw in round 1)"),),
    ),
    Headline("probability", "breaks.*", "P({name} breaks)", values=(True,)),
    Headline("probability", "falls_back.*", "P({name} falls back in good order)", values=(True,)),
    Headline("probability", "gives_ground.*", "P({name} gives ground)", values=(True,)),
    Headline("probability", "caught.*", "P({name} is caught)", values=(True,)),
    Headline("probability", "destroyed.*", "P({name} is destroyed)", values=(True,)),
    Headline("mean", "casualties.*", "expected casualties of {name}"),
)
