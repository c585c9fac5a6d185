"""Pieces shared by the CLI commands: output formats, options, error handling, output."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from fracas.core.errors import FracasError, ScenarioError
from fracas.core.escape import one_line
from fracas.core.limits import UnknownLimitError, check_names

if TYPE_CHECKING:  # imported where used: `fracas --help` needs none of them
    from fracas.core.report import Report
    from fracas.io.scenario import Scenario

EXIT_BAD_INPUT = 2
#: A bug in fracas itself (never the input's fault): sysexits' EX_SOFTWARE.
EXIT_INTERNAL = 70
#: The longest error line printed.
MESSAGE_LENGTH = 500


class Format(StrEnum):
    text = "text"
    markdown = "markdown"
    bbcode = "bbcode"
    json = "json"


class ListFormat(StrEnum):
    """Formats of the listings (rulesets, examples, validate): for people or for programs."""

    text = "text"
    json = "json"


#: Width of text output when it is not a terminal (a pipe, a file): reproducible bytes.
DEFAULT_WIDTH = 100


def terminal_width() -> int:
    """Columns of the terminal on stdout; ``COLUMNS`` if set; else :data:`DEFAULT_WIDTH`.

    Never narrower than 40 columns, so a table keeps its words whole.
    """
    columns = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return max(40, columns)


class Forum(StrEnum):
    """BBCode dialects (see ``fracas.io.render.FORUM_SIZES``)."""

    phpbb = "phpbb"
    vbulletin = "vbulletin"
    plain = "plain"


F = TypeVar("F", bound=Callable[..., Any])


def error_line(message: str) -> str:
    """The one line an error prints: printable, bounded, whatever the message holds."""
    return f"fracas: error: {one_line(message, MESSAGE_LENGTH)}"


def friendly_errors(command: F) -> F:
    """The one place a command's failure becomes one line on stderr (never a traceback).

    Bad input (any :class:`FracasError`) exits with 2. Anything else is a bug in fracas:
    one line saying so, exit code 70; ``FRACAS_DEBUG=1`` shows the traceback instead.
    """

    from fracas.core.limits import raisable_limits

    # A limit error tells how to raise the limit only where the command takes --limit.
    takes_limits = "limits" in inspect.signature(command).parameters

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _READ.clear()
        try:
            with raisable_limits(takes_limits):
                return command(*args, **kwargs)
        except FracasError as exc:
            typer.echo(error_line(str(exc)), err=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if os.environ.get("FRACAS_DEBUG"):
                raise
            problem = f"{type(exc).__name__}: {exc}"
            typer.echo(
                error_line(f"internal error, please report it with the scenario ({problem})"),
                err=True,
            )
            raise typer.Exit(EXIT_INTERNAL) from None

    return wrapper  # type: ignore[return-value]


@contextmanager
def located(file: Path) -> Iterator[None]:
    """Name ``file`` in scenario errors raised inside (ruleset hooks don't know the file)."""
    try:
        yield
    except ScenarioError as exc:
        raise exc.located(str(file)) from None


#: The files the running command has read: its output must not replace one of them.
_READ: list[Path] = []


def reading(path: Path) -> Path:
    """Note that the running command reads ``path`` (see :func:`write_output`)."""
    _READ.append(path)
    return path


def _is_read(output: Path) -> bool:
    # By name too: a file the command reads may not be there yet (a database's -wal).
    named = os.path.realpath(output)
    for path in _READ:
        if os.path.realpath(path) == named:
            return True
        with contextlib.suppress(OSError):
            if os.path.samefile(path, output):
                return True
    return False


def names_a_file(output: Path | None) -> bool:
    """Whether ``-o output`` makes a file of its own: not standard output (``-``), not a
    device or pipe (``/dev/null``), not an open descriptor's name (``/dev/stdout``,
    ``/proc/self/fd/1``, which may stand for a file opened to append to). Those are
    written where they are; a file is replaced whole."""
    if output is None or str(output) == "-" or _is_descriptor(output):
        return False
    try:
        return stat.S_ISREG(os.stat(output).st_mode)  # of what a link points to
    except OSError:
        return True  # a new file


def write_output(text: str, output: Path | None) -> None:
    """Print ``text`` (also for ``-o -``), or write it to ``output`` atomically (all or nothing).

    A symbolic link is written through (the file it points to is replaced, the link
    stays), a device or pipe such as ``/dev/null`` is written to as it is, and a file
    replaced keeps its permissions. A file the command reads is never replaced. Every
    command confirms a file written the same way: ``wrote PATH`` on stderr, which leaves
    standard output to the answer.
    """
    if output is None or str(output) == "-":
        if sys.stdout is None:  # started with standard output closed (`>&-`)
            raise ScenarioError("cannot write output: standard output is closed", source="-")
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = str(output)
    _check_target(output, target)
    if not names_a_file(output):
        _write_through(text, output, target)
        return
    _replace_atomically(text, output, target)
    typer.echo(f"wrote {target}", err=True)


def chart_beside(data: bytes, path: Path) -> Path:
    """Write a chart's ``data`` to a hidden file beside ``path``, to be renamed into place
    once everything else succeeded; a write that fails (a full disk) leaves no file."""
    directory = path.parent if str(path.parent) else Path(".")
    name = ""
    try:
        handle, name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
    except OSError as exc:
        if name:
            with contextlib.suppress(OSError):
                os.unlink(name)
        raise FracasError(f"{path}: cannot write the chart: {exc.strerror}") from None
    # mkstemp makes private files; give the chart the permissions a plain open() would.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(name, 0o666 & ~umask)
    return Path(name)


def check_apart(output: Path | None, plot: Path | None) -> None:
    """Refuse a chart written where the report goes: one would overwrite the other.

    >>> check_apart(Path("odds.svg"), Path("./odds.svg"))
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: --plot: odds.svg is the -o file too; name two files
    """
    if output is None or plot is None or str(output) == "-":
        return
    if os.path.realpath(output) == os.path.realpath(plot):
        raise ScenarioError(f"{plot} is the -o file too; name two files", path=("--plot",))


def check_output(output: Path | None) -> None:
    """Refuse ``output`` now, as :func:`write_output` would later, when it cannot be
    written: a command that records what it did (a campaign's battle) checks before it
    records, so that a post it cannot write leaves nothing recorded.

    >>> check_output(None); check_output(Path("-"))
    >>> check_output(Path("/"))
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: /: cannot write output: this is a directory, not a file
    """
    if output is None or str(output) == "-":
        return
    target = str(output)
    _check_target(output, target)
    if not names_a_file(output):
        return  # a device or a pipe: written to as it is
    real = Path(os.path.realpath(output))
    directory = real.parent if str(real.parent) else Path(".")
    if not directory.is_dir():
        raise ScenarioError("cannot write output: No such file or directory", source=target)
    writable = os.access(real, os.W_OK) if real.exists() else True
    if not writable or not os.access(directory, os.W_OK | os.X_OK):
        raise ScenarioError("cannot write output: Permission denied", source=target)


def _check_target(output: Path, target: str) -> None:
    # Path("") is "." and Path("/").name is "": neither names a file to write.
    if not target or not output.name or output.is_dir():
        raise ScenarioError("cannot write output: this is a directory, not a file", source=target)
    if _is_read(output):
        raise ScenarioError(
            "cannot write output: this is a file the command reads; choose another -o",
            source=target,
        )


def _replace_atomically(text: str, output: Path, target: str) -> None:
    try:
        mode: int | None = os.stat(output).st_mode  # kept by the file that replaces it
    except OSError:
        mode = None
    if mode is not None and not os.access(output, os.W_OK):
        raise ScenarioError("cannot write output: Permission denied", source=target)
    output = Path(os.path.realpath(output))
    directory = output.parent if str(output.parent) else Path(".")
    made: list[str] = []
    with _removed_if_terminated(made):
        # A SIGTERM between making the file and naming it in `made` would leave it behind:
        # it waits until the name is there.
        with _terminate_held():
            try:
                handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{output.name}.")
            except OSError as exc:
                raise ScenarioError(
                    f"cannot write output: {exc.strerror or type(exc).__name__}", source=target
                ) from None
            made.append(temporary)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", errors="surrogateescape") as stream:
                stream.write(text)
            if mode is not None:
                os.chmod(temporary, stat.S_IMODE(mode))
            else:
                # mkstemp makes private files; give a new file the permissions open() would.
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temporary, 0o666 & ~umask)
            os.replace(temporary, output)
        except OSError as exc:
            raise ScenarioError(
                f"cannot write output: {exc.strerror or type(exc).__name__}", source=target
            ) from None
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)


