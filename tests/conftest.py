"""Shared fixtures: the app and a test client (the Flask tutorial's pattern); the
``--skip-missing-tools`` option of ``make test-fast`` and its summary (tests/tools.py)."""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from bench.harness import Server, launch_ready
from service.http.app import create_app
from service.http.runtime import Runtime
from tests import ROOT
from tests.live.node_tools import npm_bin
from tests.tools import (
    OPTION,
    SkippedTool,
    deselected_group,
    missing_tool,
    no_install_env,
    plain_machine,
    skip_summary,
    skipped_tool,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, action="store_true", default=False, help=(
        "skip (rather than fail) the tests whose outside tool is missing (Chromium, Node/npm, helm, podman, "
        "openssl), install none with apt, and list what was skipped at the end (make test-fast)"))


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
def chromium(pytestconfig: pytest.Config) -> str:
    """The path of Debian's chromium for the browser tests, installed by
    scripts/ensure-chromium.sh if needed (without it the tests fail, or skip under
    ``--skip-missing-tools``, which installs nothing)."""
    result = subprocess.run(["bash", str(ROOT / "scripts" / "ensure-chromium.sh")], capture_output=True,
                            text=True, timeout=900, check=False, env=no_install_env(pytestconfig))
    if result.returncode != 0:
        missing_tool(pytestconfig, "chromium", result.stderr.strip().removeprefix("ensure-chromium: "))
    return result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def node_bin(pytestconfig: pytest.Config) -> Path:
    """``node_modules/.bin`` with the locked npm tools (:func:`tests.live.node_tools.npm_bin`,
    which runs ``npm ci`` if needed): without Node and npm the test fails, or skips under
    ``--skip-missing-tools``."""
    try:
        return npm_bin()
    except RuntimeError as exc:
        missing_tool(pytestconfig, "node", str(exc))


# Numbers measured by the container test (tests/deploy/test_container.py records them as
# "deploy:<name>" user properties), printed once at the end of the run. Reports carry
# user properties across pytest-xdist workers, so this works with -n too.
_DEPLOY_NUMBERS: dict[str, object] = {}


# Tests skipped for a missing tool (tests/tools.py), by tool; reports reach the xdist
# controller too, so the summary covers every worker.
_SKIPPED_TOOLS: dict[str, SkippedTool] = {}
# Tests deselected, by why (tests/tools.py's deselected_group). Collection happens on the
# xdist workers: each sends its counts home in ``workeroutput`` (every worker collects the
# same tests), read by pytest_testnodedown on the controller.
_DESELECTED: Counter[str] = Counter()
_WORKER_KEY = "gnau_deselected"


def pytest_deselected(items: Sequence[pytest.Item]) -> None:
    _DESELECTED.update(deselected_group(item) for item in items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output[_WORKER_KEY] = dict(_DESELECTED)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    found = getattr(node, "workeroutput", {}).get(_WORKER_KEY, {})
    for group, count in found.items():
        _DESELECTED[group] = max(_DESELECTED[group], count)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, value in report.user_properties:
        if key.startswith("deploy:"):
            _DEPLOY_NUMBERS[key.removeprefix("deploy:")] = value
    if report.skipped and isinstance(report.longrepr, tuple):
        found = skipped_tool(str(report.longrepr[2]))
        if found is not None:
            seen = _SKIPPED_TOOLS.setdefault(found[0], SkippedTool(found[1]))
            seen.tests += 1
            seen.files.add(report.nodeid.split("::")[0])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if _DEPLOY_NUMBERS:
        terminalreporter.section("container test: measured")
        for key, value in _DEPLOY_NUMBERS.items():
            terminalreporter.write_line(f"{key}: {value}")
    if plain_machine(config) or _SKIPPED_TOOLS:
        terminalreporter.section("not run here: tests skipped for a missing tool, tests deselected")
        for line in skip_summary(_SKIPPED_TOOLS, _DESELECTED):
            terminalreporter.write_line(line)
