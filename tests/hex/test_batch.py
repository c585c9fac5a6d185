"""The batch path against the exact path: same losses, strike for strike.

Three layers of evidence:

1. Hypothesis: single strikes gathered into the exact :class:`StrikeInputs` (supporters,
   statuses, pierce …) go through :func:`compute_strike`, the path the reports use, and
   through the batch; the losses agree.
2. An exact integer oracle (numbers on a decimal grid, scaled to whole numbers, Python
   integers in numpy object arrays) is checked against :func:`compute_strike` on a sample.
3. A million strikes, a tenth of them constructed exact halves, through the batch and
   through the oracle: zero disagreements. The same halves rounded by plain floats do
   disagree, so the test would catch a batch that skipped its exact decisions.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from fracas.core.errors import ScenarioError
from fracas.rulesets.hex.batch import (
    FIELDS,
    as_arrays,
    evaluate,
    numbers_from_fields,
    strike_arrays,
    strikes,
)
from fracas.rulesets.hex.strike import (
    SideInputs,
    StrikeInputs,
    Supporter,
    compute_strike,
    strike_numbers,
)

Objects = NDArray[np.object_]


def side(
    unit: str,
    strength: int,
    printed: Fraction,
    level: int,
    encirclement: Fraction,
    terrain: Fraction,
    status_mul: Fraction,
    support: Fraction,
    status_add: Fraction,
) -> SideInputs:
    # One supporter of strength 1 lends exactly ``support`` when support_share is 1.
    return SideInputs(
        unit=unit,
        strength=strength,
        printed=printed,
        level=level,
        encirclers=(),
        encirclement=encirclement,
        terrain=f"plains {unit}",
        terrain_factor=terrain,
        status_mul=(("s", status_mul),),
        supporters=(Supporter("ally", 1, support),) if support else (),
        status_add=(("s", status_add),),
    )


def inputs(
    attacker: SideInputs, defender: SideInputs, pierce: Fraction, exponent: Fraction
) -> StrikeInputs:
    return StrikeInputs(
        attacker=attacker,
        defender=defender,
        target_domain="land",
        distance=1,
        pierce=pierce,
        level_percent=Fraction(1),
        support_share=Fraction(1),
        defense_support_cap=Fraction(2),
        loss_exponent=exponent,
    )


def grid(denominator: int, low: int, high: int) -> st.SearchStrategy[Fraction]:
    return st.integers(low, high).map(lambda n: Fraction(n, denominator))


sides = st.builds(
    side,
    st.just("u"),
    st.integers(0, 300),
    grid(100, 0, 3000),
    st.integers(0, 99),
    st.sampled_from([Fraction(1), Fraction(9, 10), Fraction(4, 5), Fraction(1, 2)]),
    grid(100, 50, 160),
    grid(100, 0, 200),
    grid(10, 0, 30000),
    grid(10, -3000, 3000),
)


@settings(max_examples=300, deadline=None)
@given(
    attacker=sides,
    defender=sides,
    pierce=grid(100, 0, 99),
    exponent=st.sampled_from([Fraction(1), Fraction(2), Fraction(3), Fraction(3, 2)]),
)
def test_one_strike_in_the_batch_is_the_exact_paths_strike(
    attacker: SideInputs, defender: SideInputs, pierce: Fraction, exponent: Fraction
) -> None:
    strike = inputs(attacker, defender, pierce, exponent)
    exact = compute_strike(strike)
    batch = evaluate(as_arrays([strike_numbers(strike)]))
    assert int(batch.losses[0]) == exact.losses
    assert batch.fraction[0] == pytest.approx(float(exact.fraction), rel=1e-12, abs=1e-300)
    assert batch.effective_attack[0] == pytest.approx(
        float(exact.effective_attack.total), rel=1e-12
    )


def test_a_half_that_floats_miss_is_rounded_up_as_the_exact_path_does() -> None:
    # 99 × 1.1 × 10 = 1089 against 99 × 1.1 × 10: an even fight, exactly 1/2 of 99 = 49.5,
    # which rounds up to 50. In floats 1.1 is a little off, and the batch must not care.
    result = strikes(
        attacker_strength=99,
        attack=10,
        attacker_terrain=1.1,
        attacker_level=7,
        target_strength=99,
        defense=10,
        target_terrain=1.1,
        target_level=7,
    )
    assert result.losses.tolist() == [50]
    assert result.decided_exactly == 1


# The exact integer oracle ----------------------------------------------------------------
#
# Every input lies on a grid: printed numbers, terrain, status multipliers and pierce in
# hundredths, encirclement in tenths, support in hundredths, status additions in tenths,
# levels whole with level_percent 1. Scaled by 10^11 every Effective value is a whole
# number, and the losses follow from whole-number comparisons.

SCALE_BASE = 100 * 100 * 10 * 100 * 100  # printed, Lv (100 + L), Enc, Terrain, Status ×


def oracle_losses(columns: dict[str, NDArray[np.int64]], exponent: int) -> Objects:
    """Losses by exact integer arithmetic (Python integers in object arrays)."""

    def obj(name: str) -> Objects:
        return columns[name].astype(object)

    def base(prefix: str, printed: str) -> Objects:
        product: Objects = (
            obj(f"{prefix}_strength")
            * obj(printed)
            * (100 + obj(f"{prefix}_level"))
            * obj(f"{prefix}_encirclement")
            * obj(f"{prefix}_terrain")
            * obj(f"{prefix}_status_mul")
        )
        return product

    zero = np.zeros(len(columns["attack"]), dtype=object)
    raw_attack = (
        base("attacker", "attack")
        + obj("attack_support") * (SCALE_BASE // 100)
        + obj("attacker_status_add") * (SCALE_BASE // 10)
    )
    attack = np.maximum(raw_attack, zero) * 100  # pierce is in hundredths: same scale
    defense_base = base("target", "defense")
    support = np.minimum(obj("defense_support") * (SCALE_BASE // 100), 2 * defense_base)
    raw_defense = defense_base + support + obj("target_status_add") * (SCALE_BASE // 10)
    defense = np.maximum(raw_defense, zero) * (100 - obj("pierce"))
    a_k, d_k = attack**exponent, defense**exponent
    strength = obj("target_strength")
    # floor(a^k / (a^k + d^k) × s + 1/2) = floor((2 s a^k + a^k + d^k) / (2 (a^k + d^k)))
    total = a_k + d_k
    positive = attack > 0
    safe_total = np.where(positive, total, 1)
    losses = (2 * strength * a_k + total) // (2 * safe_total)
    return np.where(positive, losses, 0)


def random_columns(rng: np.random.Generator, n: int) -> dict[str, NDArray[np.int64]]:
    def sometimes(values: NDArray[np.int64], share: float) -> NDArray[np.int64]:
        return np.where(rng.random(n) < share, values, 0)

    columns: dict[str, NDArray[np.int64]] = {}
    for prefix, printed, support in (
        ("attacker", "attack", "attack_support"),
        ("target", "defense", "defense_support"),
    ):
        columns[f"{prefix}_strength"] = rng.integers(0, 300, n)
        columns[printed] = rng.integers(0, 3000, n)
        columns[f"{prefix}_level"] = rng.integers(0, 100, n)
        columns[f"{prefix}_encirclement"] = rng.choice([10, 9, 8, 7, 6, 5], n)
        columns[f"{prefix}_terrain"] = rng.choice([100, 110, 125, 130, 150, 80, 90], n)
        columns[f"{prefix}_status_mul"] = rng.choice([100, 120, 115, 80, 50, 133], n)
        columns[support] = sometimes(rng.integers(0, 300_000, n), 0.5)
        columns[f"{prefix}_status_add"] = sometimes(rng.integers(-3000, 3000, n), 0.3)
    columns["pierce"] = sometimes(rng.integers(0, 100, n), 0.3)
    return columns


def exact_halves(rng: np.random.Generator, n: int, exponent: int) -> dict[str, NDArray[np.int64]]:
    """Strikes whose losses are exactly n + 1/2 before rounding.

    Effective Atk / Effective Def = p / q with p, q odd, and Strength (p^k + q^k) / 2 × m with
    m odd: the fraction p^k / (p^k + q^k) of it is p^k × m / 2. Every other number is the
    same on both sides (or in proportion p : q), and inexact in binary (1.1, 1.15, 0.9 …).
    """
    p = rng.choice([1, 3, 5, 7], n)
    q = rng.choice([1, 3, 5, 7], n)
    m = rng.choice([1, 3, 5], n)
    strength = (p**exponent + q**exponent) // 2 * m
    common = {
        "level": rng.integers(0, 100, n),
        "encirclement": rng.choice([10, 9, 7], n),
        "terrain": rng.choice([110, 115, 90, 130], n),
        "status_mul": rng.choice([100, 115, 133], n),
    }
    unit = rng.choice([10, 11, 33, 7], n)  # printed = p × unit / 100 against q × unit / 100
    share = rng.choice([0, 1, 3], n)  # support: p × share against q × share (hundredths)
    extra = rng.choice([0, 1, 7], n)  # additions: p × extra against q × extra (tenths)
    columns: dict[str, NDArray[np.int64]] = {
        "attacker_strength": strength,
        "target_strength": strength,
        "attack": p * unit,
        "defense": q * unit,
        "attack_support": p * share,
        "defense_support": q * share,
        "attacker_status_add": p * extra,
        "target_status_add": q * extra,
        "pierce": np.zeros(n, dtype=np.int64),
    }
    for key, values in common.items():
        columns[f"attacker_{key}"] = values
        columns[f"target_{key}"] = values
    return columns


DENOMINATORS = {
    "attack": 100,
    "defense": 100,
    "attacker_encirclement": 10,
    "target_encirclement": 10,
    "attacker_terrain": 100,
    "target_terrain": 100,
    "attacker_status_mul": 100,
    "target_status_mul": 100,
    "attack_support": 100,
    "defense_support": 100,
    "attacker_status_add": 10,
    "target_status_add": 10,
    "pierce": 100,
}


def as_floats(columns: dict[str, NDArray[np.int64]], exponent: int) -> dict[str, Any]:
    # Dividing an integer by 10 or 100 in floats gives the double nearest to the decimal,
    # which is what a scenario file's number becomes.
    floats: dict[str, Any] = {
        name: values / DENOMINATORS.get(name, 1) for name, values in columns.items()
    }
    floats["loss_exponent"] = exponent
    return floats


def test_the_integer_oracle_is_the_exact_path() -> None:
    rng = np.random.default_rng(20261201)
    for exponent in (1, 2, 3):
        columns = random_columns(rng, 400)
        halves = exact_halves(rng, 100, exponent)
        both = {name: np.concatenate([columns[name], halves[name]]) for name in columns}
        expected = oracle_losses(both, exponent)
        arrays = strike_arrays(**as_floats(both, exponent))
        read = arrays.exact_fields(np.arange(len(expected)))
        for index in range(len(expected)):
            numbers = numbers_from_fields({name: values[index] for name, values in read.items()})
            strike = inputs(
                side(*_exact_side(numbers.attacker)),
                side(*_exact_side(numbers.defender)),
                numbers.pierce,
                numbers.loss_exponent,
            )
            assert compute_strike(strike).losses == expected[index], index


def _exact_side(
    numbers: object,
) -> tuple[str, int, Fraction, int, Fraction, Fraction, Fraction, Fraction, Fraction]:
    get = numbers.__getattribute__
    return (
        "u",
        int(get("strength")),
        get("printed"),
        int(get("level")),
        get("encirclement"),
        get("terrain"),
        get("status_mul"),
        get("support"),
        get("status_add"),
    )


def test_a_million_strikes_agree_with_exact_integer_arithmetic() -> None:
    rng = np.random.default_rng(14)
    checked = disagreements = halves_missed_by_floats = 0
    for exponent in (1, 2, 3):
        random_part = random_columns(rng, 300_000)
        halves = exact_halves(rng, 34_000, exponent)
        columns = {name: np.concatenate([random_part[name], halves[name]]) for name in random_part}
        expected = oracle_losses(columns, exponent).astype(np.int64)
        result = evaluate(strike_arrays(**as_floats(columns, exponent)))
        disagreements += int(np.count_nonzero(result.losses != expected))
        checked += len(expected)
        plain = np.floor(result.fraction * columns["target_strength"] + 0.5)[-34_000:]
        halves_missed_by_floats += int(np.count_nonzero(plain != expected[-34_000:]))
        assert result.decided_exactly >= 34_000 * 9 // 10
    assert checked >= 1_000_000
    assert disagreements == 0
    # Plain float rounding gets many of the constructed halves wrong: the test has teeth.
    assert halves_missed_by_floats > 1000


# Bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "values", "message"),
    [
        ("attacker_strength", [100, -1, -2], r"attacker_strength\[1\]: -1.0 is negative"),
        ("target_strength", [100, 2.5, 3], r"target_strength\[1\]: 2.5 is not a whole number"),
        ("defense", [1, 2, float("nan")], r"defense\[2\]: nan is not a finite number"),
        ("attack", [float("inf"), 1, 1], r"attack\[0\]: inf is not a finite number"),
        ("attacker_level", [0, 99, 100], r"attacker_level\[2\]: 100.0 is above the level cap"),
        ("pierce", [0, 1, 0], r"pierce\[1\]: 1.0 is outside 0 ≤ pierce < 1"),
        ("attack_support", [0, -3, 0], r"attack_support\[1\]: -3.0 is negative"),
    ],
)
def test_bad_input_names_the_field_and_the_first_bad_index(
    field: str, values: list[float], message: str
) -> None:
    good: dict[str, Any] = {
        "attacker_strength": [1, 2, 3],
        "attack": 1,
        "target_strength": 5,
        "defense": 1,
    }
    with pytest.raises(ScenarioError, match=message):
        strikes(**{**good, field: values})


def test_arrays_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^attack: has 2 elements, but attacker_strength has 3"):
        strikes(attacker_strength=[1, 2, 3], attack=[1, 2], target_strength=1, defense=1)


def test_missing_and_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^defense: is required"):
        strikes(attacker_strength=1, attack=1, target_strength=1)
    with pytest.raises(ValueError, match=r"^atack: unknown field"):
        strikes(attacker_strength=1, atack=1, attack=1, target_strength=1, defense=1)
    assert "attacker_strength" in FIELDS


def test_threads_and_chunks_do_not_change_the_results() -> None:
    rng = np.random.default_rng(3)
    columns = random_columns(rng, 20_000)
    halves = exact_halves(rng, 2_000, 2)
    both = {name: np.concatenate([columns[name], halves[name]]) for name in columns}
    arrays = strike_arrays(**as_floats(both, 2))
    alone = evaluate(arrays)
    shared = evaluate(arrays, chunk=1000, workers=2)
    assert np.array_equal(alone.losses, shared.losses)
    assert np.array_equal(alone.fraction, shared.fraction)
    assert alone.decided_exactly == shared.decided_exactly >= 1800
    assert np.array_equal(alone.losses, oracle_losses(both, 2).astype(np.int64))


def test_an_attack_that_cancels_to_exactly_nothing_takes_nothing() -> None:
    # 3 × 0.1 − 0.3 is exactly 0, so the attack takes nothing even against a defence of 0.
    # In floats 3 × 0.1 is 0.30000000000000004: a sliver of attack against no defence at
    # all would take every soldier. The error bound sees the cancellation.
    result = strikes(
        attacker_strength=3,
        attack=0.1,
        attacker_status_add=-0.3,
        target_strength=[100, 7],
        defense=0,
    )
    assert result.losses.tolist() == [0, 0]
    assert result.decided_exactly == 2


# The compiled kernel (the `fast` extra) ---------------------------------------------------


def test_the_compiled_kernel_agrees_with_the_numpy_batch_on_a_million_strikes() -> None:
    from fracas.rulesets.hex import fast

    rng = np.random.default_rng(41)
    checked = 0
    for exponent in (1, 2, 3):
        random_part = random_columns(rng, 300_000)
        halves = exact_halves(rng, 34_000, exponent)
        columns = {name: np.concatenate([random_part[name], halves[name]]) for name in random_part}
        arrays = strike_arrays(**as_floats(columns, exponent))
        compiled, plain = fast.evaluate(arrays), evaluate(arrays)
        assert np.array_equal(compiled.losses, plain.losses)
        assert np.array_equal(compiled.losses, oracle_losses(columns, exponent).astype(np.int64))
        # The same operations in the same order: the floats agree to the last bit or two.
        assert np.allclose(compiled.fraction, plain.fraction, rtol=1e-14, atol=0)
        assert compiled.decided_exactly >= 34_000 * 9 // 10
        checked += len(arrays)
    assert checked >= 1_000_000


def test_the_compiled_kernel_takes_scalars_and_arrays_alike() -> None:
    from fracas.rulesets.hex import fast

    # 100 × 20 against 100 × 10: ratio 2, 2² / (1 + 2²) = 4/5 of 100 = 80. 99 × 10 against
    # 99 × 10: 1/2 of 99 = 49.5, an exact half, rounded up to 50 in fractions.
    result = fast.strikes(
        attacker_strength=[100, 99], attack=[20, 10], target_strength=[100, 99], defense=10
    )
    assert result.losses.tolist() == [80, 50]
    assert result.fraction.tolist() == [0.8, 0.5]
    assert result.decided_exactly == 1


def test_the_compiled_kernel_is_written_from_the_one_formula(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fracas.rulesets.hex import fast

    # The module, not the function of the same name that the package exports.
    formula = importlib.import_module("fracas.rulesets.hex.strike")
    everywhere = (True,) * len(FIELDS)
    before = fast.kernel_source(everywhere)
    # Change the loss curve in strike.py alone: the kernel's code follows.
    monkeypatch.setattr(formula, "fraction_of", lambda arithmetic, a, d, k: a / (a + d))
    after = fast.kernel_source(everywhere)
    assert "**" in before
    assert "**" not in after


def test_without_numba_the_kernel_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from fracas.rulesets.hex import fast

    def missing(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(fast, "_KERNELS", {})
    monkeypatch.setattr(importlib, "import_module", missing)
    assert not fast.available()
    with pytest.raises(ImportError, match=r"pip install 'fracas\[fast\]'"):
        fast.strikes(attacker_strength=1, attack=1, target_strength=1, defense=1)


def test_an_empty_batch_gives_empty_results_on_both_paths() -> None:
    from fracas.rulesets.hex import fast

    empty: dict[str, Any] = {
        "attacker_strength": [],
        "attack": 1,
        "target_strength": [],
        "defense": 1,
        "pierce": [],
        "loss_exponent": [],
    }
    for result in (strikes(**empty), fast.strikes(**empty)):
        assert result.losses.tolist() == []
        assert result.decided_exactly == 0


def test_the_compiled_kernel_can_be_called_from_many_threads_at_once() -> None:
    # numba's own thread pool (what it uses without TBB or OpenMP) aborts the process when
    # two threads launch parallel work together; forced here, in a fresh interpreter.
    script = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "import numpy as np\n"
        "from fracas.rulesets.hex import fast\n"
        "from fracas.rulesets.hex.batch import strike_arrays\n"
        "rng = np.random.default_rng(1)\n"
        "arrays = strike_arrays(attacker_strength=rng.integers(1, 100, 200_000), attack=10,\n"
        "                       target_strength=rng.integers(1, 100, 200_000), defense=10)\n"
        "with ThreadPoolExecutor(4) as pool:\n"
        "    totals = set(pool.map(lambda _: int(fast.evaluate(arrays).losses.sum()), range(8)))\n"
        "print(len(totals))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NUMBA_THREADING_LAYER": "workqueue"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


@pytest.mark.parametrize("exponent", [4, 2.5, 5, "mixed"])
def test_the_compiled_kernel_agrees_on_other_loss_exponents(exponent: float | str) -> None:
    # Whole exponents up to 4 are multiplied out in the kernel, the others go through pow;
    # 1, 2 and 3 are in the million-strike test above.
    from fracas.rulesets.hex import fast

    rng = np.random.default_rng(7)
    columns = random_columns(rng, 50_000)
    halves = exact_halves(rng, 5_000, 2)
    both = {name: np.concatenate([columns[name], halves[name]]) for name in columns}
    floats = as_floats(both, 2)
    floats["loss_exponent"] = (
        rng.choice([1.0, 2.0, 2.5, 3.0], len(both["target_strength"]))
        if exponent == "mixed"
        else exponent
    )
    arrays = strike_arrays(**floats)
    compiled, plain = fast.evaluate(arrays), evaluate(arrays)
    assert np.array_equal(compiled.losses, plain.losses)
    assert np.allclose(compiled.fraction, plain.fraction, rtol=1e-12, atol=0)
