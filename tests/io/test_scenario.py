import json
from pathlib import Path

import pytest

from fracas.core.errors import ScenarioError
from fracas.io.reader import parse_text, read_text
from fracas.io.scenario import get_path, load_scenario, parse_path, parse_scenario, set_path

DUEL = {
    "fracas": 1,
    "ruleset": "duel",
    "fighters": [{"name": "A", "bonus": 2}, {"name": "B"}],
}


def test_yaml_json_and_toml_load_the_same_scenario(duel: object, tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(DUEL))
    (tmp_path / "d.toml").write_text(
        'fracas = 1\nruleset = "duel"\n'
        '[[fighters]]\nname = "A"\nbonus = 2\n[[fighters]]\nname = "B"\n'
    )
    (tmp_path / "d.yaml").write_text(
        "fracas: 1\nruleset: duel\nfighters: [{name: A, bonus: 2}, {name: B}]\n"
    )
    models = [load_scenario(tmp_path / f"d.{ext}").model for ext in ("json", "toml", "yaml")]
    assert models[0] == models[1] == models[2]


def test_alias_finds_the_ruleset(duel: object) -> None:
    text = "fracas: 1\nruleset: TOY\nfighters: [{name: A}, {name: B}]\n"
    assert parse_scenario(text).ruleset.name == "duel"


@pytest.mark.parametrize(
    ("text", "path", "problem"),
    [
        ("fracas: 1\nruleset: duel\nfighters: [{name: A}\n", (), "not valid YAML"),
        ("- just\n- a list\n", (), "must be a mapping"),
        ("fracas: 1\nfighters: []\n", ("ruleset",), "missing key"),
        ("fracas: 7\nruleset: duel\n", ("fracas",), "unsupported schema version 7"),
        ("fracas: 1\nruleset: chess\n", ("ruleset",), "no ruleset named 'chess'"),
        (
            "fracas: 1\nruleset: duel\nfighters: [{name: A, bonus: -1}, {name: B}]\n",
            ("fighters", 0, "bonus"),
            "greater than or equal to 0",
        ),
        (
            "fracas: 1\nruleset: duel\nfighters: [{name: A}, {name: B, colour: red}]\n",
            ("fighters", 1, "colour"),
            "unknown key",
        ),
        ("fracas: 1\nruleset: duel\nseed: true\n", ("seed",), "valid integer"),
        ("fracas: 1\nruleset: duel\nseed: -4\n", ("seed",), "greater than or equal to 0"),
        (
            "fracas: 1\nruleset: duel\nfighters: [{name: A}, {name: A}]\n",
            ("fighters", 1, "name"),
            "different names",
        ),
    ],
)
def test_bad_documents_name_file_path_and_problem(
    duel: object, text: str, path: tuple[object, ...], problem: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="bad.yaml")
    assert caught.value.source == "bad.yaml"
    assert caught.value.path == path
    assert problem in str(caught.value)


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read file"):
        load_scenario(tmp_path / "absent.yaml")


def test_hash_is_of_the_meaning_and_seed_comes_from_the_file(duel: object) -> None:
    text = "fracas: 1\nruleset: duel\nseed: 9\nfighters: [{name: A}, {name: B}]\n"
    one, two = parse_scenario(text), parse_scenario(text + "# a comment\n")
    assert one.model == two.model
    assert one.sha256 == two.sha256
    assert one.sha256 == one.canonical_sha256[:16]
    assert one.resolve().seed == 9
    assert one.resolve().seed == 9
    assert one.resolve(seed=4).seed == 4


def test_overrides_are_applied_before_validation(duel: object) -> None:
    text = "fracas: 1\nruleset: duel\nfighters: [{name: A}, {name: B}]\n"
    scenario = parse_scenario(text, overrides=[("fighters[1].bonus", 5)])
    assert scenario.model.fighters[1].bonus == 5


def test_key_paths() -> None:
    assert parse_path("a.b[3].c") == ("a", "b", 3, "c")
    doc = {"a": [{"b": 1}]}
    assert get_path(doc, "a[0].b") == 1
    assert set_path(doc, "a[0].c", 2) == {"a": [{"b": 1, "c": 2}]}
    assert doc == {"a": [{"b": 1}]}  # the original is untouched
    with pytest.raises(ScenarioError, match="no such key"):
        get_path(doc, "a[4].b")
    with pytest.raises(ScenarioError, match="index out of range"):
        set_path(doc, "a[4]", 1)


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("army.yaml", "fracas: 1\nruleset: d100\ntitle: a\ntitle: b\n", "line 4: the key 'title'"),
        ("army.json", '{"fracas": 1, "ruleset": "d100", "fracas": 1}', "the key 'fracas'"),
        ("army.yaml", "fracas: 1\nruleset: d100\nx:\n  a: 1\n  'a': 2\n", "line 5: the key 'a'"),
        # The same key spelled two ways: 1 and 0x1, true and yes.
        ("army.yaml", "fracas: 1\nruleset: d100\nx:\n  1: a\n  0x1: b\n", "line 5: the key '0x1'"),
        (
            "army.yaml",
            "fracas: 1\nruleset: d100\nx:\n  true: a\n  yes: b\n",
            "line 5: the key 'yes'",
        ),
        ("army.yaml", "fracas: 1\nruleset: d100\nx:\n  1: a\n  1.0: b\n", "line 5: the key '1.0'"),
    ],
)
def test_a_key_given_twice_is_refused(tmp_path: Path, name: str, text: str, problem: str) -> None:
    # Readers keep the last of two equal keys without a word: the first value would be lost.
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=f"{name}: {problem} is given twice"):
        load_scenario(path)


