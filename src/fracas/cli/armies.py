"""The ``fracas import`` command: an army list from a list builder, as a ruleset's units.

The command names no ruleset: it asks the installed rulesets which of them read army lists
(:meth:`~fracas.rulesets.base.Ruleset.import_army`), uses the one there is, and takes
``--ruleset`` when there are several.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fracas.cli.common import OutputOpt, reading, write_output
from fracas.core.errors import ScenarioError
from fracas.rulesets import army_importer
from fracas.rulesets.base import fight_pair

#: The arcs a charge may strike.
ARCS = ("front", "left", "right", "rear")


def import_command(
    army_file: Annotated[
        Path,
        typer.Argument(
            metavar="ARMY_FILE",
            help="A New Recruit JSON export, a BattleScribe .ros or .rosz, or an Old World "
            "Builder JSON list.",
        ),
    ],
    output: OutputOpt = None,
    joins: Annotated[
        list[str] | None,
        typer.Option(
            "--join",
            metavar="CHARACTER=UNIT",
            help="Put a character into a unit (exports list characters alone). Repeatable.",
        ),
    ] = None,
    catalogues: Annotated[
        list[Path] | None,
        typer.Option(
            "--catalogue",
            metavar="FILE",
            help="A BSData catalogue (.cat / .gst) lending the profiles an Old World "
            "Builder list lacks. Repeatable.",
        ),
    ] = None,
    side: Annotated[
        str | None,
        typer.Option(
            "--side", metavar="NAME", help="The side the units fight for (default: the army)."
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            metavar="NAME",
            help="The ruleset to import into (default: the one that can).",
        ),
    ] = None,
    versus: Annotated[
        Path | None,
        typer.Option(
            "--versus",
            metavar="OTHER_ARMY_FILE",
            help="A second army list: write a whole battle of one unit of each (--fight).",
        ),
    ] = None,
    fight: Annotated[
        str | None,
        typer.Option(
            "--fight",
            metavar="UNIT=ENEMY",
            help="With --versus: the unit of ARMY_FILE and the unit of the other list.",
        ),
    ] = None,
    charger: Annotated[
        str,
        typer.Option(
            "--charger",
            metavar="WHO",
            help="With --versus: who charged, first (ARMY_FILE's unit), second or none.",
        ),
    ] = "first",
    arc: Annotated[
        str,
        typer.Option(
            "--arc",
            metavar="ARC",
            help="With --versus: the arc the charger strikes: front, left, right or rear.",
        ),
    ] = "front",
) -> None:
    """Read an army list into units of a scenario, listing what the ruleset does not model.

    \b
    Examples:
      fracas import examples/armies/wood_elves.json -o wood_elves.yaml
      fracas import examples/armies/empire.ros --join "Captain=Halberdiers"
      fracas import examples/armies/empire.ros --versus examples/armies/wood_elves.json \\
        --fight "Halberdiers=Dryads" --charger second -o battle.yaml
    """
    chosen = army_importer(ruleset)
    for path in (army_file, *(catalogues or []), *([versus] if versus else [])):
        reading(path)
    for catalogue in catalogues or ():
        # Read only for an Old World Builder list: a misspelt one is refused whatever the
        # list, not passed over until the list that needs it.
        if not catalogue.is_file():
            why = "Is a directory" if catalogue.is_dir() else "No such file or directory"
            raise ScenarioError(f"cannot be read ({why})", source=str(catalogue))
    if versus is None:
        if fight is not None:
            raise ScenarioError("--fight needs --versus OTHER_ARMY_FILE", source="--fight")
        result = chosen.import_army(
            army_file, catalogues=tuple(catalogues or ()), joins=tuple(joins or ()), side=side
        )
    else:
        pair = fight_pair(fight)
        if pair is None:
            raise ScenarioError(
                "--versus needs --fight UNIT=ENEMY: a unit of each list", source="--fight"
            )
        if arc not in ARCS:
            raise ScenarioError(f"--arc is one of {', '.join(ARCS)}, not {arc!r}", source="--arc")
        result = chosen.import_battle(
            army_file,
            versus,
            pair,
            charger=charger,
            arc=arc,
            catalogues=tuple(catalogues or ()),
            joins=tuple(joins or ()),
        )
    write_output(result.text, output)
    for note in result.unmodelled:
        typer.echo(f"not modelled: {note}", err=True)
