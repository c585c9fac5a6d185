"""The canonical form of a scenario document, and the hash taken over it.

Two files that mean the same scenario get the same hash: the hash is taken over the
parsed document (after ``--set`` overrides) rewritten in one canonical form, not over the
file's bytes. Comments, key order, quoting, indentation, YAML vs JSON vs TOML, line endings
and a missing final newline therefore do not change it; any change of a value does.

The canonical form (``fracas-canonical-1``) is compact JSON, UTF-8, keys sorted, with

* text in Unicode NFC with ``\\n`` line ends (``\\r\\n`` and ``\\r`` become ``\\n``),
* whole numbers written as integers (``3.0`` is ``3``; ``-0.0`` is ``0``), other numbers in
  the shortest form that reads back to the same float,
* dates and times as ISO 8601 text, integer keys as text.

A scenario is built *from* its canonical document, so the hash names exactly what is played.

>>> canonical_json(canonical_document({"b": 1.0, "a": "x\\r\\ny", "c": [2.50, -0.0]}))
'{"a":"x\\\\ny","b":1,"c":[2.5,0]}'
>>> scenario_sha256({"b": 1, "a": 2}) == scenario_sha256({"a": 2, "b": 1.0})
True
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from fracas.core.errors import ScenarioError

CANONICAL_FORM = "fracas-canonical-1"

#: Floats beyond this size are not turned into integers (they are not exact integers).
_EXACT_FLOAT_INTEGERS = 2**53


def _text(value: str) -> str:
    if value.isascii():  # ASCII text is already NFC
        return value if "\r" not in value else value.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n"))


class _Misfit(Exception):
    """A value JSON cannot carry; ``where`` gathers its key path from the inside out as
    the error passes each level (no path is built while nothing is wrong)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.where: list[str | int] = []


def canonical_document(
    document: Any, *, source: str | None = None, _path: tuple[str | int, ...] = ()
) -> Any:
    """``document`` rewritten in canonical form (a new object; the input is not changed).

    Raises one :class:`ScenarioError` naming the key path of a value JSON cannot carry
    (a NaN or infinite number, binary data, a key that is neither text nor integer).

    >>> canonical_document({"when": datetime.date(2024, 5, 1), 3: "Cafe\\u0301"})
    {'when': '2024-05-01', '3': 'Café'}
    >>> canonical_document({"units": [{"pax": float("nan")}]})
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: units[0].pax: must be a finite number (got nan)
    """
    try:
        return _canonical(document)
    except _Misfit as misfit:
        path = (*_path, *reversed(misfit.where))
        raise ScenarioError(misfit.problem, source=source, path=path) from None


def _canonical(document: Any) -> Any:
    kind = type(document)
    # The types a parsed file holds, by exact type first: a big board is walked in
    # milliseconds.
    if kind is str:
        return _text(document)
    if kind is int or document is None or kind is bool:
        return document
    if kind is float:
        return _number(document)
    if kind is dict:
        return _mapping(document)
    if kind is list:
        return _sequence(document)
    # Any other type by what it is, text first: a str subclass (a StrEnum) is text, and
    # comes out as plain text like an int subclass comes out as a plain int.
    if isinstance(document, str):
        return _text(str.__str__(document))
    if isinstance(document, int):
        return int(document)
    if isinstance(document, float):
        return _number(document)
    if isinstance(document, Mapping):
        return _mapping(document)
    if isinstance(document, list | tuple):
        return _sequence(document)
    if isinstance(document, datetime.date | datetime.time):
        return document.isoformat()
    raise _Misfit(f"a value of type {type(document).__name__} cannot be part of a scenario")


def _number(number: float) -> int | float:
    if not math.isfinite(number):
        raise _Misfit(f"must be a finite number (got {number})")
    if number.is_integer() and abs(number) <= _EXACT_FLOAT_INTEGERS:
        return int(number)
    return number


def _mapping(document: Mapping[Any, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in document.items():
        if type(key) is str:
            name = _text(key)
        elif isinstance(key, bool) or not isinstance(key, str | int):
            raise _Misfit(f"a key must be text, not {type(key).__name__} {key!r}")
        else:
            name = _text(str.__str__(key)) if isinstance(key, str) else str(key)
        if name in result:
            misfit = _Misfit("the same key twice (once as text, once as a number)")
            misfit.where.append(name)
            raise misfit
        try:
            result[name] = _canonical(value)
        except _Misfit as misfit:
            misfit.where.append(name)
            raise
    return result


def _sequence(document: list[Any] | tuple[Any, ...]) -> list[Any]:
    items = []
    for index, item in enumerate(document):
        try:
            items.append(_canonical(item))
        except _Misfit as misfit:
            misfit.where.append(index)
            raise
    return items


def canonical_json(document: Any) -> str:
    """The canonical JSON text of an already canonical document."""
    text = json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    # A lone surrogate (a JSON "\\ud800" in the file) has no UTF-8 bytes to hash; JSON's
    # own escape spells it, so the text stays valid UTF-8 and the hash well defined.
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def scenario_sha256(document: Any) -> str:
    """The full SHA-256 (64 hex digits) of the canonical form of ``document``.

    Reports print its first 16 digits; the fair-dice protocol uses all 64.
    """
    return canonical_sha256(canonical_document(document))


def canonical_sha256(document: Any) -> str:
    """:func:`scenario_sha256` of a document already in canonical form (it is not walked
    again).

    >>> canonical_sha256({"a": 2, "b": 1}) == scenario_sha256({"b": 1.0, "a": 2})
    True
    """
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()
