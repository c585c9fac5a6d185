"""Scenario schema helpers shared by every ruleset (pydantic underneath).

Every ruleset's document model derives from :class:`Document`; :func:`validate` turns a
pydantic failure into one :class:`~fracas.core.errors.ScenarioError` that names the file,
the key path and the problem.

>>> class Doc(Document):
...     strength: int
>>> try:
...     validate(Doc, {"fracas": 1, "ruleset": "x", "strength": "many"}, source="a.yaml")
... except ScenarioError as error:
...     print(error.source, error.path, error.problem[:31])
a.yaml ('strength',) Input should be a valid integer
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError

from fracas.core.errors import ScenarioError
from fracas.core.escape import excerpt
from fracas.core.limits import declare, how_to_raise, value

SCHEMA_VERSION = 1

# Scenario values are not coerced: `strength: true`, `models: "20"` or `charged: 1` is a
# mistake in the file, not a 1, a 20 or a yes. Rulesets annotate their fields with these.
Int = Annotated[int, Field(strict=True)]
# inf and nan are no number of soldiers or modifier: `1e999` in a file is a mistake too.
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Bool = Annotated[bool, Field(strict=True)]

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """Base for scenario models: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=False)


class Document(StrictModel):
    """The header every scenario file shares."""

    fracas: Literal[1] = Field(description="Scenario schema version; this is version 1.")
    ruleset: str = Field(description="Name or alias of the ruleset that resolves it.")
    title: str = Field("", description="A title for reports.")
    description: str = Field("", description="Free text shown under the title.")
    seed: int | None = Field(
        None,
        strict=True,
        ge=0,
        description="Default seed for rulesets with dice (the CLI's --seed wins).",
    )


def at_most(name: str, default: int, description: str) -> AfterValidator:
    """A validator bounding a count that drives work by the named, raisable limit ``name``.

    Use it in a document model's annotation; ``docs/limits.md`` lists every such limit.

    >>> class Unit(StrictModel):
    ...     attacks: Annotated[Int, at_most("demo.unit_attacks", 50, "attacks of a unit")] = 1
    >>> try:
    ...     validate(Unit, {"attacks": 10**6})
    ... except ScenarioError as error:
    ...     print(error.problem[:54])
    1000000 is above the limit demo.unit_attacks = 50 (rai
    """
    declare(name, default, description)

    def check(amount: int | None) -> int | None:
        bound = value(name)
        if amount is not None and amount > bound:
            raise PydanticCustomError(
                "limit",
                "{amount} is above the limit {name} = {bound}{how}",
                {"amount": amount, "name": name, "bound": bound, "how": how_to_raise(name)},
            )
        return amount

    return AfterValidator(check)


class ScenarioProblems(ScenarioError):
    """Every shape problem of one document; reads (``str``) as the first one.

    Commands that run stop at the first problem (one line); ``fracas validate`` lists
    ``problems``, one error per problem, so an author can fix them all at once.
    """

    def __init__(self, problems: tuple[ScenarioError, ...]) -> None:
        first = problems[0]
        more = len(problems) - 1
        hint = (
            f"{more} more problem{'s' if more > 1 else ''} after this one; "
            "'fracas validate' lists them all"
            if more
            else None
        )
        super().__init__(first.problem, source=first.source, path=first.path, hint=hint)
        self.problems = problems

    def located(self, source: str) -> ScenarioError:
        if self.source is not None:
            return self
        return ScenarioProblems(tuple(problem.located(source) for problem in self.problems))


def _problem(error: Any, source: str | None) -> ScenarioError:
    # pydantic marks a bad mapping key with a "[key]" step; the path reads better without.
    path = tuple(part for part in error["loc"] if isinstance(part, str | int) and part != "[key]")
    problem = error["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if error["type"] not in ("missing", "extra_forbidden", "limit") and "input" in error:
        # An excerpt, never a repr: the bad value may be deep, huge or aliased many times.
        problem += f" (got {excerpt(error['input'])})"
    if error["type"] == "extra_forbidden":
        problem = "unknown key"
    elif error["type"] in ("model_type", "model_attributes_type", "dataclass_type"):
        # pydantic names the class it would build ("instance of MapSpec"): a file's author
        # knows it as a section of keys.
        problem = f"Input should be a mapping of keys (got {excerpt(error.get('input'))})"
    return ScenarioError(problem, source=source, path=path)


def validate(model: type[M], data: Any, *, source: str | None = None) -> M:
    """Validate ``data`` against ``model``; raise :class:`ScenarioProblems` if it fails.

    >>> class Pair(Document):
    ...     a: int
    ...     b: int
    >>> try:
    ...     validate(Pair, {"fracas": 1, "ruleset": "x", "a": "one"}, source="p.yaml")
    ... except ScenarioProblems as error:
    ...     print(len(error.problems), error.problems[1])
    2 p.yaml: b: Field required
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = tuple(_problem(error, source) for error in exc.errors(include_url=False))
        raise ScenarioProblems(problems) from None


def parameter_table(model: type[BaseModel]) -> list[tuple[str, Any, str]]:
    """``(name, default, description)`` for every field of a parameters model.

    Defaults come back JSON-ready (nested models and tables as plain mappings).
    """
    rows: list[tuple[str, Any, str]] = []
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True)
        if info.annotation is not None:
            default = TypeAdapter(info.annotation).dump_python(default, mode="json")
        rows.append((name, default, info.description or ""))
    return rows
