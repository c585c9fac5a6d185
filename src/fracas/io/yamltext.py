"""The YAML reader of :mod:`fracas.io.reader`: PyYAML's safe loader (libyaml's when it is
installed), bounded in nesting, aliases and integers, refusing a key given twice.

Loaded with the first YAML text a command reads.

>>> read_yaml("a: [1, 2]", "x.yaml")
{'a': [1, 2]}
"""

from __future__ import annotations

from typing import Any

import yaml

from fracas.core.errors import ScenarioError
from fracas.core.limits import value
from fracas.io.bounds import ALIASES, DEPTH, INTEGER_DIGITS, PYTHON_DIGITS, DuplicateKey, too_big


def read_yaml(text: str, source: str) -> Any:
    """The document of one YAML text (errors as PyYAML, :class:`ScenarioError` and the
    reader's own repeated-key error raise them)."""
    loader = _yaml_loader(text, source)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _bounded_int(loader: yaml.SafeLoader, node: yaml.ScalarNode, source: str) -> int:
    """YAML's integer, refused before Python's own digit limit turns it into a ValueError."""
    if len(node.value) > PYTHON_DIGITS:
        raise too_big(
            INTEGER_DIGITS.name,
            f"an integer of {len(node.value)} digits is above",
            source=source,
            line=node.start_mark.line + 1,
        )
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _bounded_float(loader: yaml.SafeLoader, node: yaml.ScalarNode, source: str) -> float:
    """YAML's float; YAML 1.1's base-60 form (``1:30.5``) can hold a number no float
    holds, which PyYAML lets out as an OverflowError."""
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    except OverflowError:
        line = node.start_mark.line + 1
        raise ScenarioError(
            f"line {line}: a number too large for a float ({len(node.value):,} characters)",
            source=source,
        ) from None


class _CheckedKeys:
    """A loader that refuses a key given twice, checked on each mapping's own keys before
    ``<<`` merges rewrite them (PyYAML flattens a mapping in place, the first time it is
    built or merged into another, whichever comes first), and bounds its numbers (the
    constructors are set on each loader class by :func:`_bounding_numbers`)."""

    source = "<memory>"

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        return _bounded_int(self, node, self.source)  # type: ignore[arg-type]

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        return _bounded_float(self, node, self.source)  # type: ignore[arg-type]

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        checked: set[int] = self.__dict__.setdefault("_checked_mappings", set())
        if id(node) not in checked:
            checked.add(id(node))
            _refuse_repeated_keys(self, node)  # type: ignore[arg-type]
        super().flatten_mapping(node)  # type: ignore[misc]


class _BoundedLoader(_CheckedKeys, yaml.SafeLoader):
    """PyYAML's safe loader, counting nesting and aliases while it composes the document."""

    def __init__(self, stream: str, source: str) -> None:
        super().__init__(stream)
        self.source = source
        self.depth = 0
        self.aliases = 0
        self.max_depth = value(DEPTH.name)
        self.max_aliases = value(ALIASES.name)

    def _line(self) -> int | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        return event.start_mark.line + 1 if event and event.start_mark else None

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > self.max_aliases:
                raise too_big(
                    ALIASES.name, "more aliases than", source=self.source, line=self._line()
                )
        self.depth += 1
        try:
            if self.depth > self.max_depth + 1:
                raise too_big(
                    DEPTH.name, "nested deeper than", source=self.source, line=self._line()
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _bounding_numbers(loader: Any) -> None:
    """Have ``loader`` (a :class:`_CheckedKeys`) build integers and floats with its bounds
    (each loader class keeps its own table of constructors)."""
    loader.add_constructor("tag:yaml.org,2002:int", loader.construct_yaml_int)
    loader.add_constructor("tag:yaml.org,2002:float", loader.construct_yaml_float)


_bounding_numbers(_BoundedLoader)

_CSafeLoader: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_FastLoader: type[yaml.SafeLoader] | None = None
if _CSafeLoader is not None:

    class _LibyamlLoader(_CheckedKeys, _CSafeLoader):  # type: ignore[misc, valid-type]
        """libyaml's loader (five times faster on a large board), integers bounded.

        libyaml refuses more than 1,000 levels of nesting itself; aliases cannot be counted
        inside it, so a text with more ``*`` than ``input.aliases`` goes to the counting
        loader instead.
        """

    _bounding_numbers(_LibyamlLoader)
    _FastLoader = _LibyamlLoader


def _yaml_loader(text: str, source: str) -> yaml.SafeLoader:
    if _FastLoader is not None and text.count("*") <= value(ALIASES.name):
        loader = _FastLoader(text)
        loader.source = source  # type: ignore[attr-defined]
        return loader
    return _BoundedLoader(text, source)


def _refuse_repeated_keys(loader: yaml.SafeLoader, node: yaml.MappingNode) -> None:
    """A YAML mapping whose keys, as read, are all different (``1``, ``0x1`` and ``1.0`` are
    the same key). Keys merged in with ``<<`` may be overridden, so only the mapping's own count."""
    seen: set[Any] = set()  # as a dict sees keys: 1, 1.0 and true are one key
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            continue
        value = loader.construct_object(key)
        if value in seen:
            line = key.start_mark.line + 1 if key.start_mark else None
            raise DuplicateKey(key.value, line)
        seen.add(value)
