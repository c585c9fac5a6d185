"""The scenario hash follows the meaning of a document, not the bytes of its file."""

from __future__ import annotations

import enum
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.core.errors import ScenarioError
from fracas.io.canonical import (
    canonical_document,
    canonical_json,
    canonical_sha256,
    scenario_sha256,
)
from fracas.io.scenario import load_scenario, parse_scenario

EXAMPLE = Path(__file__).parents[2] / "examples" / "d100" / "lair_raid.yaml"


def test_formatting_comments_and_final_newline_do_not_change_the_hash(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    original = load_scenario(EXAMPLE)
    variants = {
        "no_newline.yaml": text.rstrip("\n"),
        "crlf.yaml": text.replace("\n", "\r\n"),
        "comment.yaml": "# copied from the forum\n" + text + "\n# end\n",
        "as.json": json.dumps(dict(original.document), indent=4),
    }
    for name, variant in variants.items():
        path = tmp_path / name
        path.write_bytes(variant.encode("utf-8"))
        assert load_scenario(path).sha256 == original.sha256, name


def test_a_changed_value_or_a_set_override_changes_the_hash() -> None:
    base = "fracas: 1\nruleset: d100\nsides:\n - {name: A, action: raid, units: [{name: X, pax: 10}]}\n - {name: B, action: defend, units: [{name: Y, pax: 10}]}\n"  # noqa: E501
    one = parse_scenario(base)
    assert (
        parse_scenario(base.replace("pax: 10}]}\n - {name: B", "pax: 9}]}\n - {name: B")).sha256
        != one.sha256
    )
    overridden = parse_scenario(base, overrides=[("sides[0].units[0].pax", 9)])
    assert overridden.sha256 != one.sha256
    # The same value written as 9 in the file or set with --set is the same scenario.
    written = parse_scenario(base.replace("{name: X, pax: 10}", "{name: X, pax: 9}"))
    assert written.canonical_sha256 == overridden.canonical_sha256


def test_numbers_and_text_are_normalised() -> None:
    # 3.0 and 3 are one number; "é" composed or decomposed is one letter; CRLF is LF.
    assert (
        canonical_json(canonical_document({"n": 3.0, "t": "e\u0301\r\n"})) == '{"n":3,"t":"é\\n"}'
    )
    assert scenario_sha256({"x": 0.1}) != scenario_sha256({"x": 0.10000000000000002})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), b"bytes"])
def test_values_json_cannot_carry_are_one_error_with_their_path(bad: object) -> None:
    with pytest.raises(ScenarioError) as caught:
        canonical_document({"units": [{"pax": bad}]}, source="odd.yaml")
    assert caught.value.path == ("units", 0, "pax")
    assert caught.value.source == "odd.yaml"


def test_a_bad_key_is_named_by_the_path_of_its_mapping_or_by_itself() -> None:
    # A key that is not text names the mapping holding it; a key given twice (3 and "3"
    # are one key in JSON) names itself.
    with pytest.raises(ScenarioError, match="a key must be text") as caught:
        canonical_document({"sides": [{"units": {(1, 2): "x"}}]})
    assert caught.value.path == ("sides", 0, "units")
    with pytest.raises(ScenarioError, match="the same key twice") as caught:
        canonical_document({"sides": [{}, {3: "a", "3": "b"}]})
    assert caught.value.path == ("sides", 1, "3")


def test_carriage_returns_become_line_feeds_in_plain_and_accented_text() -> None:
    # "a\r\nb\rc" → "a\nb\nc" whether or not the text is all ASCII (which skips NFC).
    assert canonical_document(["a\r\nb\rc", "é\r\nb\rc"]) == ["a\nb\nc", "é\nb\nc"]


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_the_canonical_form_is_its_own_canonical_form(document: object) -> None:
    try:
        once = canonical_document(document)
    except ScenarioError:
        return  # 3 and "3" as keys of one mapping: refused, as tested above
    assert canonical_document(once) == once
    assert canonical_sha256(once) == scenario_sha256(document)


def test_text_of_a_str_subclass_comes_out_as_plain_text() -> None:
    # An enum a program builds its document with is text in the canonical form, key and
    # value alike, as an IntEnum is a plain int: str() of a (str, Enum) member would name
    # the member ("Rules.D100"), not the ruleset.
    class Rules(str, enum.Enum):  # noqa: UP042 - the mixin is the case in point
        D100 = "d100"

    done = canonical_document({Rules.D100: Rules.D100, "plain": [Rules.D100]})
    assert done == {"d100": "d100", "plain": ["d100"]}
    assert {type(part) for part in (*done, done["d100"], *done["plain"])} == {str}
    assert str(done["d100"]) == "d100"