@contextmanager
def _removed_if_terminated(made: list[str]) -> Iterator[None]:
    """While the block runs, SIGTERM first removes the temporary files named in ``made``
    (by then), then ends the process as SIGTERM does: a stopped command leaves no hidden
    half-written file behind.
    (Ctrl+C raises KeyboardInterrupt, which the caller's ``finally`` already handles.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return

    def terminated(number: int, frame: Any) -> None:
        for temporary in made:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        signal.signal(number, previous if callable(previous) else signal.SIG_DFL)
        signal.raise_signal(number)

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _terminate_held() -> Iterator[None]:
    """While the block runs, a SIGTERM waits (POSIX); it arrives as the block ends."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


#: The names of open descriptors: the standard streams and /dev/fd/N, /proc/PID/fd/N.
_DESCRIPTOR = re.compile(r"/(dev/(stdin|stdout|stderr|fd/\d+)|proc/[^/]+/fd/\d+)")


def _is_descriptor(output: Path) -> bool:
    """Whether ``output`` names an open descriptor (``/dev/stdout``, ``/proc/self/fd/1``):
    the shell's file behind it (``>> log``) is written where it is, never replaced."""
    return _DESCRIPTOR.fullmatch(str(output.absolute())) is not None


def _write_through(text: str, output: Path, target: str) -> None:
    """Write to a device, pipe or descriptor (``/dev/null``, ``/dev/stdout``): it cannot be
    replaced. Opened to append: reopening ``/dev/stdout`` to write would empty the file the
    shell opened for ``>>``."""
    try:
        with output.open("a", encoding="utf-8", errors="surrogateescape") as stream:
            stream.write(text)
    except OSError as exc:
        raise ScenarioError(
            f"cannot write output: {exc.strerror or type(exc).__name__}", source=target
        ) from None


