"""The :class:`Ruleset` base class: metadata, loading, playing, reporting.

A ruleset is a class with class-level metadata (name, aliases, whether it is
deterministic, its parameters model) and hook methods. Loading is two-stage: the
document model (pydantic) checks shapes, then :meth:`Ruleset.build` checks meaning
(unknown unit ids, two units on one hex…) and returns the ruleset's own frozen scenario.

What a ruleset can do is read from the class, never from its name: the class variables
``deterministic``, ``exact_odds`` and ``exact_tolerance``, the ``headlines`` it declares,
and which optional hooks it overrides (:meth:`Ruleset.implements`). Generic code — odds,
the command line — asks these, so a third-party ruleset gets every feature a built-in has.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from fracas._version import __version__
from fracas.core.dice import Dice, SeededDice
from fracas.core.errors import ScenarioError, UnsupportedError
from fracas.core.headline import Headline
from fracas.core.report import Report

if TYPE_CHECKING:  # pydantic and the evaluator load with the first scenario, not at start-up
    from pydantic import BaseModel

    from fracas.core.evaluate import ExactOdds, Process
    from fracas.core.schema import Document

ScenarioT = TypeVar("ScenarioT")
ResultT = TypeVar("ResultT")
DocumentT = TypeVar("DocumentT", bound="Document")

#: A flat summary of one played outcome, used by the odds analysis: metric → value.
Summary = Mapping[str, int | float | str | bool]
#: Extra metrics computed from one outcome's summary (see :meth:`Ruleset.derived_metrics`).
DeriveMetrics = Callable[[Mapping[str, Any]], Summary]

#: The hooks a ruleset may leave out (:meth:`Ruleset.implements` tells which it provides).
OPTIONAL_HOOKS = ("summarize", "forecast", "advise", "picture")


class _Deferred:
    """A class attribute imported from ``module`` on first use, then kept on the class."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name, self.attribute = module, name, name

    def __set_name__(self, owner: type, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, instance: object, owner: type) -> Any:
        value = getattr(importlib.import_module(self.module), self.name)
        setattr(owner, self.attribute, value)
        return value


def deferred(module: str, name: str) -> Any:
    """``module.name`` as a class attribute that is imported when first read.

    A ruleset's pydantic models take milliseconds each to build; ``fracas rulesets``
    reads only names and summaries, so the models wait until a scenario is loaded.

    >>> class Example:
    ...     fraction = deferred("fractions", "Fraction")
    >>> Example.fraction(1, 2)
    Fraction(1, 2)
    """
    return _Deferred(module, name)


