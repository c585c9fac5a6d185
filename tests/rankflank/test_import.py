"""``fracas import``: army lists of New Recruit, BattleScribe and Old World Builder as units.

The army files are written here by the structure the exports have (docs/import.md): New
Recruit's JSON tree, the same tree as BattleScribe XML (zipped for ``.rosz``), and an Old
World Builder list with a small BSData catalogue. Every expected unit is worked out by hand
from the rows written.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fracas.cli.commands import app
from fracas.core.errors import ScenarioError
from fracas.io.scenario import load_scenario
from fracas.rulesets.rankflank import armylists
from fracas.rulesets.rankflank.armylists import (
    MAX_BYTES,
    TOW_SYSTEM,
    armour_from_text,
    import_army,
    parse_ap,
    parse_strength,
)

NS = "http://www.battlescribe.net/schema/rosterSchema"
MODEL = ("M", "WS", "BS", "S", "T", "W", "I", "A", "Ld")


def chars(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    """Characteristics as New Recruit writes them: no ``$text`` when the value is empty."""
    return [{"name": name, **({"$text": text} if text else {})} for name, text in pairs]


def model(name: str, values: str) -> dict[str, Any]:
    texts = values.split()
    return {
        "typeName": "Model",
        "name": name,
        "characteristics": chars(*zip(MODEL, texts, strict=True)),
    }


def rule(name: str) -> dict[str, Any]:
    return {
        "typeName": "Special Rule",
        "name": name,
        "characteristics": chars(("Description", "…")),
    }


def weapon(
    name: str, r: str, s: str, ap: str, rules: str = "", kind: str = "Weapon"
) -> dict[str, Any]:
    return {
        "typeName": kind,
        "name": name,
        "characteristics": chars(("R", r), ("S", s), ("AP", ap), ("Special Rules", rules)),
    }


def armour(name: str, text: str, kind: str = "Armour") -> dict[str, Any]:
    return {"typeName": kind, "name": name, "characteristics": chars(("Description", text))}


def pts(value: float) -> list[dict[str, Any]]:
    return [{"name": "pts", "typeId": "points", "value": value}]


def row(
    name: str, kind: str, number: int, profiles: list[dict[str, Any]], **more: Any
) -> dict[str, Any]:
    return {"name": name, "type": kind, "number": number, "profiles": profiles, **more}


def dryads() -> dict[str, Any]:
    # 19 Dryads at 13 pts (the cost already the row's total: 247) and a Nymph champion whose
    # row pays its upgrade only (5 < 13): one of the 19, not a twentieth. BS is empty, so
    # New Recruit writes no $text for it.
    return row(
        "Dryads",
        "unit",
        1,
        [
            {
                "typeName": "Unit",
                "characteristics": chars(("Troop Type", "Regular Infantry"), ("Unit Size", "5+")),
            },
            rule("Fear"),
            rule("Regeneration (6+)"),
            rule("Hatred (Beastman Brayherds)"),
            rule("Forest Stalkers"),
        ],
        categories=[{"name": "Core", "primary": True}],
        selections=[
            row(
                "Dryad",
                "model",
                19,
                [
                    model("Dryads", "5 4 - 4 4 1 4 2 8"),
                    {"typeName": "Base", "characteristics": chars(("Base Size", "30x30"))},
                ],
                costs=pts(247),
                selections=[
                    row("Hand Weapon", "upgrade", 19, [weapon("Hand Weapon", "Combat", "S", "-")]),
                    row(
                        "Musician",
                        "upgrade",
                        1,
                        [{"typeName": "Command", "name": "Musician"}],
                        costs=pts(5),
                    ),
                ],
            ),
            row(
                "Nymph",
                "crew",
                1,
                [
                    model("Nymph", "5 4 - 4 4 1 4 3 8"),
                    {"typeName": "Command", "name": "Champion"},
                    rule("Blessing of the Glade"),
                ],
                group="Command",
                costs=pts(5),
            ),
        ],
    )


def knights() -> dict[str, Any]:
    # 5 Knights at 20 pts on Barded Warhorses (the mount row repeats the 5); lance, heavy
    # armour, shield. The riders' M is "-": the horse's 8 is the unit's.
    return row(
        "Empire Knights",
        "unit",
        1,
        [
            {
                "typeName": "Unit",
                "characteristics": chars(("Troop Type", "Heavy cavalry"), ("Unit Size", "4+")),
            }
        ],
        categories=[{"name": "Core", "primary": True}],
        selections=[
            row(
                "Empire Knight",
                "model",
                5,
                [model("Empire Knight", "- 4 3 3 3 1 3 1 8")],
                costs=pts(100),
                selections=[
                    row("Hand Weapon", "upgrade", 5, [weapon("Hand Weapon", "Combat", "S", "-")]),
                    row(
                        "Lance",
                        "upgrade",
                        5,
                        [weapon("Lance", "Combat", "S+2", "-2", "Armour Bane (1)")],
                    ),
                    row("Heavy Armour", "upgrade", 5, [armour("Heavy Armour", "Armour Value 5+")]),
                    row(
                        "Shield",
                        "upgrade",
                        5,
                        [armour("Shield", "A shield improves its armour value by 1.")],
                    ),
                    row(
                        "Barded Warhorse",
                        "mount",
                        5,
                        [
                            model("Barded Warhorse", "8 3 - 3 - - 3 1 -"),
                            rule("Swiftstride"),
                            armour("Barding", "Barding improves the model's armour value by 1."),
                        ],
                        group="Mounts",
                        selections=[
                            row("Hooves", "upgrade", 5, [weapon("Hooves", "Combat", "S", "-")])
                        ],
                    ),
                ],
            ),
            row(
                "Standard Bearer",
                "crew",
                1,
                [{"typeName": "Command", "name": "Standard Bearer"}],
                group="Command",
                costs=pts(6),
                selections=[
                    row(
                        "Banner of Arcane Warding",
                        "upgrade",
                        1,
                        [armour("Banner of Arcane Warding", "…", "Magic Standards")],
                        costs=pts(25),
                    )
                ],
            ),
        ],
    )


def captain() -> dict[str, Any]:
    # A character: his own unit row in the export. A magic weapon S+1, AP -1 (-2 on the
    # charge) with Killing Blow; a great weapon he also carries; a 5+ ward; full plate 4+.
    return row(
        "Captain of the Empire",
        "unit",
        1,
        [
            {
                "typeName": "Unit",
                "characteristics": chars(
                    ("Troop Type", "Regular infantry (character)"), ("Unit Size", "1")
                ),
            }
        ],
        categories=[{"name": "Characters", "primary": True}],
        selections=[
            row(
                "Captain of the Empire",
                "model",
                1,
                [model("Captain", "4 5 5 4 4 2 5 3 8")],
                costs=pts(45),
                selections=[
                    row(
                        "Great Weapon",
                        "upgrade",
                        1,
                        [
                            weapon(
                                "Great Weapon",
                                "Combat",
                                "S+2",
                                "-2",
                                "Armour Bane(1), Requires Two Hands, Strike Last",
                            )
                        ],
                    ),
                    row(
                        "Sword of Might",
                        "upgrade",
                        1,
                        [
                            weapon(
                                "Sword of Might",
                                "Combat",
                                "S+1",
                                "-1 (-2)",
                                "Killing Blow, Magical Attacks",
                                "Magic Weapons",
                            )
                        ],
                        costs=pts(20),
                    ),
                    row(
                        "Full Plate Armour",
                        "upgrade",
                        1,
                        [armour("Full Plate Armour", "Armour Value 4+")],
                    ),
                    row(
                        "Talisman of Protection",
                        "upgrade",
                        1,
                        [
                            armour(
                                "Talisman of Protection",
                                "Its bearer has a 5+ Ward save.",
                                "Talismans",
                            )
                        ],
                        costs=pts(15),
                    ),
                    row(
                        "Dawnstone",
                        "upgrade",
                        1,
                        [
                            armour(
                                "Dawnstone",
                                "Its bearer may re-roll failed armour saves.",
                                "Talismans",
                            )
                        ],
                    ),
                    row("Pigeon", "upgrade", 1, [{"typeName": "Familiar", "name": "Pigeon"}]),
                    row("General", "upgrade", 1, [rule("General")]),
                    row(
                        "Battle Standard Bearer",
                        "upgrade",
                        1,
                        [rule("Battle Standard Bearer")],
                        costs=pts(25),
                    ),
                    row("Pistol", "upgrade", 1, [weapon("Pistol", '12"', "4", "-1")]),
                ],
            )
        ],
    )


def roster(
    *units: dict[str, Any], system: str = TOW_SYSTEM, army: str = "Empire of Man"
) -> dict[str, Any]:
    return {
        "roster": {
            "name": "2k list",
            "gameSystemId": system,
            "gameSystemName": "Warhammer The Old World",
            "generatedBy": "https://newrecruit.eu",
            "costs": [{"name": "pts", "typeId": "points", "value": 1000}],
            "forces": [
                {"catalogueName": army, "entryId": "8214-cf48-b1cd-5f5e", "selections": list(units)}
            ],
        }
    }


SINGULAR = {
    "forces": "force",
    "selections": "selection",
    "profiles": "profile",
    "characteristics": "characteristic",
    "costs": "cost",
    "categories": "category",
}


def to_xml(node: dict[str, Any], tag: str) -> ElementTree.Element:
    """The same tree as a BattleScribe roster: attributes, containers, text; plain
    BattleScribe has no ``crew`` or ``mount`` row type (those are models there) and writes
    its numbers as decimals."""
    element = ElementTree.Element(f"{{{NS}}}{tag}")
    for key, value in node.items():
        if isinstance(value, list):
            container = ElementTree.SubElement(element, f"{{{NS}}}{key}")
            for item in value:
                container.append(to_xml(item, SINGULAR[key]))
        elif key == "$text":
            element.text = value
        elif isinstance(value, dict):
            element.append(to_xml(value, key))
        else:
            text = "model" if key == "type" and value in ("crew", "mount") else value
            element.set(
                key,
                f"{float(text)}"
                if isinstance(text, int | float) and not isinstance(text, bool)
                else str(text).lower()
                if isinstance(text, bool)
                else str(text),
            )
    return element


def ros_bytes(document: dict[str, Any]) -> bytes:
    data = copy.deepcopy(document["roster"])
    data.pop("generatedBy")
    ElementTree.register_namespace("", NS)
    text: bytes = ElementTree.tostring(
        to_xml(data, "roster"), xml_declaration=True, encoding="utf-8"
    )
    return text


def write(tmp_path: Path, name: str, data: bytes | dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return path


def units_of(text: str) -> dict[str, dict[str, Any]]:
    return {unit["name"]: unit for unit in yaml.safe_load(text)["units"]}


# The values in the exports' own writing -----------------------------------------------


def test_strength_ap_and_armour_texts() -> None:
    assert parse_strength("S") == ("+", 0)
    assert parse_strength("S+2") == ("+", 2)
    assert parse_strength("2") == ("=", 2)
    assert parse_strength("-") is None
    assert parse_ap("-1 (-2)") == (1, 2)  # -1, -2 against models it charged
    assert parse_ap("N/A") == (0, 0)
    assert armour_from_text("Armour Value 4+") == (4, 0, None)
    assert armour_from_text("A shield improves its armour value by 1.") == (None, 1, None)
    assert armour_from_text("Its bearer has a 5+ Ward save.") == (None, 0, 5)


# New Recruit ----------------------------------------------------------------------------

EXPECTED_DRYADS = {
    "name": "Dryads",
    "side": "Wood Elf Realms",
    "troop_type": "infantry",
    "models": 18,  # 19 bodies, the Nymph one of them (her row pays 5 < 13), fighting as a character
    "files": 5,
    "profile": "5 4 0 4 4 1 4 2 8",  # BS empty: read as 0
    "weapon": "hand_weapon",
    "rules": ["fear", "regeneration (6+)"],
    "command": {"musician": True},
    "characters": [
        {
            "name": "Nymph (Dryads)",
            "troop_type": "infantry",
            "profile": "5 4 0 4 4 1 4 3 8",  # her own row: A 3
            "weapon": "hand_weapon",
            "rules": ["fear", "regeneration (6+)"],
        }
    ],
}


def test_new_recruit_dryads(tmp_path: Path) -> None:
    path = write(tmp_path, "dryads.json", roster(dryads(), army="Wood Elf Realms"))
    result = import_army(path)
    assert units_of(result.text) == {"Dryads": EXPECTED_DRYADS}
    # Nothing dropped silently: the targeted hatred and the rule fracas does not play are
    # listed, in the file and on the notes.
    assert (
        "Dryads: Hatred (Beastman Brayherds): hatred takes no value, got (Beastman Brayherds)"
        in result.unmodelled
    )
    assert "Dryads: Forest Stalkers: not a rule fracas plays" in result.unmodelled
    assert "# not modelled: Forest Stalkers: not a rule fracas plays" in result.text
    # The champion's own rule is hers, not the unit's: listed.
    assert "Dryads: Blessing of the Glade of the command group: not modelled" in result.unmodelled
    assert "# Dryads: 257 pts" in result.text  # 247 + the musician 5 + the Nymph 5


def test_new_recruit_knights_mount_armour_and_command(tmp_path: Path) -> None:
    path = write(tmp_path, "knights.json", roster(knights()))
    result = import_army(path)
    # Heavy armour 5+, barding improves by 1: 4+; the shield is the schema's own flag.
    assert units_of(result.text)["Empire Knights"] == {
        "name": "Empire Knights",
        "side": "Empire of Man",
        "troop_type": "cavalry",
        "models": 5,  # the horses' 5 is the same five models
        "files": 5,
        "profile": "8 4 3 3 3 1 3 1 8",  # M "-" is the warhorse's 8
        "armour": 4,
        "shield": True,
        "weapon": "lance",
        "rules": ["swiftstride"],
        "command": {"standard": True},
        # The warhorse strikes with its own WS 3, S 3, I 3, A 1; its "-" are the rider's.
        "mount": {"name": "Barded Warhorse", "profile": "8 3 3 3 3 1 3 1 8"},
    }
    notes = result.unmodelled
    assert not any("Barded Warhorse" in n or "Hooves" in n for n in notes)
    assert (
        "Empire Knights: Lance (S S+2, AP -2, Special Rules Armour Bane (1)): "
        "fought as lance, the preset's own profile" in notes
    )
    assert "Empire Knights: magic standard Banner of Arcane Warding" in notes


def test_a_character_stands_alone_and_joins_with_join(tmp_path: Path) -> None:
    path = write(tmp_path, "empire.json", roster(knights(), captain()))
    alone = units_of(import_army(path).text)["Captain of the Empire"]
    # The magic weapon is the one he fights with: AP -1 is armour piercing (1), Killing Blow
    # a rule; full plate 4+, talisman 5+ ward; a unit of one carrying the battle standard.
    assert alone == {
        "name": "Captain of the Empire",
        "side": "Empire of Man",
        "troop_type": "infantry",
        "models": 1,
        "files": 1,
        "profile": "4 5 5 4 4 2 5 3 8",
        "armour": 4,
        "ward": 5,
        "weapon": "hand_weapon",
        "rules": ["armour piercing (1)", "killing blow"],
        "command": {"battle_standard": True},
    }
    joined = import_army(path, joins=["Captain of the Empire=Empire Knights"])
    units = units_of(joined.text)
    assert list(units) == ["Empire Knights"]
    knights_unit = units["Empire Knights"]
    assert knights_unit["command"] == {"standard": True, "battle_standard": "Captain of the Empire"}
    assert knights_unit["characters"] == [
        {
            "name": "Captain of the Empire",
            "troop_type": "infantry",
            "profile": "4 5 5 4 4 2 5 3 8",
            "armour": 4,
            "ward": 5,
            "rules": ["armour piercing (1)", "killing blow"],
            "weapon": "hand_weapon",
        }
    ]
    notes = joined.unmodelled
    # A profile of a type the import does not know is listed as it is.
    assert "Empire Knights: Captain of the Empire: Familiar Pigeon" in notes
    # A talisman whose text gives no save is listed whole; one that gives a ward says that
    # the ward is all of it that is applied.
    assert (
        "Empire Knights: Captain of the Empire: Dawnstone (talismans): nothing of it is modelled"
        in notes
    )
    assert (
        "Empire Knights: Captain of the Empire: Talisman of Protection (talismans): "
        "only its armour value or ward is applied"
    ) in notes
    assert (
        "Empire Knights: Captain of the Empire: "
        "General: give the units within its range (oldworld) general_leadership: its Leadership"
        in notes
    )
    assert (
        "Empire Knights: Captain of the Empire: "
        "Sword of Might: AP -2 on the charge (only -1 applied)" in notes
    )
    assert "Empire Knights: Captain of the Empire: Sword of Might: S S+1 not applied" in notes
    assert (
        "Empire Knights: Captain of the Empire: "
        "Magical Attacks (Sword of Might): not a rule fracas plays" in notes
    )
    assert (
        "Empire Knights: Captain of the Empire: "
        "Great Weapon: a second weapon; the unit fights with Sword of Might" in notes
    )
    assert (
        'Empire Knights: Captain of the Empire: Pistol (R 12"): shooting is not modelled' in notes
    )


def test_two_units_of_one_kind_get_names_of_their_own(tmp_path: Path) -> None:
    path = write(tmp_path, "two.json", roster(dryads(), dryads(), army="Wood Elf Realms"))
    units = units_of(import_army(path).text)
    assert list(units) == ["Dryads", "Dryads 2"]
    # Their champions too: a character's name is unique in a scenario.
    assert units["Dryads 2"]["characters"][0]["name"] == "Nymph (Dryads 2)"


def test_a_second_unit_of_one_kind_never_takes_another_units_name(tmp_path: Path) -> None:
    # Dryads, Dryads and a unit the player named "Dryads 2": the second Dryads cannot be
    # "Dryads 2" too (one of the two would be lost), so it is "Dryads 3".
    named = {**dryads(), "name": "Dryads 2"}
    path = write(tmp_path, "three.json", roster(dryads(), dryads(), named, army="Wood Elves"))
    units = units_of(import_army(path).text)
    assert list(units) == ["Dryads", "Dryads 3", "Dryads 2"]
    assert units["Dryads 3"]["characters"][0]["name"] == "Nymph (Dryads 3)"


def test_characteristics_outside_the_scenarios_bounds_are_read_within_them(
    tmp_path: Path,
) -> None:
    # WS "0" and A "11" are numbers a scenario refuses (1-10, 0-10); "²" passes str.isdigit
    # but is no number. Each is read within the bounds and listed, and the battle loads.
    unit = dryads()
    unit["selections"][0]["profiles"][0] = model("Dryads", "5 0 - 4 4 1 4 11 8")
    champion = unit["selections"][1]["profiles"][0]
    champion["characteristics"][1]["$text"] = "²"  # the Nymph's WS
    path = write(tmp_path, "odd.json", roster(unit, army="Wood Elf Realms"))
    result = import_army(path)
    dryads_unit = units_of(result.text)["Dryads"]
    assert dryads_unit["profile"] == "5 1 0 4 4 1 4 10 8"
    assert dryads_unit["characters"][0]["profile"].split()[1] == "1"
    for note in ("WS 0 read as 1", "A 11 read as 10", "WS ² read as 1"):
        assert f"Dryads: {note}" in result.unmodelled
    output = tmp_path / "battle.yaml"
    imported = CliRunner().invoke(
        app,
        ["import", str(path), "--versus", str(path), "--fight", "Dryads=Dryads",
         "-o", str(output)],
    )  # fmt: skip
    assert imported.exit_code == 0, imported.output
    assert load_scenario(output).model.combat.units[0].models == 18


@pytest.mark.parametrize(
    "join",
    [
        "Nobody=Empire Knights",
        "Captain of the Empire=Nowhere",
        "no equals sign",
        "Empire Knights=Captain of the Empire",
    ],
)
def test_a_bad_join_is_one_error(tmp_path: Path, join: str) -> None:
    path = write(tmp_path, "empire.json", roster(knights(), captain()))
    with pytest.raises(ScenarioError, match="--join"):
        import_army(path, joins=[join])


# BattleScribe: the same tree in XML, zipped or not ------------------------------------


def test_battlescribe_ros_and_rosz_read_as_new_recruit(tmp_path: Path) -> None:
    document = roster(dryads(), knights(), captain())
    from_json = import_army(write(tmp_path, "army.json", document))
    ros = write(tmp_path, "army.ros", ros_bytes(document))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("2k KB.ros", ros_bytes(document))
    rosz = write(tmp_path, "army.rosz", buffer.getvalue())
    for path in (ros, rosz):
        result = import_army(path)
        assert units_of(result.text) == units_of(from_json.text)
        assert result.unmodelled == from_json.unmodelled
        assert "(BattleScribe, Empire of Man)" in result.text


# Old World Builder with a catalogue -----------------------------------------------------


def xml_model(values: str) -> str:
    pairs = zip(MODEL, values.split(), strict=True)
    return "".join(f'<characteristic name="{key}">{value}</characteristic>' for key, value in pairs)


CATALOGUE = f"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema"
  name="Wood Elf Realms" id="cat-1">
  <sharedProfiles>
    <profile id="p-hw" name="Hand Weapon" typeName="Weapon" typeId="a378-c633-912d-11ce">
      <characteristics><characteristic name="R">Combat</characteristic>
<characteristic name="S">S</characteristic>
<characteristic name="AP">-</characteristic>
</characteristics>
    </profile>
    <profile id="p-fear" name="Fear" typeName="Special Rule">
<characteristics><characteristic name="Description">…</characteristic>
</characteristics>
</profile>
  </sharedProfiles>
  <sharedSelectionEntries>
    <selectionEntry id="e-dryads" name="Dryads" type="unit">
      <profiles>
        <profile id="p-unit" name="Dryads" typeName="Unit">
<characteristics><characteristic name="Troop Type">Regular Infantry</characteristic>
<characteristic name="Unit Size">5+</characteristic>
</characteristics>
</profile>
      </profiles>
      <infoLinks><infoLink id="l-1" targetId="p-fear" type="profile"/></infoLinks>
      <selectionEntries>
        <selectionEntry id="e-dryad" name="Dryad" type="model">
          <profiles>
            <profile id="p-dryad" name="Dryads" typeName="Model">
<characteristics>
{xml_model("5 4 - 4 4 1 4 2 8")}</characteristics>
</profile>
          </profiles>
        </selectionEntry>
      </selectionEntries>
    </selectionEntry>
    <selectionEntry id="e-nymph" name="Nymph" type="model" subType="crew">
      <profiles>
        <profile id="p-nymph" name="Nymph" typeName="Model">
<characteristics>
{xml_model("5 4 - 4 4 1 4 3 8")}</characteristics>
</profile>
      </profiles>
    </selectionEntry>
  </sharedSelectionEntries>
</catalogue>
"""


