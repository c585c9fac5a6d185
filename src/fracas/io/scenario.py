"""Scenario files: YAML, JSON or TOML documents with a versioned header.

>>> try:
...     parse_scenario("fracas: 2\\nruleset: hex\\n", source="old.yaml")
... except ScenarioError as error:
...     print(error.source, error.path, error.problem)
old.yaml ('fracas',) unsupported schema version 2; this fracas reads 1
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fracas.core.errors import FracasError, ScenarioError
from fracas.core.escape import digit_count, excerpt
from fracas.core.limits import budget, check, current_overrides, declare, limits_in_force
from fracas.core.report import Report
from fracas.core.schema import SCHEMA_VERSION, Document, validate
from fracas.io.bounds import INTEGER_DIGITS
from fracas.io.canonical import canonical_document, canonical_sha256
from fracas.io.reader import check_document, parse_text, read_text
from fracas.rulesets import AnyRuleset, find_ruleset
from fracas.rulesets.base import TOP

FORMATS = ("yaml", "json", "toml")

# Work budgets, counted in the ruleset's own steps: one die rolled, or (hex) one combat worked
# out and, for advise, one attacker-target pair examined. See docs/limits.md.
RESOLVE_BUDGET = declare("budget.resolve", 100_000, "steps of one resolve")
FORECAST_BUDGET = declare("budget.forecast", 100_000, "steps of one forecast")
ADVISE_BUDGET = declare("budget.advise", 5_000_000, "steps of one advise")


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: the ruleset, its validated model and where it came from."""

    ruleset: AnyRuleset
    header: Document
    model: Any
    source: str
    #: First 16 hex digits of :attr:`canonical_sha256`, as reports print it.
    sha256: str
    #: The canonical document (``--set`` overrides applied), the one that is played.
    document: Mapping[str, Any]
    #: ``--set`` overrides applied on top of the file, as ``path=value`` (JSON values).
    overrides: tuple[str, ...] = ()
    #: SHA-256 of the canonical document (see :mod:`fracas.io.canonical`), 64 hex digits.
    canonical_sha256: str = ""
    #: Limits raised (or lowered) for this scenario, by name (see docs/limits.md).
    limits: Mapping[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        """Short: ruleset, title, file and hash (the model and document are attributes)."""
        title = f" {self.header.title!r}" if self.header.title else ""
        changes = f", --set {' '.join(self.overrides)}" if self.overrides else ""
        return (
            f"Scenario({self.ruleset.name}{title} from {self.source}, "
            f"sha256:{self.sha256}{changes})"
        )

    def resolve(self, *, seed: int | None = None) -> Report:
        """Resolve with ``seed`` (default: the scenario's own ``seed``, else 0).

        The work is bounded by the budget ``budget.resolve`` (raise it through ``limits``).
        """
        chosen = seed if seed is not None else (self.header.seed or 0)
        with self.budget(RESOLVE_BUDGET.name):
            digits = digit_count(chosen)
            check(INTEGER_DIGITS.name, digits, path=("seed",), shown=f"a seed of {digits} digits")
            report = self.ruleset.resolve(self.model, seed=chosen)
        return self.stamp(report)

    def forecast(self, attacker: str, target: str) -> Report:
        """Preview one attack (rulesets that can), within the budget ``budget.forecast``."""
        with self.budget(FORECAST_BUDGET.name):
            return self.stamp(self.ruleset.forecast(self.model, attacker, target))

    def advise(self, side: str, *, top: int | None = TOP) -> Report:
        """Rank the actions of ``side`` (rulesets that can), within ``budget.advise``;
        people see the best ``top`` (``None``: all), the data keeps every one."""
        with self.budget(ADVISE_BUDGET.name):
            return self.stamp(self.ruleset.advise(self.model, side, top=top))

    @contextmanager
    def budget(self, name: str) -> Iterator[None]:
        """Run the block with this scenario's limits and the work budget ``name``."""
        try:
            with limits_in_force(self.limits), budget(name, "steps"):
                yield
        except ScenarioError as exc:
            raise exc.located(self.source) from None

    def stamp(self, report: Report) -> Report:
        """Add the scenario's source, hash and overrides to a report."""
        return replace(
            report, source=self.source, scenario_hash=self.sha256, overrides=self.overrides
        )


def _format_of(source: str) -> str:
    suffix = Path(source).suffix.lower()
    if suffix in (".json",):
        return "json"
    if suffix in (".toml",):
        return "toml"
    return "yaml"


def _parse_text(text: str, fmt: str, source: str) -> Any:
    return parse_text(text, fmt, source)


def scenario_from_document(
    document: Any, *, source: str = "<memory>", limits: Mapping[str, int] | None = None
) -> Scenario:
    """Validate an already parsed document (a dict) and load it with its ruleset.

    The document is first put in canonical form (:mod:`fracas.io.canonical`); that form is
    what is validated, played and hashed. ``limits`` raises named limits (see
    ``docs/limits.md``), e.g. ``{"input.nodes": 10**6}``.
    """
    with limits_in_force(limits):
        return _in_force(_from_document(document, source))


def _in_force(scenario: Scenario) -> Scenario:
    """``scenario`` with the limits in force while it was loaded."""
    return replace(scenario, limits=dict(current_overrides()))


def _from_document(document: Any, source: str, *, checked: bool = False) -> Scenario:
    if not isinstance(document, Mapping):
        # Said as a file's author knows it: "not NoneType" was an empty file.
        problem = (
            "the scenario is empty: it is a mapping of keys (fracas: 1, ruleset: …)"
            if document is None
            else f"a scenario must be a mapping of keys, not {excerpt(document)}"
        )
        raise ScenarioError(problem, source=source)
    # Nothing walks the document (canonical form, validation, hashing, messages) before it
    # is known to be small enough (``checked``: the reader has just walked it).
    if not checked:
        check_document(document, source=source)
    document = canonical_document(document, source=source)
    if "ruleset" not in document:
        raise ScenarioError("missing key", source=source, path=("ruleset",))
    if document.get("fracas") != SCHEMA_VERSION:
        raise ScenarioError(
            f"unsupported schema version {document.get('fracas')!r}; this fracas reads 1",
            source=source,
            path=("fracas",),
            hint="start the file with 'fracas: 1'",
        )
    try:
        ruleset = find_ruleset(str(document["ruleset"]))
    except FracasError as exc:
        raise ScenarioError(str(exc), source=source, path=("ruleset",)) from None
    header = validate(
        Document, {k: document[k] for k in Document.model_fields if k in document}, source=source
    )
    model = ruleset.load(document, source=source)
    digest = canonical_sha256(document)  # the document is canonical already
    return Scenario(ruleset, header, model, source, digest[:16], document, (), digest)


def parse_scenario(
    text: str,
    *,
    source: str = "<memory>",
    fmt: str | None = None,
    overrides: Any = (),
    limits: Mapping[str, int] | None = None,
) -> Scenario:
    """Parse scenario text (YAML by default; JSON or TOML by ``fmt`` or file suffix)."""
    with limits_in_force(limits):
        document = _parse_text(text, fmt or _format_of(source), source)
        applied: list[str] = []
        for path, value in overrides:
            check_document(value, source=source)
            document = set_path(document, path, value, source=source)
            applied.append(override_text(path, value))
        # The reader checked the file; with overrides the whole is checked again.
        scenario = _in_force(_from_document(document, source, checked=not applied))
    # The overrides are part of the document (and its hash); they are also listed for reports.
    return replace(scenario, overrides=tuple(applied), limits=dict(limits or {}))


def override_text(path: str, value: Any) -> str:
    """``PATH=VALUE`` as reports list an override and ``--set`` reads it back: the value in
    JSON, which YAML reads as the same value (``"3"`` stays text, ``3`` a number).

    Floats are written as YAML reads floats: with a point before any exponent, and the
    non-finite ones as ``.inf`` and ``.nan``.

    >>> override_text("title", "3"), override_text("units[0].level", 3)
    ('title="3"', 'units[0].level=3')
    >>> override_text("x", 1e20), override_text("x", float("-inf"))
    ('x=1.0e+20', 'x=-.inf')
    """
    if isinstance(value, float):
        if math.isnan(value):
            return f"{path}=.nan"
        if math.isinf(value):
            return f"{path}={'-' if value < 0 else ''}.inf"
        mantissa, e, exponent = repr(value).partition("e")
        if e and "." not in mantissa:
            mantissa += ".0"
        return f"{path}={mantissa}{e}{exponent}"
    return f"{path}={json.dumps(value, ensure_ascii=False, default=str)}"


def load_scenario(
    path: str | Path, *, overrides: Any = (), limits: Mapping[str, int] | None = None
) -> Scenario:
    """Read and load a scenario file.

    ``overrides`` is a sequence of ``(key path, value)`` pairs applied before validation,
    e.g. ``[("parameters.loss_exponent", 3)]``. ``limits`` raises named limits (file size,
    nesting, counts, work budgets; see ``docs/limits.md``), e.g. ``{"budget.resolve": 10**7}``.
    """
    with limits_in_force(limits):
        text = read_text(path)
    return parse_scenario(text, source=str(path), overrides=overrides, limits=limits)


_PART = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]|\[([^\[\]]+)\]")
#: A whole key path: keys joined by dots, each followed by any number of [index] or [name].
_KEY_PATH = re.compile(r"[^.\[\]]+(?:\[[^\[\]]+\])*(?:\.[^.\[\]]+(?:\[[^\[\]]+\])*)*")
#: The keys that name an entry of a list (a unit, a side), in the order they are tried.
NAME_KEYS = ("name", "id")


