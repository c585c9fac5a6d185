"""The page's form for the common cases: the numbers of each unit, and the parameters.

Nothing here knows a ruleset. A *unit* is any mapping in a list that names itself (an
``id`` or a ``name`` string); its fields are the numbers it holds, directly or one mapping
down (``attack.land``). Each field carries the key path the command line's ``--set``
takes, so an edit in the form travels to the server as an override and shows up in the
footer exactly as ``--set units[0].models=25`` would.

>>> groups = form_fields({"units": [{"name": "Orcs", "models": 20, "gear": {"armour": 5},
...                                  "flag": True}]}, [])
>>> [(g["title"], [f["path"] for f in g["fields"]]) for g in groups]
[('Orcs', ['units[0].models', 'units[0].gear.armour'])]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from fracas.core.errors import format_path

#: Bounds on what a form may hold, so a huge scenario gives a usable page.
MAX_GROUPS = 60
MAX_FIELDS = 24
MAX_DEPTH = 6

Path = tuple[str | int, ...]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _label(item: Mapping[str, Any]) -> str | None:
    for key in ("id", "name"):
        if isinstance(item.get(key), str):
            return str(item[key])
    return None


def _named_items(node: Any, path: Path, depth: int = 0) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every mapping that names itself, inside lists, depth first in document order."""
    if depth > MAX_DEPTH:
        return
    if isinstance(node, Mapping):
        for key, value in node.items():
            if isinstance(key, str):
                yield from _named_items(value, (*path, key), depth + 1)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, Mapping) and _label(item) is not None:
                yield (*path, index), item
            yield from _named_items(item, (*path, index), depth + 1)


def _field(path: Path, label: str, value: Any) -> dict[str, Any]:
    return {
        "path": format_path(path),
        "label": label,
        "value": value,
        "kind": "integer" if isinstance(value, int) else "number",
    }


def _numbers(item: Mapping[str, Any], path: Path) -> list[dict[str, Any]]:
    fields = []
    for key, value in item.items():
        if not isinstance(key, str):
            continue
        if _is_number(value):
            fields.append(_field((*path, key), key, value))
        elif isinstance(value, Mapping):
            for inner, number in value.items():
                if isinstance(inner, str) and _is_number(number):
                    fields.append(_field((*path, key, inner), f"{key}.{inner}", number))
    return fields[:MAX_FIELDS]


def form_fields(
    document: Mapping[str, Any], parameters: Sequence[tuple[str, Any, str]]
) -> list[dict[str, Any]]:
    """Groups of editable numbers: one per named unit, then the ruleset's parameters.

    ``parameters`` is :meth:`Ruleset.parameters`: numeric parameters the document leaves
    out are offered at their default, so they can be tried without editing the text.
    """
    groups: list[dict[str, Any]] = []
    for path, item in _named_items(document, ()):
        fields = _numbers(item, path)
        if fields:
            groups.append({"title": _label(item), "path": format_path(path), "fields": fields})
        if len(groups) == MAX_GROUPS:
            break
    given = document.get("parameters")
    given = given if isinstance(given, Mapping) else {}
    params = []
    for name, default, description in parameters:
        value = given.get(name, default)
        if _is_number(value):
            field = _field(("parameters", name), name, value)
            field["help"] = description
            params.append(field)
    if params:
        groups.append({"title": "parameters", "path": "parameters", "fields": params})
    return groups


def unit_choices(document: Mapping[str, Any]) -> dict[str, list[str]]:
    """Names to suggest for actions: every unit's ``id``/``name``, every side named.

    >>> unit_choices({"units": [{"id": "a", "side": "blue"}, {"id": "b", "side": "red"}]})
    {'units': ['a', 'b'], 'sides': ['blue', 'red']}
    """
    units: list[str] = []
    sides: list[str] = []
    for path, item in _named_items(document, ()):
        label = _label(item)
        holder = next((part for part in reversed(path) if isinstance(part, str)), "")
        if holder == "sides" and label is not None and label not in sides:
            sides.append(label)
        elif label is not None and label not in units:
            units.append(label)
        side = item.get("side")
        if isinstance(side, str) and side not in sides:
            sides.append(side)
    return {"units": units[:200], "sides": sides[:50]}
