"""fracas verify: a posted log checks out, a tampered one is caught and named, a mangled
copy still reads, an unreadable one says why."""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fracas.cli import app
from fracas.core.errors import FracasError
from fracas.io.fair import (
    SEAL_BEGIN,
    SEAL_END,
    UnreadablePost,
    Verification,
    commitment,
    read_seal,
    verify_post,
)
from fracas.io.render import PostStyle
from fracas.io.scenario import load_scenario, parse_scenario

from .conftest import LAIR_RAID, NONCES, ROOT, SECRET, dice_examples, make_post, reseal

FORMATS = ("bbcode", "markdown", "text", "json")


def failed(verification: Verification) -> list[str]:
    return [check.name for check in verification.checks if not check.ok]


def detail(verification: Verification, name: str) -> str:
    return next(check.detail for check in verification.checks if check.name == name)


@pytest.mark.parametrize("path", dice_examples(), ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_dice_example_verifies_in_every_format(path: Path, fmt: str) -> None:
    scenario = load_scenario(path)
    verification = verify_post(
        make_post(scenario, fmt, PostStyle(fold=True)),
        scenario=scenario,
        expected_commitment=commitment(SECRET, scenario.canonical_sha256),
        expected_nonces=NONCES,
    )
    assert verification.ok, verification.lines()
    assert [check.name for check in verification.checks] == [
        "seal",
        "scenario",
        "commitment",
        "nonces",
        "seed",
        "log",
    ]


# --- tampering with what the post shows -------------------------------------------------


def edit_line(text: str, pattern: str, change: Any) -> str:
    """Apply ``change`` to the first line matching ``pattern`` (it must exist)."""
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if re.search(pattern, line))
    lines[index] = change(lines[index])
    return "\n".join(lines)


def test_one_digit_of_a_roll_is_caught_at_its_line() -> None:
    text = make_post()
    # "Ranged attack 182 = 98+54 (d100) + …" → the total's last digit changed by one.
    tampered = edit_line(
        text,
        r"^\s+\S.* \d+ = .*\(d100\)",
        lambda line: re.sub(r"(\d)( = )", lambda m: f"{(int(m[1]) + 1) % 10}{m[2]}", line, count=1),
    )
    verification = verify_post(tampered)
    assert failed(verification) == ["log"]
    assert "differs" in detail(verification, "log")
    assert "(d100)" in detail(verification, "log")


def test_one_name_is_caught() -> None:
    text = make_post(fmt="markdown")
    tampered = edit_line(
        text,
        r"Tower Archers losses|losses: .*Tower Archers",
        lambda line: line.replace("Tower Archers", "Tower Guards"),
    )
    verification = verify_post(tampered)
    assert failed(verification) == ["log"]
    assert "Tower Guards" in detail(verification, "log")


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "text"])
def test_text_after_the_seal_is_named_as_unsealed(fmt: str) -> None:
    # The seal checks the log above it; an edit below it would read as part of the post.
    text = make_post(fmt=fmt)
    assert verify_post(text).ok
    edited = verify_post(text + "\n[b]EDIT: Thornwall actually wins[/b]\n")
    assert failed(edited) == ["after the seal"]
    assert "EDIT: Thornwall actually wins" in detail(edited, "after the seal")
    # A post pasted twice: the second copy is not what the seal covers either.
    assert failed(verify_post(text + text)) == ["after the seal"]
    # Blank lines and quoting after the seal are forum noise, not text; a reply after the
    # quote of the post is the reply's.
    assert verify_post("[quote]" + text + "\n\n[/quote]\nNice!\n").ok
    quoted = "\n".join("> " + line for line in text.split("\n"))
    assert verify_post(quoted + "\n\nNice!\n").ok
    assert failed(verify_post(quoted + "\n> EDIT: no\n")) == ["after the seal"]
    # Forums also leave a quote's blank lines without ">", split closing tags over lines
    # and number their quote tags: none of it is text.
    loose = "\n".join("" if not line.strip() else "> " + line for line in text.split("\n"))
    assert verify_post(loose + "\n\nNice!\n").ok
    split = text.replace("[/code][/spoiler]", "[/code]\n[/spoiler]")
    assert verify_post("[quote:1a2b]" + split + "[/quote:1a2b]\nNice!").ok
    # A closing quote tag with no quote opened before the seal hides nothing.
    assert failed(verify_post(text + "[/quote]\nGM edit: Thornwall wins\n")) == ["after the seal"]