def owb_list() -> dict[str, Any]:
    # strength 19 is the models, Nymph among them; points are per model.
    return {
        "name": "Glade host",
        "game": "the-old-world",
        "army": "wood-elf-realms",
        "characters": [],
        "core": [
            {
                "name_en": "Dryads",
                "strength": 19,
                "points": 13,
                "command": [
                    {"name_en": "Nymph", "active": True, "points": 5},
                    {"name_en": "Standard bearer", "active": False, "points": 5},
                    {"name_en": "Musician", "active": True, "points": 5},
                ],
                "equipment": [{"name_en": "Hand weapons", "active": True}],
                "armor": [],
                "options": [],
                "mounts": [],
                "specialRules": {
                    "name_en": "Fear, Regeneration (6+), Hatred (Beastman Brayherds), "
                    "Forest Stalkers"
                },
            },
            {"name_en": "Eternal Guard {renegade}", "strength": 10, "points": 14},
        ],
        "special": [],
        "rare": [],
    }


def test_old_world_builder_with_its_catalogue(tmp_path: Path) -> None:
    army = write(tmp_path, "glade.owb.json", owb_list())
    catalogue = write(tmp_path, "Wood Elf Realms.cat", CATALOGUE.encode())
    result = import_army(army, catalogues=[catalogue])
    # The same Dryads as New Recruit's export of the same list.
    assert units_of(result.text) == {"Dryads": {**EXPECTED_DRYADS, "side": "Glade host"}}
    # A unit the catalogue lacks is listed as not imported, never skipped in silence.
    assert "Eternal Guard: no profile in the catalogues given, not imported" in result.unmodelled
    assert (
        "# NOT IMPORTED: Eternal Guard: no profile in the catalogues given, not imported"
        in result.text
    )
    assert "# Dryads: 257 pts" in result.text  # 19 x 13 + Nymph 5 + musician 5


