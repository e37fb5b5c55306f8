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


# Numbers measured by the container test (tests/deploy/test_container.py records them as
# "deploy:<name>" user properties), printed once at the end of the run. Reports carry
# user properties across pytest-xdist workers, so this works with -n too.
_DEPLOY_NUMBERS: dict[str, object] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, value in report.user_properties:
        if key.startswith("deploy:"):
            _DEPLOY_NUMBERS[key.removeprefix("deploy:")] = value


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _DEPLOY_NUMBERS:
        terminalreporter.section("container test: measured")
        for key, value in _DEPLOY_NUMBERS.items():
            terminalreporter.write_line(f"{key}: {value}")