def parse_overrides(settings: list[str] | None) -> list[tuple[str, Any]]:
    """``KEY.PATH=VALUE`` pairs; values are read as YAML scalars (3, 0.5, true, text)."""
    from fracas.io.reader import parse_value

    pairs: list[tuple[str, Any]] = []
    for setting in settings or []:
        path, equals, raw = setting.partition("=")
        if not equals or not path:
            raise ScenarioError(
                f"--set expects KEY.PATH=VALUE, got {setting!r}", source="command line"
            )
        try:
            value = parse_value(raw, source="--set")
        except ScenarioError as exc:
            if not exc.problem.startswith("not valid"):
                raise  # too deep, too long: a limit, not a plain word
            value = raw
        pairs.append((path.strip(), value))
    return pairs


def output_width(output: Path | None) -> int:
    """Text width for ``output``: the terminal's for stdout, the default for a file."""
    return terminal_width() if output is None or str(output) == "-" else DEFAULT_WIDTH


#: The most any ``--limit`` may be set to: the largest size a read or a count may take.
LIMIT_CEILING = sys.maxsize


def parse_limits(settings: list[str] | None) -> dict[str, int]:
    """``NAME=VALUE`` pairs of ``--limit``, checked against the limits fracas declares."""
    limits: dict[str, int] = {}
    if not settings:
        return limits
    # Limits are declared where they bound work, some in modules a command loads late:
    # every one of them is known to every command that takes --limit.
    import fracas.core.budgets
    import fracas.io.scenario
    import fracas.rulesets  # noqa: F401 - it has the rulesets' own limits declared on demand

    for setting in settings:
        name, equals, raw = setting.partition("=")
        raw = raw.strip().replace("_", "")
        if not equals or not (raw.isascii() and raw.isdigit()) or len(raw) > 30:
            raise ScenarioError(f"expects NAME=WHOLE_NUMBER, got {setting!r}", source="--limit")
        if int(raw) > LIMIT_CEILING:
            # Sizes and counts beyond a machine word cannot be honoured by any reader.
            raise ScenarioError(
                f"{name.strip()}: {int(raw):,} is more than any limit can be "
                f"(at most {LIMIT_CEILING:,})",
                source="--limit",
            )
        limits[name.strip()] = int(raw)
    try:
        check_names(limits)
    except UnknownLimitError as exc:
        raise ScenarioError(str(exc), source="--limit") from None
    return limits


