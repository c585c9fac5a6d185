"""Ruleset registry: the built-in rulesets, plus third-party ones from entry points.

>>> find_ruleset("hex").name
'hex'
>>> find_ruleset("nonesuch")
Traceback (most recent call last):
...
fracas.core.errors.RulesetNotFoundError: no ruleset named 'nonesuch' (known: ...)
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from fracas.core import limits
from fracas.core.errors import RulesetNotFoundError
from fracas.rulesets.base import Ruleset, Summary

#: The built-in rulesets, in the order they are listed. Import paths keep start-up lazy.
BUILTIN_RULESETS: tuple[str, ...] = (
    "fracas.rulesets.hex:HexRuleset",
    "fracas.rulesets.d100:D100Ruleset",
    "fracas.rulesets.rankflank:RankflankRuleset",
)

ENTRY_POINT_GROUP = "fracas.rulesets"

AnyRuleset = Ruleset[Any, Any, Any]


def _load(target: str) -> type[AnyRuleset]:
    module_name, _, attribute = target.partition(":")
    ruleset: type[AnyRuleset] = getattr(importlib.import_module(module_name), attribute)
    return ruleset


def entry_points(*, group: str) -> Any:
    """The installed entry points of ``group`` (``importlib.metadata``, slow to import, is
    imported when the rulesets are first listed)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


@cache
def available_rulesets() -> tuple[type[AnyRuleset], ...]:
    """Every registered ruleset class: built-ins first, then entry points by name."""
    classes = [_load(target) for target in BUILTIN_RULESETS]
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        loaded = entry.load()
        if isinstance(loaded, type) and issubclass(loaded, Ruleset) and loaded not in classes:
            classes.append(loaded)
    return tuple(classes)


def declare_ruleset_limits() -> None:
    """Declare every ruleset's limits: they live in its document models, which load only
    with a scenario (``deferred``), so ``--limit`` and the limits' list load them here.

    >>> from fracas.core.limits import declared
    >>> declare_ruleset_limits()
    >>> "d100.melee_attacks" in {limit.name for limit in declared()}
    True
    """
    for ruleset in available_rulesets():
        ruleset.document_model  # noqa: B018 - reading it imports the module that declares


limits.declare_with(declare_ruleset_limits)


def find_ruleset(name: str) -> AnyRuleset:
    """Return an instance of the ruleset called ``name`` (or one of its aliases)."""
    wanted = name.strip().lower()
    # A built-in whose module bears the name asked for is imported alone: a command that
    # reads one scenario does not pay for loading every ruleset.
    for target in BUILTIN_RULESETS:
        if target.partition(":")[0].rsplit(".", 1)[-1] == wanted:
            cls = _load(target)
            if wanted == cls.name or wanted in cls.aliases:
                return cls()
    for cls in available_rulesets():
        if wanted == cls.name or wanted in cls.aliases:
            return cls()
    known = ", ".join(cls.name for cls in available_rulesets())
    raise RulesetNotFoundError(f"no ruleset named {name!r} (known: {known})")


def army_importer(name: str | None = None) -> AnyRuleset:
    """The ruleset that reads army lists: ``name``, or the only one installed that does
    (``fracas import`` and the web page's army lists ask it, never a ruleset by name).

    >>> army_importer().name
    'rankflank'
    """
    from fracas.core.errors import ScenarioError

    if name is not None:
        ruleset = find_ruleset(name)
        if not type(ruleset).imports_armies():
            raise ScenarioError(
                f"ruleset {ruleset.name!r} imports no army lists", source="--ruleset"
            )
        return ruleset
    found = [cls for cls in available_rulesets() if cls.imports_armies()]
    if len(found) != 1:
        names = ", ".join(cls.name for cls in found) or "none is installed"
        raise ScenarioError(f"choose the ruleset to import into ({names})", source="--ruleset")
    return found[0]()


__all__ = [
    "BUILTIN_RULESETS",
    "ENTRY_POINT_GROUP",
    "Ruleset",
    "Summary",
    "army_importer",
    "available_rulesets",
    "declare_ruleset_limits",
    "find_ruleset",
]
