"""Per-ruleset views of the odds: derived metrics and the headline questions players ask.

The generic odds report lists every metric of ``summarize``. A ruleset's *view* adds

* **derived metrics** — computed from each outcome before the odds are gathered, so they
  work the same for exact and sampled odds (e.g. the difference of two combat results);
* **headline rows** — the few numbers a player looks at first (P(win), P(a unit breaks),
  expected casualties), each with its interval.

Views are looked up by ruleset name; a ruleset without one gets the generic report only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from fracas.analysis.stats import wilson_interval

if TYPE_CHECKING:
    from fracas.analysis.odds import OddsResult, Value

Derive = Callable[[Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class HeadlineRow:
    """One headline number: a probability (``kind="probability"``) or an expected value."""

    label: str
    value: Fraction | float
    low: float
    high: float
    kind: str = "probability"
    metric: str = ""
    event: str = ""


def derived_metrics(ruleset: str, model: Any) -> Derive | None:
    """The function adding derived metrics to an outcome of ``ruleset``, if it has one.

    ``model`` is the built scenario: some derived metrics need what the summary leaves
    out (which side a unit fights for, how many models it started with).
    """
    maker = _DERIVED.get(ruleset)
    return maker(model) if maker is not None else None


def rankflank_decided(model: Any) -> Derive:
    """Derive ``decided``: who holds the field when the combat ends ("until decided").

    A side is out of the fight once each of its units has broken or been wiped out; the
    other side then wins the combat. ``undecided`` means both still stand after the last
    round played (``max_rounds``), ``draw`` that both sides are out.

    >>> from fracas.rulesets.rankflank.ruleset import RankflankScenario
    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> scenario = RankflankScenario(two_blocks(max_rounds=1), "t")
    >>> names = [unit.name for unit in scenario.combat.units]
    >>> derive = rankflank_decided(scenario)
    >>> derive({f"breaks.{names[0]}": False, f"breaks.{names[1]}": True})["decided"]
    'Empire'
    >>> derive({f"breaks.{names[0]}": False, f"breaks.{names[1]}": False})["decided"]
    'undecided'
    """
    # Imported here: the ruleset package must not be loaded just to list the views.
    from fracas.rulesets.rankflank.formation import initial_state, models_alive

    combat = model.combat
    start = initial_state(combat)
    sides: dict[str, list[tuple[str, int]]] = {side: [] for side in combat.sides}
    for unit in combat.units:
        sides[unit.side].append((unit.name, models_alive(unit, start[unit.name])))

    def derive(summary: Mapping[str, Any]) -> Mapping[str, Any]:
        out = [
            side
            for side, units in sides.items()
            if all(
                summary.get(f"breaks.{name}") is True
                or summary.get(f"casualties.{name}", 0) >= alive
                for name, alive in units
            )
        ]
        if not out:
            return {"decided": "undecided"}
        if len(out) == len(sides):
            return {"decided": "draw"}
        return {"decided": next(side for side in sides if side not in out)}

    return derive


def headline(result: OddsResult) -> list[HeadlineRow]:
    """The headline rows of ``result`` for its ruleset (empty when it has no view)."""
    view = _HEADLINES.get(result.ruleset)
    return view(result) if view else []


def probability_row(result: OddsResult, label: str, metric: str, value: Value) -> HeadlineRow:
    """A headline row for P(``metric`` == ``value``)."""
    low, high = result.interval(metric, value)
    return HeadlineRow(
        label, result.probability(metric, value), low, high, "probability", metric, repr(value)
    )


def mean_row(result: OddsResult, label: str, metric: str) -> HeadlineRow | None:
    """A headline row for the expected value of ``metric`` (``None`` if it has no mean)."""
    odds = result.metric(metric)
    if odds.mean is None or odds.mean_low is None or odds.mean_high is None:
        return None
    return HeadlineRow(label, odds.mean, odds.mean_low, odds.mean_high, "mean", metric)


def event_row(result: OddsResult, label: str, metric: str, values: Iterable[Value]) -> HeadlineRow:
    """A headline row for P(``metric`` takes one of ``values``)."""
    wanted = list(values)
    entries = [e for e in result.metric(metric).values if e.value in wanted]
    probability: Fraction | float = sum((e.probability for e in entries), Fraction(0))
    if result.exact:
        low = high = float(probability)
    else:
        count = sum(e.count or 0 for e in entries)
        low, high = wilson_interval(count, result.runs or 0, result.confidence or 0.95)
    return HeadlineRow(label, probability, low, high, "probability", metric, repr(wanted))


def _prefixed(result: OddsResult, prefix: str) -> list[str]:
    """Names after ``prefix`` of the metrics that start with it, in report order."""
    return [m.name[len(prefix) :] for m in result.metrics if m.name.startswith(prefix)]


def _winner_rows(result: OddsResult, label: str) -> list[HeadlineRow]:
    if not result.has("winner"):
        return []
    rows = []
    for entry in result.metric("winner").values:
        name = str(entry.value)
        if name in ("draw", "withdraw"):
            text = f"P({name} in{label})" if label else f"P({name})"
        else:
            text = f"P({name} wins{label})"
        rows.append(probability_row(result, text, "winner", entry.value))
    return rows


def rankflank_headline(result: OddsResult) -> list[HeadlineRow]:
    """Who wins the first round and the combat, who breaks, is caught, the casualties."""
    rows = _winner_rows(result, " round 1")
    if result.has("decided"):
        for entry in result.metric("decided").values:
            name = str(entry.value)
            if name == "undecided":
                text = "P(combat undecided after the last round)"
            elif name == "draw":
                text = "P(both sides routed or destroyed)"
            else:
                text = f"P({name} wins the combat)"
            rows.append(probability_row(result, text, "decided", entry.value))
    for unit in _prefixed(result, "breaks."):
        rows.append(probability_row(result, f"P({unit} breaks)", f"breaks.{unit}", True))
    for unit in _prefixed(result, "caught."):
        rows.append(probability_row(result, f"P({unit} is caught)", f"caught.{unit}", True))
    for unit in _prefixed(result, "casualties."):
        row = mean_row(result, f"expected casualties of {unit}", f"casualties.{unit}")
        if row is not None:
            rows.append(row)
    return rows


def d100_headline(result: OddsResult) -> list[HeadlineRow]:
    """Win / draw / withdraw, every unit's fate, PAX left, and the value of goods."""
    rows = _winner_rows(result, "")
    for unit in _prefixed(result, "fate."):
        metric = f"fate.{unit}"
        events = (
            (f"P({unit} bottles out)", D100_BOTTLED),
            (f"P({unit} disbands)", D100_DISBANDED),
            (f"P({unit} flees)", ("fled",)),
            (f"P({unit} is killed)", ("killed",)),
        )
        for label, fates in events:
            event = event_row(result, label, metric, fates)
            # A fate that never happened (or cannot) would only lengthen the headline.
            if event.value:
                rows.append(event)
    means = [(f"expected PAX left in {u}", f"pax.{u}") for u in _prefixed(result, "pax.")]
    if result.has("goods"):
        means.append(("expected value of goods", "goods"))
    for label, metric in means:
        row = mean_row(result, label, metric)
        if row is not None:
            rows.append(row)
    return rows


def hex_headline(result: OddsResult) -> list[HeadlineRow]:
    """Each unit's losses and whether it is destroyed (certain: hex has no dice)."""
    rows = []
    for unit in _prefixed(result, "losses."):
        row = mean_row(result, f"losses of {unit}", f"losses.{unit}")
        if row is not None:
            rows.append(row)
    for unit in _prefixed(result, "destroyed."):
        rows.append(probability_row(result, f"P({unit} destroyed)", f"destroyed.{unit}", True))
    return rows


#: A unit that failed the morale assessment bottled out, whatever its loyalty check gave.
D100_BOTTLED = ("bottled_out", "disbanded", "disbanded_with_equipment")
D100_DISBANDED = ("disbanded", "disbanded_with_equipment")

_DERIVED: dict[str, Callable[[Any], Derive]] = {"rankflank": rankflank_decided}
_HEADLINES: dict[str, Callable[[OddsResult], list[HeadlineRow]]] = {
    "rankflank": rankflank_headline,
    "d100": d100_headline,
    "hex": hex_headline,
}
