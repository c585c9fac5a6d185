"""The page's form for the common cases: what players change in each unit, and the parameters.

Nothing here knows a ruleset. A *group* is any mapping in a list (a unit, a side, an
engagement, a status); its fields are what the ruleset's own JSON Schema says it may
hold, at their values or, when the document leaves them out, at the schema's defaults —
so every field starts legal. A field is a number, a yes/no, a choice (an ``enum``, or a
text the schema gives ``examples`` for, like a weapon), or a list of names (special rules,
equipment). Its label is the player's words, taken from the schema's description (its
first clause, when short) or title; the key path rides along, which the command line's
``--set`` takes, so an edit travels to the server as an override and shows up in the
footer exactly as ``--set units[0].models=25`` would.

>>> schema = {"properties": {"units": {"items": {"$ref": "#/$defs/Unit"}}},
...           "$defs": {"Unit": {"properties": {
...               "name": {"type": "string"},
...               "models": {"type": "integer", "minimum": 1, "description": "Models in it."},
...               "shield": {"type": "boolean", "default": False, "title": "Shield"}}}}}
>>> groups = form_fields({"units": [{"name": "Orcs", "models": 20, "gear": {"armour": 5}}]},
...                      [], schema)
>>> [(f["label"], f["kind"], f["value"]) for f in groups[0]["fields"]]
[('Models in it', 'integer', 20), ('gear: armour', 'integer', 5), ('Shield', 'boolean', False)]
>>> groups[0]["fields"][2]["path"], groups[0]["fields"][2]["default"]
('units[0].shield', True)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from fracas.core.errors import format_path
from fracas.io.scenario import named_path

#: Bounds on what a form may hold, so a huge scenario gives a usable page.
MAX_GROUPS = 60
MAX_FIELDS = 32
MAX_DEPTH = 6
MAX_CHOICES = 60
#: The longest first clause of a description that serves as a label.
LABEL_CHARS = 34

Path = tuple[str | int, ...]
Schema = Mapping[str, Any]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _label(item: Mapping[str, Any]) -> str | None:
    for key in ("id", "name"):
        if isinstance(item.get(key), str):
            return str(item[key])
    return None


def _title(item: Mapping[str, Any], path: Path) -> str:
    """A group's title: its name, else the names it joins (``Knights → Spearmen``)."""
    named = _label(item)
    if named is not None:
        return named
    words = [value for value in item.values() if isinstance(value, str)][:2]
    return " → ".join(words) if words else format_path(path)


def _resolve(schema: Schema | None, root: Schema) -> Schema | None:
    """``schema`` with its ``$ref`` followed and a ``T | None`` union reduced to ``T``."""
    for _ in range(MAX_DEPTH):
        if schema is None:
            return None
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            described = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**root.get("$defs", {}).get(ref.rsplit("/", 1)[1], {}), **described}
            continue
        options = schema.get("anyOf")
        if isinstance(options, list):
            real = [option for option in options if option.get("type") != "null"]
            if len(real) == 1:
                described = {k: v for k, v in schema.items() if k != "anyOf"}
                schema = {**real[0], **described, "nullable": True}
                continue
        return schema
    return schema


def _child(schema: Schema | None, part: str | int, root: Schema) -> Schema | None:
    """The schema of ``part`` (a key or an index) inside a value of ``schema``."""
    schema = _resolve(schema, root)
    if schema is None:
        return None
    if isinstance(part, int):
        fixed = schema.get("prefixItems")  # a tuple: one schema for each place
        if isinstance(fixed, list) and 0 <= part < len(fixed):
            return _resolve(fixed[part], root)
        return _resolve(schema.get("items"), root)
    properties = schema.get("properties", {})
    if part in properties:
        return _resolve(properties[part], root)
    extra = schema.get("additionalProperties")
    return _resolve(extra, root) if isinstance(extra, Mapping) else None


def _at(root: Schema, path: Path) -> Schema | None:
    schema: Schema | None = root
    for part in path:
        schema = _child(schema, part, root)
        if schema is None:
            return None
    return schema


