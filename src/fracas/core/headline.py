"""Headline questions, declared by a ruleset and answered by the odds analysis.

The full odds report lists every metric a ruleset's ``summarize`` returns. The *headline*
is the few numbers a player looks at first: P(win), P(a unit breaks), expected casualties.
A ruleset declares them as data — a tuple of :class:`Headline` in its ``headlines`` class
attribute — because it knows which metrics matter, while the odds analysis, which knows how
to compute a probability with its interval, reads them without ever naming a ruleset.

A headline asks about one metric, or about a *family* of metrics when ``metric`` ends in
``.*`` (``"breaks.*"`` stands for ``breaks.Spearmen``, ``breaks.Orcs``…: one row per unit,
in the order the report lists them). Its ``label`` is a template: ``{name}`` is what the
``*`` stands for and ``{value}`` the metric's value. Consecutive headlines over the *same*
family are asked name by name, so each unit's rows stay together. A headline whose metric
is missing from the odds gives no row.

Kinds:

* ``"values"`` — one row per value the metric takes, P(metric = value); ``labels`` gives
  some values their own label (``("draw", "P(draw)")``);
* ``"probability"`` — P(metric = ``values[0]``);
* ``"event"`` — P(metric takes one of ``values``);
* ``"mean"`` — the metric's expected value (no row for a metric without a mean).

``omit_zero`` leaves out a row whose probability is zero (a fate that cannot happen would
only lengthen the headline).

>>> breaks = Headline("probability", "breaks.*", "P({name} breaks)", values=(True,))
>>> breaks.family, breaks.label_for("Orcs", True)
('breaks.', 'P(Orcs breaks)')
>>> winner = Headline("values", "winner", "P({value} wins)", labels=(("draw", "P(draw)"),))
>>> winner.family, winner.label_for("", "Empire"), winner.label_for("", "draw")
(None, 'P(Empire wins)', 'P(draw)')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: What a headline asks of its metric (see the module documentation).
HeadlineKind = Literal["values", "probability", "event", "mean"]
#: A value a headline compares a metric with.
HeadlineValue = int | float | str | bool

_KINDS = ("values", "probability", "event", "mean")


@dataclass(frozen=True, slots=True)
class Headline:
    """One headline question about a metric (or a ``prefix.*`` family of metrics)."""

    kind: HeadlineKind
    metric: str
    label: str
    values: tuple[HeadlineValue, ...] = ()
    labels: tuple[tuple[HeadlineValue, str], ...] = ()
    omit_zero: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown headline kind {self.kind!r} (choose {', '.join(_KINDS)})")
        wanted = {"probability": 1, "event": None}.get(self.kind, 0)
        if wanted == 1 and len(self.values) != 1:
            raise ValueError(f"a probability headline compares with one value: {self.metric}")
        if wanted is None and not self.values:
            raise ValueError(f"an event headline needs the values it is made of: {self.metric}")
        if wanted == 0 and self.values:
            raise ValueError(f"a {self.kind} headline takes no values: {self.metric}")
        if self.labels and self.kind != "values":
            raise ValueError(f"only a values headline labels single values: {self.metric}")
        if "*" in self.metric and not self.metric.endswith(".*"):
            raise ValueError(f"a family of metrics is written 'prefix.*', not {self.metric!r}")

    @property
    def family(self) -> str | None:
        """The prefix of the metrics this headline asks about, or ``None`` for one metric."""
        return self.metric[:-1] if self.metric.endswith(".*") else None

    def label_for(self, name: str, value: HeadlineValue | None = None) -> str:
        """The label of the row about member ``name`` of the family and ``value``."""
        for known, label in self.labels:
            if known == value and type(known) is type(value):
                return label
        return self.label.format(name=name, value=value)


#: How a ruleset names its metrics for people: ``(metric or "family.*", label)`` pairs,
#: the first that matches wins; in a family's label ``{name}`` is what the ``*`` stands for.
MetricLabels = tuple[tuple[str, str], ...]


def metric_label(labels: MetricLabels, metric: str) -> str:
    """The label a person reads for ``metric``, or the metric's own name when no pair
    matches.

    >>> labels = (("cr.difference", "Combat result gap"), ("cr.*", "{name}'s combat result"))
    >>> metric_label(labels, "cr.Empire"), metric_label(labels, "cr.difference")
    ("Empire's combat result", 'Combat result gap')
    >>> metric_label(labels, "rounds"), metric_label(labels, "cr.Greenskins")
    ('rounds', "Greenskins' combat result")
    """
    for pattern, label in labels:
        if pattern == metric:
            return label
        member = metric[len(pattern) - 1 :]
        if pattern.endswith(".*") and metric.startswith(pattern[:-1]) and member:
            return label.replace("{name}'s", possessive(member)).replace("{name}", member)
    return metric


def possessive(name: str) -> str:
    """``name``'s, or ``name``' for a name ending in s (a side, a unit: most are plural).

    >>> possessive("Empire"), possessive("Greenskins")
    ("Empire's", "Greenskins'")
    """
    return f"{name}'" if name.endswith("s") else f"{name}'s"
