"""Hostile input, case by case (issue 10): each is one line, exit code 2, and bounded work.

Every test here reproduces a crash or hang a hostile user found; the fix for each is at
its root (the bounded reader, the named limits, the budgets, the one error path), and the
fuzzer (``make fuzz``) looks for the rest of each class.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import LAIR, ROOT, WORK_OPTIONS, assert_one_line, fresh_python, run

D100 = ROOT / "examples" / "d100" / "challenge.yaml"
RANKFLANK = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
HEX = ROOT / "examples" / "hex" / "encirclement.yaml"
HUGE = "9" * 5000  # longer than Python's own 4,300-digit limit on int()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ── integers beyond Python's digit limit ──────────────────────────────────────────────


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("big.yaml", f"fracas: 1\nruleset: d100\nseed: {HUGE}\n"),
        ("big.json", f'{{"fracas": 1, "ruleset": "d100", "seed": {HUGE}}}'),
        ("big.toml", f'fracas = 1\nruleset = "d100"\nseed = {HUGE}\n'),
    ],
)
def test_an_integer_beyond_pythons_limit_is_a_limit_error(
    tmp_path: Path, name: str, text: str
) -> None:
    path = write(tmp_path, name, text)
    assert_one_line(("validate", path), name, "input.integer_digits", "--limit")


def test_a_long_integer_under_pythons_limit_names_its_key(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", f"fracas: 1\nruleset: d100\nseed: {'9' * 400}\n")
    assert_one_line(("validate", path), "seed: an integer of 400 digits", "integer_digits")


@pytest.mark.parametrize("where", ["file", "--set"])
def test_a_base_sixty_float_beyond_a_float_is_one_line(tmp_path: Path, where: str) -> None:
    # YAML 1.1 reads 1:30.5 as 90.5; two hundred fields of 59 are 60**200, no float.
    huge = ":".join(["59"] * 200) + ".0"
    if where == "file":
        path = write(tmp_path, "b60.yaml", f"fracas: 1\nruleset: d100\ntitle: x\nseed: {huge}\n")
        assert_one_line(("validate", path), "b60.yaml: line 4: a number too large for a float")
    else:
        assert_one_line(("validate", D100, "--set", f"seed={huge}"), "a number too large")


def test_a_huge_seed_in_set_is_a_limit_error() -> None:
    assert_one_line(("validate", D100, "--set", f"seed={HUGE}"), "input.integer_digits")


def test_a_seed_option_beyond_the_limit_is_refused() -> None:
    # 30 digits: an int Python reads, but no seed anyone means.
    assert_one_line(("resolve", D100, "--seed", "9" * 30), "seed", "input.integer_digits")


def test_the_integer_limit_can_be_raised(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", f"{D100.read_text()}\n")
    code, _, out = run("resolve", path, "--seed", "9" * 30, "--limit", "input.integer_digits=30")
    assert code == 0
    assert f"seed {'9' * 30}" in out


# ── nesting ───────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.yaml", "fracas: 1\nruleset: d100\ntitle: " + "[" * 1000 + "]" * 1000 + "\n"),
        ("deep.json", '{"fracas": 1, "ruleset": "d100", "title": ' + "[" * 5000 + "]" * 5000 + "}"),
        ("deep.toml", 'fracas = 1\nruleset = "d100"\ntitle = ' + "[" * 1000 + "]" * 1000 + "\n"),
    ],
)
def test_deep_nesting_is_a_limit_error(tmp_path: Path, name: str, text: str) -> None:
    # ≈1,000 levels used to raise RecursionError (in the parser, pydantic, or a repr()).
    assert_one_line(("validate", write(tmp_path, name, text)), name, "input.depth")


def test_deep_nesting_in_set_is_a_limit_error() -> None:
    nested = "[" * 1000 + "]" * 1000
    assert_one_line(("validate", D100, "--set", f"title={nested}"), "--set", "input.depth")


def test_a_file_and_its_overrides_are_held_to_the_node_limit_together() -> None:
    # challenge.yaml holds 89 values (1 + the size of every mapping and list in it): under
    # a limit of 120 alone, and so is a --set list of 60 (61 values), but not the two
    # together (89 + 60 = 149 > 120), which is what is played.
    many = "[" + ",".join(["1"] * 60) + "]"
    override = ("--set", f"sides[0].units[0].tags={many}")
    assert run("validate", D100, "--limit", "input.nodes=120")[0] == 0
    assert_one_line(("validate", D100, "--limit", "input.nodes=120", *override), "input.nodes")
    # With room for both, the node limit says nothing (the unknown key is what is refused).
    line = assert_one_line(("validate", D100, "--limit", "input.nodes=160", *override), "tags")
    assert "input.nodes" not in line


def test_a_deep_value_under_the_depth_limit_is_shown_short(tmp_path: Path) -> None:
    text = "fracas: 1\nruleset: d100\nsides: " + "[" * 20 + "]" * 20 + "\n"
    # resolve stops at the first problem (validate would list the missing sides[1] too).
    line = assert_one_line(("resolve", write(tmp_path, "d.yaml", text)), "sides")
    assert "[[[[" not in line  # an excerpt, not a repr of the whole value


# ── YAML alias bombs ──────────────────────────────────────────────────────────────────

LAUGHS = """fracas: 1
ruleset: d100
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
{field}: [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


@pytest.mark.parametrize("field", ["title", "sides", "parameters", "seed"])
def test_a_billion_laughs_stops_at_the_node_limit(tmp_path: Path, field: str) -> None:
    # 9^9 ≈ 387 million strings once expanded: minutes and gigabytes through a repr().
    path = write(tmp_path, "laughs.yaml", LAUGHS.format(field=field))
    assert_one_line(("validate", path), "input.nodes")


def test_too_many_aliases_is_a_limit_error(tmp_path: Path) -> None:
    text = "fracas: 1\nruleset: d100\nx: &x 1\ny: [" + ", ".join(["*x"] * 1500) + "]\n"
    assert_one_line(("validate", write(tmp_path, "a.yaml", text)), "input.aliases")


# ── markup, control characters and surrogates in user text ────────────────────────────


@pytest.mark.parametrize("name", ["[/b]", "[bold]x", "[url=http://x]y[/url]"])
def test_markup_in_a_side_name_prints_literally(name: str) -> None:
    # A side called "[/b]" used to raise rich's MarkupError; "[bold]x" printed as "x".
    code, lines, out = run("resolve", D100, "--set", f"sides[0].name='{name}'")
    assert code == 0, lines
    assert f"{name}: challenge" in out


def test_a_lone_surrogate_in_a_name_is_written_escaped(tmp_path: Path) -> None:
    document = yaml.safe_load(D100.read_text())
    document["title"] = "x\ud800"
    path = write(tmp_path, "s.json", json.dumps(document))  # "\ud800" as a JSON escape
    for fmt in ("text", "markdown", "bbcode", "json"):
        code, lines, out = run("resolve", path, "--format", fmt)
        assert code == 0, lines
        out.encode("utf-8")
        assert "x\\ud800" in out


@pytest.mark.parametrize("key", ["a\nb", "c\x00d", "e\x1b[31mf", "g\u2028h"])
def test_a_key_with_control_characters_is_one_printable_line(tmp_path: Path, key: str) -> None:
    text = json.dumps({"fracas": 1, "ruleset": "d100", key: 1})
    # validate lists both problems (no sides, the odd key), each on one printable line.
    code, lines, _ = run("validate", write(tmp_path, "k.json", text))
    assert code == 2
    assert len(lines) == 2, lines
    assert "unknown key" in lines[1]
    for line in lines:
        assert line.startswith("fracas: error: "), line
        assert "k.json" in line
        assert line.isprintable(), line
        assert "\x1b" not in line
        assert "\x00" not in line


def test_an_error_message_is_short_whatever_the_input(tmp_path: Path) -> None:
    long_key = "k" * 9_000
    text = f"fracas: 1\nruleset: d100\n{long_key}: 1\n"
    line = assert_one_line(("validate", write(tmp_path, "long.yaml", text)))
    assert len(line) < 600  # used to be 100 kB


# ── output paths ──────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("target", ["/", "."])
def test_output_to_a_directory_is_one_line(target: str) -> None:
    assert_one_line(("resolve", D100, "-o", target), "cannot write output")


def test_an_empty_output_is_one_line() -> None:
    # Refused while the options are read: the command's own one-line form comes from
    # `fracas`'s entry point, so it is run as a user runs it.
    done = fresh_python("-m", "fracas", "resolve", str(D100), "-o", "")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "fracas: error: Invalid value for '--output' / '-o': an empty path names no file or "
        "folder (see 'fracas resolve --help')\n"
    )