INJECTED_QUOTE = '[quote="CORRECTION: Thornwall actually wins, Red Fang loses everything"][/quote]'


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "text"])
def test_a_quote_tag_inside_the_log_is_caught_and_named(fmt: str) -> None:
    # A forum shows a quote, and the author its tag names, as text of the post.
    text = make_post(fmt=fmt)
    for added in (INJECTED_QUOTE, "[quote][/quote]", "[quote:1a2b]Thornwall wins[/quote:1a2b]"):
        tampered = edit_line(text, r"losses", lambda line, added=added: line + "\n" + added)
        verification = verify_post(tampered)
        assert failed(verification) == ["log"], added
        assert "a quote tag, which fracas never writes" in detail(verification, "log")
        assert added.split("]")[0] in detail(verification, "log")
        # Quoting the whole tampered post hides nothing either.
        assert failed(verify_post(f'[quote="GM"]{tampered}[/quote]\nNice!')) == ["log"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_names_that_look_like_quote_tags_still_verify(fmt: str) -> None:
    yaml = LAIR_RAID.read_text(encoding="utf-8")
    named = yaml.replace("Wall Guard", "'[quote=Red Fang wins]Wall[/quote] {Guard}'")
    scenario = parse_scenario(named, source="named.yaml")
    text = make_post(scenario, fmt)
    assert verify_post(text).ok
    assert verify_post(f'Re {{1}}:\n[quote="GM" post_id=12]{text}[/quote]\nNice {{!}}').ok
    quoted = "\n".join("> " + line for line in text.split("\n"))
    assert verify_post(f"GM wrote:\n\n{quoted}\n\nNice {{!}}").ok


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "text"])
def test_a_line_added_between_the_log_and_the_seal_is_caught(fmt: str) -> None:
    text = make_post(fmt=fmt)
    tampered = text.replace(SEAL_BEGIN, "\nEDIT: Thornwall actually wins\n" + SEAL_BEGIN)
    verification = verify_post(tampered)
    assert failed(verification) == ["log"]
    assert "is not in the re-run" in detail(verification, "log")
    assert "EDIT: Thornwall actually wins" in detail(verification, "log")


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_inside_the_seal_that_is_not_base64_is_caught(fmt: str) -> None:
    text = make_post(fmt=fmt)
    # Letters would damage the base64; text in another script or signs only would not.
    tampered = text.replace(SEAL_END, "Торнвол победил!" + SEAL_END)
    verification = verify_post(tampered)
    assert failed(verification) == ["seal"]
    assert "Торнвол" in detail(verification, "seal")
    # What a forum adds inside the seal shows nothing: spaces, quote marks, zero widths.
    lines = text.split("\n")
    begin = next(i for i, line in enumerate(lines) if SEAL_BEGIN in line)
    lines[begin + 1] = "> " + lines[begin + 1][:20] + "\u200b \u00a0" + lines[begin + 1][20:]
    assert verify_post("\n".join(lines)).ok


def test_base64_added_after_the_seal_data_is_unreadable() -> None:
    text = make_post(fmt="text")
    end = text.index(SEAL_END)
    body = re.sub(r"[^A-Za-z0-9+/=]", "", text[text.index(SEAL_BEGIN) + len(SEAL_BEGIN) : end])
    packed = base64.b64decode(body) + b"Thornwall wins"
    resealed = base64.b64encode(packed).decode("ascii")
    tampered = text[: text.index(SEAL_BEGIN)] + f"{SEAL_BEGIN}\n{resealed}\n{text[end:]}"
    with pytest.raises(UnreadablePost, match="added after its data ends"):
        verify_post(tampered)


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "text"])
def test_the_nonce_list_shown_in_the_post_is_caught_and_named(fmt: str) -> None:
    tampered = make_post(fmt=fmt).replace('"1729"', '"1730"', 1)
    verification = verify_post(tampered)
    assert failed(verification) == ["log"]
    assert "(nonces)" in detail(verification, "log")


