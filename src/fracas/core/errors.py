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

from fracas.core.escape import one_line

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
            # A key is user text: a newline, an ESC or a 10 kB key must not reach the message.
            key = one_line(str(part), KEY_LENGTH)
            text += f".{key}" if text else key
    return one_line(text, PATH_LENGTH) or "(document)"


#: The longest key, key path and problem an error message spells out.
KEY_LENGTH = 40
PATH_LENGTH = 120
PROBLEM_LENGTH = 300


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
        # Always one printable line of bounded length, whatever the file name, keys or problem.
        where = [one_line(self.source, PATH_LENGTH)] if self.source else []
        if self.path or not self.source:
            where.append(format_path(self.path))
        text = ": ".join([*where, one_line(self.problem, PROBLEM_LENGTH)])
        if self.hint:
            text += f" (hint: {one_line(self.hint, PATH_LENGTH)})"
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