def test_old_world_builder_needs_a_catalogue(tmp_path: Path) -> None:
    army = write(tmp_path, "glade.owb.json", owb_list())
    with pytest.raises(
        ScenarioError, match="carries no profiles: name the army's BSData catalogue"
    ):
        import_army(army)


# Round trip: import two armies, put a unit of each into a fight, resolve it ----------------


def test_imported_units_fight_through_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    elves = write(tmp_path, "elves.json", roster(dryads(), army="Wood Elf Realms"))
    empire = write(tmp_path, "empire.ros", ros_bytes(roster(knights(), captain())))
    first = runner.invoke(app, ["import", str(elves), "-o", str(tmp_path / "elves.yaml")])
    assert first.exit_code == 0, first.output
    assert "not modelled: Dryads: Forest Stalkers: not a rule fracas plays" in first.stderr
    second = runner.invoke(
        app,
        [
            "import",
            str(empire),
            "--join",
            "Captain of the Empire=Empire Knights",
            "-o",
            str(tmp_path / "empire.yaml"),
        ],
    )
    assert second.exit_code == 0, second.output
    battle = yaml.safe_load((tmp_path / "elves.yaml").read_text())
    battle["units"] += yaml.safe_load((tmp_path / "empire.yaml").read_text())["units"]
    battle["units"][1]["charged"] = True
    battle["engagements"] = [{"unit": "Empire Knights", "enemy": "Dryads", "arc": "front"}]
    scenario = tmp_path / "battle.yaml"
    scenario.write_text(yaml.safe_dump(battle))
    resolved = runner.invoke(app, ["resolve", str(scenario), "--seed", "3", "--format", "json"])
    assert resolved.exit_code == 0, resolved.output
    report = json.loads(resolved.stdout)
    assert report["ruleset"] == "rankflank"
    # The scenario built is the one imported: 18 Dryads and their Nymph, 5 knights and
    # their captain, sides named after the armies.
    combat = load_scenario(scenario).model.combat
    assert combat.sides == ("Wood Elf Realms", "Empire of Man")
    assert [unit.name for unit in combat.units] == ["Dryads", "Empire Knights"]


