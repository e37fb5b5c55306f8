"""Shared fixtures: the app and a test client (the Flask tutorial's pattern)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from bench.harness import Server, launch_ready
from service.http.app import create_app
from service.http.runtime import Runtime
from tests import ROOT


@pytest.fixture(scope="session")
def app() -> Flask:
    """The application with the built-in profiles only, warmed as the gunicorn master warms
    it before forking (every profile's table and analyses built, readiness 200)."""
    app = create_app({"TESTING": True, "PROFILES_FILE": None})
    Runtime.of(app).warm()
    return app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of :func:`app`."""
    return app.test_client()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """``serve(name="server", **settings)`` starts a real gunicorn (:mod:`bench.harness`:
    two workers unless ``GNAU_WORKERS`` is given, its logs under ``tmp_path / name``) and
    waits until every worker is ready; every server started is killed after the test."""
    started: list[Server] = []

    def start(name: str = "server", **settings: str) -> Server:
        server = launch_ready(tmp_path / name, settings)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's chromium for the browser tests, installed by
    scripts/ensure-chromium.sh if needed (the tests fail, never skip, without it)."""
    result = subprocess.run(["bash", str(ROOT / "scripts" / "ensure-chromium.sh")], capture_output=True,
                            text=True, timeout=900, check=False)
    if result.returncode != 0:
        pytest.fail(f"chromium is not available: {result.stderr.strip()}")
    return result.stdout.strip().splitlines()[-1]


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
