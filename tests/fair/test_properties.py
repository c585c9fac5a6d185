"""For any scenario, secret, nonces and way of writing the post, verify accepts the post."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.d100.test_properties import documents as d100_battles

from fracas.io.fair import commitment, fair_resolve, post, verify_post
from fracas.io.render import FORUM_SIZES, RENDERERS, PostStyle
from fracas.io.scenario import load_scenario, scenario_from_document

from .conftest import dice_examples

# Names carry markup and odd characters on purpose: escaping must not break verification.
NAMES = st.text(
    alphabet=st.sampled_from("abcXYZ [ ] * _ < > | # ` \\ = url /-+1.é×→"), min_size=1, max_size=12
).filter(lambda name: name.strip() != "")


@st.composite
def d100_documents(draw: st.DrawFn) -> dict[str, Any]:
    """The d100 property tests' random battles, renamed with hostile names."""
    document = draw(d100_battles())
    units = [unit for side in document["sides"] for unit in side["units"]]
    names = draw(
        st.lists(
            NAMES,
            min_size=len(units) + 3,
            max_size=len(units) + 3,
            unique_by=lambda n: " ".join(n.split()),
        )
    )
    for unit, name in zip(units, names, strict=False):
        unit["name"] = name
    document["title"] = names[-3]
    document["sides"][0]["name"], document["sides"][1]["name"] = names[-2:]
    return document


STYLES = st.builds(
    PostStyle,
    forum=st.sampled_from(sorted(FORUM_SIZES)),
    ascii_only=st.booleans(),
    fold=st.booleans(),
)
SECRETS = st.text(alphabet="0123456789abcdef", min_size=32, max_size=64)
NONCES = st.lists(st.text(min_size=1, max_size=20).filter(lambda n: n.strip() != ""), max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=d100_documents(),
    secret=SECRETS,
    nonces=NONCES,
    fmt=st.sampled_from(sorted(RENDERERS)),
    style=STYLES,
)
def test_verify_accepts_every_post_of_random_d100_battles(
    document: dict[str, Any], secret: str, nonces: list[str], fmt: str, style: PostStyle
) -> None:
    scenario = scenario_from_document(document, source="random.yaml")
    text = post(scenario, fair_resolve(scenario, secret, nonces), fmt, style)
    verification = verify_post(
        text,
        expected_commitment=commitment(secret, scenario.canonical_sha256),
        expected_nonces=nonces,
    )
    assert verification.ok, verification.lines()


EXAMPLES = [load_scenario(path) for path in dice_examples()]


@settings(max_examples=25, deadline=None)
@given(
    example=st.sampled_from(EXAMPLES),
    secret=SECRETS,
    nonces=NONCES,
    fmt=st.sampled_from(sorted(RENDERERS)),
    style=STYLES,
)
def test_verify_accepts_every_post_of_every_dice_ruleset(
    example: Any, secret: str, nonces: list[str], fmt: str, style: PostStyle
) -> None:
    text = post(example, fair_resolve(example, secret, nonces), fmt, style)
    assert verify_post(text, expected_nonces=nonces).ok
