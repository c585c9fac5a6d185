"""Army lists in: the exports of New Recruit, BattleScribe and Old World Builder as units.

The formats are read as ``docs/import.md`` describes them: New Recruit's JSON and
BattleScribe's ``.ros`` / ``.rosz`` hold the same tree of selections (a unit row, its model,
crew and mount rows, their upgrades, each with the catalogue's profiles already modified);
an Old World Builder list names the chosen options only, so its profiles come from the
BSData catalogue files the player names. Everything is mapped onto the rankflank schema,
and whatever that schema has no room for (a rule fracas does not play, a magic item, a
mount's own attacks) is listed, never dropped: in a comment above the unit it belongs to
and on the list :func:`import_army` returns.

>>> parse_strength("S+1"), parse_strength("4"), parse_strength("N/A")
(('+', 1), ('=', 4), None)
>>> parse_ap("-1 (-2)"), parse_ap("-"), parse_ap("-2")
((1, 2), (0, 0), (2, 2))
>>> armour_from_text("Armour Value 5+")
(5, 0, None)
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from fracas.core.errors import ScenarioError
from fracas.core.escape import printable
from fracas.core.limits import value as value_of
from fracas.rulesets.base import ArmyImport
from fracas.rulesets.rankflank.specials import canonical_weapon, parse_rule

#: The largest army file or catalogue read, and the most a ``.rosz`` may unpack to. A
#: 2,400-point New Recruit export is about 1 MB, a whole BSData catalogue a few MB.
MAX_BYTES = 16 * 1024 * 1024
#: The Old World's game system id in BattleScribe and New Recruit files.
TOW_SYSTEM = "sys-31d1-bf57-53ea-ad55"
#: What an Old World Builder list's ``game`` starts with.
OWB_GAME = "the-old-world"
#: Old World Builder's arrays of units, in list order.
OWB_ARRAYS = ("characters", "core", "special", "rare", "mercenaries", "allies")

#: The list builders' troop types, lower case, "(character)" dropped → rankflank's.
TROOP_TYPES: Mapping[str, str] = {
    "regular infantry": "infantry",
    "heavy infantry": "infantry",
    "light infantry": "infantry",
    "infantry": "infantry",
    "war beasts": "infantry",
    "monstrous infantry": "monstrous_infantry",
    "light cavalry": "cavalry",
    "heavy cavalry": "cavalry",
    "cavalry": "cavalry",
    "monstrous cavalry": "monstrous_cavalry",
    "monstrous creature": "monster",
    "monster": "monster",
    "behemoth": "monster",
    "light chariot": "chariot",
    "heavy chariot": "chariot",
    "chariot": "chariot",
    "swarm": "swarm",
    "war machine": "war_machine",
}
#: Armour an Old World Builder list names without a catalogue profile: value, or the
#: improvement it gives (a shield is the schema's own ``shield``).
OWB_ARMOUR: Mapping[str, str] = {
    "light armour": "Armour Value 6+",
    "heavy armour": "Armour Value 5+",
    "full plate armour": "Armour Value 4+",
    "shield": "improves its armour value by 1",
    "shields": "improves its armour value by 1",
    "barding": "improves its armour value by 1",
}
PROFILE_KEYS = ("M", "WS", "BS", "S", "T", "W", "I", "A", "Ld")
#: The least each characteristic may be in the schema, used for a "-" the export prints.
PROFILE_FLOOR: Mapping[str, int] = {"M": 0, "BS": 0, "I": 0, "A": 0}
#: The highest characteristic a scenario takes (a larger one is read as it, and listed).
PROFILE_CEILING = 10

_STRENGTH = re.compile(r"^\s*S\s*(?:\+\s*(\d+))?\s*$", re.IGNORECASE)
_AP = re.compile(r"^\s*-\s*(\d+)\s*(?:\(\s*-\s*(\d+)\s*\))?\s*$")
_ARMOUR_VALUE = re.compile(r"armou?r value (?:of )?(\d)\+", re.IGNORECASE)
_IMPROVES = re.compile(r"improv\w*[^.]*?armou?r value[^.]*? by (\d)", re.IGNORECASE)
_WARD = re.compile(r"(?:(\d)\+\s*ward save|ward save (?:of |\()?(\d)\+)", re.IGNORECASE)
_ARMOURED = re.compile(r"^\s*(armou?red hide|barding)\s*(?:\(\s*(\d)\s*\))?\s*$", re.IGNORECASE)
_REFUSED_XML = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def parse_strength(text: str) -> tuple[str, int] | None:
    """A weapon's S: ``('+', n)`` for "S" / "S+n", ``('=', n)`` for a number, else None."""
    match = _STRENGTH.match(text)
    if match:
        return ("+", int(match.group(1) or 0))
    stripped = text.strip()
    return ("=", int(stripped)) if _digits(stripped) else None


def _digits(text: str) -> bool:
    """Whether ``text`` is a number in ASCII digits: ``str.isdigit`` also takes "²",
    which ``int`` refuses."""
    return text.isascii() and text.isdigit()


def parse_ap(text: str) -> tuple[int, int]:
    """A weapon's AP as ``(always, on the charge)``: "-1 (-2)" is (1, 2); "-", "N/A": 0."""
    match = _AP.match(text)
    if match is None:
        return (0, 0)
    always = int(match.group(1))
    return (always, int(match.group(2)) if match.group(2) else always)


def armour_from_text(text: str) -> tuple[int | None, int, int | None]:
    """``(armour value, improvement, ward)`` an armour or item description gives."""
    value = _ARMOUR_VALUE.search(text)
    better = _IMPROVES.search(text)
    ward = _WARD.search(text)
    return (
        int(value.group(1)) if value else None,
        int(better.group(1)) if better else 0,
        int(ward.group(1) or ward.group(2)) if ward else None,
    )


