"""What hex's odds put first: each unit's losses and whether it is destroyed.

Hex has no dice, so each of these is certain; the headline still reads like any other
ruleset's, through the same :class:`~fracas.core.headline.Headline` questions.
"""

from __future__ import annotations

from fracas.core.headline import Headline

HEADLINES: tuple[Headline, ...] = (
    Headline("mean", "losses.*", "losses of {name}"),
    Headline("probability", "destroyed.*", "P({name} destroyed)", values=(True,)),
)