def test_the_nonces_the_thread_shows_are_checked() -> None:
    verification = verify_post(make_post(), expected_nonces=["owlbear at dawn", "1730"])
    assert failed(verification) == ["nonces"]
    # A nonce dropped by the game master is caught the same way.
    dropped = make_post(nonces=("owlbear at dawn",))
    assert failed(verify_post(dropped, expected_nonces=NONCES)) == ["nonces"]


def test_the_secret_shown_in_the_post_is_caught_and_named() -> None:
    tampered = make_post(fmt="text").replace(f"secret {SECRET}", f"secret {SECRET[::-1]}")
    verification = verify_post(tampered)
    assert failed(verification) == ["log"]
    assert "(secret)" in detail(verification, "log")


# --- tampering with the seal ---------------------------------------------------------------


def test_another_secret_in_the_seal_does_not_open_the_commitment() -> None:
    def swap(payload: dict[str, Any]) -> None:
        payload["secret"] = SECRET[::-1]

    verification = verify_post(reseal(make_post(), swap))
    assert "commitment" in failed(verification)
    assert "the revealed secret is not the one committed to" in detail(verification, "commitment")


def test_an_edited_scenario_in_the_seal_is_caught_and_named() -> None:
    def stronger(payload: dict[str, Any]) -> None:
        payload["scenario"]["sides"][0]["units"][0]["pax"] = 9

    verification = verify_post(reseal(make_post(), stronger))
    assert failed(verification)[:2] == ["scenario", "commitment"]
    assert "the scenario changed" in detail(verification, "scenario")


def test_a_post_of_another_scenario_than_the_file_is_named() -> None:
    other = parse_scenario(
        LAIR_RAID.read_text(encoding="utf-8"), source="mine.yaml", overrides=[("seed", 3)]
    )
    verification = verify_post(make_post(), scenario=other)
    assert failed(verification) == ["scenario"]
    assert "mine.yaml" in detail(verification, "scenario")


def test_a_commitment_other_than_the_one_posted_first_is_a_mismatch() -> None:
    verification = verify_post(make_post(), expected_commitment="0" * 64)
    assert failed(verification) == ["commitment"]
    assert "posted before the nonces" in detail(verification, "commitment")


def test_a_claimed_seed_that_is_not_derived_is_named() -> None:
    def claim(payload: dict[str, Any]) -> None:
        payload["seed"] = 7

    assert failed(verify_post(reseal(make_post(), claim))) == ["seed"]


# --- what forums do to a post ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_crlf_trailing_spaces_and_quoting_do_not_matter(fmt: str) -> None:
    text = make_post(fmt=fmt, style=PostStyle(fold=True))
    crlf = text.replace("\n", "\r\n")
    trailing = "\n".join(line + "   " for line in text.split("\n"))
    bbquote = f'Here it is:\n[quote="GM" post_id=12 time=1700000000]{text}[/quote]\nNice!'
    mdquote = "GM wrote:\n\n" + "\n".join("> " + line for line in text.split("\n"))
    for mangled in (crlf, trailing, bbquote, mdquote):
        verification = verify_post(mangled)
        assert verification.ok, verification.lines()


def test_rewrapped_seal_lines_still_read() -> None:
    text = make_post()
    begin = text.index("-----BEGIN")
    seal = text[begin:]
    body = seal.split("\n", 1)[1]
    rewrapped = body.replace("\n", "", 3).replace("A", "A\n", 2)
    assert verify_post(text[:begin] + seal.split("\n", 1)[0] + "\n" + rewrapped).ok


# --- unreadable and bad posts ---------------------------------------------------------------


def test_a_post_without_footer_or_seal_is_unreadable() -> None:
    with pytest.raises(UnreadablePost, match="not a fracas post"):
        verify_post("I rolled a 100, trust me.")


def test_a_post_cut_before_its_seal_is_unreadable() -> None:
    text = make_post()
    with pytest.raises(UnreadablePost, match="cut short"):
        verify_post(text[: text.index("[spoiler][code]-----BEGIN")])


