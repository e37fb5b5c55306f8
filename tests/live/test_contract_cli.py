"""The bare schemathesis CLI against a real gunicorn, as a consumer runs it (docs/api.md,
"Health and the contract"):

    st run http://127.0.0.1:PORT/openapi.yaml --checks all

from the repository root, so that schemathesis.toml (hooks for the cross-field rules, and
``GET /openapi.yaml`` selected) applies. Bounded: 15 examples per operation and phase.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.harness import ROOT
from tests.live.helpers import live_server

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("contract-cli")]

ST = Path(sys.executable).with_name("st")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[subprocess.CompletedProcess[str]]:
    """One CLI run's result."""
    work = tmp_path_factory.mktemp("st")
    # Signing with the committed test-only key, as `make run` signs with its development key:
    # schemathesis counts every 5xx as a server error, the documented 503 of receipt=true
    # without a key included.
    key = ROOT / "tests" / "keys" / "receipt-test-key.pem"
    with live_server(work / "gunicorn", env={"GNAU_RECEIPT_KEY_FILE": str(key)}) as base:
        yield subprocess.run([str(ST), "run", f"{base}/openapi.yaml", "--checks", "all", "--max-examples", "15",
                              "--no-color"], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_bare_cli_finds_no_failure(run: subprocess.CompletedProcess[str]) -> None:
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    assert "No issues found" in out, out[-3000:]
    assert re.search(r"\bfailed\b", out) is None, out[-3000:]


def test_bare_cli_tests_all_23_operations(run: subprocess.CompletedProcess[str]) -> None:
    out = run.stdout
    assert re.search(r"Configuration:\s+\S*/schemathesis\.toml", out), out[:2000]
    assert re.search(r"Selected: 23/23\s+Tested: 23\b", out), out[-3000:]  # POST /v1/showdowns (issue 25)