@dataclass(frozen=True)
class Named:
    """A list entry chosen by its name in a key path: ``units[Halberdiers]``."""

    name: str

    def __str__(self) -> str:
        return self.name


def parse_path(path: str, *, source: str | None = None) -> tuple[str | int | Named, ...]:
    """Split ``units[2].attack.air`` into ``("units", 2, "attack", "air")``; a bracket
    that holds no whole number names an entry (``units[Halberdiers]``).

    >>> parse_path("units[2].attack.air")
    ('units', 2, 'attack', 'air')
    >>> parse_path("sides[Fenwick].units[Fen Scouts].pax")
    ('sides', Named(name='Fenwick'), 'units', Named(name='Fen Scouts'), 'pax')
    """
    parts: list[str | int | Named] = []
    for match in _PART.finditer(path):
        key, index, name = match.groups()
        if key is not None:
            parts.append(key)
        elif index is not None:
            if len(index) > 18:
                # No list is that long, and Python refuses to read a number of 4,301 digits.
                raise ScenarioError(
                    f"the index {excerpt(index)} is larger than any list", source=source
                )
            parts.append(int(index))
        else:
            parts.append(Named(name.strip()))
    if not parts:
        raise ScenarioError(f"empty key path {excerpt(path)}", source=source)
    if not _KEY_PATH.fullmatch(path):
        # Whatever the parts skipped (a doubled dot, a stray bracket) was a typing slip.
        raise ScenarioError(
            f"not a key path: {excerpt(path)} (write keys and [index] or [name] like "
            "units[2].level or units[Halberdiers].models)",
            source=source,
        )
    return tuple(parts)


