"""The example scenarios that ship with fracas, found without a clone of the repository.

The wheel and the source archive carry the repository's ``examples/`` folder as
``fracas/examples`` (package data); in a checkout (an editable install) the folder at the
root of the repository is used. Either way ``example_files()`` lists the scenarios and
``example_path(name)`` finds one by its name.

>>> names = [name for name, _ in example_files()]
>>> "hex/river_crossing.yaml" in names
True
>>> example_path("river_crossing").name
'river_crossing.yaml'
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from fracas.core.errors import FracasError

#: Suffixes of scenario files (what ``load_scenario`` reads).
SCENARIO_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
#: The folder of example army lists (``fracas import`` reads them): copied with the
#: scenarios, but not scenarios themselves.
ARMIES = "armies"
#: The folder of the campaign tour's rosters and battle files: copied, not scenarios.
CAMPAIGN = "campaign"


def examples_root() -> Path:
    """The folder holding the examples: inside the installed package, else the checkout's."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "examples", package.parent.parent / "examples"):
        if candidate.is_dir():
            return candidate
    raise FracasError("the example scenarios are not installed with this copy of fracas")


def example_files() -> list[tuple[str, Path]]:
    """``(name, path)`` of every example scenario, sorted; ``name`` is ``folder/file``.

    Scenarios sit one folder deep (``hex/river_crossing.yaml``); deeper files (an example
    plugin package and its own files) are not scenarios.
    """
    root = examples_root()
    return [
        (path.relative_to(root).as_posix(), path)
        for path in sorted(root.glob("*/*"))
        if path.suffix in SCENARIO_SUFFIXES
        and path.is_file()
        and path.name != "pyproject.toml"
        and path.parent.name != ARMIES
    ]


def army_files() -> list[Path]:
    """The example army lists: list builders' exports for ``fracas import``."""
    return sorted(path for path in (examples_root() / ARMIES).glob("*") if path.is_file())


def campaign_files() -> list[Path]:
    """The example campaign's rosters and battle files (``docs/campaigns.md``'s tour)."""
    return sorted(path for path in (examples_root() / CAMPAIGN).rglob("*") if path.is_file())


def copied_sources(names: list[str] | None = None) -> list[Path]:
    """What ``fracas examples -o DIR`` copies: the examples called ``names``, or every
    scenario with the army lists and the campaign's files beside them."""
    if names is not None:
        return [example_path(name) for name in names]
    return [path for _, path in example_files()] + army_files() + campaign_files()


def example_path(name: str) -> Path:
    """The example called ``name``: ``hex/river_crossing.yaml``, ``hex/river_crossing``, or
    ``river_crossing`` when only one folder has it."""
    wanted = name.strip().strip("/")
    matches = [
        path
        for full, path in example_files()
        if wanted in (full, full.rsplit(".", 1)[0], path.name, path.stem)
    ]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise FracasError(f"no example called {name!r} (list them with: fracas examples)")
    choices = ", ".join(path.parent.name + "/" + path.name for path in matches)
    raise FracasError(f"{name!r} names several examples: {choices}")


def copy_examples(destination: Path, names: list[str] | None = None) -> list[Path]:
    """Copy examples (all when ``names`` is None, the army lists too) into ``destination``,
    keeping their folders.

    Returns the files written. A file already there with the same text is left as it is
    (copying twice is harmless); one with other text is never overwritten: the copy stops
    with an error before writing anything.
    """
    root = examples_root()
    pairs = [(source, destination / source.relative_to(root)) for source in copied_sources(names)]
    for source, target in pairs:
        if target.exists() and (not target.is_file() or target.read_bytes() != source.read_bytes()):
            raise FracasError(f"{target} exists already (with other text); not overwriting it")
    written: list[Path] = []
    try:
        for source, target in pairs:
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                shutil.copyfile(source, target)
            except OSError as exc:  # a full disk: the error names what could not be written
                written.append(target)
                raise OSError(exc.errno, exc.strerror, str(target)) from None
            written.append(target)
    except OSError:
        # Half a copy would block the next one (a file there with other text): none stays.
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    return written