# Reading the files safely --------------------------------------------------------------


def _refuse(path: Path | str, problem: str) -> ScenarioError:
    return ScenarioError(problem, source=str(path))


def read_bounded(path: Path) -> bytes:
    """The bytes of ``path``, refused before reading when larger than :data:`MAX_BYTES`."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise _refuse(path, f"is {size:,} bytes; an army file is at most {MAX_BYTES:,}")
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _refuse(path, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:  # a file that grew, or a device
        raise _refuse(path, f"is larger than {MAX_BYTES:,} bytes")
    return data


def _unzip(path: Path, data: bytes) -> bytes:
    """The one ``.ros`` of a ``.rosz``, its unpacked size bounded while it is read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            rosters = [info for info in archive.infolist() if not info.is_dir()]
            if len(rosters) != 1:
                raise _refuse(path, f"holds {len(rosters)} files; a .rosz holds one .ros")
            with archive.open(rosters[0]) as member:
                # The declared size can lie: count what really comes out.
                inner = member.read(MAX_BYTES + 1)
    except ScenarioError:
        raise  # a whole archive that is not one roster: said as it is
    except Exception as exc:  # BadZipFile, EOFError, zlib.error: a damaged stream
        raise _refuse(path, f"is not a complete zip archive ({exc})") from None
    if len(inner) > MAX_BYTES:
        raise _refuse(path, f"unpacks to more than {MAX_BYTES:,} bytes")
    return inner


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _element(element: ElementTree.Element) -> dict[str, Any]:
    """An XML element in New Recruit's JSON form: attributes as keys, a plural child a
    list, a leaf child its text, the element's own text ``$text`` (absent when empty)."""
    node: dict[str, Any] = dict(element.attrib)
    for child in element:
        tag = _local(child.tag)
        if tag.endswith("s") and (len(child) or not (child.text or "").strip()):
            node.setdefault(tag, []).extend(_element(item) for item in child)
        elif len(child) or child.attrib:
            node[tag] = _element(child)
        else:
            node[tag] = child.text or ""
    text = (element.text or "").strip()
    if text and not len(element):
        node["$text"] = text
    return node


def parse_xml(path: Path | str, data: bytes) -> dict[str, Any]:
    """An XML roster or catalogue as nested dicts; DOCTYPE and entities refused unparsed."""
    if b"\x00" in data:  # UTF-16 or -32 would hide a DOCTYPE from the check below
        raise _refuse(path, "is not UTF-8 text")
    if _REFUSED_XML.search(data):
        raise _refuse(path, "XML with a DOCTYPE or entity declarations is refused")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise _refuse(path, f"is not well-formed XML ({exc})") from None
    try:
        return {_local(root.tag): _element(root)}
    except RecursionError:
        raise _refuse(path, "nests too deeply to be an army list") from None