def _entry_named(node: Any, named: Named, source: str, where: tuple[str | int, ...]) -> int:
    """The index of the one entry of list ``node`` whose name (or id) is ``named``."""
    if not isinstance(node, list):
        raise ScenarioError(
            f"[{named.name}] names a list entry, but this is not a list", source=source, path=where
        )
    names: list[str] = []
    found: list[int] = []
    for index, entry in enumerate(node):
        label = next(
            (entry[key] for key in NAME_KEYS if isinstance(entry, dict) and key in entry), None
        )
        if label is None:
            continue
        names.append(str(label))
        if str(label) == named.name:
            found.append(index)
    if len(found) == 1:
        return found[0]
    if found:
        raise ScenarioError(
            f"{len(found)} entries are named {excerpt(named.name)}; give the index",
            source=source,
            path=where,
        )
    known = ", ".join(names) if names else "none has a name"
    raise ScenarioError(
        f"no entry named {excerpt(named.name)} (names: {known})", source=source, path=where
    )


def resolve_path(document: Any, path: str, *, source: str = "<memory>") -> tuple[str | int, ...]:
    """The key path with each ``[name]`` replaced by its entry's index in ``document``.

    >>> document = {"units": [{"name": "Spears"}, {"name": "Orcs", "models": 20}]}
    >>> resolve_path(document, "units[Orcs].models")
    ('units', 1, 'models')
    """
    resolved: list[str | int] = []
    node = document
    for part in parse_path(path, source=source):
        if isinstance(part, Named):
            part = _entry_named(node, part, source, tuple(resolved))
        resolved.append(part)
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None  # a missing key: get_path and set_path say so, where it matters
    return tuple(resolved)


