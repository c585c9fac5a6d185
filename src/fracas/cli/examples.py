"""The ``fracas examples`` command: list the example scenarios, or copy them out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from fracas.cli.common import ListFormat, ListFormatOpt, OutputOpt, write_output
from fracas.core.errors import FracasError


def _title(path: Path) -> str:
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ""
    title = document.get("title", "") if isinstance(document, dict) else ""
    return str(title)


def _copy(destination: Path, names: list[str] | None = None) -> list[Path]:
    """Copy examples into ``destination`` (see ``copy_examples``), as one line of error when
    the folders cannot be made there.

    A file standing where a folder must go is found before anything is copied, so that
    the copy does not stop half-way (the rulesets' folders are made one after another).
    """
    from fracas.io.examples import copied_sources, copy_examples, examples_root

    root = examples_root()
    sources = copied_sources(names)
    folders = {destination / source.relative_to(root).parent for source in sources}
    for folder in sorted(folders):
        for path in (folder, *folder.parents):
            if path.exists():
                if not path.is_dir():
                    raise FracasError(
                        f"{path} is a file, not a folder: cannot copy examples into it"
                    )
                break
    try:
        return copy_examples(destination, names)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else destination
        raise FracasError(
            f"{where}: cannot copy the examples: {exc.strerror or type(exc).__name__}"
        ) from None


def examples_command(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="An example (hex/river_crossing, or river_crossing when the name is unique).",
        ),
    ] = None,
    output: OutputOpt = None,
    fmt: ListFormatOpt = ListFormat.text,
) -> None:
    """List the example scenarios that come with fracas, or copy them out to edit and run.

    Without NAME, lists them; with -o DIR, copies all of them into DIR (one folder per
    ruleset). With NAME, prints that scenario, or copies it to -o FILE (or into -o DIR).
    Existing files are never overwritten.

    \b
    Examples:
      fracas examples
      fracas examples -o examples
      fracas examples hex/river_crossing -o river.yaml
      fracas examples lair_raid
    """
    from fracas.io.examples import example_files, example_path

    if name is None:
        if output is not None:
            copied = _copy(output)
            total = len(example_files())
            if fmt is ListFormat.json:
                # The listing's shape, of the scenarios this copy wrote (the army lists
                # beside them are not scenarios).
                written = {path.relative_to(output).as_posix() for path in copied}
                listing = [
                    {"name": full, "title": _title(path)}
                    for full, path in example_files()
                    if full in written
                ]
                write_output(json.dumps(listing, indent=2, ensure_ascii=False) + "\n", None)
                return
            typer.echo(
                f"copied {len(copied)} of {total} examples into {output} (the rest were there)"
                if len(copied) < total
                else f"copied {total} examples into {output}"
            )
            return
        files = example_files()
        if fmt is ListFormat.json:
            listing = [{"name": full, "title": _title(path)} for full, path in files]
            write_output(json.dumps(listing, indent=2, ensure_ascii=False) + "\n", None)
            return
        width = max(len(full) for full, _ in files)
        lines = [f"{full:<{width}}  {_title(path)}".rstrip() for full, path in files]
        lines += ["", "Copy one out: fracas examples NAME -o FILE  (all of them: -o DIR)"]
        write_output("\n".join(lines) + "\n", None)
        return
    if fmt is ListFormat.json:
        raise FracasError(
            "--format json lists the examples; an example is the scenario file itself "
            "(fracas reads YAML, JSON and TOML alike)"
        )
    source = example_path(name)
    if output is not None and output.is_dir():
        copied = _copy(output, [name])
        typer.echo(f"wrote {copied[0]}" if copied else f"{name} is already in {output}")
        return
    if output is not None and output.exists():
        raise FracasError(f"{output} exists already; not overwriting it")
    write_output(source.read_text(encoding="utf-8"), output)
