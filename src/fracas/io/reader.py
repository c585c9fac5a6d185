"""Reading scenario text safely: size, nesting, aliases, integers and strings are bounded.

A scenario file is untrusted input. Before anything walks it (validation, hashing, error
messages), the reader makes sure it is small enough to walk: each bound is a named limit
(:mod:`fracas.core.limits`) with a default, raised with ``--limit NAME=VALUE``.

>>> parse_text("a: [1, 2]", "yaml", "x.yaml")
{'a': [1, 2]}
>>> try:
...     parse_text("a: " + "[" * 40 + "]" * 40, "yaml", "deep.yaml")
... except ScenarioError as error:
...     print(error.problem)
nested deeper than the limit input.depth = 32 (raise it with --limit input.depth=N)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fracas.core.errors import ScenarioError
from fracas.core.escape import digit_count, excerpt
from fracas.core.limits import LimitExceededError, how_to_raise, value
from fracas.io.bounds import (
    DEPTH,
    FILE_BYTES,
    INTEGER_DIGITS,
    NODES,
    PYTHON_DIGITS,
    TEXT_LENGTH,
    DuplicateKey,
    too_big,
)


def read_at_most(path: str | Path, most: int) -> bytes:
    """The bytes of ``path``, but no more than ``most`` and one: one more than ``most``
    means the file is too large. Read once (a pipe cannot be read again) and a piece at a
    time (one read of ``most`` would reserve all of it first); ``OSError`` passes through.

    >>> len(read_at_most("/dev/zero", 5))
    6
    """
    pieces, wanted = [], most + 1
    with open(path, "rb") as stream:
        while wanted > 0:
            piece = stream.read(min(wanted, 1 << 20))
            if not piece:
                break
            pieces.append(piece)
            wanted -= len(piece)
    return b"".join(pieces)


def read_text(path: str | Path) -> str:
    """The UTF-8 text of a scenario file, refusing a file above ``input.file_bytes``."""
    source = str(path)
    limit = value(FILE_BYTES.name)
    try:
        data = read_at_most(path, limit)
    except OSError as exc:
        raise ScenarioError(
            f"cannot read file: {exc.strerror or type(exc).__name__}", source=source
        ) from None
    if len(data) > limit:
        raise too_big(FILE_BYTES.name, "the file is larger than", source=source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("file is not UTF-8 text", source=source) from None


def _json_int(text: str) -> int:
    if len(text) > PYTHON_DIGITS:
        raise _IntegerTooLong(len(text))
    return int(text)


class _IntegerTooLong(Exception):
    def __init__(self, digits: int) -> None:
        self.digits = digits


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (the last one would silently win)."""
    document: dict[str, Any] = {}
    for key, item in pairs:
        if key in document:
            raise DuplicateKey(key)
        document[key] = item
    return document


def _too_deep(source: str, reader: str, reach: int) -> ScenarioError:
    """A text nested deeper than a reader can go (about ``reach`` levels): past our limit,
    or past the reader's own bound when the limit was raised above it."""
    if value(DEPTH.name) < reach:
        return too_big(DEPTH.name, "nested deeper than", source=source)
    return ScenarioError(f"nested deeper than {reader}, whatever input.depth allows", source=source)