def test_output_to_an_existing_directory_is_one_line(tmp_path: Path) -> None:
    assert_one_line(("resolve", D100, "-o", tmp_path), "cannot write output")


def test_output_into_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    assert_one_line(("resolve", D100, "-o", tmp_path / "no" / "out.txt"), "cannot write")


def test_a_closed_standard_output_is_one_line() -> None:
    # `fracas resolve FILE >&-`: Python starts with no sys.stdout at all.
    done = subprocess.run(
        [sys.executable, "-m", "fracas", "resolve", str(D100)],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        preexec_fn=lambda: os.close(1),  # the child starts with fd 1 closed, as `>&-` does
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == "fracas: error: -: cannot write output: standard output is closed\n"


# ── counts and budgets ────────────────────────────────────────────────────────────────


def test_d100_melee_attacks_have_a_limit() -> None:
    # 10^18 attacks per round used to hang; 1e5 took more than 15 s.
    line = assert_one_line(
        ("validate", D100, "--set", "sides[0].units[0].melee_attacks=1000000000000000000"),
        "sides[0].units[0].melee_attacks",
        "d100.melee_attacks = 100",
    )
    assert "--limit d100.melee_attacks=N" in line


def test_d100_round_limit_has_a_limit() -> None:
    assert_one_line(("validate", D100, "--set", "parameters.round_limit=10000"), "d100.round_limit")


def test_a_loss_free_battle_stops_at_the_resolve_budget() -> None:
    # A morale table that never costs PAX: no one ever falls, every round is played.
    line = assert_one_line(
        (
            "resolve",
            D100,
            "--set",
            "parameters.round_limit=1000",
            "--set",
            "parameters.morale_table=[{at_least: null, pax_lost: 0}]",
            "--set",
            "sides[0].units[0].melee_attacks=100",
        ),
        "budget.resolve",
        "--limit budget.resolve=N",
    )
    assert line.startswith(f"fracas: error: {D100}: ")


def test_a_budget_can_be_raised_or_lowered() -> None:
    assert_one_line(("resolve", D100, "--limit", "budget.resolve=5"), "budget.resolve of 5")
    code, _, _ = run("resolve", D100, "--limit", "budget.resolve=1000000")
    assert code == 0


def test_rankflank_supporting_attacks_have_a_limit() -> None:
    # 10^400 used to hang; now the integer limit catches it, and a smaller huge number the
    # count limit.
    assert_one_line(
        ("validate", RANKFLANK, "--set", f"parameters.supporting_attacks={'1' + '0' * 400}"),
        "input.integer_digits",
    )
    assert_one_line(
        ("validate", RANKFLANK, "--set", "parameters.supporting_attacks=100000000000000000"),
        "rankflank.supporting_attacks",
    )


@pytest.mark.parametrize(("option", "limit"), WORK_OPTIONS)
def test_odds_work_options_are_bounded(option: str, limit: str) -> None:
    assert_one_line(("odds", RANKFLANK, option, "1" + "0" * 30), option, limit)


def test_odds_solve_range_is_bounded() -> None:
    assert_one_line(
        ("odds", RANKFLANK, "--solve", "units[0].models", "--target", "0.5", "--to", "10" * 10),
        "odds.solve_range",
    )


def test_validate_dev_zero_stops_at_the_file_size_limit() -> None:
    # It used to read until memory ran out.
    assert_one_line(("validate", "/dev/zero"), "/dev/zero", "input.file_bytes")


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "big.yaml", D100.read_text() + "#" * 2_000)
    assert_one_line(("validate", path, "--limit", "input.file_bytes=1000"), "input.file_bytes")