# Bad and foreign files: one line naming the file, exit 2, nothing written ----------------


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def counted(number: str) -> bytes:
    """A New Recruit export of the Dryads whose model row counts ``number`` (JSON text)."""
    text = json.dumps(roster(dryads()))
    return text.replace('"number": 19', f'"number": {number}').encode()


def bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    forty_k = roster(dryads(), system="sys-352e-adc2-7639-d6a9")
    forty_k["roster"]["gameSystemName"] = "Warhammer 40,000 10th Edition"
    whole = _zip({"army.ros": ros_bytes(roster(dryads()))})
    bomb = _zip({"army.ros": b"<roster>" + b" " * (MAX_BYTES + 10) + b"</roster>"})
    billion = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
        b"<roster>&lol2;</roster>"
    )
    big = tmp_path / "huge.json"
    with big.open("wb") as handle:  # sparse: 100 MB refused by its size, never read
        handle.truncate(100 * 1024 * 1024)
    return {
        "another game": (
            write(tmp_path, "40k.json", forty_k),
            "is a roster for 'Warhammer 40,000 10th Edition', not Warhammer The Old World",
        ),
        "another builder game": (
            write(tmp_path, "aos.json", {"game": "age-of-sigmar", "core": []}),
            "is a list for 'age-of-sigmar', not The Old World",
        ),
        "truncated zip": (
            write(tmp_path, "cut.rosz", whole[: len(whole) // 2]),
            "is not a complete zip archive",
        ),
        "zip of two": (
            write(tmp_path, "two.rosz", _zip({"a.ros": b"<roster/>", "b.ros": b"<roster/>"})),
            "holds 2 files; a .rosz holds one .ros",
        ),
        "zip bomb": (
            write(tmp_path, "bomb.rosz", bomb),
            f"unpacks to more than {MAX_BYTES:,} bytes",
        ),
        "entities": (
            write(tmp_path, "lol.ros", billion),
            "XML with a DOCTYPE or entity declarations is refused",
        ),
        "entities in UTF-16": (
            write(tmp_path, "wide.ros", billion.decode().encode("utf-16-le")),
            "is not UTF-8 text",
        ),
        "100 MB": (big, f"is 104,857,600 bytes; an army file is at most {MAX_BYTES:,}"),
        "deep XML": (
            write(
                tmp_path,
                "deep.ros",
                b"<roster>" + b"<a>" * 50_000 + b"</a>" * 50_000 + b"</roster>",
            ),
            "nests too deeply to be an army list",
        ),
        "deep JSON": (
            write(
                tmp_path,
                "deep.json",
                b'{"roster": {"forces": [{"selections": '
                + b'[{"selections": ' * 5000
                + b"[]"
                + b"}]" * 5000
                + b"}]}}",
            ),
            "nests too deeply to be an army list",
        ),
        "broken JSON": (
            write(tmp_path, "cut.json", b'{"roster": {"forces": ['),
            "is not valid JSON",
        ),
        "not a list": (write(tmp_path, "list.json", b"[1, 2]"), "is not an army list"),
        "other XML": (
            write(tmp_path, "page.ros", b"<html><body/></html>"),
            "is XML but not a BattleScribe roster",
        ),
        "empty roster": (write(tmp_path, "empty.json", roster()), "holds no units"),
        "a scenario": (
            write(tmp_path, "battle.yaml", b"fracas: 1\nruleset: rankflank\n"),
            "is not an army list (New Recruit JSON, BattleScribe .ros or .rosz",
        ),
        "binary": (write(tmp_path, "blob.json", b'{"roster": "\xff\xfe"}'), "is not UTF-8 text"),
        # JSON has no infinity, but Python's reader takes 1e999 as one: a count, not a size.
        "infinite count": (
            write(tmp_path, "inf.json", counted("1e999")),
            "Dryads: number: inf is not a count of models",
        ),
        "count not a number": (
            write(tmp_path, "nan.json", counted('"nan"')),
            "Dryads: number: 'nan' is not a count of models",
        ),
        "negative count": (
            write(tmp_path, "minus.json", counted("-3")),
            "Dryads: number: -3 is not a count of models",
        ),
        # The most a unit may field is 1,000 (rankflank.models): a file of more would not load.
        "count above the limit": (
            write(tmp_path, "many.json", counted("1001")),
            "Dryads: number: 1001 models is above the limit rankflank.models = 1000",
        ),
        "count past a float": (
            write(tmp_path, "vast.json", counted("1" + "0" * 30)),
            "Dryads: number: 1000000000000000000000000000000 models is above the limit",
        ),
    }


CASES = [
    "another game",
    "another builder game",
    "truncated zip",
    "zip of two",
    "zip bomb",
    "entities",
    "entities in UTF-16",
    "100 MB",
    "deep XML",
    "deep JSON",
    "broken JSON",
    "not a list",
    "other XML",
    "empty roster",
    "a scenario",
    "binary",
    "infinite count",
    "count not a number",
    "negative count",
    "count above the limit",
    "count past a float",
]


@pytest.mark.parametrize("case", CASES)
def test_a_bad_army_file_is_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    path, problem = bad_files(tmp_path)[case]
    output = tmp_path / "units.yaml"
    result = CliRunner().invoke(app, ["import", str(path), "-o", str(output)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"fracas: error: {path}: ")
    assert problem in lines[0]
    assert not output.exists()


def _owb_with(**changes: Any) -> dict[str, Any]:
    """:func:`owb_list` with the Dryads' entry changed (a key set to None is removed)."""
    document = owb_list()
    document["core"][0].update(changes)
    return document


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ({"game": "the-old-world", "core": 5}, "core: not a list"),
        ({"game": "the-old-world", "core": [{"name_en": "Dryads"}, 7]}, "core[1]: not an object"),
        (_owb_with(strength="inf"), "core[0].strength: 'inf' is not a count of models"),
        (_owb_with(strength=2.5), "core[0].strength: 2.5 is not a count of models"),
        (_owb_with(specialRules="Fear"), "core[0].specialRules: not an object"),
        (_owb_with(items=5), "core[0].items: not a list"),
        (_owb_with(items=[{"selected": "Sword"}]), "core[0].items[0].selected: not a list"),
        (
            _owb_with(command=[{"name_en": "Nymph", "active": True, "magic": ["x"]}]),
            "core[0].command[0].magic: not an object",
        ),
    ],
)
def test_an_old_world_builder_list_of_another_shape_names_the_key(
    tmp_path: Path, document: dict[str, Any], problem: str
) -> None:
    army = write(tmp_path, "glade.owb.json", document)
    catalogue = write(tmp_path, "Wood Elf Realms.cat", CATALOGUE.encode())
    output = tmp_path / "units.yaml"
    result = CliRunner().invoke(
        app, ["import", str(army), "--catalogue", str(catalogue), "-o", str(output)]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"fracas: error: {army}: {problem}"
    assert not output.exists()


def test_a_bad_catalogue_is_refused_the_same_way(tmp_path: Path) -> None:
    army = write(tmp_path, "glade.owb.json", owb_list())
    catalogue = write(tmp_path, "evil.cat", b'<!DOCTYPE c SYSTEM "file:///etc/passwd"><catalogue/>')
    result = CliRunner().invoke(app, ["import", str(army), "--catalogue", str(catalogue)])
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"fracas: error: {catalogue}: XML with a DOCTYPE or entity declarations is refused"
    )


# Invariants ----------------------------------------------------------------------------


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text(min_size=1, max_size=30).filter(str.strip), army=st.text(max_size=20))
def test_any_name_survives_the_yaml_it_is_written_in(tmp_path: Path, name: str, army: str) -> None:
    unit = dryads()
    unit["name"] = name
    path = write(tmp_path, "named.json", roster(unit, army=army))
    text = import_army(path).text
    # What YAML cannot carry (a lone surrogate) becomes U+FFFD; everything else is kept.
    kept = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in name.strip())
    (only,) = yaml.safe_load(text)["units"]
    assert only["name"] == kept
    assert only["side"] == (
        "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in army) or "2k list"
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    number=st.integers(min_value=2, max_value=60),
    cost=st.integers(min_value=1, max_value=30),
    champion_cost=st.integers(min_value=0, max_value=60),
)
def test_command_rows_are_models_only_when_they_pay_a_whole_model(
    tmp_path: Path, number: int, cost: int, champion_cost: int
) -> None:
    unit = dryads()
    dryad, nymph = unit["selections"]
    dryad["number"], dryad["costs"] = number, pts(number * cost)
    nymph["costs"] = pts(champion_cost)
    path = write(tmp_path, "count.json", roster(unit))
    (spec,) = yaml.safe_load(import_army(path).text)["units"]
    bodies = spec["models"] + len(spec["characters"])
    assert bodies == number + (1 if champion_cost >= cost else 0)


