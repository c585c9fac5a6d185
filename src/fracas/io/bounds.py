"""The bounds every scenario text is read within: each a named limit
(:mod:`fracas.core.limits`), shared by the readers of :mod:`fracas.io.reader` and
:mod:`fracas.io.yamltext`.

>>> DEPTH.name, INTEGER_DIGITS.name
('input.depth', 'input.integer_digits')
"""

from __future__ import annotations

from fracas.core.errors import ScenarioError
from fracas.core.limits import LimitExceededError, declare, how_to_raise, value

FILE_BYTES = declare("input.file_bytes", 4_000_000, "bytes of a scenario file")
DEPTH = declare("input.depth", 32, "levels of nesting of mappings and lists in a scenario")
NODES = declare(
    "input.nodes", 100_000, "values in a scenario, counting each use of a YAML alias again"
)
ALIASES = declare("input.aliases", 1_000, "YAML aliases (*name) in a scenario file")
INTEGER_DIGITS = declare("input.integer_digits", 20, "digits of an integer in a scenario")
TEXT_LENGTH = declare("input.text_length", 10_000, "characters of one string or key")

# Python refuses to read integers longer than this (sys.get_int_max_str_digits); the
# readers check first, so such an integer is a limit error like any other too-long one.
PYTHON_DIGITS = 4_000


def too_big(limit: str, problem: str, *, source: str, line: int | None = None) -> ScenarioError:
    """The error of a text past ``limit``: ``problem`` says how, the limit how to raise it."""
    where = f"line {line}: " if line is not None else ""
    return LimitExceededError(
        f"{where}{problem} the limit {limit} = {value(limit)}{how_to_raise(limit)}",
        source=source,
    )


class DuplicateKey(Exception):
    """A key given twice in one mapping (with most readers the last would win)."""

    def __init__(self, key: object, line: int | None = None) -> None:
        self.key = key
        self.line = line