def parse_json(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise _refuse(path, "is not UTF-8 text") from None
    except RecursionError:
        raise _refuse(path, "nests too deeply to be an army list") from None
    except json.JSONDecodeError as exc:
        raise _refuse(path, f"is not valid JSON ({exc.msg}, line {exc.lineno})") from None


KINDS = "New Recruit JSON, BattleScribe .ros or .rosz, Old World Builder JSON"


def read_army(path: Path) -> tuple[str, dict[str, Any]]:
    """``(format, document)`` of an army file: ``roster`` (New Recruit, BattleScribe) or
    ``owb`` (Old World Builder), refused unless it is a list of The Old World."""
    data = read_bounded(path)
    if data[:4] == b"PK\x03\x04" or path.suffix.lower() == ".rosz":
        data = _unzip(path, data)
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start not in (b"<", b"{", b"["):
        raise _refuse(path, f"is not an army list ({KINDS})")
    if start == b"<":
        document = parse_xml(path, data)
        if "roster" not in document:
            raise _refuse(path, "is XML but not a BattleScribe roster")
        roster = document["roster"]
    else:
        document = parse_json(path, data)
        if not isinstance(document, dict):
            raise _refuse(path, "is not an army list (a JSON object was expected)")
        if "roster" not in document:
            game = str(document.get("game", ""))
            if not game:
                raise _refuse(path, "is not an army list of New Recruit or Old World Builder")
            if not game.startswith(OWB_GAME):
                raise _refuse(path, f"is a list for {game!r}, not The Old World")
            return "owb", document
        roster = document["roster"]
    if not isinstance(roster, dict):
        raise _refuse(path, "roster: not an object")
    system = roster.get("gameSystemId")
    name = str(roster.get("gameSystemName", ""))
    if (system and system != TOW_SYSTEM) or (
        not system and name and "old world" not in name.lower()
    ):
        raise _refuse(path, f"is a roster for {name or system!r}, not Warhammer The Old World")
    return "roster", roster


# The roster tree -----------------------------------------------------------------------


def _list(node: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = node.get(key, [])
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _number(value: Any, default: float = 0) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


class _Malformed(Exception):
    """A part of an army file that is not the shape its builder writes: refused with the
    file's name by :func:`read_units`, at ``where`` (a key path, or a unit's name)."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")


#: The limit a rankflank unit's models are held to (declared with the document's models).
MODELS_LIMIT = "rankflank.models"


def _count(value: Any, where: str) -> int:
    """A count of models as an export writes it (1 when it writes none): a whole number,
    else the file is refused; a nonsense count never becomes a unit of another size."""
    if value is None:
        return 1
    number = _number(value, math.nan)
    if not math.isfinite(number) or number != int(number) or number < 0 or isinstance(value, bool):
        raise _Malformed(where, f"{value!r} is not a count of models")
    # Past what a unit may field, a count would only make a file that does not load (and
    # past 2**53 a float is not the count written). The document declares that limit.
    from fracas.rulesets.rankflank import document  # noqa: F401

    most = value_of(MODELS_LIMIT)
    if number > most:
        raise _Malformed(where, f"{value!r} models is above the limit {MODELS_LIMIT} = {most}")
    return int(number)


def _points(row: Mapping[str, Any]) -> float:
    """The row's own points (its cost named by typeId "points", or "pts")."""
    for cost in _list(row, "costs"):
        if cost.get("typeId") == "points" or str(cost.get("name", "")).strip() == "pts":
            return _number(cost.get("value"))
    return 0


def _all_points(row: Mapping[str, Any]) -> float:
    return _points(row) + sum(_all_points(child) for child in _list(row, "selections"))


def _characteristics(profile: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(item.get("name", "")).strip(): str(item.get("$text", "")).strip()
        for item in _list(profile, "characteristics")
    }


def _profiles(row: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    return [p for p in _list(row, "profiles") if str(p.get("typeName", "")) == kind]


def _command_role(row: Mapping[str, Any]) -> str | None:
    """ "champion", "standard" or "musician" for a row with a ``Command`` profile."""
    for profile in _profiles(row, "Command"):
        name = str(profile.get("name", "")).lower()
        if "standard" in name:
            return "standard"
        if "musician" in name:
            return "musician"
        return "champion"
    return None


def _is_mount(row: Mapping[str, Any]) -> bool:
    return row.get("type") == "mount" or "mount" in str(row.get("group", "")).lower()


@dataclass
class Gathered:
    """What one unit's rows hold, before it is mapped onto the schema."""

    name: str
    character: bool = False
    troop_type: str = ""
    model: dict[str, str] = field(default_factory=dict)
    models: int = 0
    mount: dict[str, str] = field(default_factory=dict)
    mount_name: str = ""
    rules: list[str] = field(default_factory=list)
    weapons: list[tuple[str, dict[str, str], bool]] = field(default_factory=list)
    armour: list[tuple[str, str, str]] = field(default_factory=list)
    command: dict[str, tuple[str, dict[str, str] | None]] = field(default_factory=dict)
    points: float = 0
    unmodelled: list[str] = field(default_factory=list)


#: The profile types the import reads (or lists); any other is listed as it is.
_READ_PROFILES = frozenset(
    {
        "Unit", "Model", "Base", "Command", "Special Rule", "Spell", "Weapon", "Magic Weapons",
        "Armour", "Magic Armour", "Talismans", "Arcane Items", "Enchanted Items",
        "Magic Standards",
    }
)  # fmt: skip


def _walk(row: dict[str, Any], owner: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every row under ``row`` with what it belongs to: the model, a mount or a command."""
    for child in _list(row, "selections"):
        role = _command_role(child)
        here = "command" if role else "mount" if _is_mount(child) else owner
        yield child, here
        yield from _walk(child, here)


def gather(unit: dict[str, Any]) -> Gathered:
    """The facts of one top-level selection (a unit or a character)."""
    found = Gathered(str(unit.get("name", "")).strip() or "Unit")
    found.points = _all_points(unit)
    categories = _list(unit, "categories")
    found.character = any(
        "character" in str(c.get("name", "")).lower() for c in categories if c.get("primary")
    ) or any("character" in str(c.get("name", "")).lower() for c in categories[:1])
    for profile in _profiles(unit, "Unit"):
        found.troop_type = _characteristics(profile).get("Troop Type", "")
    rows = [(unit, "unit"), *_walk(unit, "model")]
    main: dict[str, Any] | None = None
    for row, owner in rows:
        kind = row.get("type")
        if owner == "model" and main is None and _profiles(row, "Model") and kind != "upgrade":
            main = row
    if main is None:  # plain BattleScribe: the unit row may be the model
        main = next((row for row, _ in rows if _profiles(row, "Model")), unit)
    models = _profiles(main, "Model")
    found.model = _characteristics(models[0]) if models else {}
    found.models = _count(main.get("number"), f"{found.name}: number") if main is not unit else 1
    per_model = _points(main) / max(found.models, 1)
    for row, owner in rows:
        name = str(row.get("name", "")).strip()
        role = _command_role(row)
        if role and role not in found.command:
            model = _profiles(row, "Model")
            found.command[role] = (name, _characteristics(model[0]) if model else None)
            # A command row that pays a whole model is a model more ("motley crews");
            # one that pays the upgrade only is one of the models already counted.
            if model and per_model and _points(row) >= per_model:
                found.models += _count(row.get("number"), f"{found.name}: {name}: number")
        if owner == "mount" and _profiles(row, "Model") and not found.mount and _is_mount(row):
            found.mount = _characteristics(_profiles(row, "Model")[0])
            found.mount_name = name
        weapons = _profiles(row, "Weapon") + _profiles(row, "Magic Weapons")
        for profile in weapons:
            magic = profile.get("typeName") == "Magic Weapons"
            if owner == "mount":  # a mount strikes with its profile's S
                continue
            elif owner == "command":
                found.unmodelled.append(f"{name} of the command group: not modelled")
            else:
                found.weapons.append(
                    (str(profile.get("name") or name), _characteristics(profile), magic)
                )
        for kind in ("Armour", "Magic Armour", "Talismans"):
            for profile in _profiles(row, kind):
                text = _characteristics(profile).get("Description", "")
                item = str(profile.get("name") or name)
                if owner == "command":  # the champion's or the standard's, not the unit's
                    found.unmodelled.append(f"{item} of the command group: not modelled")
                else:
                    found.armour.append((item, text, kind))
        for kind in ("Arcane Items", "Enchanted Items", "Magic Standards"):
            for profile in _profiles(row, kind):
                found.unmodelled.append(f"{kind[:-1].lower()} {profile.get('name') or name}")
        for profile in _list(row, "profiles"):
            if str(profile.get("typeName", "")) not in _READ_PROFILES:
                found.unmodelled.append(f"{profile.get('typeName')} {profile.get('name') or name}")
        if _profiles(row, "Spell"):
            found.unmodelled.append(f"lore {name} (spells)")
        elif name.lower().startswith("wizard level"):
            found.unmodelled.append(name)
        if (not weapons and owner != "command") or row is unit:
            for profile in _profiles(row, "Special Rule"):
                rule = str(profile.get("name", "")).strip()
                if rule and rule not in found.rules:
                    found.rules.append(rule)
        elif owner == "command":
            for profile in _profiles(row, "Special Rule"):
                found.unmodelled.append(f"{profile.get('name')} of the command group: not modelled")
    return found


# Mapping onto the schema ---------------------------------------------------------------


@dataclass
class Mapped:
    """One unit or character in the schema's terms, and what did not fit."""

    name: str
    character: bool
    spec: dict[str, Any]
    champion: dict[str, Any] | None
    points: float
    unmodelled: list[str]


def _profile(values: Mapping[str, str], mount: Mapping[str, str], notes: list[str]) -> str:
    numbers = []
    for key in PROFILE_KEYS:
        text = values.get(key, "")
        if _digits(text):
            number = int(text)
        elif _digits(mount.get(key, "")):  # a rider's "-" M is its mount's
            number = int(mount[key])
        else:
            floor = PROFILE_FLOOR.get(key, 1)
            numbers.append(floor)
            if key != "BS":  # no close combat reads it
                notes.append(f"{key} {text or '(missing)'} read as {floor}")
            continue
        numbers.append(_within(key, number, notes))
    return " ".join(str(n) for n in numbers)


def _within(key: str, number: int, notes: list[str], whose: str = "") -> int:
    """``number`` within the scenario's bounds for characteristic ``key``, so that what is
    written loads; a number moved is listed."""
    bounded = min(max(number, PROFILE_FLOOR.get(key, 1)), PROFILE_CEILING)
    if bounded != number:
        notes.append(f"{whose}{key} {number} read as {bounded}")
    return bounded


def _troop_type(text: str, notes: list[str]) -> str:
    key = re.sub(r"\s*\(character\)\s*$", "", text.strip().lower())
    if key in TROOP_TYPES:
        if key == "war beasts":
            notes.append("troop type War Beasts read as infantry")
        return TROOP_TYPES[key]
    notes.append(f"troop type {text or '(missing)'} read as infantry")
    return "infantry"


def _weapon_name(name: str) -> str | None:
    words = name.strip()
    for attempt in (words, words.split()[-1] if words else "", words.rstrip("s")):
        try:
            return canonical_weapon(attempt)
        except ValueError:
            continue
    return None


#: The lists' formation rules, as the oldworld preset's unit key ``formation``.
FORMATIONS = {
    "close order": "close_order",
    "open order": "open_order",
    "skirmishers": "skirmish",
    "skirmish": "skirmish",
    "horde": "horde",
}


def _rule(text: str, unit: dict[str, Any], notes: list[str], origin: str = "") -> None:
    """Put one written rule where the schema has room for it, or note it."""
    where = f" ({origin})" if origin else ""
    armoured = _ARMOURED.match(text)
    if armoured:
        unit["_better"] = unit.get("_better", 0) + int(armoured.group(2) or 1)
        return
    ward = _WARD.search(text)
    if ward:
        best = int(ward.group(1) or ward.group(2))
        unit["ward"] = min(unit.get("ward") or 7, best)
        return
    lowered = text.lower().strip()
    if lowered in FORMATIONS:
        if FORMATIONS[lowered] != "close_order":  # the schema's default: nothing to write
            unit["formation"] = FORMATIONS[lowered]
        return
    if lowered == "general":
        # Range is the table's, not the list's: the units it reaches are the player's to say.
        notes.append(
            f"General{where}: give the units within its range (oldworld) "
            "general_leadership: its Leadership"
        )
        return
    if lowered.startswith("battle standard"):
        unit.setdefault("command", {})["battle_standard"] = True
        return
    try:
        written = parse_rule(text).written()
    except ValueError as exc:
        reason = "not a rule fracas plays" if "unknown rule" in str(exc) else str(exc)
        notes.append(f"{text.strip()}{where}: {reason}")
        return
    rules = unit.setdefault("rules", [])
    if written not in rules:
        rules.append(written)


def _fit_weapons(found: Gathered, unit: dict[str, Any], notes: list[str]) -> None:
    """The one weapon the unit fights with, and what its printed profile brings."""
    melee = [w for w in found.weapons if w[1].get("R", "Combat").lower() in ("combat", "")]
    for name, values, _ in found.weapons:
        if (name, values, _) not in melee:
            notes.append(f"{name} (R {values.get('R')}): shooting is not modelled")
    if not melee:
        return
    magic = [w for w in melee if w[2]]
    known = [w for w in melee if _weapon_name(w[0]) not in (None, "hand_weapon")]
    chosen = (magic or known or melee)[0]
    for other in melee:
        if other is not chosen and _weapon_name(other[0]) != "hand_weapon":
            notes.append(f"{other[0]}: a second weapon; the unit fights with {chosen[0]}")
    name, values, _ = chosen
    engine = _weapon_name(name)
    printed = ", ".join(f"{k} {values[k]}" for k in ("S", "AP", "Special Rules") if values.get(k))
    if engine is not None:
        unit["weapon"] = engine
        if engine != "hand_weapon" and printed:
            notes.append(f"{name} ({printed}): fought as {engine}, the preset's own profile")
        return
    # A weapon fracas does not know (a magic weapon): a hand weapon, with what of its
    # profile the schema can carry.
    unit["weapon"] = "hand_weapon"
    strength = parse_strength(values.get("S", ""))
    always, charge = parse_ap(values.get("AP", ""))
    if always:
        _rule(f"armour piercing ({always})", unit, notes)
    if charge != always:
        notes.append(f"{name}: AP -{charge} on the charge (only -{always} applied)")
    if strength not in (None, ("+", 0)):
        notes.append(f"{name}: S {values.get('S')} not applied")
    for text in filter(None, (t.strip() for t in values.get("Special Rules", "").split(","))):
        if text.lower() != "requires two hands":
            _rule(text, unit, notes, name)


def _fit_armour(found: Gathered, unit: dict[str, Any], notes: list[str]) -> None:
    base, better = 7, int(unit.pop("_better", 0))
    for name, text, kind in found.armour:
        value, improves, ward = armour_from_text(text)
        if value is None and not improves and ward is None:
            notes.append(f"{name} ({kind.lower()}): nothing of it is modelled")
        elif kind != "Armour":  # a magic item may do more than its save
            notes.append(f"{name} ({kind.lower()}): only its armour value or ward is applied")
        if value is not None:
            base = min(base, value)
        if improves and "shield" in name.lower():
            unit["shield"] = True
        else:
            better += improves
        if ward is not None:
            unit["ward"] = min(unit.get("ward") or 7, ward)
    armour = base - better
    if armour <= 6:
        unit["armour"] = max(armour, 1)


def map_unit(found: Gathered, side: str) -> Mapped:
    """A gathered unit as a rankflank unit (a character as a unit of one)."""
    notes = list(found.unmodelled)
    unit: dict[str, Any] = {"name": found.name, "side": side}
    unit["troop_type"] = _troop_type(found.troop_type, notes)
    unit["profile"] = _profile(found.model, found.mount, notes)
    strikes = all(_digits(found.mount.get(key, "")) for key in ("WS", "S", "I", "A"))
    if found.mount and strikes:
        # The mount's own "-" (T, W, Ld: the rider's count) are the rider's numbers.
        rider = unit["profile"].split()
        mount = [
            str(_within(key, int(found.mount[key]), notes, "mount "))
            if _digits(found.mount.get(key, ""))
            else rider[k]
            for k, key in enumerate(PROFILE_KEYS)
        ]
        unit["mount"] = {"name": found.mount_name or "mount", "profile": " ".join(mount)}
    for rule in found.rules:
        _rule(rule, unit, notes)
    _fit_weapons(found, unit, notes)
    _fit_armour(found, unit, notes)
    champion: dict[str, Any] | None = None
    models = max(found.models, 1)
    if found.models < 1:
        notes.append(f"{found.models} models read as 1")
    command = unit.setdefault("command", {})
    for role, (name, values) in found.command.items():
        if role in ("standard", "musician"):
            command[role] = True
        elif models > 1:
            # Named after the unit too: character names are unique in a scenario.
            champion = {"name": f"{name} ({found.name})", "troop_type": unit["troop_type"]}
            champion["profile"] = _profile(values or found.model, found.mount, notes)
            if values is None:
                notes.append("champion: no profile in the export, the unit's is used")
            models -= 1  # the champion is one of the models, fighting as a character
    unit["models"] = models
    unit["files"] = min(models, 5)
    if not command:
        del unit["command"]
    if champion is not None:
        for key in ("armour", "ward", "weapon", "shield", "rules"):
            if key in unit:
                champion[key] = unit[key]
        unit["characters"] = [champion]
    ordered = {k: unit[k] for k in _ORDER if k in unit}
    unique = list(dict.fromkeys(notes))
    return Mapped(found.name, found.character, ordered, champion, found.points, unique)


_ORDER = (
    "name",
    "side",
    "troop_type",
    "models",
    "files",
    "profile",
    "armour",
    "ward",
    "shield",
    "weapon",
    "rules",
    "command",
    "characters",
    "mount",
)
_CHARACTER_KEYS = (
    "name",
    "troop_type",
    "profile",
    "armour",
    "ward",
    "rules",
    "weapon",
    "shield",
    "mount",
)


def join(units: list[Mapped], joins: Sequence[str], source: str) -> list[Mapped]:
    """Put each ``Character=Unit`` of ``joins`` into its unit, as one of its characters."""
    by_name = {unit.name: unit for unit in units}
    for text in joins:
        who, sep, into = (part.strip() for part in text.partition("="))
        if not sep or not who or not into:
            raise ScenarioError(f"--join {text!r}: write CHARACTER=UNIT", source="command line")
        for name, what in ((who, "character"), (into, "unit")):
            if name not in by_name:
                known = ", ".join(by_name)
                raise ScenarioError(
                    f"--join {text!r}: no {what} {name!r} (has: {known})", source=source
                )
        character, unit = by_name.pop(who), by_name[into]
        if unit.character or not character.character:
            raise ScenarioError(f"--join {text!r}: joins a character to a unit", source=source)
        spec = {k: character.spec[k] for k in _CHARACTER_KEYS if k in character.spec}
        if character.spec.get("command", {}).get("battle_standard"):
            unit.spec.setdefault("command", {})["battle_standard"] = who
        unit.spec.setdefault("characters", []).append(spec)
        unit.unmodelled.extend(f"{who}: {note}" for note in character.unmodelled)
        unit.points += character.points
    return list(by_name.values())


# Old World Builder: the list's choices, the catalogue's profiles ------------------------


class Catalogue:
    """The BSData catalogue files named for an Old World Builder list, indexed by name."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        self.by_id: dict[str, dict[str, Any]] = {}
        self.profiles: dict[tuple[str, str], dict[str, Any]] = {}
        for path in paths:
            document = parse_xml(path, read_bounded(path))
            root = next(iter(document.values()))
            self._index(root)

    def _index(self, node: dict[str, Any]) -> None:
        for key, value in node.items():
            items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
            for item in items:
                if not isinstance(item, dict):
                    continue
                if "id" in item:
                    self.by_id.setdefault(str(item["id"]), item)
                name = str(item.get("name", "")).strip().lower()
                if key == "selectionEntries" or key == "sharedSelectionEntries":
                    self.entries.setdefault(name, item)
                if key in ("profiles", "sharedProfiles") and item.get("typeName"):
                    self.profiles.setdefault((str(item["typeName"]), name), item)
                self._index(item)

    def profiles_of(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """The entry's own profiles and those its info links point to."""
        found = list(_list(entry, "profiles"))
        for link in _list(entry, "infoLinks"):
            target = self.by_id.get(str(link.get("targetId", "")))
            if target is not None and target.get("typeName"):
                found.append(target)
        return found

    def model_entry(self, entry: dict[str, Any]) -> dict[str, Any] | None:
        """The entry itself when it has a Model profile, else its first model child."""
        if any(p.get("typeName") == "Model" for p in self.profiles_of(entry)):
            return entry
        children = _list(entry, "selectionEntries") + [
            self.by_id.get(str(link.get("targetId", "")), {}) for link in _list(entry, "entryLinks")
        ]
        for child in children:
            plain = child.get("type") == "model" and child.get("subType") not in ("mount", "crew")
            if plain and any(p.get("typeName") == "Model" for p in self.profiles_of(child)):
                return child
        return None

    def profile(self, names: Sequence[str], kinds: Sequence[str]) -> dict[str, Any] | None:
        for name in names:
            for kind in kinds:
                found = self.profiles.get((kind, name.strip().lower()))
                if found is not None:
                    return found
        return None


def _active(entries: Any) -> list[dict[str, Any]]:
    return (
        [e for e in entries if isinstance(e, dict) and e.get("active")]
        if isinstance(entries, list)
        else []
    )


def _a_list(value: Any, where: str) -> list[Any]:
    """The list ``value`` (empty when absent); any other shape is refused, never skipped
    in silence."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Malformed(where, "not a list")
    return value


def _objects(value: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """The objects of the list ``value`` (none when absent) with their key paths."""
    value = _a_list(value, where)
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise _Malformed(f"{where}[{index}]", "not an object")
    return [(f"{where}[{index}]", item) for index, item in enumerate(value)]


def _object(value: Any, where: str) -> dict[str, Any]:
    """The object ``value`` (empty when absent); any other shape is refused."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Malformed(where, "not an object")
    return value


def _owb_name(entry: Mapping[str, Any]) -> str:
    name = str(entry.get("name_en") or entry.get("name") or "")
    return re.sub(r"\s*\{[^}]*\}|\*", "", name).strip()


def _split(text: str) -> list[str]:
    return [part.strip() for part in re.split(r",|\band\b", text) if part.strip()]


def _row(name: str, kind: str, profiles: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "profiles": profiles, "selections": [], **more}


def _owb_kit(entry: Mapping[str, Any], catalogue: Catalogue, where: str) -> list[dict[str, Any]]:
    """The rows of the options an Old World Builder unit (at key path ``where``) has
    chosen."""
    kit: list[dict[str, Any]] = []
    for option in _active(entry.get("equipment")) + _active(entry.get("options")):
        for part in _split(_owb_name(option)):
            weapon = catalogue.profile([part, part.rstrip("s")], ("Weapon",))
            unknown = {"typeName": "Weapon", "name": part, "characteristics": []}
            kit.append(_row(part, "upgrade", [weapon or unknown]))
    for option in _active(entry.get("armor")):
        for part in _split(_owb_name(option)):
            text = OWB_ARMOUR.get(part.lower()) or OWB_ARMOUR.get(part.lower().rstrip("s"))
            if text is None and re.fullmatch(r"\d\+", part):
                text = f"Armour Value {part}"
            described = [{"name": "Description", "$text": text or ""}]
            kit.append(
                _row(
                    part,
                    "upgrade",
                    [{"typeName": "Armour", "name": part, "characteristics": described}],
                )
            )
    for option in _active(entry.get("mounts")):
        mount = catalogue.entries.get(_owb_name(option).lower())
        profiles = catalogue.profiles_of(mount) if mount else []
        kit.append(_row(_owb_name(option), "mount", profiles, group="Mounts"))
    for place, option in _objects(entry.get("command"), f"{where}.command"):
        if not option.get("active"):
            continue
        role = _owb_name(option)
        lowered = role.lower()
        command = (
            "Standard Bearer"
            if "standard" in lowered
            else "Musician"
            if "musician" in lowered
            else "Champion"
        )
        roles: list[dict[str, Any]] = [{"typeName": "Command", "name": command}]
        champion = catalogue.profile([role], ("Model",)) if command == "Champion" else None
        costs = [{"typeId": "points", "value": _number(option.get("points"))}]
        crew = _row(role, "crew", roles + ([champion] if champion else []), costs=costs)
        magic = _object(option.get("magic"), f"{place}.magic")
        for item in _selected(magic, f"{place}.magic"):
            crew["selections"].append(_owb_item(item, catalogue))
        kit.append(crew)
    for place, group in _objects(entry.get("items"), f"{where}.items"):
        kit.extend(_owb_item(item, catalogue) for item in _selected(group, place))
    return kit


def _selected(group: Mapping[str, Any], where: str) -> list[Any]:
    """The items chosen in an Old World Builder group of magic items (names or objects)."""
    return _a_list(group.get("selected"), f"{where}.selected")


def owb_rows(
    document: Mapping[str, Any], catalogue: Catalogue
) -> tuple[list[dict[str, Any]], list[str]]:
    """Old World Builder units as roster rows (the tree New Recruit writes), the catalogue
    lending the profiles; the names of units the catalogue lacks."""
    rows: list[dict[str, Any]] = []
    missing: list[str] = []
    for array in OWB_ARRAYS:
        for where, entry in _objects(document.get(array), array):
            name = _owb_name(entry)
            found = catalogue.entries.get(name.lower())
            model = catalogue.model_entry(found) if found else None
            if found is None or model is None:
                missing.append(f"{name}: no profile in the catalogues given, not imported")
                continue
            number = _count(entry.get("strength"), f"{where}.strength") or 1
            profiles = [p for p in catalogue.profiles_of(found) if p.get("typeName") == "Unit"]
            special = _object(entry.get("specialRules"), f"{where}.specialRules")
            rules = _split(str(special.get("name_en", "")))
            profiles += [{"typeName": "Special Rule", "name": rule} for rule in rules]
            stats = [p for p in catalogue.profiles_of(model) if p.get("typeName") == "Model"]
            costs = [{"typeId": "points", "value": _number(entry.get("points")) * number}]
            model_row = _row(name, "model", stats, number=number, costs=costs)
            model_row["selections"] = _owb_kit(entry, catalogue, where)
            category = "Characters" if array == "characters" else array.title()
            categories = [{"name": category, "primary": True}]
            rows.append(_row(name, "unit", profiles, categories=categories))
            rows[-1]["selections"] = [model_row]
    return rows, missing


_ITEM_KINDS = (
    "Magic Weapons",
    "Magic Armour",
    "Talismans",
    "Arcane Items",
    "Enchanted Items",
    "Magic Standards",
)


def _owb_item(item: Any, catalogue: Catalogue) -> dict[str, Any]:
    name = _owb_name(item) if isinstance(item, dict) else str(item)
    profile = catalogue.profile([name], _ITEM_KINDS)
    fallback = {"typeName": "Enchanted Items", "name": name}
    return {"name": name, "type": "upgrade", "profiles": [profile or fallback]}


# The import as a whole ----------------------------------------------------------------


def import_army(
    path: Path,
    *,
    catalogues: Sequence[Path] = (),
    joins: Sequence[str] = (),
    side: str | None = None,
) -> ArmyImport:
    """Read ``path`` and write its units as a rankflank scenario fragment (YAML text).

    >>> from fracas.rulesets.rankflank.armylists import parse_xml
    >>> parse_xml("x.ros", b'<!DOCTYPE x [<!ENTITY a "b">]><roster/>')
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: x.ros: XML with a DOCTYPE or entity declarations is refused
    """
    army = read_units(path, catalogues, joins, side)
    units = tuple(unit.name for unit in army.units if not unit.character)
    characters = tuple(unit.name for unit in army.units if unit.character)
    return ArmyImport(_yaml(army), _notes(army), units, characters)


@dataclass
class Army:
    """An army file read into units, with where it came from."""

    file: str
    builder: str
    name: str
    units: list[Mapped]
    #: Entries of the list that could not be read at all (unknown to the catalogues).
    missing: list[str]


def read_units(
    path: Path, catalogues: Sequence[Path], joins: Sequence[str], side: str | None
) -> Army:
    """The units of the army file ``path``, characters joined as ``joins`` say."""
    try:
        return _read_units(path, catalogues, joins, side)
    except RecursionError:  # a tree deep enough to pass the parser, too deep to walk
        raise _refuse(path, "nests too deeply to be an army list") from None
    except _Malformed as exc:
        raise _refuse(path, str(exc)) from None


def _notes(army: Army) -> tuple[str, ...]:
    notes = [
        *army.missing,
        *(f"{unit.name}: {note}" for unit in army.units for note in unit.unmodelled),
    ]
    return tuple(_comment(note) for note in notes)


def _read_units(
    path: Path, catalogues: Sequence[Path], joins: Sequence[str], side: str | None
) -> Army:
    kind, document = read_army(path)
    missing: list[str] = []
    if kind == "owb":
        if not catalogues:
            raise _refuse(
                path,
                "an Old World Builder list carries no profiles: name the "
                "army's BSData catalogue files with --catalogue",
            )
        rows, missing = owb_rows(document, Catalogue(catalogues))
        army = str(document.get("name") or document.get("army") or "Army")
        builder = "Old World Builder"
    else:
        forces = _list(document, "forces")
        rows = [row for force in forces for row in _list(force, "selections")]
        army = str(
            next((f.get("catalogueName") for f in forces if f.get("catalogueName")), "")
            or document.get("name")
            or "Army"
        )
        builder = (
            "New Recruit"
            if "newrecruit" in str(document.get("generatedBy", ""))
            else "BattleScribe"
        )
    if not rows and not missing:
        raise _refuse(path, "holds no units")
    side = side or army
    gathered = [gather(row) for row in rows]
    # Two units of one kind: the schema wants unique names (champions' too). The second
    # takes the first number free, never the name of another unit of the list.
    taken = {found.name for found in gathered}
    seen: set[str] = set()
    for found in gathered:
        if found.name in seen:
            number = 2
            while f"{found.name} {number}" in taken:
                number += 1
            found.name = f"{found.name} {number}"
            taken.add(found.name)
        seen.add(found.name)
    mapped = [map_unit(found, side) for found in gathered]
    mapped = join(mapped, joins, str(path))
    return Army(path.name, builder, army, mapped, missing)


#: Who charges in a battle built from two lists: the first list's unit, the second's, nobody.
CHARGERS = ("first", "second", "none")


def import_battle(
    first: Army,
    second: Army,
    fight: tuple[str, str],
    *,
    charger: str = "first",
    arc: str = "front",
    source: str = "--fight",
) -> ArmyImport:
    """A whole oldworld scenario: unit ``fight[0]`` of ``first`` against ``fight[1]`` of
    ``second``. The charger (``first``, ``second`` or ``none``: then the first list's unit
    engages) strikes the other unit's ``arc``; the two sides are the armies' names (the
    second's marked ``(2)`` when both lists are one army's).

    >>> unit = Mapped("Guard", False, {"name": "Guard", "side": "A"}, None, 10, [])
    >>> foe = Mapped("Orcs", False, {"name": "Orcs", "side": "A"}, None, 12, [])
    >>> text = import_battle(Army("a.ros", "BattleScribe", "A", [unit], []),
    ...                      Army("b.ros", "BattleScribe", "A", [foe], []),
    ...                      ("Guard", "Orcs"), charger="second", arc="left").text
    >>> print(text[text.index("engagements"):], end="")
    engagements:
      - unit: "Orcs"
        enemy: "Guard"
        arc: "left"
    """
    if charger not in CHARGERS:
        raise ScenarioError(
            f"the charger is one of {', '.join(CHARGERS)}, not {charger!r}", source=source
        )
    chosen: list[Mapped] = []
    for army, name in zip((first, second), fight, strict=True):
        units = {unit.name: unit for unit in army.units if not unit.character}
        if name not in units:
            raise ScenarioError(
                f"{army.file} has no unit {name!r} (units: {', '.join(units) or 'none'}; "
                "join characters with --join)",
                source=source,
            )
        chosen.append(units[name])
    mine, theirs = (dict(unit.spec) for unit in chosen)
    if mine["name"] == theirs["name"]:
        theirs["name"] = f"{theirs['name']} (2)"
    if mine["side"] == theirs["side"]:
        theirs["side"] = f"{theirs['side']} (2)"
    taken = {c["name"] for c in mine.get("characters", [])}
    theirs["characters"] = [
        {**c, "name": f"{c['name']} (2)"} if c["name"] in taken else c
        for c in theirs.get("characters", [])
    ]
    if not theirs["characters"]:
        del theirs["characters"]
    striker, struck = (theirs, mine) if charger == "second" else (mine, theirs)
    if charger != "none":
        striker["charged"] = True
    lines = [
        f"# A battle built by 'fracas import' from {_comment(first.file)} and "
        f"{_comment(second.file)}.",
        "# 'files' (each unit's width) is not in the exports: check it, and the charge.",
    ]
    lines += [f"# NOT IMPORTED: {_comment(note)}" for note in (*first.missing, *second.missing)]
    lines += ["fracas: 1", "ruleset: rankflank", "parameters:", "  edition: oldworld", "units:"]
    for unit, spec in zip(chosen, (mine, theirs), strict=True):
        lines.append(f"  # {_comment(spec['name'])}: {unit.points:g} pts")
        lines += [f"  # not modelled: {_comment(note)}" for note in unit.unmodelled]
        _emit(spec, 4, lines, "  - ")
    lines.append("engagements:")
    engagement = {"unit": striker["name"], "enemy": struck["name"], "arc": arc}
    _emit(engagement, 4, lines, "  - ")
    notes = [_comment(f"{unit.name}: {note}") for unit in chosen for note in unit.unmodelled]
    names = (mine["name"], theirs["name"])
    return ArmyImport("\n".join(lines) + "\n", tuple(notes), names)


#: What a YAML double-quoted scalar cannot hold as it is: C1 controls and line breaks
#: that YAML folds (NEL, LS, PS), surrogates and the non-characters.
_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _scalar(value: Any) -> str:
    """A YAML scalar: a JSON string (JSON escapes are YAML's), with what YAML would read
    otherwise escaped too; a lone surrogate cannot be written and becomes U+FFFD."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group(0))
        return "\\ufffd" if 0xD800 <= code <= 0xDFFF else f"\\u{code:04x}"

    return _UNPRINTABLE.sub(escape, json.dumps(str(value), ensure_ascii=False))


def _comment(text: str) -> str:
    """User text inside a ``#`` comment and on the terminal: one line, every control,
    line break and bidirectional override spelt out (as in every other message).

    >>> print(_comment("M " + chr(0x202E) + "99 read as 0" + chr(10) + "next"))
    M \\u202e99 read as 0\\nnext
    """
    return printable(text)


def _emit(value: Mapping[str, Any], column: int, lines: list[str], first: str) -> None:
    """``value`` as block YAML, its keys at ``column``, the first line begun by ``first``."""
    prefix, pad = first, " " * column
    for key, item in value.items():
        if isinstance(item, dict) and item:
            lines.append(f"{prefix}{key}:")
            _emit(item, column + 2, lines, pad + "  ")
        elif isinstance(item, list) and item:
            lines.append(f"{prefix}{key}:")
            for element in item:
                if isinstance(element, dict):
                    _emit(element, column + 4, lines, pad + "  - ")
                else:
                    lines.append(f"{pad}  - {_scalar(element)}")
        else:
            lines.append(f"{prefix}{key}: {'[]' if item == [] else _scalar(item)}")
        prefix = pad


def _yaml(army: Army) -> str:
    units, file, builder, missing = army.units, army.file, army.builder, army.missing
    where = f"{_comment(file)} ({builder}, {_comment(army.name)})"
    lines = [
        f"# Units imported by 'fracas import' from {where}.",
        "# 'files' (the unit's width) is not in the export: set it, add the other side's units",
        "# and the engagements, and this is a scenario.",
    ]
    lines += [f"# NOT IMPORTED: {_comment(note)}" for note in missing]
    lines += ["fracas: 1", "ruleset: rankflank", "units:"]
    for unit in units:
        lines.append(f"  # {_comment(unit.name)}: {unit.points:g} pts")
        lines += [f"  # not modelled: {_comment(note)}" for note in unit.unmodelled]
        _emit(unit.spec, 4, lines, "  - ")
    return "\n".join(lines) + "\n"