def test_the_example_armies_are_copied_with_the_examples_and_import(tmp_path: Path) -> None:
    runner = CliRunner()
    copied = runner.invoke(app, ["examples", "-o", str(tmp_path / "ex")])
    assert copied.exit_code == 0, copied.output
    armies = sorted(p.name for p in (tmp_path / "ex" / "armies").iterdir())
    assert armies == ["empire.ros", "wood_elves.json"]
    # Not scenarios: the list of examples leaves them out.
    assert "armies/" not in runner.invoke(app, ["examples"]).stdout
    imported = runner.invoke(
        app, ["import", str(tmp_path / "ex/armies/empire.ros"), "--join", "Captain=Halberdiers"]
    )
    assert imported.exit_code == 0, imported.output
    halberdiers = units_of(imported.stdout)["Halberdiers"]
    # 20 Halberdiers, the Sergeant one of them (6 < 7 pts a model): 19 and two characters.
    assert halberdiers["models"] == 19
    assert [c["name"] for c in halberdiers["characters"]] == ["Sergeant (Halberdiers)", "Captain"]
    assert halberdiers["weapon"] == "halberd"
    assert halberdiers["command"] == {
        "standard": True,
        "musician": True,
        "battle_standard": "Captain",
    }


# A battle from two lists ------------------------------------------------------------------