def parse_text(text: str, fmt: str, source: str) -> Any:
    """Parse YAML, JSON or TOML text within the input limits (then :func:`check_document`).

    A key given twice in one mapping is refused: with most readers the last one would win
    without a word.

    >>> parse_text("a: 1\\nb: 2\\na: 3\\n", "yaml", "army.yaml")
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: army.yaml: line 3: the key 'a' is given twice
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        # Only text built in memory can hold a lone surrogate half; no file can.
        raise ScenarioError(
            f"not valid text: character {exc.start + 1} is half of a character "
            f"({text[exc.start]!a}), which UTF-8 cannot hold",
            source=source,
        ) from None
    if fmt in ("json", "toml"):
        # Windows editors start UTF-8 files with a byte order mark; YAML's reader skips it,
        # and so a file saved as JSON or TOML reads alike.
        text = text.removeprefix("\ufeff")
    # Each reader is imported with the first text of its kind: a command given a JSON file
    # loads no YAML reader.
    errors: tuple[type[Exception], ...]
    if fmt == "json":
        errors = (json.JSONDecodeError,)
    elif fmt == "toml":
        import tomllib

        errors = (tomllib.TOMLDecodeError,)
    else:
        import yaml

        from fracas.io.yamltext import read_yaml

        errors = (yaml.YAMLError,)
    try:
        if fmt == "json":
            document = json.loads(text, parse_int=_json_int, object_pairs_hook=_unique_pairs)
        elif fmt == "toml":
            document = tomllib.loads(text)
        else:
            document = read_yaml(text, source)
    except ScenarioError:
        raise
    except DuplicateKey as exc:
        where = f"line {exc.line}: " if exc.line is not None else ""
        raise ScenarioError(f"{where}the key {exc.key!r} is given twice", source=source) from None
    except errors as exc:
        detail = " ".join(str(exc).split())
        if "maximum nesting depth" in detail:  # libyaml's own bound, far above ours
            raise _too_deep(source, "the YAML reader goes (1,000 levels)", 1_000) from None
        raise ScenarioError(f"not valid {fmt.upper()}: {detail}", source=source) from None
    except _IntegerTooLong as exc:
        raise too_big(
            INTEGER_DIGITS.name, f"an integer of {exc.digits} digits is above", source=source
        ) from None
    except RecursionError:
        # A nested value costs a reader a few Python frames: a quarter of the recursion
        # limit is about as deep as any of them goes.
        reach = sys.getrecursionlimit() // 4
        raise _too_deep(source, f"Python reads (about {reach:,} levels)", reach) from None
    except ValueError as exc:
        # tomllib reads integers with int(), which refuses more than ~4,300 digits.
        if "digits" not in str(exc):
            raise
        raise too_big(INTEGER_DIGITS.name, "an integer is longer than", source=source) from None
    check_document(document, source=source)
    return document


def parse_value(text: str, *, source: str = "command line") -> Any:
    """A value given on the command line (``--set KEY=VALUE``), read as YAML within the limits.

    >>> parse_value("3"), parse_value("[1, 2]"), parse_value("a: b")
    (3, [1, 2], {'a': 'b'})
    """
    return parse_text(text, "yaml", source)


def check_document(document: Any, *, source: str | None = None) -> None:
    """Walk a parsed document once, without recursion, within depth, node, integer and text limits.

    YAML aliases are walked at every use, so an alias bomb stops at ``input.nodes``.
    """
    max_depth = value(DEPTH.name)
    max_nodes = value(NODES.name)
    max_digits = value(INTEGER_DIGITS.name)
    max_text = value(TEXT_LENGTH.name)
    # Integers below this have at most max_digits digits; only bigger ones are counted.
    small = 10**max_digits
    nodes = 1
    check_leaf(document, (), source, small, max_digits, max_text)
    stack: list[tuple[Any, tuple[str | int, ...]]] = []
    if isinstance(document, Mapping | list | tuple):
        stack.append((document, ()))
    while stack:
        node, path = stack.pop()
        if len(path) >= max_depth:
            raise _deep(path, source)
        nodes += len(node)
        if nodes > max_nodes:
            raise too_big(NODES.name, "more values than", source=source or "<memory>")
        is_mapping = isinstance(node, Mapping)
        items = node.items() if is_mapping else enumerate(node)
        # The common types are tested by exact type first: an alias bomb's 200,000 values
        # are walked in milliseconds, not seconds.
        for key, item in items:
            if is_mapping and type(key) is str and len(key) > max_text:
                raise _long_text(key, path, source, max_text, what="a key")
            kind = type(item)
            if kind is str:
                if len(item) > max_text:
                    raise _long_text(item, (*path, _key_part(key)), source, max_text, what="a text")
            elif kind is int:
                if not -small < item < small:
                    check_leaf(item, (*path, _key_part(key)), source, small, max_digits, max_text)
            elif kind is dict or kind is list:
                stack.append((item, (*path, _key_part(key))))
            elif kind is float or kind is bool or item is None:
                pass
            elif isinstance(item, Mapping | list | tuple):
                stack.append((item, (*path, _key_part(key))))
            else:
                check_leaf(item, (*path, _key_part(key)), source, small, max_digits, max_text)


def _key_part(key: Any) -> str | int:
    return key if isinstance(key, str | int) and not isinstance(key, bool) else str(key)


def check_leaf(
    item: Any,
    path: tuple[str | int, ...],
    source: str | None,
    small: int,
    max_digits: int,
    max_text: int,
) -> None:
    """The integer and text limits for one value."""
    if isinstance(item, int) and not isinstance(item, bool) and not -small < item < small:
        digits = digit_count(item)
        if digits > max_digits:
            raise LimitExceededError(
                f"an integer of {digits} digits is above the limit {INTEGER_DIGITS.name} = "
                f"{max_digits}{how_to_raise(INTEGER_DIGITS.name)}",
                source=source,
                path=path[:8],
            )
    elif isinstance(item, str) and len(item) > max_text:
        raise _long_text(item, path, source, max_text, what="a text")


def _deep(path: tuple[str | int, ...], source: str | None) -> ScenarioError:
    return LimitExceededError(
        f"nested deeper than the limit {DEPTH.name} = {value(DEPTH.name)}"
        f"{how_to_raise(DEPTH.name)}",
        source=source,
        path=path[:8],
    )


def _long_text(
    text: str, path: tuple[str | int, ...], source: str | None, limit: int, *, what: str
) -> ScenarioError:
    return LimitExceededError(
        f"{what} of {len(text)} characters ({excerpt(text, 20)}) is above the limit "
        f"{TEXT_LENGTH.name} = {limit}{how_to_raise(TEXT_LENGTH.name)}",
        source=source,
        path=path[:8],
    )
