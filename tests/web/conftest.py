"""Markers of the web tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "serve(*options): options of the test's `fracas serve`")
