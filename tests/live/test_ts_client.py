"""A TypeScript client: types generated from openapi.yaml (openapi-typescript), calls made
with openapi-fetch from ``clients/ts/client-test.ts`` against a live gunicorn.

The script must type-check (``tsc --noEmit``), then it is compiled and run with node; it
asserts real values itself (node:assert) and prints a JSON summary as its last line, which
this test checks too, so a script that stops early or skips an operation fails here.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench.harness import ROOT
from tests.live.helpers import live_server

from .node_tools import NODE_ENV

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ts-client")]

CLIENT = ROOT / "clients" / "ts"


def _run(args: list[str | Path], timeout: float = 300) -> str:
    result = subprocess.run([str(a) for a in args], cwd=ROOT, env=NODE_ENV, capture_output=True, text=True,
                            timeout=timeout, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(map(str, args))} exited {result.returncode}:\n{output}"
    return result.stdout


@pytest.fixture(scope="module")
def compiled(node_bin: Path) -> Path:
    """The types generated from openapi.yaml, the script type-checked and compiled."""
    bin_ = node_bin
    types = CLIENT / "generated" / "gnau-scoring.d.ts"
    _run([bin_ / "openapi-typescript", ROOT / "openapi.yaml", "--redocly", CLIENT / "redocly.yaml", "--output", types])
    assert "export interface paths" in types.read_text(encoding="utf-8")
    _run([bin_ / "tsc", "--noEmit", "-p", CLIENT])
    _run([bin_ / "tsc", "-p", CLIENT])
    script = CLIENT / "build" / "client-test.js"
    assert script.is_file()
    return script


@pytest.fixture(scope="module")
def summary(compiled: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The script's summary line after a run against gunicorn."""
    key = ROOT / "tests" / "keys" / "receipt-test-key.pem"  # the committed test-only key signs
    with live_server(tmp_path_factory.mktemp("ts"), env={"GNAU_RECEIPT_KEY_FILE": str(key)}) as base:
        out = _run(["node", compiled, base], timeout=120)
    data: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return data


def test_generated_types_name_every_operation(compiled: Path) -> None:
    types = (CLIENT / "generated" / "gnau-scoring.d.ts").read_text(encoding="utf-8")
    for op in ("evaluateHand", "evaluateHands", "rankHands", "settleRound", "settleShowdown", "listProfiles",
               "getProfile"):
        assert f"    {op}: {{" in types, op


def test_typescript_client_gets_real_values(summary: dict[str, Any]) -> None:
    assert summary["ok"] is True
    assert summary["operations"] == ["dealHands", "evaluateHand", "evaluateHands", "getProfile", "getReceiptKeys",
                                     "health", "listProfiles", "rankHands", "settleRound", "settleShowdown",
                                     "verifyDeal"]
    # 82 players' amounts, the dealer and every evaluation's integers are checked for
    # safety one by one, besides the named assertions.
    assert summary["checks"] > 600