def player_label(key: str, schema: Schema | None) -> str:
    """The words a player reads for ``key``: the first clause of its description when it
    is short and starts as a sentence does, else its title, else the key.

    >>> player_label("models", {"description": "Rank-and-file models (characters not included)."})
    'Rank-and-file models'
    >>> player_label("domain", {"description": "land, air or sea.", "title": "Domain"})
    'Domain'
    >>> player_label("speed", {"description": "Higher strikes first.", "title": "Speed"})
    'Speed'
    >>> player_label("def_mul", None)
    'def_mul'
    """
    if schema is None:
        return key
    title = schema.get("title")
    name = str(title) if isinstance(title, str) and title else key
    first = re.split(r"[.;:(]", str(schema.get("description", "")), maxsplit=1)[0].strip()
    # A clause that does not name the thing ("Higher strikes first" for speed) explains
    # it rather than naming it: the title names it.
    stems = [word[:4].lower() for word in re.findall(r"[A-Za-z]{3,}", name)]
    named = any(stem in first.lower() for stem in stems)
    if first and first[0].isupper() and len(first) <= LABEL_CHARS and named:
        return first
    return name


def _kind(schema: Schema | None, value: Any) -> tuple[str, list[Any]] | None:
    """How the form edits a value of ``schema`` (currently ``value``): its kind and the
    choices of a choice; ``None`` for what the form leaves to the text."""
    if schema is None:
        if _is_number(value):
            return ("integer" if isinstance(value, int) else "number"), []
        return None
    kind = schema.get("type")
    if "enum" in schema:
        return "choice", list(schema["enum"])[:MAX_CHOICES]
    if kind == "string" and isinstance(schema.get("examples"), list):
        return "choice", list(schema["examples"])[:MAX_CHOICES]
    if kind in ("integer", "number") and (value is None or _is_number(value)):
        return str(kind), []
    if kind == "boolean" and isinstance(value, bool):
        return "boolean", []
    if kind == "array" and (value is None or isinstance(value, list)):
        items = schema.get("items")
        names = isinstance(items, Mapping) and items.get("type") == "string"
        if names and all(isinstance(item, str) for item in value or []):
            return "list", []
    return None


def _field(
    path: Path, label: str, value: Any, kind: str, choices: list[Any], schema: Schema | None
) -> dict[str, Any]:
    field: dict[str, Any] = {
        "path": format_path(path),
        "label": label,
        "value": value,
        "kind": kind,
    }
    if choices:
        if value is not None and value not in choices:
            choices = [value, *choices]
        field["choices"] = choices
    if schema is not None:
        for bound in ("minimum", "maximum"):
            if _is_number(schema.get(bound)):
                field[bound[:3]] = schema[bound]
        if schema.get("nullable"):
            field["optional"] = True
        if isinstance(schema.get("description"), str):
            field["help"] = schema["description"]
    return field


def _fields(item: Mapping[str, Any], path: Path, root: Schema) -> list[dict[str, Any]]:
    """The editable values of ``item``: every simple property its schema declares (at
    its default when the item leaves it out), then the numbers of mappings it holds."""
    schema = _at(root, path) if root else None
    properties: Mapping[str, Any] = (schema or {}).get("properties", {})
    fields: list[dict[str, Any]] = []
    keys = list(properties) + [key for key in item if key not in properties]
    for key in keys:
        if not isinstance(key, str):
            continue
        inner = _resolve(properties.get(key), root) if key in properties else None
        if key in item:
            value = item[key]
        elif inner is not None and "default" in inner:
            value = inner["default"]
        else:
            continue
        if isinstance(value, Mapping):
            for name, number in value.items():
                deeper = _child(inner, name, root) if inner is not None else None
                found = _kind(deeper, number) if isinstance(name, str) else None
                if found is None or found[0] not in ("integer", "number", "boolean"):
                    continue
                described = deeper is not None and ("description" in deeper or "title" in deeper)
                label = (
                    player_label(name, deeper)
                    if described
                    else f"{player_label(key, inner)}: {name}"
                )
                fields.append(_field((*path, key, name), label, number, *found, deeper))
            continue
        found = _kind(inner, value)
        if found is None:
            continue
        field = _field((*path, key), player_label(key, inner), value, *found, inner)
        if key not in item:
            field["default"] = True
        fields.append(field)
    # What the scenario writes comes first; what it leaves at the default, after.
    fields.sort(key=lambda field: bool(field.get("default")))
    return _distinct(fields[:MAX_FIELDS])