def test_a_battle_from_two_lists_is_a_whole_scenario(tmp_path: Path) -> None:
    elves = write(tmp_path, "elves.json", roster(dryads(), army="Wood Elf Realms"))
    empire = write(tmp_path, "empire.ros", ros_bytes(roster(knights(), captain())))
    output = tmp_path / "battle.yaml"
    result = CliRunner().invoke(
        app,
        [
            "import", str(empire), "--versus", str(elves),
            "--join", "Captain of the Empire=Empire Knights",
            "--fight", "Empire Knights=Dryads", "--charger", "first", "--arc", "left",
            "-o", str(output),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "not modelled: Dryads: Forest Stalkers: not a rule fracas plays" in result.stderr
    combat = load_scenario(output).model.combat
    assert combat.options.edition == "oldworld"
    assert combat.sides == ("Empire of Man", "Wood Elf Realms")
    knights_unit, dryads_unit = combat.units
    assert (knights_unit.name, knights_unit.charged) == ("Empire Knights", True)
    assert [c.name for c in knights_unit.characters] == ["Captain of the Empire"]
    assert (dryads_unit.name, dryads_unit.charged) == ("Dryads", False)
    # The knights strike the Dryads' left flank: they are in it.
    (contact,) = combat.contacts["Empire Knights"]
    assert (contact.enemy, contact.enemy_arc) == ("Dryads", "left")
    # And it resolves, with exact odds.
    resolved = CliRunner().invoke(app, ["odds", str(output), "--method", "exact"])
    assert resolved.exit_code == 0, resolved.output


def test_a_battle_of_one_list_against_itself_gets_two_sides(tmp_path: Path) -> None:
    elves = write(tmp_path, "elves.json", roster(dryads(), army="Wood Elf Realms"))
    output = tmp_path / "mirror.yaml"
    result = CliRunner().invoke(
        app,
        ["import", str(elves), "--versus", str(elves), "--fight", "Dryads=Dryads",
         "--charger", "second", "-o", str(output)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    combat = load_scenario(output).model.combat
    assert combat.sides == ("Wood Elf Realms", "Wood Elf Realms (2)")
    assert [(u.name, u.charged) for u in combat.units] == [("Dryads", False), ("Dryads (2)", True)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--fight", "Dryads=Dryads"], "--fight needs --versus OTHER_ARMY_FILE"),
        (["--versus", "{elves}"], "--versus needs --fight UNIT=ENEMY"),
        (["--versus", "{elves}", "--fight", "Ghosts=Dryads"], "has no unit 'Ghosts'"),
        (["--versus", "{elves}", "--fight", "Dryads=Dryads", "--arc", "up"], "--arc is one of"),
        (
            ["--versus", "{elves}", "--fight", "Dryads=Dryads", "--charger", "both"],
            "the charger is one of first, second, none",
        ),
    ],
)
def test_a_bad_battle_is_one_line_and_exit_2(
    tmp_path: Path, options: list[str], message: str
) -> None:
    elves = write(tmp_path, "elves.json", roster(dryads(), army="Wood Elf Realms"))
    output = tmp_path / "battle.yaml"
    args = [option.format(elves=elves) for option in options]
    result = CliRunner().invoke(app, ["import", str(elves), *args, "-o", str(output)])
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not output.exists()


def test_formation_rules_of_a_list_set_the_formation() -> None:
    unit: dict[str, Any] = {}
    notes: list[str] = []
    for text, formation in (("Close Order", None), ("Open Order", "open_order"),
                            ("Skirmishers", "skirmish")):  # fmt: skip
        unit.pop("formation", None)
        armylists._rule(text, unit, notes)
        assert unit.get("formation") == formation, text
    assert notes == []


def test_the_old_worlds_charge_and_flight_rules_come_in_by_name(tmp_path: Path) -> None:
    # Furious Charge, Choppas and Resolute are rules the oldworld preset plays: imported as
    # rules, not listed as dropped.
    unit = dryads()
    unit["profiles"] += [rule("Furious Charge"), rule("Choppas"), rule("Resolute")]
    result = import_army(write(tmp_path, "orcs.json", roster(unit, army="Orc & Goblin Tribes")))
    rules = units_of(result.text)["Dryads"]["rules"]
    assert rules[-3:] == ["furious charge", "choppas", "resolute"]
    assert not [note for note in result.unmodelled if "Furious" in note or "Choppas" in note]
    assert not [note for note in result.unmodelled if "Resolute" in note]


def test_a_characters_mount_comes_in_and_strikes(tmp_path: Path) -> None:
    # The Captain rides a Warhorse (M8 WS3 S3 I3 A1; its "-" are his numbers): written as
    # his mount, beside him in the unit he joins; nothing listed as dropped for it.
    captain_row = captain()
    captain_row["selections"][0]["selections"].append(
        row(
            "Warhorse",
            "mount",
            1,
            [model("Warhorse", "8 3 - 3 - - 3 1 -")],
            group="Mounts",
            selections=[row("Hooves", "upgrade", 1, [weapon("Hooves", "Combat", "S", "-")])],
        )
    )
    path = write(tmp_path, "empire.json", roster(knights(), captain_row))
    joined = import_army(path, joins=["Captain of the Empire=Empire Knights"])
    (character,) = units_of(joined.text)["Empire Knights"]["characters"]
    # Rider 4 5 5 4 4 2 5 3 8: the horse's "-" (BS, T, W, Ld) are his 5, 4, 2 and 8.
    assert character["mount"] == {"name": "Warhorse", "profile": "8 3 5 3 4 2 3 1 8"}
    assert not [note for note in joined.unmodelled if "Warhorse" in note or "Hooves" in note]


@pytest.mark.parametrize("catalogue", ["nope.cat", "a folder"])
def test_a_catalogue_that_cannot_be_read_is_refused_whatever_the_list(
    tmp_path: Path, catalogue: str
) -> None:
    # empire.ros carries its own profiles: the catalogue would never be opened, and a
    # misspelt one would pass unnoticed until an Old World Builder list needed it.
    (tmp_path / "a folder").mkdir()
    output = tmp_path / "out.yaml"
    roster = Path(__file__).resolve().parents[2] / "examples" / "armies" / "empire.ros"
    result = CliRunner().invoke(
        app, ["import", str(roster), "--catalogue", str(tmp_path / catalogue), "-o", str(output)]
    )
    assert result.exit_code == 2
    why = "Is a directory" if catalogue == "a folder" else "No such file or directory"
    assert result.stderr == f"fracas: error: {tmp_path / catalogue}: cannot be read ({why})\n"
    assert not output.exists()
