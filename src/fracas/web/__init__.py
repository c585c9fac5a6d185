"""The web calculator: ``fracas serve`` and its JSON API (the optional ``web`` extra).

The page (``static/``) is plain HTML, CSS and JavaScript served by the app itself: no build
step, nothing from a CDN, so it works offline. It talks to the server only through the
JSON API, which the OpenAPI document at ``/api/openapi.json`` describes.

>>> from fracas.web import Limits, create_app
>>> create_app(Limits(time_limit=5)).state.limits.time_limit
5
"""

from __future__ import annotations

from fracas.web.app import create_app
from fracas.web.operations import Limits
from fracas.web.server import serve

__all__ = ["Limits", "create_app", "serve"]
