"""Write the golden outputs: ``fracas resolve`` of every example, seeds 1–20, text and JSON,
and one sealed forum post per ruleset with dice.

Run it only when a change is meant to alter what users get, and name each changed file and
the reason in the commit (``tests/golden/test_golden.py`` compares byte for byte)::

    .venv/bin/python tests/golden/regenerate.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from fracas.cli import app

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "examples"
SEEDS = range(1, 21)
FORMATS = {"text": "txt", "json": "json"}
#: The fixed secret of the stored sealed posts (a GM's secret is random; this one is public).
SECRET = "3c9e1f0a7b52d8e4f6a1c0b9d2e7f3a85b4c6d1e0f9a2b7c8d3e4f5a6b7c8d9e"
NONCES = ("owlbear at dawn", "1729")
#: The examples whose sealed post is stored, one per ruleset with dice.
SEALED = ("d100/lair_raid.yaml", "rankflank/frontal_charge.yaml")


def examples() -> list[Path]:
    """Every built-in example scenario, in a stable order."""
    return sorted(p for p in EXAMPLES.glob("*/*.yaml") if p.parent.name != "plugin")


def golden_name(example: Path, seed: int, fmt: str) -> str:
    """The stored file's name: ``<ruleset>/<example>.seed<N>.<ext>``."""
    return f"{example.parent.name}/{example.stem}.seed{seed}.{FORMATS[fmt]}"


@contextmanager
def in_checkout() -> Iterator[None]:
    """Run from the checkout's root, so a report names its file as ``examples/…`` wherever
    the checkout is."""
    before = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def resolve_bytes(example: Path, seed: int, fmt: str) -> bytes:
    """What ``fracas resolve examples/… --seed SEED -f FMT -o FILE``, run from the
    checkout's root, writes into FILE."""
    with tempfile.TemporaryDirectory() as folder, in_checkout():
        out = Path(folder) / "out"
        name = str(example.relative_to(ROOT))
        args = ["resolve", name, "--seed", str(seed), "-f", fmt, "-o", str(out)]
        result = CliRunner().invoke(app, args)
        if result.exit_code != 0:
            raise RuntimeError(f"{args}: exit {result.exit_code}: {result.output}")
        return out.read_bytes()


def sealed_post(example: Path, folder: Path) -> bytes:
    """A fair-dice post of ``example`` with the public secret and nonces, BBCode, folded."""
    secret = folder / "gm.secret"
    secret.write_text(SECRET + "\n")
    out = folder / "post.txt"
    args = [
        "resolve",
        str(example.relative_to(ROOT)),
        "--secret-file",
        str(secret),
        "-f",
        "bbcode",
        "--fold",
    ]
    for nonce in NONCES:
        args += ["--nonce", nonce]
    with in_checkout():
        result = CliRunner().invoke(app, [*args, "-o", str(out)])
    if result.exit_code != 0:
        raise RuntimeError(f"{args}: exit {result.exit_code}: {result.output}")
    return out.read_bytes()


def sealed_name(example: str) -> str:
    """The stored post of ``example``: ``sealed/<ruleset>-<example>.post.txt``."""
    return "sealed/" + example.replace("/", "-").replace(".yaml", ".post.txt")


def main() -> int:
    for example in examples():
        for seed in SEEDS:
            for fmt in FORMATS:
                path = HERE / golden_name(example, seed, fmt)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(resolve_bytes(example, seed, fmt))
    for sealed in SEALED:
        with tempfile.TemporaryDirectory() as folder:
            path = HERE / sealed_name(sealed)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(sealed_post(EXAMPLES / sealed, Path(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
