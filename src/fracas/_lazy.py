"""Names of a package imported on first use, so that start-up loads only what it needs.

>>> import fracas
>>> load("fracas", {"SeededDice": "fracas.core"}, "SeededDice").__name__
'SeededDice'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from typing import Any


def load(package: str, homes: Mapping[str, str], name: str) -> Any:
    """``package.name`` from its module in ``homes`` (a submodule named ``name`` is itself
    the value), kept on the package so the next look-up is plain."""
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(home)
    value = module if home == f"{package}.{name}" else getattr(module, name)
    setattr(sys.modules[package], name, value)
    return value
