"""The :class:`Ruleset` base class: the contract every ruleset is written to.

A ruleset hands over four things, and nothing else decides how it is played:

* how a document becomes its frozen scenario (:meth:`Ruleset.build`, after the pydantic
  document model has checked the shapes);
* the scenario's play as a process over hashable states (:meth:`Ruleset.process`), every
  explained number stated through the recorder it is given (:mod:`fracas.core.record`);
* how a final state becomes flat metrics (:meth:`Ruleset.metrics`), which enables odds;
* how a played log becomes a report (:meth:`Ruleset.report`).

Seeded play, replay, exact odds and sampling are derived from these for every ruleset, a
plugin included: :meth:`Ruleset.play` runs the process with a keeping recorder, and the
evaluators of :mod:`fracas.analysis` walk or sample the same process with a summing one.
The optional actions (forecast, advise, plan, picture, threats, reply, focus) are declared
in :data:`ACTIONS`, the one table the command line, the web page and
:meth:`Ruleset.capabilities` read; what a ruleset can do is read from the class, never
from its name.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from fracas._version import __version__
from fracas.core.dice import Dice, SeededDice
from fracas.core.errors import ScenarioError, UnsupportedError
from fracas.core.headline import Headline, MetricLabels, metric_label
from fracas.core.process import Played, Process, run
from fracas.core.record import KeepingRecorder, Recorder
from fracas.core.report import Report

if TYPE_CHECKING:  # pydantic loads with the first scenario, not at start-up
    from pydantic import BaseModel

    from fracas.core.schema import Document
    from fracas.rulesets.campaign import CampaignRules

ScenarioT = TypeVar("ScenarioT")
StateT = TypeVar("StateT", bound=Hashable)
DocumentT = TypeVar("DocumentT", bound="Document")

#: A flat summary of one played outcome, used by the odds analysis: metric → value.
Summary = Mapping[str, int | float | str | bool]
#: Extra metrics computed from one outcome's summary (see :meth:`Ruleset.derived_metrics`).
DeriveMetrics = Callable[[Mapping[str, Any]], Summary]


@dataclass(frozen=True)
class Action:
    """An optional action a ruleset may offer beside ``resolve`` and ``odds``: the hook
    that does it (its name, on :class:`Ruleset`) and what it is for, in words."""

    name: str
    summary: str


#: Every optional action, in the order listings show them. A ruleset offers one by
#: overriding the hook of that name; nothing else declares it.
ACTIONS: tuple[Action, ...] = (
    Action("forecast", "preview one attack before committing to it"),
    Action("advise", "rank the attacks a side can make"),
    Action("plan", "propose a whole turn of attacks for a side"),
    Action("picture", "draw the scenario as an SVG picture"),
    Action("threats", "list what the other sides can do to a side now"),
    Action("reply", "show the enemy's best reply to each attack or to the planned turn"),
    Action("focus", "find the best order of a side's attackers against one target"),
)


@dataclass(frozen=True)
class ArmyImport:
    """An army list read into a ruleset's units: the scenario text to write (its comments
    list what the ruleset does not model) and those notes, one per line, for the terminal."""

    text: str
    unmodelled: tuple[str, ...] = ()
    #: The units a battle can be built of (characters standing alone are not among them).
    units: tuple[str, ...] = ()
    #: The characters standing alone, to join into a unit.
    characters: tuple[str, ...] = ()


def fight_pair(text: str | None) -> tuple[str, str] | None:
    """The two units of ``UNIT=ENEMY`` (a battle built from two army lists), spaces around
    each name dropped; ``None`` when either is missing.

    >>> fight_pair(" Halberdiers = Dryads "), fight_pair("Halberdiers="), fight_pair(None)
    (('Halberdiers', 'Dryads'), None, None)
    """
    mine, _, theirs = (text or "").partition("=")
    if not mine.strip() or not theirs.strip():
        return None
    return mine.strip(), theirs.strip()


#: How many ranked actions a report shows people by default (its data keeps them all).
TOP = 20
#: The hooks a ruleset may leave out (:meth:`Ruleset.implements` tells which it provides):
#: ``metrics`` (which enables odds) and every action.
OPTIONAL_HOOKS = ("metrics", *(action.name for action in ACTIONS))
#: What a ruleset never overrides: the framework derives them from the contract, the same
#: way for every ruleset (``tests/test_contract.py`` holds every ruleset to it).
DERIVED = ("play", "resolve", "summarize", "load", "implements", "capabilities", "label")


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


class Ruleset(ABC, Generic[DocumentT, ScenarioT, StateT]):
    """Base class of every ruleset. Subclasses set the class variables and the hooks."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str]
    summary: ClassVar[str]
    #: True when no dice are involved: the same scenario always gives the same result,
    #: so odds play it once and never sample it.
    deterministic: ClassVar[bool]
    #: The headline questions of its odds, answered by ``fracas.analysis.views.headline``.
    headlines: ClassVar[tuple[Headline, ...]] = ()
    #: What its metrics are called where a person reads them (reports, charts, the web,
    #: ``--metric``): see :func:`fracas.core.headline.metric_label`.
    metric_labels: ClassVar[MetricLabels] = ()
    #: The scenario's schema and its ``parameters`` block; a ruleset may name them with
    #: :func:`deferred` so that listing the rulesets does not build them.
    document_model: ClassVar[type[Document]]
    params_model: ClassVar[type[BaseModel]]

    @classmethod
    def implements(cls, hook: str) -> bool:
        """True when this ruleset provides the optional hook ``hook`` (overrides it).

        >>> from fracas.rulesets import find_ruleset
        >>> d100 = type(find_ruleset("d100"))
        >>> d100.implements("metrics"), d100.implements("forecast")
        (True, False)
        """
        if hook not in OPTIONAL_HOOKS:
            raise ValueError(f"{hook!r} is not an optional hook ({', '.join(OPTIONAL_HOOKS)})")
        return getattr(cls, hook) is not getattr(Ruleset, hook)

    @classmethod
    def capabilities(cls) -> tuple[str, ...]:
        """What this ruleset can do, in words for listings, read from the class itself.

        >>> from fracas.rulesets import find_ruleset
        >>> found = type(find_ruleset("hex")).capabilities()
        >>> print(", ".join(found[:5]))
        resolve, deterministic, odds, exact odds, headline odds
        >>> print(", ".join(found[5:]))
        forecast, advise, plan, picture, threats, reply, focus
        """
        found = ["resolve", "deterministic" if cls.deterministic else "dice"]
        if cls.implements("metrics"):
            found += ["odds", "exact odds"]
            if cls.headlines:
                found.append("headline odds")
        found += [action.name for action in ACTIONS if cls.implements(action.name)]
        return tuple(found)

    @classmethod
    def label(cls, metric: str) -> str:
        """What ``metric`` is called for a person (its own name when the ruleset gives none).

        >>> from fracas.rulesets import find_ruleset
        >>> type(find_ruleset("rankflank")).label("breaks.Goblins")
        'Goblins break'
        """
        return metric_label(cls.metric_labels, metric)

    @classmethod
    def parameters(cls) -> list[tuple[str, Any, str]]:
        """``(name, default, description)`` of every ruleset parameter."""
        from fracas.core.schema import parameter_table

        return parameter_table(cls.params_model)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of this ruleset's scenario documents."""
        return cls.document_model.model_json_schema()

    @classmethod
    def result_schema(cls, command: str) -> dict[str, Any] | None:
        """The JSON Schema of the ``result`` this ruleset's reports carry for ``command``
        (``resolve``, ``forecast``, ``advise``, ``threats``), or ``None`` where it gives
        none: the output schemas (``fracas schema --command``) then take any object."""
        return None

    def load(self, document: Mapping[str, Any], *, source: str | None = None) -> ScenarioT:
        """Validate a parsed document and build the ruleset's scenario from it."""
        from fracas.core.schema import validate

        model = validate(self.document_model, document, source=source)
        try:
            return self.build(model)  # type: ignore[arg-type]
        except ScenarioError as exc:
            raise exc.located(source) if source else exc from None

    # The contract: what a ruleset writes ------------------------------------------------

    @abstractmethod
    def build(self, document: DocumentT) -> ScenarioT:
        """Check the meaning of a validated document and return the scenario.

        The scenario must pickle: Monte Carlo sends it to every worker process.
        """

    @abstractmethod
    def process(self, scenario: ScenarioT, recorder: Recorder) -> Process[StateT]:
        """The scenario's play as steps over hashable states (see
        :mod:`fracas.core.process`), every random event asked of the dice each step is
        given, every explained number stated through ``recorder``. A play with no natural
        steps returns a :class:`~fracas.core.process.OneStep`."""

    @abstractmethod
    def report(self, scenario: ScenarioT, played: Played[StateT]) -> Report:
        """Describe a play (its final state and the notes its recorder kept) for people
        (sections) and programs (data)."""

    def metrics(self, scenario: ScenarioT, state: StateT) -> Summary:
        """Flat metrics of a finished state, for odds and batches. Override to enable odds."""
        raise self._missing("does not summarize outcomes")

    def derived_metrics(self, scenario: ScenarioT) -> DeriveMetrics | None:
        """A function adding metrics to each outcome's summary before odds are gathered.

        Derived metrics work the same for exact and sampled odds (e.g. who holds the field
        once every unit of a side broke). ``scenario`` is there because some need what the
        summary leaves out (which side a unit fights for). ``None``: nothing to add.
        """
        return None

    # Derived from the contract, the same for every ruleset ------------------------------

    def play(self, scenario: ScenarioT, dice: Dice) -> Played[StateT]:
        """Play the scenario to its end with ``dice``, keeping every row and note.

        >>> from fracas.core.dice import SeededDice
        >>> from fracas.rulesets import find_ruleset
        >>> d100 = find_ruleset("d100")
        >>> battle = d100.load({"fracas": 1, "ruleset": "d100", "sides": [
        ...     {"name": "A", "action": "raid", "units": [{"name": "Scouts", "pax": 10}]},
        ...     {"name": "B", "action": "defend", "units": [{"name": "Guards", "pax": 10}]}]})
        >>> d100.play(battle, SeededDice(3)) == d100.play(battle, SeededDice(3))
        True
        """
        recorder = KeepingRecorder()
        state = run(self.process(scenario, recorder), dice)
        return Played(state, tuple(recorder.notes))

    def summarize(self, scenario: ScenarioT, played: Played[StateT]) -> Summary:
        """:meth:`metrics` of a play's final state."""
        return self.metrics(scenario, played.state)

    def resolve(self, scenario: ScenarioT, *, seed: int = 0) -> Report:
        """Play with seeded dice and report. Deterministic rulesets record no seed."""
        report = self.report(scenario, self.play(scenario, SeededDice(seed)))
        return replace(report, seed=None if self.deterministic else seed, version=__version__)

    def _missing(self, what: str) -> UnsupportedError:
        can = ", ".join(self.capabilities())
        return UnsupportedError(f"ruleset {self.name!r} {what} (it offers: {can})")

    # Optional actions (ACTIONS): a ruleset overrides those that make sense for it -------

    def forecast(self, scenario: ScenarioT, attacker: str, target: str) -> Report:
        """Report one action without changing anything (a preview before committing)."""
        raise self._missing("has no forecast")

    def advise(self, scenario: ScenarioT, side: str, *, top: int | None = TOP) -> Report:
        """Rank the actions available to ``side``: people see the best ``top`` (``None``:
        all) and the total; the data keeps every action."""
        raise self._missing("has no advisor")

    def plan(self, scenario: ScenarioT, side: str, *, width: int | None = None) -> Report:
        """Propose a whole turn of actions for ``side``; ``width`` sizes the search."""
        raise self._missing("has no turn planner")

    def picture(
        self,
        scenario: ScenarioT,
        *,
        attacker: str | None = None,
        target: str | None = None,
        reply: bool = False,
        threats: str | None = None,
    ) -> str:
        """An SVG picture of the scenario; with ``reply`` the enemy's best reply to the
        attack drawn, with ``threats`` (a side) what can hit that side now."""
        raise self._missing("has no picture")

    def threats(self, scenario: ScenarioT, side: str) -> Report:
        """Every action the other sides can take against ``side`` now, worst first."""
        raise self._missing("has no threats")

    def reply(
        self,
        scenario: ScenarioT,
        side: str,
        *,
        plan: bool = False,
        width: int | None = None,
        top: int | None = TOP,
    ) -> Report:
        """The enemy's best reply to each of the ``top`` best actions of ``side`` (or to
        its planned turn, ``plan``), ranked by the value after both."""
        raise self._missing("has no reply")

    def focus(self, scenario: ScenarioT, side: str, target: str) -> Report:
        """The best order of the actions of ``side`` against one ``target``."""
        raise self._missing("has no focus")

    # Army lists in: a ruleset that can read list builders' exports overrides this -------

    def import_army(
        self,
        path: Path,
        *,
        catalogues: Sequence[Path] = (),
        joins: Sequence[str] = (),
        side: str | None = None,
    ) -> ArmyImport:
        """Read the army file ``path`` (with the catalogue files some formats need) into
        this ruleset's units; ``joins`` put characters into units (``"Captain=Halberdiers"``);
        ``side`` names the side (default: the army's name). ``fracas import`` calls it."""
        raise self._missing("imports no army lists")

    def import_battle(
        self,
        first: Path,
        second: Path,
        fight: tuple[str, str],
        *,
        charger: str = "first",
        arc: str = "front",
        catalogues: Sequence[Path] = (),
        joins: Sequence[str] = (),
    ) -> ArmyImport:
        """A whole scenario from two army files: unit ``fight[0]`` of ``first`` against
        ``fight[1]`` of ``second``, ``charger`` (``first``, ``second``, ``none``) striking
        the other's ``arc``. ``fracas import ARMY --versus OTHER --fight A=B`` calls it."""
        raise self._missing("builds no battles from army lists")

    # Campaigns: a ruleset whose battles can carry over from one to the next overrides this

    def campaign_rules(self) -> CampaignRules | None:
        """How this ruleset's battles carry over in a campaign (rosters, what a result
        changes, the outcomes of its luck audit), or ``None`` when it has no campaigns.
        ``fracas campaign`` asks this hook and never a ruleset's name.

        >>> from fracas.rulesets import find_ruleset
        >>> type(find_ruleset("hex").campaign_rules()).__name__
        'HexCampaign'
        """
        return None

    @classmethod
    def imports_armies(cls) -> bool:
        """True when this ruleset reads army lists (overrides :meth:`import_army`).

        >>> from fracas.rulesets import find_ruleset
        >>> [type(find_ruleset(name)).imports_armies() for name in ("rankflank", "hex")]
        [True, False]
        """
        return cls.import_army is not Ruleset.import_army