def test_merged_keys_may_be_overridden() -> None:
    from fracas.io.reader import parse_text

    text = "base: &b {x: 1, y: 1}\nunit:\n  <<: *b\n  x: 2\n"
    assert parse_text(text, "yaml", "m.yaml")["unit"] == {"x": 2, "y": 1}
    # A merged mapping that itself overrides a merged key, merged again before it is built:
    # PyYAML rewrites it in place, and its own keys are what count.
    nested = "x: &A {inner: &B {<<: {p: 1}, p: 2}}\ny: {<<: *B}\n"
    assert parse_text(nested, "yaml", "m.yaml")["x"] == {"inner": {"p": 2}}
    # The same through the loader that counts aliases (more '*' than the fast one takes).
    assert parse_text(nested + "#" + "*" * 1_001 + "\n", "yaml", "m.yaml")["y"]


@pytest.mark.parametrize("path", ["units[0]..strength", ".units", "units[0]x].level", "a[1"])
def test_a_malformed_key_path_is_refused(path: str) -> None:
    # Before, whatever did not parse was skipped: units[0]..strength set units[0].strength.
    with pytest.raises(ScenarioError, match="not a key path"):
        parse_path(path)


def test_a_negative_index_counts_from_the_end() -> None:
    assert get_path({"units": [{"a": 1}, {"a": 2}]}, "units[-1].a") == 2


@pytest.mark.parametrize("value", [3, 0.5, 1e20, -2.5e-7, float("inf"), float("-inf"), "3", "yes"])
def test_an_override_written_as_reports_write_it_reads_back_the_same(value: object) -> None:
    from fracas.cli.common import parse_overrides
    from fracas.io.scenario import override_text

    ((path, again),) = parse_overrides([override_text("x", value)])
    assert (path, again, type(again)) == ("x", value, type(value))


@pytest.mark.parametrize("suffix", [".json", ".toml", ".yaml"])
def test_a_byte_order_mark_reads_alike_in_every_format(tmp_path: Path, suffix: str) -> None:
    # Windows editors save UTF-8 with a byte order mark; the document is the same one.
    texts = {
        ".json": '{"fracas": 1, "ruleset": "d100", "title": "Marked"}',
        ".toml": 'fracas = 1\nruleset = "d100"\ntitle = "Marked"\n',
        ".yaml": "fracas: 1\nruleset: d100\ntitle: Marked\n",
    }
    marked, plain = tmp_path / f"marked{suffix}", tmp_path / f"plain{suffix}"
    marked.write_bytes(b"\xef\xbb\xbf" + texts[suffix].encode())
    plain.write_bytes(texts[suffix].encode())

    def read(path: Path) -> object:
        return parse_text(read_text(path), suffix.lstrip("."), str(path))

    assert (
        read(marked)
        == read(plain)
        == {
            "fracas": 1,
            "ruleset": "d100",
            "title": "Marked",
        }
    )


@pytest.mark.parametrize("given", ["null", "5", "[1]"])
def test_a_section_that_is_not_a_mapping_is_named_so_not_by_its_class(given: str) -> None:
    # pydantic said "a valid dictionary or instance of MapSpec": a class no file names.
    text = (
        Path("examples/hex/encirclement.yaml")
        .read_text()
        .replace("map:\n", f"map: {given}\nold:\n", 1)
    )
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="board.yaml")
    assert str(caught.value).startswith("board.yaml: map: Input should be a mapping of keys (got ")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "the scenario is empty: it is a mapping of keys (fracas: 1, ruleset: …)"),
        ("[1, 2]", "a scenario must be a mapping of keys, not [1, 2]"),
        ("hello", "a scenario must be a mapping of keys, not 'hello'"),
    ],
)
def test_a_file_that_is_no_mapping_is_told_so_in_the_authors_words(text: str, problem: str) -> None:
    # It said "not NoneType" of an empty file.
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="s.yaml")
    assert str(caught.value) == f"s.yaml: {problem}"