def _distinct(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fields whose labels would read the same are told apart by their keys.

    >>> [f["label"] for f in _distinct([{"label": "Score", "path": "p.enemy_weight"},
    ...                                 {"label": "Score", "path": "p.own_weight"}])]
    ['Score (enemy_weight)', 'Score (own_weight)']
    """
    labels = [field["label"] for field in fields]
    for field in fields:
        if labels.count(field["label"]) > 1:
            field["label"] += f" ({field['path'].rsplit('.', 1)[-1]})"
    return fields


def _items(node: Any, path: Path, depth: int = 0) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every mapping inside a list, depth first in document order."""
    if depth > MAX_DEPTH:
        return
    if isinstance(node, Mapping):
        for key, value in node.items():
            if isinstance(key, str):
                yield from _items(value, (*path, key), depth + 1)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, Mapping):
                yield (*path, index), item
            yield from _items(item, (*path, index), depth + 1)


def _named_items(node: Any, path: Path) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every mapping in a list that names itself (an ``id`` or a ``name``)."""
    for where, item in _items(node, path):
        if _label(item) is not None:
            yield where, item


def form_fields(
    document: Mapping[str, Any],
    parameters: Sequence[tuple[str, Any, str]],
    schema: Schema | None = None,
) -> list[dict[str, Any]]:
    """Groups of editable values: one per mapping in a list, then the ruleset's parameters.

    ``schema`` is the ruleset's scenario JSON Schema (:meth:`Ruleset.json_schema`): it
    gives the labels, the kinds, the choices and the defaults. ``parameters`` is
    :meth:`Ruleset.parameters`: numeric parameters the document leaves out are offered at
    their default, so they can be tried without editing the text.
    """
    root: Schema = schema or {}
    groups: list[dict[str, Any]] = []
    for path, item in _items(document, ()):
        fields = _fields(item, path, root)
        for field in fields:
            # Shown as a person reads it (units by name); the index path drives the edits.
            field["shown"] = named_path(document, field["path"])
        if fields:
            groups.append(
                {"title": _title(item, path), "path": format_path(path), "fields": fields}
            )
        if len(groups) == MAX_GROUPS:
            break
    given = document.get("parameters")
    given = given if isinstance(given, Mapping) else {}
    params = []
    for name, default, description in parameters:
        value = given.get(name, default)
        if _is_number(value):
            field = _field(
                ("parameters", name),
                player_label(name, {"description": description}),
                value,
                "integer" if isinstance(value, int) else "number",
                [],
                None,
            )
            field["help"] = description
            params.append(field)
    if params:
        groups.append({"title": "Rule options", "path": "parameters", "fields": _distinct(params)})
    return groups


def unit_choices(document: Mapping[str, Any]) -> dict[str, list[str]]:
    """Names to suggest for actions: every unit's ``id``/``name``, every side named.

    >>> unit_choices({"units": [{"id": "a", "side": "blue"}, {"id": "b", "side": "red"}]})
    {'units': ['a', 'b'], 'sides': ['blue', 'red']}
    """
    units: list[str] = []
    sides: list[str] = []
    named = list(_named_items(document, ()))

    def holder(path: Path) -> str:
        return next((part for part in reversed(path) if isinstance(part, str)), "")

    # Where a scenario keeps its units in lists called `units`, the names in other lists
    # (a unit's statuses) are not units.
    any_units = any(holder(path) == "units" for path, _ in named)
    for path, item in named:
        label = _label(item)
        if holder(path) == "sides" and label is not None and label not in sides:
            sides.append(label)
        elif (
            label is not None and label not in units and (holder(path) == "units" or not any_units)
        ):
            units.append(label)
        side = item.get("side")
        if isinstance(side, str) and side not in sides:
            sides.append(side)
    return {"units": units[:200], "sides": sides[:50]}
