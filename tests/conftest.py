"""Shared fixtures: the app and a test client (the Flask tutorial's pattern)."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app


@pytest.fixture(scope="session")
def app() -> Flask:
    """The application with the built-in profiles only."""
    return create_app({"TESTING": True, "PROFILES_FILE": None})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of :func:`app`."""
    return app.test_client()


# The real-gunicorn fixture, for every test module that starts servers.
from tests.server_harness import serve  # noqa: E402, F401
