"""``fracas commit`` and ``fracas verify``: the fair-dice protocol on the command line.

``fracas resolve --secret-file S --nonce TEXT`` (in :mod:`fracas.cli.commands`) is the
middle step; ``docs/fair-dice.md`` walks through a whole thread.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from fracas.cli.common import FileArg, SetOpt, load
from fracas.core.errors import ScenarioError

#: Posts larger than this are not read (a forum post is far smaller).
MAX_POST_BYTES = 20_000_000

SecretOpt = Annotated[
    Path | None,
    typer.Option(
        "--secret-file",
        metavar="PATH",
        help="The game master's secret (hex). `commit` creates it when missing "
        "(default: FILE.secret next to the scenario).",
    ),
]


def commit_command(file: FileArg, secret_file: SecretOpt = None, settings: SetOpt = None) -> None:
    """Commit to a secret and a scenario before the players post their nonces.

    Prints the commitment to post in the thread. Creates the secret file if it is missing
    (readable by you only); keep it private until you post the result.

    \b
    Example:
      fracas commit examples/d100/lair_raid.yaml --secret-file raid.secret
    """
    from fracas.io.fair import DERIVATION, commitment, secret_from_file

    scenario = load(file, settings)
    if scenario.ruleset.deterministic:
        raise ScenarioError(
            f"ruleset {scenario.ruleset.name!r} has no dice: there is nothing to commit to",
            source=str(file),
        )
    path = secret_file or file.with_name(file.name + ".secret")
    secret, created = secret_from_file(path, create=True)
    typer.echo(
        f"{'created' if created else 'using'} secret {path}: keep it private until the "
        "result is posted",
        err=True,
    )
    typer.echo(
        f"{DERIVATION} commitment {commitment(secret, scenario.canonical_sha256)} "
        f"· scenario sha256:{scenario.sha256}"
    )


def verify_command(
    post: Annotated[
        Path, typer.Argument(metavar="POST", help="The posted log, as copied (- for stdin).")
    ],
    scenario_file: Annotated[
        Path | None,
        typer.Option(
            "--scenario", metavar="FILE", help="Check that the post played this scenario file."
        ),
    ] = None,
    expected_commitment: Annotated[
        str | None,
        typer.Option(
            "--commitment",
            metavar="COMMITMENT",
            help="The commitment posted before the nonces: the whole line `fracas commit` "
            "printed, or its hash alone.",
        ),
    ] = None,
    nonces: Annotated[
        list[str] | None,
        typer.Option(
            "--nonce", metavar="TEXT", help="A nonce as the thread shows it, in order. Repeatable."
        ),
    ] = None,
    settings: SetOpt = None,
) -> None:
    """Check a posted battle log: commitment, nonces, seed, and every line of the log.

    One line per check. Exit 0 when everything matches, the commitment posted before the
    nonces included; 1 on a mismatch; 2 when the post cannot be read (no seal, truncated,
    unknown derivation); 3 when every check of the post holds but no --commitment was
    given, so nothing ties the post to the commitment the thread shows.

    \b
    Example, with the commitment and the nonces the thread shows:
      fracas verify post.txt --commitment "fracas-fair-v1 commitment 3f2a… · …" \\
        --nonce owl --nonce 7  # (not run: needs a post)
    """
    from fracas.io.fair import EXIT_UNREADABLE, UnreadablePost, verify_post

    source = "stdin" if str(post) == "-" else str(post)
    try:
        raw = sys.stdin.buffer.read() if str(post) == "-" else _read_bounded(post)
        text = raw.decode("utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read post: {exc.strerror}", source=source) from None
    except UnicodeDecodeError:
        raise ScenarioError("the post is not UTF-8 text", source=source) from None
    scenario = load(scenario_file, settings) if scenario_file is not None else None
    try:
        verification = verify_post(
            text,
            scenario=scenario,
            expected_commitment=expected_commitment,
            expected_nonces=nonces,
        )
    except UnreadablePost as exc:
        typer.echo(f"fracas: unreadable: {source}: {exc}", err=True)
        raise typer.Exit(EXIT_UNREADABLE) from None
    for line in verification.lines():
        typer.echo(line)
    raise typer.Exit(verification.exit_code)


def _read_bounded(path: Path) -> bytes:
    from fracas.io.reader import read_at_most

    data = read_at_most(path, MAX_POST_BYTES)
    if len(data) > MAX_POST_BYTES:
        raise ScenarioError(f"the post is larger than {MAX_POST_BYTES} bytes", source=str(path))
    return data