def test_hex_advise_stops_at_its_budget(tmp_path: Path) -> None:
    # A 1,000-unit board: every attacker is tried against every unit. The advisor's speed
    # is its own matter; here its work is bounded and the budget named.
    # Column c of row r is axial q = c - r // 2: 50 columns, 20 rows, every hex taken.
    units = [
        f"  - {{id: u{i}, side: {'blue' if i % 2 else 'red'}, "
        f"hex: [{i % 50 - i // 100}, {i // 50}], strength: 10, attack: {{land: 10}}, defense: 10}}"
        for i in range(1000)
    ]
    rows = "\n".join("    - " + '"' + "." * 50 + '"' for _ in range(20))
    text = f"fracas: 1\nruleset: hex\nmap:\n  rows:\n{rows}\nunits:\n" + "\n".join(units) + "\n"
    path = write(tmp_path, "big.yaml", text)
    assert_one_line(
        ("advise", path, "--side", "blue", "--limit", "budget.advise=100000"), "budget.advise"
    )


def test_an_unknown_limit_is_one_line() -> None:
    assert_one_line(
        ("validate", D100, "--limit", "nope=3"),
        "no limit called 'nope' (limits are budget.*, d100.*, ",
        "input.*, odds.*, rankflank.*, sweep.*, work.*; docs/limits.md lists all)",
    )
    # A near miss names the limit meant and the others of its family, never a cut-off list.
    assert_one_line(
        ("validate", D100, "--limit", "input.file_byte=3"),
        "no limit called 'input.file_byte' (did you mean input.file_bytes? input limits: "
        "aliases, depth, file_bytes, integer_digits, nodes, text_length; docs/limits.md lists "
        "all)",
    )
    assert_one_line(("validate", D100, "--limit", "budget.resolve=lots"), "NAME=WHOLE_NUMBER")


