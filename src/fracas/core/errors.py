"""The error tree: every error fracas raises on purpose derives from :class:`FracasError`.

Each subclass also derives from the builtin it resembles, so callers that already catch
``ValueError`` or ``LookupError`` keep working.

>>> err = ScenarioError("must be at least 0 (got -3)", source="river.yaml",
...                     path=("units", 2, "strength"))
>>> str(err)
'river.yaml: units[2].strength: must be at least 0 (got -3)'
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Sequence

KeyPath = tuple[str | int, ...]


def format_path(path: Sequence[str | int]) -> str:
    """Spell a key path the way a scenario author reads it.

    >>> format_path(("units", 0, "attack", "air"))
    'units[0].attack.air'
    >>> format_path(())
    '(document)'
    """
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(document)"


class FracasError(Exception):
    """Root of every error that fracas raises deliberately."""


class ScenarioError(FracasError, ValueError):
    """A scenario (file or in-memory document) is malformed or asks for the impossible.

    The message always names where: the source (file name), the key path, the problem.
    """

    def __init__(
        self,
        problem: str,
        *,
        source: str | None = None,
        path: Sequence[str | int] = (),
        hint: str | None = None,
    ) -> None:
        self.problem = problem
        self.source = source
        self.path: KeyPath = tuple(path)
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.source] if self.source else []
        if self.path or not self.source:
            where.append(format_path(self.path))
        text = ": ".join([*where, self.problem])
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def located(self, source: str) -> ScenarioError:
        """Return the same error with ``source`` filled in if it was missing."""
        if self.source is not None:
            return self
        clone = type(self).__new__(type(self))
        ScenarioError.__init__(clone, self.problem, source=source, path=self.path, hint=self.hint)
        return clone


class IllegalActionError(ScenarioError):
    """An order in a scenario (an attack, a challenge…) that the rules do not allow."""


class RulesetNotFoundError(FracasError, LookupError):
    """No ruleset is registered under the requested name or alias."""


class UnsupportedError(FracasError, NotImplementedError):
    """The ruleset does not offer this operation (e.g. ``advise`` on a dice ruleset)."""


class DiceExhaustedError(FracasError, RuntimeError):
    """A scripted dice sequence ran out, or was asked for a face the die cannot show."""