def index_path(document: Any, path: str, *, source: str = "<memory>") -> str:
    """``path`` with every ``[name]`` written as its index: the one spelling of a place.

    >>> document = {"units": [{"name": "Spears"}, {"name": "Orcs", "models": 20}]}
    >>> index_path(document, "units[Orcs].models"), index_path(document, "units[1].models")
    ('units[1].models', 'units[1].models')
    """
    written = ""
    for part in resolve_path(document, path, source=source):
        if isinstance(part, int):
            written += f"[{part}]"
        else:
            written += f".{part}" if written else part
    return written


def named_path(document: Any, path: str) -> str:
    """``path`` as a person reads it: each list index of a named entry written as its name.

    A name is written only where ``[name]`` reads back as that same entry
    (:func:`resolve_path`): it is unique there and has no bracket or outer space, and is
    not a whole number.

    >>> document = {"units": [{"name": "Spears"}, {"name": "Orcs", "models": 20}]}
    >>> named_path(document, "units[1].models"), named_path(document, "parameters.x")
    ('units[Orcs].models', 'parameters.x')
    """
    try:
        parts = resolve_path(document, path)
    except ScenarioError:
        return path
    written = ""
    node = document
    for part in parts:
        if isinstance(part, int):
            written += f"[{_readable_name(node, part)}]"
        else:
            written += f".{part}" if written else part
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
    return written


def _readable_name(node: Any, index: int) -> str | int:
    """The name of entry ``index`` of ``node`` when ``[name]`` finds that entry, else the index."""
    entry = node[index] if isinstance(node, list) and -len(node) <= index < len(node) else None
    name = next(
        (str(entry[key]) for key in NAME_KEYS if isinstance(entry, dict) and key in entry), None
    )
    if name is None or name != name.strip() or name.lstrip("-").isdigit():
        return index
    if "[" in name or "]" in name:
        return index
    try:
        found = _entry_named(node, Named(name), "<memory>", ())
    except ScenarioError:
        return index
    return name if found == index % len(node) else index


def check_settable(document: Any, path: str, value: Any, *, source: str = "<memory>") -> None:
    """Refuse a key path that the document does not have and that ``value`` set there does
    not make valid (a key left at its default, ``units[0].level``, is one ``--set`` takes):
    the error of the scenario built with it set.

    >>> check_settable({"a": 1}, "a", 2)
    """
    try:
        get_path(document, path, source=source)
    except ScenarioError:
        scenario_from_document(set_path(document, path, value, source=source), source=source)


def get_path(document: Any, path: str, *, source: str = "<memory>") -> Any:
    """Read the value at a key path, with a clear error when it does not exist."""
    node = document
    parts = resolve_path(document, path, source=source)
    for depth, part in enumerate(parts):
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            raise ScenarioError("no such key", source=source, path=parts[: depth + 1]) from None
    return node


def set_path(document: Any, path: str, value: Any, *, source: str = "<memory>") -> Any:
    """Return a deep copy of ``document`` with the value at ``path`` replaced (or added).

    >>> set_path({"a": [{"b": 1}]}, "a[0].b", 5)
    {'a': [{'b': 5}]}
    >>> set_path({}, "parameters.round_limit", 3)
    {'parameters': {'round_limit': 3}}
    """
    result = copy.deepcopy(document)
    parts = resolve_path(document, path, source=source)
    node = result
    for depth, part in enumerate(parts[:-1]):
        if isinstance(node, dict) and part not in node and isinstance(parts[depth + 1], str):
            # A missing mapping on the way (e.g. no `parameters:` block yet) is created.
            node[part] = {}
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            raise ScenarioError("no such key", source=source, path=parts[: depth + 1]) from None
    last = parts[-1]
    if isinstance(node, list) and isinstance(last, int):
        if not -len(node) <= last < len(node):
            raise ScenarioError("index out of range", source=source, path=parts)
        node[last] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise ScenarioError("cannot set a value here", source=source, path=parts)
    return result