def test_a_post_cut_inside_its_seal_is_unreadable() -> None:
    text = make_post()
    with pytest.raises(UnreadablePost, match="truncated"):
        verify_post(text[: text.index("-----END")])
    end = text.index("-----END")
    with pytest.raises(UnreadablePost, match=r"truncated|damaged"):
        verify_post(text[: end - 70] + text[end:])


def test_a_damaged_seal_is_unreadable() -> None:
    text = make_post()
    start = text.index("-----BEGIN FRACAS SEAL-----\n") + 28
    flipped = "B" if text[start + 10] != "B" else "C"
    with pytest.raises(UnreadablePost):
        verify_post(text[: start + 10] + flipped + text[start + 11 :])


def test_an_unknown_derivation_is_unreadable() -> None:
    def newer(payload: dict[str, Any]) -> None:
        payload["derivation"] = "fracas-fair-v9"

    with pytest.raises(UnreadablePost, match="unknown derivation 'fracas-fair-v9'"):
        verify_post(reseal(make_post(), newer))


def test_a_seal_that_unpacks_to_too_much_is_refused() -> None:
    def huge(payload: dict[str, Any]) -> None:
        payload["padding"] = "x" * 3_000_000

    with pytest.raises(UnreadablePost, match="more than"):
        verify_post(reseal(make_post(), huge))


# --- the command ------------------------------------------------------------------------------


runner = CliRunner()


