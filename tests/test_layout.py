"""Every built-in ruleset package has the same shape, so a reader who knows one knows all."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from fracas.rulesets import BUILTIN_RULESETS, Ruleset

#: Module → the role it plays in every ruleset package.
ROLES = {
    "ruleset": "the Ruleset subclass: metadata and hooks",
    "document": "the pydantic scenario document (shapes)",
    "scenario": "the frozen scenario built from a document (meaning)",
    "play": "playing a scenario with injected dice",
    "report": "turning a result into a Report",
}

PACKAGES = [target.partition(":")[0] for target in BUILTIN_RULESETS]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_role_module_exists(package: str) -> None:
    folder = Path(importlib.import_module(package).__file__ or "").parent
    missing = [name for name in ROLES if not (folder / f"{name}.py").is_file()]
    assert not missing, f"{package} lacks {missing}"
    assert not (folder / "model.py").exists(), "model.py is ambiguous: use the role names"


@pytest.mark.parametrize("target", BUILTIN_RULESETS)
def test_the_ruleset_class_lives_in_ruleset_py(target: str) -> None:
    package, _, attribute = target.partition(":")
    cls = getattr(importlib.import_module(package), attribute)
    assert issubclass(cls, Ruleset)
    assert cls.__module__ == f"{package}.ruleset"