def test_every_limit_is_known_to_every_command_that_takes_limit() -> None:
    """Limits declared where they bound work (work.processes, sweep.cells, odds.*) are
    known before that code is loaded: each command takes any of them."""
    code, lines, _ = run(
        "validate", D100, "--limit", "work.processes=4", "--limit", "sweep.cells=9"
    )
    assert code == 0, lines


def test_advise_workers_is_bounded_by_the_process_limit_it_can_raise() -> None:
    encirclement = ROOT / "examples" / "hex" / "encirclement.yaml"
    line = assert_one_line(
        ("advise", encirclement, "--side", "blue", "--reply", "--workers", "300")
    )
    assert line == (
        "fracas: error: --workers: 300 is above the limit work.processes = 256 "
        "(raise it with --limit work.processes=N)"
    )
    raised = ("--workers", "300", "--limit", "work.processes=300")
    code, lines, out = run("advise", encirclement, "--side", "blue", "--reply", *raised)
    assert code == 0, lines
    assert "Closing the ring" in out


def test_a_set_value_is_read_under_the_limits_the_command_line_raised() -> None:
    long_seed = "seed=" + "1" * 25
    assert_one_line(("resolve", LAIR, "--set", long_seed), "--set:", "input.integer_digits = 20")
    code, lines, out = run(
        "resolve", LAIR, "--limit", "input.integer_digits=30", "--set", long_seed
    )
    assert code == 0, lines
    assert "1" * 25 in out  # the footer names the seed played


@pytest.mark.parametrize("option", ["-o", "--plot"])
def test_odds_refuses_an_output_it_cannot_write_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    import importlib

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the odds were worked out before the output was checked")

    # The module, not the function of the same name that fracas.analysis exports.
    monkeypatch.setattr(importlib.import_module("fracas.analysis.odds"), "odds", no_work)
    target = tmp_path / "no such folder" / "odds.svg"
    line = assert_one_line(("odds", LAIR, "--method", "mc", option, target))
    assert line == f"fracas: error: {target}: cannot write output: No such file or directory"


def test_a_seed_too_long_on_the_command_line_names_seed_not_the_file() -> None:
    line = assert_one_line(("resolve", LAIR, "--seed", "9" * 26))
    assert line == (
        "fracas: error: --seed: a seed of 26 digits is above the limit input.integer_digits = 20 "
        "(raise it with --limit input.integer_digits=N)"
    )


def test_a_command_group_named_alone_shows_its_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fracas", "campaign"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert result.stdout.startswith("Usage: fracas campaign [OPTIONS] COMMAND [ARGS]...\n")
    assert "\\n" not in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("command", "raisable"),
    [(("resolve",), True), (("metrics",), False), (("commit", "--secret-file", "{secret}"), False)],
)
def test_a_limit_error_says_how_to_raise_it_only_where_the_command_takes_limit(
    tmp_path: Path, command: tuple[str, ...], raisable: bool
) -> None:
    # commit and metrics read their scenario with the default limits: no --limit to follow.
    args = [part.format(secret=tmp_path / "gm.secret") for part in command]
    line = assert_one_line((args[0], LAIR, *args[1:], "--set", "seed=" + "1" * 30))
    bare = (
        "fracas: error: --set: an integer of 30 digits is above the limit input.integer_digits = 20"
    )
    assert line == (bare + " (raise it with --limit input.integer_digits=N)" if raisable else bare)
    assert not (tmp_path / "gm.secret").exists()
