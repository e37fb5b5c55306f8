"""The benchmark's own pieces: its request bodies are valid requests, its echo floor echoes,
its load script and report render. (Timings are bench/'s business, never asserted here.)"""

from __future__ import annotations

import doctest
import json
import logging
from pathlib import Path

import pytest
from flask.testing import FlaskClient

import bench.common
import bench.harness
from bench import http, load
from bench.__main__ import section
from bench.common import Row
from bench.echo_app import app as echo_app
from service.http.runtime import Runtime
from service.logs import json_formatter
from tests import ROOT


def test_common_doctests() -> None:
    assert doctest.testmod(bench.common).failed == 0
    assert doctest.testmod(bench.harness).failed == 0


@pytest.mark.parametrize(("path", "body", "key", "count"), [
    ("/v1/evaluations", http.SINGLE_BODY, "label", None),
    ("/v1/evaluations/batch", http.batch_body(), "evaluations", 10_000),
    ("/v1/rankings", http.ranking_body(), "ranking", 1_000),
    ("/v1/settlements", http.settlement_body(), "players", 10),
])
def test_bench_bodies_are_valid_requests(client: FlaskClient, path: str, body: bytes, key: str,
                                         count: int | None) -> None:
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    answer = response.get_json()
    assert key in answer
    if count is not None:
        assert len(answer[key]) == count


def test_round_form_bodies_are_valid_requests(tmp_path: Path) -> None:
    """The round forms' rows (issue 25): the capped table under the bench's operator profile
    is capped, and the showdown has 10 players."""
    from service.http.app import create_app

    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(http.BANKER_PROFILES, encoding="utf-8")
    client = create_app({"TESTING": True, "PROFILES_FILE": str(profiles)}).test_client()
    capped = client.post("/v1/settlements?profile=bid-table", data=http.round_settlement_body(),
                         content_type="application/json").get_json()
    assert any(p["cap"] == "dealer_balance" for p in capped["players"])
    assert [p["factors"]["bet_multiple"] for p in capped["players"]] == [1, 2, 3, 4, 5] * 2
    showdown = client.post("/v1/showdowns?profile=standard", data=http.showdown_body(),
                           content_type="application/json").get_json()
    assert len(showdown["players"]) == 10


def test_batch_body_is_random_hands_in_random_order() -> None:
    hands = json.loads(http.batch_body(200))["hands"]
    assert len({tuple(h) for h in hands}) == 200
    assert all(len(set(h)) == 5 for h in hands)
    codes = [http.CARD_TEXTS.index(c) for h in hands for c in h]
    assert any(codes[i] > codes[i + 1] for i in range(0, len(codes), 5))  # not pre-sorted


def test_echo_app_echoes_the_same_body() -> None:
    response = echo_app.test_client().post("/echo", data=http.SINGLE_BODY, content_type="application/json")
    assert response.status_code == 200
    assert response.get_json() == json.loads(http.SINGLE_BODY)
    assert Runtime.of(echo_app).state.draining is False  # what gunicorn.conf.py's hook needs


def test_wrk_script_renders_body_and_pacing(tmp_path: Path) -> None:
    driver = load.Driver("/usr/bin/wrk", tmp_path)
    plain = driver._script(b'{"hand": ["AS"]}', 0).read_text()
    assert 'wrk.body = [==[{"hand": ["AS"]}]==]' in plain
    assert 'wrk.method = "POST"' in plain
    assert "function delay" not in plain
    assert "WRKJSON" in plain
    paced = driver._script(b"{}", 12).read_text()
    assert "function delay() return math.random(6, 18) end" in paced


def test_performance_section() -> None:
    rows = [Row("Engine", "ratio", "900x", "≥ 100x", True), Row("HTTP", "batch", "90,000 hands/s", "≥ 150,000", False)]
    where = {"CPUs (nproc)": "2", "CPU model": "Test CPU"}
    text = section(rows, where, 120.0, "wrk")
    assert text.startswith("# Performance\n")  # the page docs/performance.md, nothing else
    assert "| Engine | ratio | 900x | ≥ 100x | yes |" in text
    assert "Goals **missed** in this run: batch." in text
    assert "- CPU model: Test CPU" in text
    assert "make bench" in text
    assert "wrk was not available" not in text
    assert "wrk was not available" in section(rows, where, 120.0, "Python client")


def _access_line(pid: int) -> str:
    """An access-log line as the service writes it (service.logs), from worker ``pid``."""
    record = logging.LogRecord("gunicorn.access", logging.INFO, "", 0, "request", None, None)
    record.process, record.path = pid, "/x"
    return json_formatter().format(record) + "\n"


def test_served_by_counts_requests_per_worker(tmp_path: Path) -> None:
    log = tmp_path / "stdout.log"  # the access log
    log.write_text(_access_line(1) * 3 + _access_line(2) + '{"message": "Booting worker with pid: 3"}\n'
                   + "not json\n" + '["request"]\n')
    (tmp_path / "stderr.log").write_text('{"message": "Booting worker with pid: 3"}\n{"message": "Booting wo')
    server = bench.harness.Server(None, 0, tmp_path, {"GNAU_WORKERS": "2"})  # type: ignore[arg-type]
    assert (server.name, server.workers, server.booted_workers()) == (tmp_path.name, 2, [3])
    assert server.served_by() == [1, 3]
    assert server.served_by() == []
    with log.open("a") as f:
        f.write(_access_line(2) + _access_line(2)[:20])  # the last line is still being written
    assert server.served_by() == [1]
    with log.open("a") as f:
        f.write(_access_line(2)[20:])
    assert server.served_by() == [1]


def test_the_page_shows_the_plot_beside_it() -> None:
    """The bench writes one page, docs/performance.md (tests/test_docs.py), whose plot link is
    relative to docs/: it works on GitHub and in the docs site alike."""
    from bench.__main__ import DOC

    text = section([Row("Engine", "ratio", "900x", "≥ 100x", True)], {"CPUs (nproc)": "2"}, 1.0, "wrk")
    assert "![Time per request against work](cost-curves.png)" in text
    assert DOC == ROOT / "docs" / "performance.md"
    assert (DOC.parent / "cost-curves.png").exists()


def test_cost_curve_slopes_and_plot(tmp_path: Path) -> None:
    from bench.curves import Curve, plot, rows

    linear = Curve("batch", "hands", [10, 100, 1000, 10000], [1.0, 10.0, 100.0, 1000.0])
    fixed = Curve("settlement", "players", [1, 10, 82], [2.0, 2.0, 2.0])
    odds = Curve("odds", "known cards", [5], [3.0])
    assert abs(linear.slope - 1.0) < 1e-9
    assert fixed.slope == 0.0
    table = rows([linear, fixed, odds])
    assert "slope 1.00 (linear)" in table[0].result
    assert "slope 0.00 (sub-linear)" in table[1].result
    assert table[2].result == "5 known cards: 3.0 ms"
    path = plot([linear, fixed, odds], tmp_path / "curves.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("kind", ["batch", "ranking", "settlement", "odds"])
def test_cost_curve_bodies_are_valid_requests(client: FlaskClient, kind: str) -> None:
    from bench.curves import KINDS, bodies

    [(path, sizes)] = [(p, s) for name, p, _, s in KINDS if name == kind]
    body = bodies()[kind](max(s for s in sizes if s <= 5 or kind != "odds"))
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 200, response.get_json()
