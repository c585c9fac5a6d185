"""What the web tests share: their markers, an API client and a request body."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fracas.web import create_app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The app, called at the address it answers to."""
    with TestClient(create_app(), base_url="http://127.0.0.1") as client:
        yield client


def body(path: Path, **extra: Any) -> dict[str, Any]:
    """The request body of a question about the scenario file ``path``."""
    return {"scenario": path.read_text(encoding="utf-8"), "name": path.name, **extra}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "serve(*options): options of the test's `fracas serve`")
