"""The ``fracas`` command line (a thin layer over :mod:`fracas.io` and the rulesets)."""

from fracas.cli.commands import app, main

__all__ = ["app", "main"]
