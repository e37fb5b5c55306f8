"""A web page on another origin calls ``POST /v1/evaluations`` in a real browser (Debian's
chromium, headless, driven by Playwright): the call succeeds when the operator allowed the
page's origin (``GNAU_CORS_ORIGINS``) and the browser blocks it when not.

The page is served by a small HTTP server on 127.0.0.1 at another port than gunicorn, so
its origin differs from the API's. One page server answers under two names:
``http://127.0.0.1:PORT`` (allowed) and ``http://localhost:PORT`` (not allowed), both
loopback, so no private-network rule of the browser is involved. The page's ``fetch``
sends ``Content-Type: application/json``, ``X-Request-ID`` and ``?profile=niu-niu``: a
preflighted request with a query string.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bench.harness import free_port
from tests.live.helpers import live_server

from .test_docs_browser import CHROMIUM_FLAGS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docs-browser")]

PAGE = b"""<!doctype html><html><head><meta charset="utf-8"><title>game</title></head><body><script>
window.callApi = async (base) => {
  try {
    const response = await fetch(base + "/v1/evaluations?profile=niu-niu", {
      method: "POST",
      headers: {"Content-Type": "application/json", "X-Request-ID": "browser-game-1"},
      body: JSON.stringify({hand: ["JS", "JH", "JC", "JD", "QH"]}),
    });
    return {status: response.status, requestId: response.headers.get("X-Request-ID"),
            body: await response.json()};
  } catch (error) {
    return {blocked: String(error)};
  }
};
</script></body></html>"""


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def page_port() -> Iterator[int]:
    """A port on 127.0.0.1 serving the game page."""
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def api(page_port: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn allowing the page's 127.0.0.1 origin only."""
    with live_server(tmp_path_factory.mktemp("gunicorn"),
                     env={"GNAU_CORS_ORIGINS": f"http://127.0.0.1:{page_port}"}) as base:
        yield base


def _call_from(chromium: str, profile: Path, page_url: str, api: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(profile), executable_path=chromium, headless=True,
                                                       args=CHROMIUM_FLAGS[1:])
        try:
            page = context.new_page()
            page.goto(page_url, wait_until="load")
            result: dict[str, Any] = page.evaluate("base => window.callApi(base)", api)
            return result
        finally:
            context.close()


def test_an_allowed_origin_evaluates_a_hand(chromium: str, page_port: int, api: str, tmp_path: Path) -> None:
    result = _call_from(chromium, tmp_path / "profile", f"http://127.0.0.1:{page_port}/", api)
    assert "blocked" not in result, result
    assert result["status"] == 200
    assert result["requestId"] == "browser-game-1"  # exposed to the page
    body = result["body"]
    assert (body["profile"], body["label"], body["payout"], body["ox"]) == ("niu-niu", "Bomb J", 5, None)


def test_another_origin_is_blocked(chromium: str, page_port: int, api: str, tmp_path: Path) -> None:
    result = _call_from(chromium, tmp_path / "profile", f"http://localhost:{page_port}/", api)
    assert result == {"blocked": "TypeError: Failed to fetch"}