def test_verify_command_exit_codes_and_one_line_per_check(tmp_path: Path) -> None:
    good = tmp_path / "post.txt"
    good.write_text(make_post(), encoding="utf-8")
    nonces = ["--nonce", NONCES[0], "--nonce", NONCES[1]]
    # Without the commitment the thread shows, the post only agrees with itself: exit 3.
    result = runner.invoke(app, ["verify", str(good), *nonces])
    assert result.exit_code == 3, result.output
    assert result.stdout.splitlines()[-1].startswith("verified within the post only")
    assert "not checked: the commitment" in result.stdout
    assert len(result.stdout.splitlines()) == 8  # six checks, what was not checked, the verdict
    promised = commitment(SECRET, load_scenario(LAIR_RAID).canonical_sha256)
    result = runner.invoke(app, ["verify", str(good), *nonces, "--commitment", promised])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "verified: every check holds"
    assert len(result.stdout.splitlines()) == 7  # six checks and the verdict

    bad = tmp_path / "bad.txt"
    bad.write_text(make_post().replace('"1729"', '"1730"'), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(bad)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "NOT VERIFIED: log"

    result = runner.invoke(app, ["verify", str(good), "--commitment", "0" * 64])
    assert result.exit_code == 1
    assert "MISMATCH commitment" in result.stdout
    result = runner.invoke(app, ["verify", str(good), "--commitment", "2b88"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "fracas: error: --commitment: '2b88' holds no commitment: give the 64 hex digits, or the "
        "whole line `fracas commit` printed"
    ]

    truncated = tmp_path / "cut.txt"
    truncated.write_text(make_post()[:2000], encoding="utf-8")
    result = runner.invoke(app, ["verify", str(truncated)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "cut.txt" in result.stderr


def test_json_posts_carry_the_protocol_record(tmp_path: Path) -> None:
    document = json.loads(make_post(fmt="json"))
    assert list(document)[-1] == "fair"
    assert document["fair"]["nonces"] == list(NONCES)
    assert document["fair"]["secret"] == SECRET
    document["result"]["winner"] = "nobody"
    assert failed(verify_post(json.dumps(document, indent=2))) == ["log"]


def test_a_json_post_with_a_repeated_key_is_refused_and_the_key_named(tmp_path: Path) -> None:
    # The last value wins when the JSON is read; a reader may see the first.
    text = make_post(fmt="json")
    tampered = text.replace('"winner": ', '"winner": "Thornwall", "winner": ', 1)
    assert '"winner": "Thornwall", "winner": "Red Fang"' in tampered
    verification = verify_post(tampered)
    assert failed(verification) == ["log"]
    assert 'the key "winner" twice' in detail(verification, "log")
    nested = edit_line(text, r'"secret":', lambda line: f'{line} "secret": "{SECRET}",')
    assert 'the key "secret" twice' in detail(verify_post(nested), "log")

    posted = tmp_path / "post.json"
    posted.write_text(tampered, encoding="utf-8")
    result = runner.invoke(app, ["verify", str(posted)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "NOT VERIFIED: log"
    assert [line for line in result.stdout.splitlines() if "MISMATCH" in line] == [
        'MISMATCH log: the JSON post has the key "winner" twice in one object (fracas writes '
        "each key once; a reader may see either value)"
    ]


def test_a_json_post_hides_no_text_in_quote_tags_or_after_the_document() -> None:
    text = make_post(fmt="json")
    in_value = text.replace('"winner": "', '"winner": "[quote=Thornwall wins][/quote]', 1)
    verification = verify_post(in_value)
    assert failed(verification) == ["log"]
    assert "Thornwall wins" in detail(verification, "log")
    between = text.replace('"winner"', '[quote="Thornwall wins"][/quote] "winner"', 1)
    with pytest.raises(UnreadablePost, match="no JSON document"):
        verify_post(between)
    after = verify_post(text + "\nEDIT: Thornwall actually wins\n")
    assert failed(after) == ["after the document"]
    assert "EDIT: Thornwall actually wins" in detail(after, "after the document")
    # A code block, a quote of the post and the reply after it are not the post's text.
    assert verify_post(f'Re {{x}}:\n[quote="GM"][code]{text}[/code][/quote]\nNice :}}').ok
    quoted = "\n".join("> " + line for line in ["```json", *text.split("\n"), "```"])
    assert verify_post(f"GM wrote:\n\n{quoted}\n\nNice\n").ok
    assert failed(verify_post(quoted + "\n> EDIT: no\n")) == ["after the document"]


def test_resolve_refuses_a_seed_with_a_secret_and_nonces_without_one(tmp_path: Path) -> None:
    secret = tmp_path / "gm.secret"
    secret.write_text(SECRET, encoding="utf-8")
    result = runner.invoke(
        app, ["resolve", str(LAIR_RAID), "--secret-file", str(secret), "--seed", "3"]
    )
    assert result.exit_code == 2
    assert "exclude each other" in result.stderr
    result = runner.invoke(app, ["resolve", str(LAIR_RAID), "--nonce", "owl"])
    assert result.exit_code == 2
    assert "--nonce needs --secret-file" in result.stderr


def test_commit_names_the_scenario_and_keeps_the_secret_off_stdout(tmp_path: Path) -> None:
    secret = tmp_path / "gm.secret"
    result = runner.invoke(app, ["commit", str(LAIR_RAID), "--secret-file", str(secret)])
    assert result.exit_code == 0, result.output
    made = secret.read_text(encoding="utf-8").strip()
    scenario = load_scenario(LAIR_RAID)
    assert result.stdout.split()[:3] == [
        "fracas-fair-v1",
        "commitment",
        commitment(made, scenario.canonical_sha256),
    ]
    assert made not in result.stdout
    assert f"scenario sha256:{scenario.sha256}" in result.stdout
    hexes = ROOT / "examples" / "hex" / "encirclement.yaml"
    result = runner.invoke(app, ["commit", str(hexes), "--secret-file", str(secret)])
    assert result.exit_code == 2
    assert "has no dice" in result.stderr


def test_set_overrides_travel_in_the_seal_and_read_from_stdin(tmp_path: Path) -> None:
    secret = tmp_path / "gm.secret"
    secret.write_text(SECRET, encoding="utf-8")
    args = ["resolve", str(LAIR_RAID), "--secret-file", str(secret), "--nonce", "owl"]
    args += ["--set", "parameters.round_limit=1", "--format", "markdown", "--fold", "--ascii"]
    made = runner.invoke(app, args)
    assert made.exit_code == 0, made.output
    assert "--set parameters.round\\_limit=1" in made.stdout
    assert made.stdout.isascii()
    result = runner.invoke(app, ["verify", "-"], input=made.stdout)
    assert result.exit_code == 3, result.output  # all holds; no commitment was given
    # The file without the override is another scenario, and verify says so.
    result = runner.invoke(app, ["verify", "-", "--scenario", str(LAIR_RAID)], input=made.stdout)
    assert result.exit_code == 1
    assert "MISMATCH scenario" in result.stdout


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
SEALED = make_post()
SEAL_KEYS = list(read_seal(SEALED))


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from([*SEAL_KEYS, "scenario.sides", "style.forum"]), value=JSON_VALUES)
def test_a_hostile_seal_is_a_mismatch_or_unreadable_never_a_crash(key: str, value: Any) -> None:
    def change(payload: dict[str, Any]) -> None:
        node = payload
        *parents, last = key.split(".")
        for part in parents:
            node = node[part]
        node[last] = value

    try:
        lines = verify_post(reseal(SEALED, change)).lines()
    except FracasError as error:  # UnreadablePost, or a scenario error naming the problem
        lines = [str(error)]
    assert all("\n" not in line for line in lines)


def test_a_seal_nested_too_deep_is_unreadable() -> None:
    raw = '{"seal": 1, "derivation": ' + "[" * 100_000 + "]" * 100_000 + "}"
    packed = base64.b64encode(zlib.compress(raw.encode())).decode()
    with pytest.raises(UnreadablePost, match="damaged"):
        verify_post(f"{SEAL_BEGIN}\n{packed}\n{SEAL_END}")


# --- the commitment as a thread shows it ----------------------------------------------------


def test_the_commitment_reads_as_commit_prints_it_and_as_a_forum_shows_it() -> None:
    scenario = load_scenario(LAIR_RAID)
    promised = commitment(SECRET, scenario.canonical_sha256)
    line = f"fracas-fair-v1 commitment {promised} · scenario sha256:{scenario.sha256}"
    text = make_post()
    for shown in (
        line,
        promised,
        promised.upper(),
        f"  '{line}'  ",
        f'"{promised}"\n',
        f"`{line.upper()}`",
        f"\u201c{line}\u201d",
    ):
        verification = verify_post(text, expected_commitment=shown, expected_nonces=NONCES)
        assert verification.ok, (shown, verification.lines())
        assert verification.exit_code == 0
        assert verification.unchecked == ()


def test_a_commitment_line_naming_another_scenario_is_caught() -> None:
    scenario = load_scenario(LAIR_RAID)
    promised = commitment(SECRET, scenario.canonical_sha256)
    other = "0" * 16 if not scenario.sha256.startswith("0" * 16) else "1" * 16
    shown = f"fracas-fair-v1 commitment {promised} · scenario sha256:{other}"
    verification = verify_post(make_post(), expected_commitment=shown)
    assert failed(verification) == ["commitment"]
    assert f"sha256:{other}" in detail(verification, "commitment")


def test_a_post_copied_from_the_rendered_page_says_what_to_copy_instead() -> None:
    text = make_post(style=PostStyle(fold=True))
    # What a browser shows of the BBCode post: the markup is gone. With the seal's fold
    # open, the seal comes along; folded, it is left behind.
    shown = re.sub(r"\[/?[a-z*]+(?:=[^\]]*)?\]", "", text)
    verification = verify_post(shown)
    assert failed(verification) == ["log"]
    assert "copied from the rendered page" in detail(verification, "log")
    assert "Quote button" in detail(verification, "log")
    folded = shown.split(SEAL_BEGIN)[0]
    with pytest.raises(UnreadablePost, match="copied from the rendered page"):
        verify_post(folded)
    # A post whose markup is intact but whose numbers changed gets no such hint.
    tampered = text.replace('"1729"', '"1730"')
    assert "rendered page" not in detail(verify_post(tampered), "log")


def test_the_documented_answer_to_a_rendered_copy_is_the_one_given(tmp_path: Path) -> None:
    shown = tmp_path / "shown.txt"
    rendered = re.sub(r"\[/?[a-z*]+(?:=[^\]]*)?\]", "", make_post(style=PostStyle(fold=True)))
    shown.write_text(rendered.split(SEAL_BEGIN)[0], encoding="utf-8")
    result = runner.invoke(app, ["verify", str(shown)])
    assert result.exit_code == 2
    documented = (ROOT / "docs" / "fair-dice.md").read_text(encoding="utf-8")
    line = next(row for row in documented.splitlines() if row.startswith("fracas: unreadable:"))
    assert result.stderr.strip() == line.replace("shown.txt", str(shown))
