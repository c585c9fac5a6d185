"""The commitment and the seed derivation: pinned by the test vector in docs/fair-dice.md."""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

import pytest

from fracas.core.errors import ScenarioError
from fracas.io.fair import (
    DERIVATION,
    check_nonces,
    check_secret,
    commitment,
    derive_seed,
    fair_resolve,
    mark_revealed,
    secret_from_file,
)
from fracas.io.scenario import load_scenario

from .conftest import LAIR_RAID, ROOT, SECRET

# The vector of docs/fair-dice.md. The expected values were computed with coreutils and
# openssl, not with fracas:
#   printf 'fracas-fair-v1 commitment\n%s\n%s' "$S" "$H" | sha256sum
#   printf 'fracas-fair-v1 seed\n%s\n%s' "$H" '["owl","7"]' | openssl dgst -sha256 -hmac "$S"
VECTOR_SECRET = "0" * 64
VECTOR_SCENARIO = "ab" * 32
VECTOR_NONCES = ["owl", "7"]
VECTOR_COMMITMENT = "ab30c0f42b1621050f2f5d4e8fcfb0ce3e196e4e0a816da7df9f0cd8a9d8820a"
VECTOR_HMAC_PREFIX = "ca7bbeedd0399a62"
VECTOR_SEED = 14590465346406816354  # = 0xca7bbeedd0399a62


def test_derivation_matches_the_documented_test_vector() -> None:
    assert DERIVATION == "fracas-fair-v1"
    assert commitment(VECTOR_SECRET, VECTOR_SCENARIO) == VECTOR_COMMITMENT
    assert derive_seed(VECTOR_SECRET, VECTOR_SCENARIO, VECTOR_NONCES) == VECTOR_SEED
    assert int(VECTOR_HMAC_PREFIX, 16) == VECTOR_SEED
    doc = (ROOT / "docs" / "fair-dice.md").read_text(encoding="utf-8")
    for value in (VECTOR_COMMITMENT, VECTOR_HMAC_PREFIX, str(VECTOR_SEED), VECTOR_SCENARIO):
        assert value in doc


def test_derivation_is_the_documented_hmac() -> None:
    # The same seed from hashlib/hmac directly, following the document's formula.
    message = f"fracas-fair-v1 seed\n{'cd' * 32}\n" + '["Ünïcode","a b"]'
    digest = hmac.new(b"f" * 40, message.encode("utf-8"), hashlib.sha256).digest()
    assert derive_seed("f" * 40, "cd" * 32, ["Ünïcode", "a b"]) == int.from_bytes(digest[:8])


def test_every_input_moves_the_seed_and_nonces_do_not_move_the_commitment() -> None:
    seed = derive_seed(SECRET, "ab" * 32, ["a", "b"])
    assert derive_seed(SECRET, "ab" * 32, ["b", "a"]) != seed  # order counts
    assert derive_seed(SECRET, "ab" * 32, ["a"]) != seed
    assert derive_seed(SECRET, "ab" * 32, ["ab"]) != derive_seed(SECRET, "ab" * 32, ["a", "b"])
    assert derive_seed(SECRET[::-1], "ab" * 32, ["a", "b"]) != seed
    assert derive_seed(SECRET, "ac" * 32, ["a", "b"]) != seed
    assert commitment(SECRET, "ab" * 32) != commitment(SECRET, "ac" * 32)
    assert commitment(SECRET, "ab" * 32) != commitment(SECRET[::-1], "ab" * 32)


def test_nonces_survive_what_forums_do_to_whitespace_and_accents() -> None:
    plain = check_nonces(["owlbear at dawn", "Café"])
    assert check_nonces(["  owlbear\t at  dawn \r\n", "Cafe\u0301"]) == plain
    with pytest.raises(ScenarioError, match="nonce 2 is empty"):
        check_nonces(["a", "   "])
    with pytest.raises(ScenarioError, match="longer than 200"):
        check_nonces(["x" * 201])


@pytest.mark.parametrize(
    ("text", "problem"),
    [("xyz", "hexadecimal digits only"), ("abc123", "at least 32 hex digits"), ("", "hexadec")],
)
def test_weak_or_malformed_secrets_are_refused(text: str, problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem):
        check_secret(text)


def test_commit_creates_a_private_secret_once_and_then_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "gm.secret"
    secret, created = secret_from_file(path, create=True)
    assert created
    assert len(secret) == 64
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again, created_again = secret_from_file(path, create=True)
    assert (again, created_again) == (secret, False)


def test_the_report_records_the_protocol_and_plays_the_derived_seed() -> None:
    scenario = load_scenario(LAIR_RAID)
    report = fair_resolve(scenario, SECRET, ["owl"])
    assert report.seed == derive_seed(SECRET, scenario.canonical_sha256, ["owl"])
    assert report.fair is not None
    assert report.fair["commitment"] == commitment(SECRET, scenario.canonical_sha256)
    # Same dice as a plain resolve with that seed: the protocol only chooses the seed.
    assert report.sections == scenario.resolve(seed=report.seed).sections


def test_a_ruleset_without_dice_has_nothing_to_make_fair() -> None:
    scenario = load_scenario(ROOT / "examples" / "hex" / "encirclement.yaml")
    with pytest.raises(ScenarioError, match="has no dice"):
        fair_resolve(scenario, SECRET, [])


def test_a_revealed_secret_is_never_committed_to_again(tmp_path: Path) -> None:
    path = tmp_path / "gm.secret"
    secret, _ = secret_from_file(path, create=True)
    mark_revealed(path)
    mark_revealed(path)  # once is enough
    assert path.read_text(encoding="utf-8") == f"{secret}\nrevealed\n"
    # The game master can still re-run the same resolution …
    assert secret_from_file(path) == (secret, False)
    # … but a new commitment needs a new secret: players know this one now.
    with pytest.raises(ScenarioError, match="revealed by an earlier 'fracas resolve'"):
        secret_from_file(path, create=True)
