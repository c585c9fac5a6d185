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
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from fracas.core.errors import ScenarioError
from fracas.core.escape import digit_count, excerpt
from fracas.core.limits import LimitExceededError, declare, how_to_raise, value

FILE_BYTES = declare("input.file_bytes", 4_000_000, "bytes of a scenario file")
DEPTH = declare("input.depth", 32, "levels of nesting of mappings and lists in a scenario")
NODES = declare(
    "input.nodes", 100_000, "values in a scenario, counting each use of a YAML alias again"
)
ALIASES = declare("input.aliases", 1_000, "YAML aliases (*name) in a scenario file")
INTEGER_DIGITS = declare("input.integer_digits", 20, "digits of an integer in a scenario")
TEXT_LENGTH = declare("input.text_length", 10_000, "characters of one string or key")

# Python refuses to read integers longer than this (sys.get_int_max_str_digits); the
# readers check first, so such an integer is a limit error like any other too-long one.
_PYTHON_DIGITS = 4_000


def _too_big(limit: str, problem: str, *, source: str, line: int | None = None) -> ScenarioError:
    where = f"line {line}: " if line is not None else ""
    return LimitExceededError(
        f"{where}{problem} the limit {limit} = {value(limit)}{how_to_raise(limit)}",
        source=source,
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
        raise _too_big(FILE_BYTES.name, "the file is larger than", source=source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("file is not UTF-8 text", source=source) from None


def _bounded_int(loader: yaml.SafeLoader, node: yaml.ScalarNode, source: str) -> int:
    """YAML's integer, refused before Python's own digit limit turns it into a ValueError."""
    if len(node.value) > _PYTHON_DIGITS:
        raise _too_big(
            INTEGER_DIGITS.name,
            f"an integer of {len(node.value)} digits is above",
            source=source,
            line=node.start_mark.line + 1,
        )
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _bounded_float(loader: yaml.SafeLoader, node: yaml.ScalarNode, source: str) -> float:
    """YAML's float; YAML 1.1's base-60 form (``1:30.5``) can hold a number no float
    holds, which PyYAML lets out as an OverflowError."""
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    except OverflowError:
        line = node.start_mark.line + 1
        raise ScenarioError(
            f"line {line}: a number too large for a float ({len(node.value):,} characters)",
            source=source,
        ) from None


class _CheckedKeys:
    """A loader that refuses a key given twice, checked on each mapping's own keys before
    ``<<`` merges rewrite them (PyYAML flattens a mapping in place, the first time it is
    built or merged into another, whichever comes first)."""

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        checked: set[int] = self.__dict__.setdefault("_checked_mappings", set())
        if id(node) not in checked:
            checked.add(id(node))
            _refuse_repeated_keys(self, node)  # type: ignore[arg-type]
        super().flatten_mapping(node)  # type: ignore[misc]


class _BoundedLoader(_CheckedKeys, yaml.SafeLoader):
    """PyYAML's safe loader, counting nesting and aliases while it composes the document."""

    def __init__(self, stream: str, source: str) -> None:
        super().__init__(stream)
        self.source = source
        self.depth = 0
        self.aliases = 0
        self.max_depth = value(DEPTH.name)
        self.max_aliases = value(ALIASES.name)

    def _line(self) -> int | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        return event.start_mark.line + 1 if event and event.start_mark else None

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > self.max_aliases:
                raise _too_big(
                    ALIASES.name, "more aliases than", source=self.source, line=self._line()
                )
        self.depth += 1
        try:
            if self.depth > self.max_depth + 1:
                raise _too_big(
                    DEPTH.name, "nested deeper than", source=self.source, line=self._line()
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        return _bounded_int(self, node, self.source)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        return _bounded_float(self, node, self.source)


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)
_BoundedLoader.add_constructor("tag:yaml.org,2002:float", _BoundedLoader.construct_yaml_float)

_CSafeLoader: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_FastLoader: type[yaml.SafeLoader] | None = None
if _CSafeLoader is not None:

    class _LibyamlLoader(_CheckedKeys, _CSafeLoader):  # type: ignore[misc, valid-type]
        """libyaml's loader (five times faster on a large board), integers bounded.

        libyaml refuses more than 1,000 levels of nesting itself; aliases cannot be counted
        inside it, so a text with more ``*`` than ``input.aliases`` goes to the counting
        loader instead.
        """

        source = "<memory>"

        def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
            return _bounded_int(self, node, self.source)

        def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
            return _bounded_float(self, node, self.source)

    _LibyamlLoader.add_constructor("tag:yaml.org,2002:int", _LibyamlLoader.construct_yaml_int)
    _LibyamlLoader.add_constructor("tag:yaml.org,2002:float", _LibyamlLoader.construct_yaml_float)
    _FastLoader = _LibyamlLoader


def _yaml_loader(text: str, source: str) -> yaml.SafeLoader:
    if _FastLoader is not None and text.count("*") <= value(ALIASES.name):
        loader = _FastLoader(text)
        loader.source = source  # type: ignore[attr-defined]
        return loader
    return _BoundedLoader(text, source)


def _json_int(text: str) -> int:
    if len(text) > _PYTHON_DIGITS:
        raise _IntegerTooLong(len(text))
    return int(text)


class _IntegerTooLong(Exception):
    def __init__(self, digits: int) -> None:
        self.digits = digits


class _DuplicateKey(Exception):
    def __init__(self, key: object, line: int | None = None) -> None:
        self.key = key
        self.line = line


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (the last one would silently win)."""
    document: dict[str, Any] = {}
    for key, item in pairs:
        if key in document:
            raise _DuplicateKey(key)
        document[key] = item
    return document


def _refuse_repeated_keys(loader: yaml.SafeLoader, node: yaml.MappingNode) -> None:
    """A YAML mapping whose keys, as read, are all different (``1``, ``0x1`` and ``1.0`` are
    the same key). Keys merged in with ``<<`` may be overridden, so only the mapping's own count."""
    seen: set[Any] = set()  # as a dict sees keys: 1, 1.0 and true are one key
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        value = loader.construct_object(key)
        if value in seen:
            line = key.start_mark.line + 1 if key.start_mark else None
            raise _DuplicateKey(key.value, line)
        seen.add(value)


def _too_deep(source: str, reader: str, reach: int) -> ScenarioError:
    """A text nested deeper than a reader can go (about ``reach`` levels): past our limit,
    or past the reader's own bound when the limit was raised above it."""
    if value(DEPTH.name) < reach:
        return _too_big(DEPTH.name, "nested deeper than", source=source)
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
    try:
        if fmt == "json":
            document = json.loads(text, parse_int=_json_int, object_pairs_hook=_unique_pairs)
        elif fmt == "toml":
            document = tomllib.loads(text)
        else:
            loader = _yaml_loader(text, source)
            try:
                document = loader.get_single_data()
            finally:
                loader.dispose()
    except ScenarioError:
        raise
    except _DuplicateKey as exc:
        where = f"line {exc.line}: " if exc.line is not None else ""
        raise ScenarioError(f"{where}the key {exc.key!r} is given twice", source=source) from None
    except (yaml.YAMLError, json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        detail = " ".join(str(exc).split())
        if "maximum nesting depth" in detail:  # libyaml's own bound, far above ours
            raise _too_deep(source, "the YAML reader goes (1,000 levels)", 1_000) from None
        raise ScenarioError(f"not valid {fmt.upper()}: {detail}", source=source) from None
    except _IntegerTooLong as exc:
        raise _too_big(
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
        raise _too_big(INTEGER_DIGITS.name, "an integer is longer than", source=source) from None
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
            raise _too_big(NODES.name, "more values than", source=source or "<memory>")
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