class Ruleset(ABC, Generic[DocumentT, ScenarioT, ResultT]):
    """Base class of every ruleset. Subclasses set the class variables and the hooks."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str]
    summary: ClassVar[str]
    #: True when no dice are involved: the same scenario always gives the same result.
    deterministic: ClassVar[bool]
    #: False when exact odds are out of reach for this ruleset's scenarios (open-ended
    #: dice, say): ``odds`` in ``auto`` mode then samples at once instead of trying exact
    #: first. Only ``--method exact`` still tries. A deterministic ruleset is always exact.
    exact_odds: ClassVar[bool] = True
    #: True when :meth:`exact` takes a ``tolerance`` (the inherited one does: it leaves
    #: out branches less likely than it). A ruleset whose own ``exact`` has no such
    #: parameter declares False; ``odds`` then passes none and its exact odds keep
    #: every branch, whatever ``--exact-tolerance`` says.
    exact_tolerance: ClassVar[bool] = True
    #: The headline questions of its odds, answered by ``fracas.analysis.views.headline``.
    headlines: ClassVar[tuple[Headline, ...]] = ()
    #: The scenario's schema and its ``parameters`` block; a ruleset may name them with
    #: :func:`deferred` so that listing the rulesets does not build them.
    document_model: ClassVar[type[Document]]
    params_model: ClassVar[type[BaseModel]]

    @classmethod
    def implements(cls, hook: str) -> bool:
        """True when this ruleset provides the optional hook ``hook`` (overrides it).

        >>> from fracas.rulesets import find_ruleset
        >>> d100 = type(find_ruleset("d100"))
        >>> d100.implements("summarize"), d100.implements("forecast")
        (True, False)
        """
        if hook not in OPTIONAL_HOOKS:
            raise ValueError(f"{hook!r} is not an optional hook ({', '.join(OPTIONAL_HOOKS)})")
        return getattr(cls, hook) is not getattr(Ruleset, hook)

    @classmethod
    def capabilities(cls) -> tuple[str, ...]:
        """What this ruleset can do, in words for listings, read from the class itself.

        >>> from fracas.rulesets import find_ruleset
        >>> print(", ".join(type(find_ruleset("hex")).capabilities()))
        resolve, deterministic, odds, exact odds, headline odds, forecast, advise, picture
        """
        found = ["resolve", "deterministic" if cls.deterministic else "dice"]
        if cls.implements("summarize"):
            found.append("odds")
            if cls.deterministic or cls.exact_odds:
                found.append("exact odds")
            if cls.headlines:
                found.append("headline odds")
        found += [hook for hook in ("forecast", "advise", "picture") if cls.implements(hook)]
        return tuple(found)

    @classmethod
    def parameters(cls) -> list[tuple[str, Any, str]]:
        """``(name, default, description)`` of every ruleset parameter."""
        from fracas.core.schema import parameter_table

        return parameter_table(cls.params_model)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of this ruleset's scenario documents."""
        return cls.document_model.model_json_schema()

    def load(self, document: Mapping[str, Any], *, source: str | None = None) -> ScenarioT:
        """Validate a parsed document and build the ruleset's scenario from it."""
        from fracas.core.schema import validate

        model = validate(self.document_model, document, source=source)
        try:
            return self.build(model)  # type: ignore[arg-type]
        except ScenarioError as exc:
            raise exc.located(source) if source else exc from None

    @abstractmethod
    def build(self, document: DocumentT) -> ScenarioT:
        """Check the meaning of a validated document and return the scenario.

        The scenario must pickle: Monte Carlo sends it to every worker process.
        """

    @abstractmethod
    def play(self, scenario: ScenarioT, dice: Dice) -> ResultT:
        """Resolve the scenario, asking ``dice`` for every random event."""

    @abstractmethod
    def report(self, scenario: ScenarioT, result: ResultT) -> Report:
        """Describe a result for people (sections) and programs (data)."""

    def summarize(self, scenario: ScenarioT, result: ResultT) -> Summary:
        """Flat metrics of one outcome, for odds and batches. Override to enable ``odds``."""
        raise self._missing("does not summarize outcomes")

    def derived_metrics(self, scenario: ScenarioT) -> DeriveMetrics | None:
        """A function adding metrics to each outcome's summary before odds are gathered.

        Derived metrics work the same for exact and sampled odds (e.g. who holds the field
        once every unit of a side broke). ``scenario`` is there because some need what the
        summary leaves out (which side a unit fights for). ``None``: nothing to add.
        """
        return None

    def sampler(self, scenario: ScenarioT) -> Callable[[Dice], Summary]:
        """A function that plays ``scenario`` with the dice it is given and summarizes it.

        Monte Carlo calls this once per question and the function once per repetition; it
        must give exactly ``summarize(scenario, play(scenario, dice))``. Rulesets override
        it to do their set-up once and to skip what only a report needs.

        >>> from fracas.core.dice import SeededDice
        >>> from fracas.rulesets import find_ruleset
        >>> d100 = find_ruleset("d100")
        >>> battle = d100.load({"fracas": 1, "ruleset": "d100", "sides": [
        ...     {"name": "A", "action": "raid", "units": [{"name": "Scouts", "pax": 10}]},
        ...     {"name": "B", "action": "defend", "units": [{"name": "Guards", "pax": 10}]}]})
        >>> sample = d100.sampler(battle)
        >>> sample(SeededDice(3)) == d100.summarize(battle, d100.play(battle, SeededDice(3)))
        True
        """

        def sample(dice: Dice) -> Summary:
            return self.summarize(scenario, self.play(scenario, dice))

        return sample

    def process(self, scenario: ScenarioT) -> Process[Any] | None:
        """The play as steps over hashable states, for exact odds that merge states.

        A ruleset that returns a :class:`~fracas.core.evaluate.Process` here (and
        implements :meth:`summarize_state`) gets exact odds from the core evaluator: the
        same steps its :meth:`play` runs, so the rules exist once.
        """
        return None

    def summarize_state(self, scenario: ScenarioT, state: Any) -> Summary:
        """:meth:`summarize` of a finished state of :meth:`process`."""
        raise UnsupportedError(f"ruleset {self.name!r} does not summarize states")

    def exact(
        self, scenario: ScenarioT, *, max_work: int, fractions: bool = True, tolerance: float = 0.0
    ) -> ExactOdds:
        """Exact distribution of :meth:`summarize` outcomes, within ``max_work`` step plays.

        The default walks :meth:`process` with the core evaluator. Going past ``max_work``
        raises :class:`~fracas.core.distribution.EnumerationBudgetError`. With floats, a
        ``tolerance`` leaves out branches less likely than it and reports the mass left
        out (:func:`~fracas.core.evaluate.exact_states`).
        """
        from fracas.core.evaluate import ExactOdds, exact_states, summarize_states

        process = self.process(scenario)
        if process is None:
            raise UnsupportedError(f"ruleset {self.name!r} has no exact odds")
        answer = exact_states(
            process, budget=max_work, fractions=fractions, tolerance=0.0 if fractions else tolerance
        )
        order: tuple[str, ...] = ()

        def summary(state: Any) -> tuple[tuple[str, Any], ...]:
            nonlocal order
            metrics = self.summarize_state(scenario, state)
            order = order or tuple(metrics)
            return tuple(metrics.items())

        outcomes = summarize_states(answer, summary)
        if answer.settled:
            # Metrics handed over on the way are missing from some final states: their
            # order is play's (odds find it from one seeded play).
            order = ()
        return ExactOdds(
            outcomes,  # type: ignore[arg-type]
            answer.work,
            "step plays",
            f"exact evaluation of {answer.steps} steps over merged states "
            f"(at most {answer.peak:,} states at once)",
            order,
            answer.settled,
            answer.dropped,
        )

    def _missing(self, what: str) -> UnsupportedError:
        can = ", ".join(self.capabilities())
        return UnsupportedError(f"ruleset {self.name!r} {what} (it offers: {can})")

    def resolve(self, scenario: ScenarioT, *, seed: int = 0) -> Report:
        """Play with seeded dice and report. Deterministic rulesets record no seed."""
        result = self.play(scenario, SeededDice(seed))
        report = self.report(scenario, result)
        return replace(
            report,
            seed=None if self.deterministic else seed,
            version=__version__,
        )

    # Optional hooks: a ruleset overrides those that make sense for it.

    def forecast(self, scenario: ScenarioT, attacker: str, target: str) -> Report:
        """Report one action without changing anything (a preview before committing)."""
        raise self._missing("has no forecast")

    def advise(self, scenario: ScenarioT, side: str) -> Report:
        """Rank the actions available to ``side``."""
        raise self._missing("has no advisor")

    def plan(self, scenario: ScenarioT, side: str, *, width: int | None = None) -> Report:
        """Propose a whole turn of actions for ``side``; ``width`` sizes the search."""
        raise UnsupportedError(f"ruleset {self.name!r} has no turn planner")

    def picture(
        self, scenario: ScenarioT, *, attacker: str | None = None, target: str | None = None
    ) -> str:
        """An SVG picture of the scenario."""
        raise self._missing("has no picture")
