"""The API reference page in a real browser: Debian's chromium, headless, against gunicorn.

``scripts/ensure-chromium.sh`` installs chromium when it is missing (CI runs as root with
apt); if it cannot, these tests fail rather than skip. One test reads the rendered page
with ``chromium --dump-dom``; the other drives the page with Playwright (the PyPI package,
pointed at the Debian browser: no browser download) and runs "Try it out" on
``POST /v1/evaluations``.

Regenerate the screenshots of docs/clients.md with ``GNAU_UPDATE_SCREENSHOTS=1`` (they go to docs/).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from bench.harness import ROOT
from tests.live.helpers import live_server

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docs-browser")]

#: The flags every chromium run here uses (with a fresh --user-data-dir).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync"]
UPDATE_SCREENSHOTS = os.environ.get("GNAU_UPDATE_SCREENSHOTS") == "1"


def _operations() -> list[tuple[str, str, str]]:
    """Every operation of openapi.yaml as ``(first tag, operationId, summary)``."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    return [(op["tags"][0], op["operationId"], op["summary"])
            for path in spec["paths"].values() for op in path.values()]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A gunicorn server on a free 127.0.0.1 port, for this module."""
    with live_server(tmp_path_factory.mktemp("gunicorn")) as base:
        yield base


def test_dump_dom_renders_every_operation(chromium: str, server: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000",
         "--dump-dom", f"{server}/"],
        capture_output=True, text=True, timeout=120, check=False)
    dom = result.stdout
    assert result.returncode == 0, result.stderr[-2000:]
    assert "<title>Gnau scoring service: API reference</title>" in dom
    ids = re.findall(r'id="operations-(?!tag-)([a-z]+)-([A-Za-z]+)"', dom)  # not the tag sections
    expected = _operations()
    assert sorted(ids) == sorted((tag, op_id) for tag, op_id, _ in expected)
    for _, op_id, summary in expected:
        assert op_id in dom
        assert summary in dom


def test_try_it_out_evaluates_a_hand(chromium: str, server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=chromium, headless=True,
            args=CHROMIUM_FLAGS[1:], viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(f"{server}/", wait_until="load")
            assert page.url == f"{server}/docs"  # the root redirects to the reference
            op = page.locator("#operations-scoring-evaluateHand")
            op.wait_for(timeout=30_000)
            assert page.locator(".opblock").count() == len(_operations())
            if UPDATE_SCREENSHOTS:
                page.screenshot(path=str(ROOT / "docs" / "docs-page.png"), full_page=True)

            op.locator(".opblock-summary").click()
            op.locator("button.try-out__btn").click()
            op.locator("textarea.body-param__text").fill(
                json.dumps({"hand": ["10S", "7H", "3D", "KC", "7D"], "decks": 1}))
            op.locator("button.execute").click()
            live = op.locator(".live-responses-table")
            live.wait_for(timeout=30_000)

            # the UI fills each query parameter's example (openapi.yaml): English labels
            assert op.locator(".request-url pre").inner_text() == f"{server}/v1/evaluations?profile=standard&lang=en"
            assert live.locator("tr.response td.response-col_status").inner_text().strip() == "200"
            body = json.loads(live.locator("tr.response td.response-col_description pre").first.inner_text())
            assert body["label"] == "Single-Ox 0"  # RULES.md section 8: the 3 counts as 6
            assert body["ox"] == {"cards": ["7H", "3D", "7D"], "points": [7, 6, 7]}
            assert body["power"] == {"cards": ["10S", "KC"], "points": [10, 10]}
            assert body["payout"] == 1
            if UPDATE_SCREENSHOTS:  # the operation from its title down to the server's response
                box = op.evaluate("(el, live) => { const a = el.getBoundingClientRect(), "
                                  "b = live.getBoundingClientRect(); return {x: a.left + scrollX, "
                                  "y: a.top + scrollY, width: a.width, height: b.bottom - a.top}; }",
                                  live.element_handle())
                page.screenshot(path=str(ROOT / "docs" / "docs-try-it-out.png"), full_page=True, clip=box)
        finally:
            context.close()
