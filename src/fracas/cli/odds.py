"""The ``fracas odds`` command (outcome distributions of a scenario)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fracas.core.errors import UnsupportedError


def odds_command(
    file: Annotated[Path, typer.Argument(help="Scenario file (.yaml, .json or .toml).")],
) -> None:
    """Outcome probabilities of a scenario."""
    raise UnsupportedError("odds are not available yet")