def render(report: Report, fmt: Format, output: Path | None = None) -> str:
    """``report`` in ``fmt``; text fits the terminal when it goes to stdout."""
    from fracas.io.render import render_report

    return render_report(report, fmt.value, width=output_width(output))


FileArg = Annotated[
    Path, typer.Argument(metavar="FILE", help="Scenario file (.yaml, .json or .toml).")
]
ListFormatOpt = Annotated[
    ListFormat, typer.Option("--format", "-f", metavar="text|json", help="Output format.")
]
FormatOpt = Annotated[
    Format,
    typer.Option("--format", "-f", metavar="text|markdown|bbcode|json", help="Output format."),
]


def output_path(text: str) -> Path:
    """An ``-o`` value as a path; an empty one is refused (``Path("")`` would be the
    current folder, where ``examples -o`` copies and other commands fail late)."""
    if not text.strip():
        raise typer.BadParameter("an empty path names no file or folder")
    return Path(text)


OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="PATH",
        parser=output_path,
        help="Write to this file instead of stdout.",
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Override a scenario value before loading, e.g. --set units[0].level=5 "
        "or --set parameters.loss_exponent=3. Repeatable.",
    ),
]
ForumOpt = Annotated[
    Forum,
    typer.Option(
        metavar="phpbb|vbulletin|plain",
        help="BBCode dialect: phpbb ([size=150], percent), vbulletin ([size=5], 1–7; also "
        "MyBB, SMF), plain (no [size]).",
    ),
]
AsciiOpt = Annotated[
    bool,
    typer.Option("--ascii", help="Only ASCII characters (x, -, -> for ×, −, →)."),
]
FoldOpt = Annotated[
    bool,
    typer.Option(
        "--fold", help="Fold the step-by-step sections ([spoiler], <details>) under the outcome."
    ),
]
LimitOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--limit",
        metavar="NAME=VALUE",
        help="Raise a limit or work budget, e.g. --limit budget.resolve=10000000 or "
        "--limit input.file_bytes=50000000 (docs/limits.md lists them). Repeatable.",
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        min=0, metavar="N", help="Seed for the dice (default: the scenario's seed, else 0)."
    ),
]


def load(
    file: Path, settings: list[str] | None = None, limits: list[str] | None = None
) -> Scenario:
    from fracas.core.limits import limits_in_force
    from fracas.io.scenario import load_scenario

    raised = parse_limits(limits)
    # A --set value is read under the limits the command line raised, as the file is.
    with limits_in_force(raised):
        overrides = parse_overrides(settings)
    return load_scenario(reading(file), overrides=overrides, limits=raised)
